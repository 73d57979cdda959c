//! [`MoverInput`]: the SLAM cameras as a motion detector, an input to perception. Each
//! SLAM frame (at most every [`MoverConfig::period_ns`] per camera) is decoded, averaged
//! to a coarse image and kept with the device pose at its capture time (interpolated
//! between the `device-pose` samples around it; a frame waits, bounded, for the pose
//! after it). Against the frames 0.2 s and 0.4 s before it, with the head's rotation
//! between them taken out ([`super::change`]), its moving regions are found
//! ([`super::blobs`]) while the head has stayed put (within
//! [`MoverConfig::max_head_move_m`]: translation would make near things shift by
//! parallax). [`MoverInput::poll`] places them on the floor ([`super::place`]) for
//! perception's [`super::track::MoverTracker`]. Runs inline (a few ms per frame);
//! every frame offered is accounted in [`MoverStats`].

use std::collections::VecDeque;

use nalgebra::{Isometry3, Rotation3};
use serde::Serialize;

use super::blobs::{find_blobs, Blob};
use super::change::{change_mask, exposure_gain, ChangeConfig, Reference};
use super::coarse::{CoarseImage, RayGrid};
use super::place::{place, PlaceConfig, Sighting};
use crate::aria::calib::{CameraCalibration, DeviceCalibration};
use crate::aria::recording::image::decode_image;
use crate::perception::depth_input::{keep_pose, pose_at_time, PoseAt, POSE_MATCH_NS};
use crate::perception::stereo::stage::pair_labels;
use crate::sample::{Payload, Sample, StreamId};

/// Frames waiting for their pose, per camera, at most.
const PENDING_CAP: usize = 4;
/// Frames kept as references, per camera.
const HISTORY_CAP: usize = 8;
/// Detections waiting for [`MoverInput::poll`], at most (older ones are dropped, counted).
const DETECTIONS_CAP: usize = 32;

/// Settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoverConfig {
    /// Block size of the coarse images, px.
    pub block: usize,
    /// A camera's frames are looked at most this often, ns (10 Hz).
    pub period_ns: i64,
    /// How far back the two reference frames are, ns.
    pub reference_ns: [i64; 2],
    /// A reference may be this far from where it is wanted, ns.
    pub reference_slack_ns: i64,
    /// The head may have moved at most this far since a reference, m.
    pub max_head_move_m: f64,
    /// Smallest moving region, coarse pixels.
    pub min_blob_pixels: usize,
    /// Moving regions kept per frame (the largest).
    pub max_blobs: usize,
    /// A frame in which more than this share of the compared pixels changed is not
    /// motion on the ground but something else (a hand over the lens, a light switched,
    /// a pose far off): nothing is detected in it.
    pub max_changed_share: f64,
    /// What counts as a change.
    pub change: ChangeConfig,
    /// Where regions are placed.
    pub place: PlaceConfig,
}

impl Default for MoverConfig {
    fn default() -> Self {
        Self {
            block: 2,
            period_ns: 100_000_000,
            reference_ns: [200_000_000, 400_000_000],
            reference_slack_ns: 60_000_000,
            max_head_move_m: 0.15,
            min_blob_pixels: 4,
            max_blobs: 8,
            max_changed_share: 0.25,
            change: ChangeConfig::default(),
            place: PlaceConfig::default(),
        }
    }
}

/// Counts of a [`MoverInput`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MoverStats {
    /// SLAM frames offered.
    pub frames: u64,
    /// Skipped by the rate limit.
    pub throttled: u64,
    /// Refused (not decodable, not greyscale, wrong size).
    pub failed: u64,
    /// Without a pose near their capture time.
    pub unposed: u64,
    /// Dropped while waiting for a pose (more than [`PENDING_CAP`] waiting).
    pub dropped_pending: u64,
    /// Compared with their references.
    pub compared: u64,
    /// Not compared: no reference frames yet.
    pub no_reference: u64,
    /// Not compared: the head moved too far since the references.
    pub head_moved: u64,
    /// Compared, but too much of it changed (see [`MoverConfig::max_changed_share`]).
    pub changed_too_much: u64,
    /// Moving regions found.
    pub regions: u64,
    /// Detections dropped because [`MoverInput::poll`] did not come.
    pub dropped_detections: u64,
}

struct Camera {
    calib: CameraCalibration,
    grid: RayGrid,
    /// Frames waiting for the pose after them, with their exposure × gain.
    pending: VecDeque<(i64, CoarseImage, f32)>,
    /// Posed frames: capture time, image, `T_world_camera`, exposure × gain.
    history: VecDeque<(i64, CoarseImage, Isometry3<f64>, f32)>,
    last_ns: Option<i64>,
}

