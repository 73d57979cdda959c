//! The Rerun side (feature `rerun`): each [`ViewItem`] logged as Rerun archetypes on two
//! timelines, `device` (the device time it rests on) and `processing` (the host time it was
//! known at). Entity paths:
//!
//! ```text
//! world                      right-handed, z up (the world frame of the pose)
//! world/device               the device pose (T_world_device; the consumer offers 30 a second)
//! world/device/cpf           the central pupil frame (static)
//! world/device/cpf/gaze      the eye-gaze ray (to its vergence depth, else 1.5 m)
//! world/device/hands         wrists and palms
//! world/trajectory           the head's path (the last 2,000 positions, 10 a second)
//! world/map                  the static point map (static)
//! world/live_map             the live map built from stereo depth (once a second)
//! world/depth                each stereo depth frame's points that passed the filter
//! world/things               tracked things: kind, class, id; world/things/velocity
//! world/corridor             the walking corridor's clear length ahead, at head height
//! world/hazards              each hazard raised, where its thing was
//! cameras/<stream>           camera frames: JPEG and PNG as recorded; H.265 key frames and raw
//!                            pixels decoded and kept as JPEG (twice a second)
//! cameras/camera-rgb/text    text read (OCR boxes, with the text)
//! cameras/camera-rgb/objects the object detector's boxes (class, confidence)
//! cameras/camera-rgb/gaze    where the wearer looks in the RGB image
//! state/text                 the state as the language model reads it
//! state/clear_*_m            clear distances ahead, left and right
//! events/hazards, events/requests, events/decisions, speech
//! truth/hazards, truth/windows   the session's ground truth, when it has one
//! ```

use std::collections::HashMap;

use nalgebra::{Isometry3, Vector3};
use rerun::{RecordingStream, RecordingStreamBuilder};

use super::item::{Stamp, TruthMark, ViewItem};
use super::{ViewError, ViewTarget};
use crate::sample::ImageEncoding;
use crate::state::{EnvironmentState, ThingKind};

/// The JPEG quality frames decoded for the recording are kept at.
const JPEG_QUALITY: u8 = 80;

/// The trajectory keeps a position this often…
const TRAJECTORY_EVERY_NS: i64 = 100_000_000;
/// …up to this many, and is logged again at most this often.
const TRAJECTORY_POINTS: usize = 2_000;
const TRAJECTORY_LOG_EVERY_NS: i64 = 500_000_000;
/// A gaze ray without a depth is drawn this long, m.
const GAZE_DEFAULT_M: f32 = 1.5;
/// The walking corridor's width, m (perception's default).
const CORRIDOR_WIDTH_M: f64 = 0.7;
/// The point map is thinned to at most this many points.
const MAP_POINTS: usize = 200_000;
/// A thing's velocity is taken over at least this long, ns.
const VELOCITY_SPAN_NS: i64 = 200_000_000;
/// Detector boxes older than this (device time) are not drawn on the newest frame, ns.
const BOX_AGE_NS: i64 = 600_000_000;

/// Logs items to a Rerun recording.
pub struct RerunWriter {
    rec: RecordingStream,
    device_from_cpf: Isometry3<f64>,
    pose: Option<Isometry3<f64>>,
    trajectory: Vec<[f32; 3]>,
    last_kept_ns: i64,
    last_trajectory_log_ns: i64,
    /// Per thing id: where and when it was first seen in its current velocity span.
    tracks: HashMap<u32, (i64, [f32; 3])>,
}

impl std::fmt::Debug for RerunWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RerunWriter").finish_non_exhaustive()
    }
}

impl RerunWriter {
    /// Opens `target`: a file is created now (an unwritable path fails here, named); a viewer
    /// is connected to in the background (one that is not running costs a warning, not the
    /// run).
    pub fn open(target: &ViewTarget, application: &'static str) -> Result<Self, ViewError> {
        let builder = RecordingStreamBuilder::new(application);
        let rec = match target {
            ViewTarget::File(path) => builder.save(path).map_err(|e| ViewError::Open {
                target: path.display().to_string(),
                reason: e.to_string(),
            })?,
            ViewTarget::Connect(addr) => {
                let url = if addr.contains("://") {
                    addr.clone()
                } else {
                    format!("rerun+http://{addr}/proxy")
                };
                let uri: rerun::external::re_uri::ProxyUri =
                    url.parse()
                        .map_err(|e: rerun::external::re_uri::Error| ViewError::Open {
                            target: url.clone(),
                            reason: e.to_string(),
                        })?;
                let rec = builder.buffered().map_err(|e| ViewError::Open {
                    target: url.clone(),
                    reason: e.to_string(),
                })?;
                rec.set_sink(Box::new(ViewerSink::connect(uri, url)));
                rec
            }
        };
        let w = Self {
            rec,
            device_from_cpf: Isometry3::identity(),
            pose: None,
            trajectory: Vec::new(),
            last_kept_ns: i64::MIN,
            last_trajectory_log_ns: i64::MIN,
            tracks: HashMap::new(),
        };
        w.log_static("world", &rerun::ViewCoordinates::RIGHT_HAND_Z_UP());
        Ok(w)
    }