/// Moving regions of one frame, before placement.
#[derive(Clone, Debug)]
pub struct Detection {
    /// Capture time, device ns.
    pub capture_ns: i64,
    /// Camera index (0 left, 1 right).
    pub camera: u8,
    /// `T_world_camera` at capture.
    pub t_world_camera: Isometry3<f64>,
    /// The regions.
    pub blobs: Vec<Blob>,
}

/// The SLAM cameras as a motion detector; see the module documentation.
pub struct MoverInput {
    cfg: MoverConfig,
    cams: Vec<Camera>,
    poses: VecDeque<(i64, Isometry3<f64>)>,
    newest_ns: Option<i64>,
    detections: VecDeque<Detection>,
    stats: MoverStats,
    mask: Vec<bool>,
    labels: Vec<u32>,
    warned: bool,
}

impl std::fmt::Debug for MoverInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MoverInput")
            .field("stats", &self.stats)
            .finish()
    }
}

/// Why a [`MoverInput`] cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MoverError {
    /// The calibration lacks a SLAM camera.
    #[error("the calibration has no {0} camera")]
    MissingCamera(String),
    /// The block size does not fit the camera.
    #[error("block size {block} does not fit the {label} camera's image")]
    BadBlock {
        /// Camera label.
        label: String,
        /// Block size.
        block: usize,
    },
}

impl MoverInput {
    /// Motion detection on the stereo pair of `calib` (the `camera-slam-left` and
    /// `camera-slam-right` streams; calibrated for the recorded image size).
    pub fn new(calib: &DeviceCalibration, cfg: MoverConfig) -> Result<Self, MoverError> {
        let mut cams = Vec::with_capacity(2);
        let (left, right) = pair_labels(calib);
        for label in [left.as_str(), right.as_str()] {
            let c = calib
                .camera(label)
                .ok_or_else(|| MoverError::MissingCamera(label.to_string()))?;
            let grid = RayGrid::new(c, cfg.block).ok_or_else(|| MoverError::BadBlock {
                label: label.to_string(),
                block: cfg.block,
            })?;
            cams.push(Camera {
                calib: c.clone(),
                grid,
                pending: VecDeque::with_capacity(PENDING_CAP),
                history: VecDeque::with_capacity(HISTORY_CAP),
                last_ns: None,
            });
        }
        Ok(Self {
            cfg,
            cams,
            poses: VecDeque::with_capacity(256),
            newest_ns: None,
            detections: VecDeque::with_capacity(DETECTIONS_CAP),
            stats: MoverStats::default(),
            mask: Vec::new(),
            labels: Vec::new(),
            warned: false,
        })
    }

    /// The streams this input reads.
    pub fn wants(stream: StreamId) -> bool {
        matches!(
            stream,
            StreamId::CameraSlamLeft | StreamId::CameraSlamRight | StreamId::DevicePose
        )
    }