    /// Logs one item. A failure to log is counted by the caller, never fatal.
    pub fn write(&mut self, item: ViewItem) -> Result<(), rerun::RecordingStreamError> {
        match item {
            ViewItem::Start {
                label,
                device_from_cpf,
            } => {
                self.device_from_cpf = device_from_cpf.unwrap_or_else(Isometry3::identity);
                self.rec
                    .log_static("world/device/cpf", &transform(&self.device_from_cpf))?;
                self.rec
                    .log_static("session", &rerun::TextDocument::new(label))?;
            }
            ViewItem::Image {
                stamp,
                stream,
                frame,
            } => {
                self.at(stamp);
                let path = format!("cameras/{}", stream.name());
                match frame.encoding {
                    ImageEncoding::Jpeg | ImageEncoding::Png => {
                        let media = if frame.encoding == ImageEncoding::Png {
                            rerun::MediaType::PNG
                        } else {
                            rerun::MediaType::JPEG
                        };
                        self.rec.log(
                            path,
                            &rerun::EncodedImage::new(frame.data.to_vec()).with_media_type(media),
                        )?;
                    }
                    ImageEncoding::Hevc { .. } | ImageEncoding::Raw { .. } => {
                        // Decoded here (an H.265 key frame alone; raw pixels as they are) and
                        // kept as JPEG, never as a decoded copy; a frame that does not decode
                        // is left out.
                        let Ok(img) = crate::aria::recording::image::decode_image(&frame) else {
                            return Ok(());
                        };
                        let Some(jpeg) = jpeg(&img) else {
                            return Ok(());
                        };
                        self.rec.log(
                            path,
                            &rerun::EncodedImage::new(jpeg).with_media_type(rerun::MediaType::JPEG),
                        )?;
                    }
                }
            }
            ViewItem::Pose {
                stamp,
                world_from_device,
                quality,
            } => self.pose(stamp, world_from_device, quality)?,
            ViewItem::Gaze {
                stamp,
                yaw_pitch_rad: [yaw, pitch],
                depth_m,
            } => {
                self.at(stamp);
                // Aria's gaze ray in the CPF: (tan yaw, tan pitch, 1), normalised.
                let d = Vector3::new(yaw.tan(), pitch.tan(), 1.0).normalize()
                    * depth_m.unwrap_or(GAZE_DEFAULT_M);
                self.rec.log(
                    "world/device/cpf/gaze",
                    &rerun::Arrows3D::from_vectors([[d.x, d.y, d.z]])
                        .with_colors([rerun::Color::from_rgb(80, 200, 255)]),
                )?;
            }
            ViewItem::Hands { stamp, hands } => {
                self.at(stamp);
                let mut pts = Vec::new();
                let mut labels = Vec::new();
                for (side, h) in [("left", hands.left), ("right", hands.right)] {
                    if let Some(h) = h {
                        pts.push(h.wrist_m);
                        labels.push(format!("{side} wrist"));
                        pts.push(h.palm_m);
                        labels.push(format!("{side} palm"));
                    }
                }
                self.rec.log(
                    "world/device/hands",
                    &rerun::Points3D::new(pts)
                        .with_labels(labels)
                        .with_radii([0.02]),
                )?;
            }
            ViewItem::State { stamp, state, text } => self.state(stamp, &state, text)?,
            ViewItem::Hazard { stamp, event } => {
                self.at(stamp);
                let t = &event.thing;
                let ttc = event
                    .time_to_contact_s
                    .map(|s| format!(", {s:.1} s to contact"))
                    .unwrap_or_default();
                self.rec.log(
                    "events/hazards",
                    &rerun::TextLog::new(format!(
                        "#{} {} at {} o'clock, {:.1} m{ttc}",
                        t.id,
                        t.label,
                        t.clock.get(),
                        t.distance_m
                    ))
                    .with_level(rerun::TextLogLevel::WARN),
                )?;
                if let Some(p) = t.world_m {
                    self.rec.log(
                        "world/hazards",
                        &rerun::Points3D::new([p])
                            .with_labels([t.label.clone()])
                            .with_colors([rerun::Color::from_rgb(255, 40, 40)])
                            .with_radii([0.15]),
                    )?;
                }
            }
            ViewItem::Decision { stamp, decision } => {
                self.at(stamp);
                if let Some((form, text)) = &decision.request {
                    self.rec.log(
                        "events/requests",
                        &rerun::TextLog::new(format!("{form}: {text}"))
                            .with_level(rerun::TextLogLevel::INFO),
                    )?;
                }
                let kind = match decision.kind {
                    crate::state::DecisionKind::Alert => "alert",
                    crate::state::DecisionKind::Answer => "answer",
                    crate::state::DecisionKind::Ambient => "ambient",
                };
                let ask = decision
                    .ask
                    .as_ref()
                    .map(|a| format!(" [{a}]"))
                    .unwrap_or_default();
                self.rec.log(
                    "events/decisions",
                    &rerun::TextLog::new(format!(
                        "{kind} ({}){ask}: {}",
                        decision.generator, decision.text
                    ))
                    .with_level(if kind == "alert" {
                        rerun::TextLogLevel::WARN
                    } else {
                        rerun::TextLogLevel::INFO
                    }),
                )?;
            }
            ViewItem::Spoken { stamp, entry } => {
                self.at(stamp);
                let how = match (&entry.dropped, entry.interrupted) {
                    (Some(r), _) => format!(" (dropped unspoken: {r:?})"),
                    (None, true) => " (cut off)".to_string(),
                    (None, false) => String::new(),
                };
                let level = match entry.priority {
                    crate::speech::queue::Priority::Alert => rerun::TextLogLevel::WARN,
                    _ => rerun::TextLogLevel::INFO,
                };
                self.rec.log(
                    "speech",
                    &rerun::TextLog::new(format!("{}{how}", entry.text)).with_level(level),
                )?;
            }
            ViewItem::Depth {
                stamp,
                kept,
                live_map,
            } => {
                self.at(stamp);
                self.rec.log(
                    "world/depth",
                    &rerun::Points3D::new(kept)
                        .with_radii([0.02])
                        .with_colors([rerun::Color::from_rgb(0, 255, 200)]),
                )?;
                if let Some(map) = live_map {
                    let step = map.len().div_ceil(MAP_POINTS).max(1);
                    let pts: Vec<[f32; 3]> =
                        map.points().iter().step_by(step).map(|p| p.p).collect();
                    self.rec.log(
                        "world/live_map",
                        &rerun::Points3D::new(pts)
                            .with_radii([0.015])
                            .with_colors([rerun::Color::from_rgb(120, 180, 255)]),
                    )?;
                }
            }
            ViewItem::PointMap { points } => {
                let step = points.len().div_ceil(MAP_POINTS).max(1);
                let kept: Vec<[f32; 3]> = points.into_iter().step_by(step).collect();
                self.rec.log_static(
                    "world/map",
                    &rerun::Points3D::new(kept)
                        .with_radii([0.01])
                        .with_colors([rerun::Color::from_rgb(150, 150, 150)]),
                )?;
            }
            ViewItem::Truth { hazards } => self.truth(&hazards)?,
        }
        Ok(())
    }

    /// Flushes what is buffered (bounded: a viewer that went away does not hold the run's
    /// end for long).
    pub fn finish(self) {
        if let Err(e) = self
            .rec
            .flush_with_timeout(std::time::Duration::from_secs(5))
        {
            log::warn!("rerun: flushing at the end: {e}");
        }
    }