    /// Counters so far.
    pub fn stats(&self) -> MoverStats {
        self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &MoverConfig {
        &self.cfg
    }

    /// Folds in one sample: poses are kept, SLAM frames decoded and (once their pose is
    /// known) compared with their references.
    pub fn on_sample(&mut self, s: &Sample) {
        let t = s.capture.ns();
        self.newest_ns = Some(self.newest_ns.map_or(t, |n| n.max(t)));
        match (&s.payload, s.stream) {
            (Payload::Pose(p), _) => keep_pose(&mut self.poses, t, p.t_world_device),
            (Payload::Image(frame), StreamId::CameraSlamLeft | StreamId::CameraSlamRight) => {
                let ci = usize::from(s.stream == StreamId::CameraSlamRight);
                self.stats.frames += 1;
                let period = self.cfg.period_ns;
                let Some(cam) = self.cams.get_mut(ci) else {
                    return;
                };
                if cam
                    .last_ns
                    .is_some_and(|l| t.saturating_sub(l) < period || t < l)
                {
                    self.stats.throttled += 1;
                    return;
                }
                let coarse = decode_image(frame)
                    .ok()
                    .filter(|img| img.channels == 1)
                    .and_then(|img| {
                        if (img.width, img.height)
                            != (cam.calib.image_width, cam.calib.image_height)
                        {
                            return None;
                        }
                        CoarseImage::from_grey(
                            img.width as usize,
                            img.height as usize,
                            &img.pixels,
                            self.cfg.block,
                        )
                    });
                let Some(coarse) = coarse else {
                    self.stats.failed += 1;
                    if !self.warned {
                        log::warn!(
                            "motion detection refused a SLAM frame at {t} ns (not a greyscale \
                             image of the calibrated size); further refusals are counted"
                        );
                        self.warned = true;
                    }
                    return;
                };
                cam.last_ns = Some(t);
                if cam.pending.len() >= PENDING_CAP {
                    cam.pending.pop_front();
                    self.stats.dropped_pending += 1;
                }
                cam.pending
                    .push_back((t, coarse, frame.exposure_s * frame.gain));
            }
            _ => return,
        }
        self.process_pending();
    }

    fn process_pending(&mut self) {
        for ci in 0..self.cams.len() {
            while let Some(&(t, _, _)) = self.cams.get(ci).and_then(|c| c.pending.front()) {
                let pose = match pose_at_time(&self.poses, t) {
                    PoseAt::Interpolated(p) | PoseAt::Nearest(p) => Some(p),
                    PoseAt::Wait(p) => {
                        let given_up = self
                            .newest_ns
                            .is_some_and(|n| n.saturating_sub(t) > POSE_MATCH_NS);
                        if !given_up {
                            break;
                        }
                        p
                    }
                    PoseAt::Missing => None,
                };
                let Some((t, img, exposure)) =
                    self.cams.get_mut(ci).and_then(|c| c.pending.pop_front())
                else {
                    break;
                };
                match pose {
                    Some(p) => self.detect(ci, t, img, exposure, p),
                    None => self.stats.unposed += 1,
                }
            }
        }
    }

    /// Compares one posed frame with its references and keeps it as a reference.
    fn detect(
        &mut self,
        ci: usize,
        t: i64,
        img: CoarseImage,
        exposure: f32,
        t_world_device: Isometry3<f64>,
    ) {
        let cfg = self.cfg;
        let Some(cam) = self.cams.get_mut(ci) else {
            return;
        };
        let t_world_camera = t_world_device * cam.calib.t_device_camera;
        let pick = |back: i64| {
            cam.history
                .iter()
                .filter(|(rt, _, _, _)| {
                    (t.saturating_sub(*rt) - back).abs() <= cfg.reference_slack_ns
                })
                .min_by_key(|(rt, _, _, _)| (t.saturating_sub(*rt) - back).abs())
        };
        let refs: Vec<&(i64, CoarseImage, Isometry3<f64>, f32)> =
            cfg.reference_ns.iter().filter_map(|&b| pick(b)).collect();
        if refs.len() < cfg.reference_ns.len() {
            self.stats.no_reference += 1;
        } else if refs.iter().any(|(_, _, p, _)| {
            (p.translation.vector - t_world_camera.translation.vector).norm() > cfg.max_head_move_m
        }) {
            log::trace!(
                "movers {t}: cam {ci} head moved {:?}",
                refs.iter()
                    .map(
                        |(_, _, p, _)| (p.translation.vector - t_world_camera.translation.vector)
                            .norm()
                    )
                    .collect::<Vec<_>>()
            );
            self.stats.head_moved += 1;
        } else {
            let r_world_cur: Rotation3<f64> = t_world_camera.rotation.to_rotation_matrix();
            let references: Vec<Reference<'_>> = refs
                .iter()
                .map(|(_, image, p, e)| Reference {
                    image,
                    r_ref_cur: p.rotation.to_rotation_matrix().inverse() * r_world_cur,
                    gain: exposure_gain(exposure, *e),
                })
                .collect();
            let counts = change_mask(
                &cam.grid,
                &cam.calib,
                &img,
                &r_world_cur,
                &references,
                &cfg.change,
                &mut self.mask,
            );
            let too_much = counts.changed as f64 > cfg.max_changed_share * counts.compared as f64;
            if too_much {
                self.stats.changed_too_much += 1;
                self.mask.iter_mut().for_each(|m| *m = false);
            }
            let blobs = find_blobs(
                &self.mask,
                cam.grid.width,
                cfg.min_blob_pixels,
                cfg.max_blobs,
                &mut self.labels,
            );
            log::trace!(
                "movers {t}: cam {ci} blobs {:?}",
                blobs
                    .iter()
                    .map(|b| (b.pixels, b.x0, b.y0, b.x1, b.y1))
                    .collect::<Vec<_>>()
            );
            self.stats.compared += 1;
            self.stats.regions += blobs.len() as u64;
            if !blobs.is_empty() {
                if self.detections.len() >= DETECTIONS_CAP {
                    self.detections.pop_front();
                    self.stats.dropped_detections += 1;
                }
                self.detections.push_back(Detection {
                    capture_ns: t,
                    camera: ci as u8,
                    t_world_camera,
                    blobs,
                });
            }
        }
        if cam.history.len() >= HISTORY_CAP {
            cam.history.pop_front();
        }
        cam.history.push_back((t, img, t_world_camera, exposure));
    }

    /// The moving regions found since the last poll, placed on the floor at `floor_z_m`
    /// (world): one list per frame, oldest first.
    pub fn poll(&mut self, floor_z_m: f64) -> Vec<(i64, Vec<Sighting>)> {
        let mut out = Vec::with_capacity(self.detections.len());
        while let Some(d) = self.detections.pop_front() {
            let Some(cam) = self.cams.get(usize::from(d.camera)) else {
                continue;
            };
            let sightings: Vec<Sighting> = d
                .blobs
                .iter()
                .filter_map(|b| {
                    place(
                        b,
                        &cam.grid,
                        &d.t_world_camera,
                        floor_z_m,
                        d.capture_ns,
                        d.camera,
                        &self.cfg.place,
                    )
                })
                .collect();
            out.push((d.capture_ns, sightings));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{ImageEncoding, ImageFrame, PoseSample};
    use crate::time::{DeviceTime, HostTime};

    fn gen1() -> DeviceCalibration {
        let rec = crate::aria::recording::AriaRecording::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
        ))
        .unwrap();
        crate::aria::recorded_calib::recording_calibration(&rec)
            .unwrap()
            .unwrap()
    }

    fn sample(stream: StreamId, t_ns: i64, payload: Payload) -> Sample {
        Sample {
            stream,
            capture: DeviceTime(t_ns),
            arrival: HostTime(0),
            seq: 0,
            payload,
        }
    }

    fn frame(invert: bool) -> Payload {
        let (w, h) = (640u32, 480u32);
        let pixels: Vec<u8> = (0..h)
            .flat_map(|y| {
                (0..w).map(move |x| {
                    let v = 90 + ((x / 16 + y / 16) % 2) as u8 * 80;
                    if invert {
                        255 - v
                    } else {
                        v
                    }
                })
            })
            .collect();
        Payload::Image(ImageFrame {
            width: w,
            height: h,
            encoding: ImageEncoding::Raw {
                pixel_format: 1,
                stride: w,
            },
            data: bytes::Bytes::from(pixels),
            frame_number: 0,
            exposure_s: 0.004,
            gain: 1.0,
        })
    }

    fn pose() -> Payload {
        Payload::Pose(PoseSample {
            t_world_device: Isometry3::translation(0.0, 0.0, 1.6),
            linear_velocity_mps: [0.0; 3],
            angular_velocity_radps: [0.0; 3],
            quality: 1.0,
        })
    }

    #[test]
    fn a_still_view_shows_nothing_and_a_frame_changed_all_over_is_not_motion() {
        let mut m = MoverInput::new(&gen1(), MoverConfig::default()).unwrap();
        for i in 0..8i64 {
            let t = i * 100_000_000;
            m.on_sample(&sample(StreamId::CameraSlamLeft, t, frame(i == 7)));
            m.on_sample(&sample(StreamId::DevicePose, t + 1_000_000, pose()));
        }
        let s = m.stats();
        assert_eq!((s.frames, s.failed, s.unposed), (8, 0, 0), "{s:?}");
        // Frames 0.4 s and later have both references: 4 compared.
        assert_eq!(s.compared, 4, "{s:?}");
        assert_eq!(s.changed_too_much, 1, "{s:?}");
        assert_eq!(s.regions, 0, "{s:?}");
        assert!(m.poll(0.0).is_empty());
    }

    #[test]
    fn a_frame_not_of_the_calibrated_size_is_refused_and_counted() {
        let mut m = MoverInput::new(&gen1(), MoverConfig::default()).unwrap();
        let small = Payload::Image(ImageFrame {
            width: 4,
            height: 2,
            encoding: ImageEncoding::Raw {
                pixel_format: 1,
                stride: 4,
            },
            data: bytes::Bytes::from(vec![0u8; 8]),
            frame_number: 0,
            exposure_s: 0.0,
            gain: 0.0,
        });
        m.on_sample(&sample(StreamId::CameraSlamRight, 0, small));
        let truncated = Payload::Image(ImageFrame {
            width: 640,
            height: 480,
            encoding: ImageEncoding::Jpeg,
            data: bytes::Bytes::from(vec![0xFF, 0xD8, 0xFF]),
            frame_number: 1,
            exposure_s: 0.0,
            gain: 0.0,
        });
        m.on_sample(&sample(StreamId::CameraSlamLeft, 0, truncated));
        assert_eq!(m.stats().failed, 2);
        assert_eq!(m.stats().compared, 0);
    }
}