    fn log_static(&self, path: &str, a: &impl rerun::AsComponents) {
        if let Err(e) = self.rec.log_static(path, a) {
            log::warn!("rerun: {path}: {e}");
        }
    }

    /// Sets both timelines.
    fn at(&self, s: Stamp) {
        self.rec
            .set_time("device", rerun::TimeCell::from_duration_nanos(s.device_ns));
        self.rec.set_time(
            "processing",
            rerun::TimeCell::from_duration_nanos(s.host_ns),
        );
    }

    fn pose(
        &mut self,
        stamp: Stamp,
        world_from_device: Isometry3<f64>,
        quality: f32,
    ) -> Result<(), rerun::RecordingStreamError> {
        self.pose = Some(world_from_device);
        let ns = stamp.device_ns;
        self.at(stamp);
        self.rec
            .log("world/device", &transform(&world_from_device))?;
        self.rec.log(
            "state/pose_quality",
            &rerun::Scalars::single(f64::from(quality)),
        )?;
        if self.last_kept_ns == i64::MIN
            || ns - self.last_kept_ns >= TRAJECTORY_EVERY_NS
            || ns < self.last_kept_ns
        {
            self.last_kept_ns = ns;
            let t = world_from_device.translation.vector;
            if self.trajectory.len() >= TRAJECTORY_POINTS {
                self.trajectory.remove(0);
            }
            self.trajectory.push([t.x as f32, t.y as f32, t.z as f32]);
        }
        if self.last_trajectory_log_ns == i64::MIN
            || ns - self.last_trajectory_log_ns >= TRAJECTORY_LOG_EVERY_NS
            || ns < self.last_trajectory_log_ns
        {
            self.last_trajectory_log_ns = ns;
            self.rec.log(
                "world/trajectory",
                &rerun::LineStrips3D::new([self.trajectory.clone()])
                    .with_colors([rerun::Color::from_rgb(255, 200, 0)]),
            )?;
        }
        Ok(())
    }

    fn state(
        &mut self,
        stamp: Stamp,
        s: &EnvironmentState,
        text: Option<String>,
    ) -> Result<(), rerun::RecordingStreamError> {
        self.at(stamp);
        let now = s.at.ns();
        // Things: where they are in the world, what they are, how fast they move.
        let mut pts = Vec::new();
        let mut labels = Vec::new();
        let mut colors = Vec::new();
        let mut radii = Vec::new();
        let mut origins = Vec::new();
        let mut vectors = Vec::new();
        let mut seen = Vec::new();
        for t in &s.things {
            let Some(p) = t.world_m else { continue };
            seen.push(t.id);
            let class = t
                .class
                .map(|c| format!(" ({})", c.coco_name()))
                .unwrap_or_default();
            let looked = s.gaze.as_ref().is_some_and(|g| g.target == Some(t.id));
            pts.push(p);
            labels.push(format!(
                "#{} {}{class}{}",
                t.id,
                t.label,
                if looked { " (looked at)" } else { "" }
            ));
            colors.push(kind_colour(t.kind));
            radii.push(if t.in_path { 0.12 } else { 0.07 });
            let entry = self.tracks.entry(t.id).or_insert((now, p));
            let dt = now - entry.0;
            if dt >= VELOCITY_SPAN_NS {
                let s_ = dt as f32 * 1e-9;
                let v = [
                    (p[0] - entry.1[0]) / s_,
                    (p[1] - entry.1[1]) / s_,
                    (p[2] - entry.1[2]) / s_,
                ];
                if v.iter().map(|c| c * c).sum::<f32>() > 0.04 {
                    origins.push(p);
                    vectors.push(v);
                }
                *entry = (now, p);
            }
        }
        self.tracks.retain(|id, _| seen.contains(id));
        self.rec.log(
            "world/things",
            &rerun::Points3D::new(pts)
                .with_labels(labels)
                .with_colors(colors)
                .with_radii(radii),
        )?;
        self.rec.log(
            "world/things/velocity",
            &rerun::Arrows3D::from_vectors(vectors).with_origins(origins),
        )?;
        // The corridor, along the head's heading, from the newest pose.
        if let (Some(w), Some(pose)) = (&s.walkable, self.pose) {
            self.rec.log(
                "state/clear_ahead_m",
                &rerun::Scalars::single(f64::from(w.clear_ahead_m)),
            )?;
            self.rec.log(
                "state/clear_left_m",
                &rerun::Scalars::single(f64::from(w.clear_left_m)),
            )?;
            self.rec.log(
                "state/clear_right_m",
                &rerun::Scalars::single(f64::from(w.clear_right_m)),
            )?;
            let cpf = pose * self.device_from_cpf;
            let fwd = cpf.rotation * Vector3::z();
            let flat = Vector3::new(fwd.x, fwd.y, 0.0);
            if flat.norm() > 1e-3 {
                let f = flat.normalize();
                let side = Vector3::new(-f.y, f.x, 0.0) * (CORRIDOR_WIDTH_M / 2.0);
                let o = cpf.translation.vector;
                let ahead = f * f64::from(w.clear_ahead_m);
                let c = |v: Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];
                let strip = vec![
                    c(o + side),
                    c(o + side + ahead),
                    c(o - side + ahead),
                    c(o - side),
                    c(o + side),
                ];
                self.rec.log(
                    "world/corridor",
                    &rerun::LineStrips3D::new([strip])
                        .with_colors([rerun::Color::from_rgb(60, 220, 90)]),
                )?;
            }
        }
        // What was read and seen in the RGB camera.
        let (mut mins, mut sizes, mut tl) = (Vec::new(), Vec::new(), Vec::new());
        for t in s.texts.iter().filter(|t| now - t.at.ns() <= BOX_AGE_NS) {
            let b = t.rgb_box;
            mins.push([b[0], b[1]]);
            sizes.push([b[2] - b[0], b[3] - b[1]]);
            tl.push(t.text.clone());
        }
        self.rec.log(
            "cameras/camera-rgb/text",
            &rerun::Boxes2D::from_mins_and_sizes(mins, sizes)
                .with_labels(tl)
                .with_colors([rerun::Color::from_rgb(255, 255, 0)]),
        )?;
        let (mut mins, mut sizes, mut ol) = (Vec::new(), Vec::new(), Vec::new());
        for o in s.objects.iter().filter(|o| now - o.at.ns() <= BOX_AGE_NS) {
            let b = o.rgb_box;
            mins.push([b[0], b[1]]);
            sizes.push([b[2] - b[0], b[3] - b[1]]);
            ol.push(format!(
                "{} {:.0} %",
                o.class.coco_name(),
                o.confidence * 100.0
            ));
        }
        self.rec.log(
            "cameras/camera-rgb/objects",
            &rerun::Boxes2D::from_mins_and_sizes(mins, sizes)
                .with_labels(ol)
                .with_colors([rerun::Color::from_rgb(0, 200, 255)]),
        )?;
        let gaze_px: Vec<[f32; 2]> = s.gaze.iter().filter_map(|g| g.rgb_pixel).collect();
        self.rec.log(
            "cameras/camera-rgb/gaze",
            &rerun::Points2D::new(gaze_px)
                .with_radii([12.0])
                .with_colors([rerun::Color::from_rgb(80, 200, 255)]),
        )?;
        if let Some(text) = text {
            self.rec
                .log("state/text", &rerun::TextDocument::new(text))?;
        }
        Ok(())
    }

    fn truth(&mut self, hazards: &[TruthMark]) -> Result<(), rerun::RecordingStreamError> {
        let pts: Vec<[f32; 3]> = hazards
            .iter()
            .map(|h| h.position_m.map(|c| c as f32))
            .collect();
        let labels: Vec<String> = hazards
            .iter()
            .map(|h| format!("{} ({})", h.label, h.kind))
            .collect();
        self.rec.log_static(
            "truth/hazards",
            &rerun::Points3D::new(pts)
                .with_labels(labels)
                .with_colors([rerun::Color::from_unmultiplied_rgba(255, 0, 255, 160)])
                .with_radii([0.2]),
        )?;
        for h in hazards {
            for (ns, what) in [
                (h.window_ns.0, "alert due"),
                (h.window_ns.1, "latest alert"),
            ] {
                if let Some(ns) = ns {
                    self.rec
                        .set_time("device", rerun::TimeCell::from_duration_nanos(ns));
                    self.rec.log(
                        "truth/windows",
                        &rerun::TextLog::new(format!("{what}: {} ({})", h.label, h.kind)),
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// A decoded frame as JPEG (`None` when the encoder refuses it: a size beyond JPEG's).
fn jpeg(img: &crate::aria::recording::image::DecodedImage) -> Option<Vec<u8>> {
    let colour = match img.channels {
        1 => jpeg_encoder::ColorType::Luma,
        3 => jpeg_encoder::ColorType::Rgb,
        _ => return None,
    };
    let (w, h) = (
        u16::try_from(img.width).ok()?,
        u16::try_from(img.height).ok()?,
    );
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
        .encode(&img.pixels, w, h, colour)
        .ok()?;
    Some(out)
}

/// A pose as a Rerun transform (parent from child).
fn transform(p: &Isometry3<f64>) -> rerun::Transform3D {
    let t = p.translation.vector;
    let q = p.rotation.coords;
    rerun::Transform3D::from_translation_rotation(
        [t.x as f32, t.y as f32, t.z as f32],
        rerun::Quaternion::from_xyzw([q.x as f32, q.y as f32, q.z as f32, q.w as f32]),
    )
}

/// A colour per kind of thing.
fn kind_colour(k: ThingKind) -> rerun::Color {
    let (r, g, b) = match k {
        ThingKind::Obstacle => (255, 140, 0),
        ThingKind::Overhead => (255, 90, 200),
        ThingKind::DropOff => (200, 0, 0),
        ThingKind::StepUp => (230, 200, 0),
        ThingKind::Door => (0, 200, 120),
        ThingKind::Text => (255, 255, 255),
        ThingKind::Person => (0, 150, 255),
        ThingKind::Vehicle => (255, 30, 30),
        ThingKind::Object => (170, 120, 255),
    };
    rerun::Color::from_rgb(r, g, b)
}

/// How long a run waits at its start for a viewer to accept the connection.
const VIEWER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// A viewer's gRPC sink that never holds the run: messages go through while the viewer is
/// connected; a viewer that was not there at the start, or went away, gets nothing more
/// (one warning), where Rerun's own sink would wait for it.
struct ViewerSink {
    inner: rerun::sink::GrpcSink,
    url: String,
    connected_at_start: bool,
    warned: std::sync::atomic::AtomicBool,
}

impl ViewerSink {
    /// Connects to `uri`, waiting up to [`VIEWER_WAIT`] for the viewer.
    fn connect(uri: rerun::external::re_uri::ProxyUri, url: String) -> Self {
        let inner = rerun::sink::GrpcSink::new(uri);
        let t0 = std::time::Instant::now();
        let mut connected = false;
        while t0.elapsed() < VIEWER_WAIT {
            match inner.status() {
                rerun::sink::GrpcSinkConnectionState::Connected => {
                    connected = true;
                    break;
                }
                rerun::sink::GrpcSinkConnectionState::Disconnected(_) => break,
                rerun::sink::GrpcSinkConnectionState::Connecting { .. } => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
        }
        if !connected {
            log::warn!(
                "rerun: no viewer at {url} (start one with `rerun`); the run goes on without it"
            );
        }
        Self {
            inner,
            url,
            connected_at_start: connected,
            warned: std::sync::atomic::AtomicBool::new(!connected),
        }
    }

    fn live(&self) -> bool {
        let up = self.connected_at_start
            && matches!(
                self.inner.status(),
                rerun::sink::GrpcSinkConnectionState::Connected
            );
        if !up && !self.warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
            log::warn!(
                "rerun: the viewer at {} went away; the run goes on without it",
                self.url
            );
        }
        up
    }
}

impl rerun::sink::LogSink for ViewerSink {
    fn send(&self, msg: rerun::log::LogMsg) {
        if self.live() {
            self.inner.send(msg);
        }
    }

    fn flush_blocking(
        &self,
        timeout: std::time::Duration,
    ) -> Result<(), rerun::sink::SinkFlushError> {
        if self.live() {
            self.inner.flush_blocking(timeout)
        } else {
            Ok(())
        }
    }

    fn default_batcher_config(&self) -> rerun::log::ChunkBatcherConfig {
        rerun::log::ChunkBatcherConfig::LOW_LATENCY
    }
}
