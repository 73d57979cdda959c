//! [`LiveSource`]: a TCP client of the wire protocol behind the [`Source`] trait.
//!
//! It connects (retrying for a bounded time), reads the hello (calibration, serial,
//! profile), then yields samples as they arrive, stamped with their arrival time and their
//! link latency under a continuously re-estimated clock offset ([`OffsetEstimator`]). A
//! dropped link (I/O error, read timeout, truncated frame) or a hostile frame closes that
//! connection with one log line and the source reconnects without ending the stream; the
//! capture-time gap is simply a gap (no samples are invented). A clean goodbye ends the
//! stream, unless `stay` asks to wait for the next connection.
//!
//! Capture times are on the *session* clock ([`SessionTimeline`]): each connection's device
//! clock (a rebooted device starts again from zero) is shifted to continue where the session
//! is, a lone implausible timestamp is left out, and a device-clock restart within a
//! connection is detected; each is logged and counted in the [`LinkStats`]. The offset
//! estimate starts again with each connection and restart.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::sample::{Payload, Sample, StreamId};
use crate::source::{Source, SourceError};
use crate::stop::StopHandle;
use crate::time::HostTime;

use super::clock::OffsetCell;
use super::epoch::{SessionTimeline, DEFAULT_MAX_JUMP_NS};
use super::framed::{write_frame, FrameReader, LinkError};
use super::link::{Deadline, Link, Listener};
use super::link_stats::LinkStats;
use super::offset::OffsetEstimator;
use super::protocol::{Frame, Hello, Limits};
use super::wire_streams::{WireStream, GEN1_STREAMS};
use crate::aria::calib::DeviceCalibration;

/// How the live source connects.
#[derive(Clone, Debug)]
pub struct LiveConfig {
    /// The device (bridge or simulator) address, `host:port` or `unix:/path`.
    pub addr: String,
    /// Token sent first when set (required by a device listening beyond loopback).
    pub token: Option<String>,
    /// Frame limits.
    pub limits: Limits,
    /// A connection with no frame (not even a heartbeat) for this long is dropped.
    pub read_timeout: Duration,
    /// How long to keep trying to (re)connect before the source fails.
    pub reconnect_for: Duration,
    /// After a goodbye, wait for the next connection instead of ending.
    pub stay: bool,
    /// Stops waiting (connect retries) when triggered.
    pub stop: Option<StopHandle>,
    /// Listen on `addr` and let the device connect (`vista live --listen`; `device-sim
    /// --connect`), instead of connecting to it. The host still speaks first (auth).
    pub listen: bool,
    /// Plausibility window of a capture time against its arrival (see [`SessionTimeline`]).
    pub max_clock_jump: Duration,
    /// The whole handshake (token sent, hello read) must complete within this.
    pub handshake_timeout: Duration,
}

/// A hello frame may be this much larger than its calibration and stream list (serial,
/// profile, header).
const HELLO_SLACK_BYTES: u32 = 4096;

/// Unknown streams remembered for their one warning each.
const MAX_UNKNOWN_WARNED: usize = 256;

/// Whether `id` is an unknown stream not warned about yet (remembered in `warned`, up to
/// [`MAX_UNKNOWN_WARNED`] of them: a peer inventing ids gets no more warnings).
fn first_unknown(warned: &mut std::collections::BTreeSet<(i32, u16)>, id: (i32, u16)) -> bool {
    warned.len() < MAX_UNKNOWN_WARNED && warned.insert(id)
}

/// The largest hello `limits` allow: calibration, stream list, slack.
fn hello_bytes(limits: &Limits) -> u32 {
    let per_stream = 8u32.saturating_add(limits.max_string_bytes);
    limits
        .max_calib_bytes
        .saturating_add(u32::from(limits.max_streams).saturating_mul(per_stream))
        .saturating_add(HELLO_SLACK_BYTES)
}

/// Parses a hello's calibration JSON (empty: none) as a device calibration.
fn parse_calibration(json: &str) -> Result<Option<DeviceCalibration>, String> {
    if json.is_empty() {
        return Ok(None);
    }
    DeviceCalibration::from_json_str(json)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Gen2 sends four SLAM cameras; the calibration says which two make the stereo pair that
/// depth and motion read as `camera-slam-left`/`-right` (the others are the side streams).
/// Returns `(as sent, as used)` for each camera whose role differs from its wire id, and
/// renumbers the hello's announcements to match, so the hello reads as the host uses it.
fn route_slam_cameras(hello: &mut Hello, calib: &DeviceCalibration) -> Vec<(StreamId, StreamId)> {
    let slam: Vec<(StreamId, String)> = hello
        .streams
        .iter()
        .filter_map(|w| Some((w.stream()?, w.label.clone())))
        .filter(|(s, _)| {
            matches!(
                s,
                StreamId::CameraSlamLeft
                    | StreamId::CameraSlamRight
                    | StreamId::CameraSlamSideLeft
                    | StreamId::CameraSlamSideRight
            )
        })
        .collect();
    let labels: Vec<&str> = slam.iter().map(|(_, l)| l.as_str()).collect();
    let mut routes = Vec::new();
    for (label, role) in calib.slam_roles(&labels) {
        if let Some((sent, _)) = slam.iter().find(|(_, l)| l == label) {
            if *sent != role {
                routes.push((*sent, role));
            }
        }
    }
    for w in &mut hello.streams {
        let Some(sent) = w.stream() else { continue };
        if let Some((_, role)) = routes.iter().find(|(s, _)| *s == sent) {
            if let Some(renamed) = WireStream::new(*role, w.label.clone()) {
                *w = renamed;
            }
        }
    }
    routes
}

impl LiveConfig {
    /// Defaults for `addr`: 3 s read timeout, 3 s for the whole handshake, 10 s of reconnect
    /// attempts, a 10 s clock plausibility window, no token.
    pub fn new(addr: impl Into<String>) -> Self {
        Self {
            addr: addr.into(),
            token: None,
            limits: Limits::default(),
            read_timeout: Duration::from_secs(3),
            reconnect_for: Duration::from_secs(10),
            stay: false,
            stop: None,
            listen: false,
            max_clock_jump: Duration::from_nanos(DEFAULT_MAX_JUMP_NS as u64),
            handshake_timeout: Duration::from_secs(3),
        }
    }
}

/// The live source.
#[derive(Debug)]
pub struct LiveSource {
    config: LiveConfig,
    conn: Option<FrameReader<Link>>,
    pending: VecDeque<Sample>,
    seq: [u64; StreamId::COUNT],
    offset: OffsetEstimator,
    stats: LinkStats,
    hello: Option<Hello>,
    ended: bool,
    /// The bound socket in listen mode (bound on the first connection attempt).
    listener: Option<Listener>,
    /// The offset estimate, shared with a [`super::clock::LiveClock`].
    offset_cell: OffsetCell,
    /// Every connection's device clock on one session clock.
    timeline: SessionTimeline<(StreamId, Payload)>,
    /// Samples the timeline released, waiting to be stamped (reused).
    released: VecDeque<(i64, i64, (StreamId, Payload))>,
    /// This connection's SLAM cameras whose role the calibration gives: `(as sent, as used)`.
    routes: Vec<(StreamId, StreamId)>,
    /// Unknown streams already warned about.
    unknown_warned: std::collections::BTreeSet<(i32, u16)>,
}

impl LiveSource {
    /// A source that will connect on the first [`Source::next_sample`].
    pub fn new(config: LiveConfig) -> Self {
        let max_jump_ns = i64::try_from(config.max_clock_jump.as_nanos()).unwrap_or(i64::MAX);
        Self {
            timeline: SessionTimeline::new(max_jump_ns),
            released: VecDeque::new(),
            config,
            conn: None,
            pending: VecDeque::new(),
            seq: [0; StreamId::COUNT],
            offset: OffsetEstimator::new(1_000_000_000, 10),
            stats: LinkStats::new(),
            hello: None,
            ended: false,
            listener: None,
            offset_cell: OffsetCell::new(),
            routes: Vec::new(),
            unknown_warned: std::collections::BTreeSet::new(),
        }
    }

    /// Connects and reads the hello now (so the caller has the calibration before running).
    pub fn connect(&mut self) -> Result<&Hello, SourceError> {
        self.ensure_connected()?;
        self.hello
            .as_ref()
            .ok_or_else(|| SourceError::Fatal(format!("{}: no hello", self.config.addr)))
    }

    /// The last hello received (device serial, profile, calibration JSON).
    pub fn hello(&self) -> Option<&Hello> {
        self.hello.as_ref()
    }

    /// The link statistics (shared: keep a clone to read them after the run).
    pub fn stats(&self) -> LinkStats {
        self.stats.clone()
    }

    /// The clock-offset estimate (host − device ns), updated on every arrival; give it to a
    /// [`super::clock::LiveClock`] to map device time to host time.
    pub fn offset_cell(&self) -> OffsetCell {
        self.offset_cell.clone()
    }

    fn stopped(&self) -> bool {
        self.config
            .stop
            .as_ref()
            .is_some_and(StopHandle::is_stopped)
    }

    fn ensure_connected(&mut self) -> Result<(), SourceError> {
        if self.conn.is_some() {
            return Ok(());
        }
        let start = Instant::now();
        let mut last_err = String::from("not tried");
        while start.elapsed() < self.config.reconnect_for && !self.stopped() {
            match self.try_connect() {
                Ok(()) => return Ok(()),
                Err(e) => {
                    log::debug!("live: {e}");
                    last_err = e;
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
        if self.stopped() {
            // Stopped (a signal) while waiting: the caller ends the stream in order.
            return Ok(());
        }
        Err(SourceError::Fatal(format!(
            "{}: no device after {:.1} s ({last_err})",
            self.config.addr,
            self.config.reconnect_for.as_secs_f64()
        )))
    }

    fn try_connect(&mut self) -> Result<(), String> {
        let addr = &self.config.addr;
        let mut stream = if self.config.listen {
            if self.listener.is_none() {
                let l = Listener::bind(addr).map_err(|e| format!("{addr}: listen: {e}"))?;
                l.set_nonblocking(true)
                    .map_err(|e| format!("{addr}: listen: {e}"))?;
                log::info!("live: waiting for the device on {}", l.local_addr());
                self.listener = Some(l);
            }
            let Some(l) = self.listener.as_ref() else {
                return Err(format!("{addr}: not listening"));
            };
            match l.accept() {
                Ok((s, peer)) => {
                    log::info!("live: device connected from {peer}");
                    s
                }
                Err(e) => return Err(format!("{addr}: waiting for the device: {e}")),
            }
        } else {
            Link::connect(addr).map_err(|e| format!("{addr}: connect: {e}"))?
        };
        stream
            .set_read_timeout(Some(self.config.read_timeout))
            .map_err(|e| format!("{addr}: {e}"))?;
        if let Some(token) = &self.config.token {
            let auth = Frame::Auth {
                token: token.clone(),
            };
            write_frame(&mut stream, &auth, &mut Vec::new())
                .map_err(|e| format!("{addr}: sending token: {e}"))?;
        }
        // The hello is read under one deadline for the whole handshake and a size limit of
        // its own: a peer trickling bytes, or announcing a huge first frame, cannot hold the
        // link or make the host allocate before it has said who it is.
        let hello_limits = Limits {
            max_frame_bytes: self
                .config
                .limits
                .max_frame_bytes
                .min(hello_bytes(&self.config.limits)),
            ..self.config.limits
        };
        let first = FrameReader::new(
            Deadline::new(&mut stream, self.config.handshake_timeout),
            addr.clone(),
            hello_limits,
        )
        .read_frame();
        stream
            .set_read_timeout(Some(self.config.read_timeout))
            .map_err(|e| format!("{addr}: {e}"))?;
        let reader = FrameReader::new(stream, addr.clone(), self.config.limits);
        match first {
            Ok(Frame::Hello(mut h)) => {
                log::info!(
                    "live: connected to {} on {addr} (profile {:?}, calibration {} bytes)",
                    h.device_serial,
                    h.streaming_profile,
                    h.calib_json.len()
                );
                self.routes.clear();
                match parse_calibration(&h.calib_json) {
                    Ok(Some(calib)) => self.routes = route_slam_cameras(&mut h, &calib),
                    Ok(None) => {}
                    Err(e) => {
                        // Refused for this connection only: the run goes on as with a hello
                        // that carries no calibration (nominal geometry, said so).
                        log::warn!(
                            "live: {addr}: the calibration in the hello of {} is refused \
                             ({e}); going on without it",
                            h.device_serial
                        );
                        h.calib_json.clear();
                        self.stats.update(|r| r.bad_calibrations += 1);
                    }
                }
                // One warning per unknown stream over the whole session (its samples then
                // are skipped without another).
                for w in h.unknown_streams() {
                    if !first_unknown(&mut self.unknown_warned, (w.type_id, w.instance)) {
                        continue;
                    }
                    log::warn!(
                        "live: {addr}: {} announces stream {}-{} ({:?}), which this build \
                         does not know; its samples are skipped",
                        h.device_serial,
                        w.type_id,
                        w.instance,
                        w.label
                    );
                }
                self.stats.update(|r| {
                    r.connections += 1;
                    r.device_serial = h.device_serial.clone();
                    r.streaming_profile = h.streaming_profile.clone();
                });
                self.hello = Some(h);
                // A new connection may come from a rebooted device: re-estimate, and place
                // its clock on the session clock at its first sample.
                self.offset.reset();
                self.offset_cell.set(None);
                self.timeline.new_connection();
                self.conn = Some(reader);
                Ok(())
            }
            Ok(other) => Err(format!(
                "{addr}: expected a hello first, got {}",
                frame_name(&other)
            )),
            Err(e) => Err(e.to_string()),
        }
    }

    fn push(&mut self, stream: StreamId, capture: crate::time::DeviceTime, payload: Payload) {
        let arrival = HostTime::now();
        let stream = self
            .routes
            .iter()
            .find(|(sent, _)| *sent == stream)
            .map_or(stream, |(_, used)| *used);
        let before = self.timeline.counts();
        let released = &mut self.released;
        let restarted = self.timeline.admit(
            capture.ns(),
            arrival.ns(),
            self.offset.offset_ns(),
            (stream, payload),
            |s, a, item| released.push_back((s, a, item)),
        );
        let counts = self.timeline.counts();
        if restarted {
            let what = if counts.rebased_connections > before.rebased_connections {
                "the new connection's device clock restarted"
            } else {
                "the device clock restarted or jumped"
            };
            log::warn!(
                "live: {}: {what} (at {capture} on {stream}); it continues the session clock \
                 (shifted by {:.3} s), and the clock offset is estimated afresh",
                self.config.addr,
                self.timeline.shift_ns() as f64 * 1e-9
            );
            self.offset.reset();
            self.offset_cell.set(None);
        }
        if counts.implausible > before.implausible && before.implausible == 0 {
            log::warn!(
                "live: {}: a capture time more than {:.0} s from its arrival was left out \
                 (counted; warned once)",
                self.config.addr,
                self.config.max_clock_jump.as_secs_f64()
            );
        }
        if counts != before {
            self.stats.update(|r| {
                r.rebased_connections = counts.rebased_connections;
                r.clock_restarts = counts.clock_restarts;
                r.implausible_timestamps = counts.implausible;
            });
        }
        while let Some((session_ns, arrival_ns, (stream, payload))) = self.released.pop_front() {
            self.stamp(stream, session_ns, HostTime(arrival_ns), payload);
        }
    }

    /// Queues one released sample at session time `session_ns`.
    fn stamp(&mut self, stream: StreamId, session_ns: i64, arrival: HostTime, payload: Payload) {
        let latency = self.offset.observe(session_ns, arrival.ns());
        self.offset_cell.set(self.offset.offset_ns());
        self.stats.record_latency(stream, latency);
        let k = stream.index();
        let seq = self.seq.get(k).copied().unwrap_or(0);
        if let Some(s) = self.seq.get_mut(k) {
            *s += 1;
        }
        self.pending.push_back(Sample {
            stream,
            capture: crate::time::DeviceTime(session_ns),
            arrival,
            seq,
            payload,
        });
    }

    /// Reads frames until at least one sample is pending or the stream ends.
    fn fill(&mut self) -> Result<(), SourceError> {
        while self.pending.is_empty() && !self.ended {
            if self.stopped() {
                self.ended = true;
                break;
            }
            self.ensure_connected()?;
            let Some(conn) = self.conn.as_mut() else {
                continue;
            };
            match conn.read_frame() {
                Ok(Frame::Sample {
                    stream,
                    capture,
                    payload,
                }) => self.push(stream, capture, payload),
                Ok(Frame::ImuBatch { stream, samples }) => {
                    for s in samples {
                        self.push(stream, s.capture, Payload::Imu(s.imu));
                    }
                }
                Ok(Frame::UnknownStream { type_id, instance }) => {
                    self.stats.update(|r| r.unknown_stream_samples += 1);
                    if first_unknown(&mut self.unknown_warned, (type_id, instance)) {
                        log::warn!(
                            "live: {}: samples on stream {type_id}-{instance}, which this \
                             build does not know, are skipped (counted; warned once)",
                            self.config.addr
                        );
                    }
                }
                Ok(Frame::Heartbeat { device_now }) => {
                    let now = HostTime::now().ns();
                    let offset = self.offset.offset_ns();
                    if let Some(t) = self.timeline.plausible(device_now.ns(), now, offset) {
                        let _ = self.offset.observe(t, now);
                        self.offset_cell.set(self.offset.offset_ns());
                    }
                }
                Ok(Frame::Goodbye { reason }) => {
                    log::info!("live: {} said goodbye ({reason})", self.config.addr);
                    self.stats.update(|r| r.goodbyes += 1);
                    self.conn = None;
                    if !self.config.stay {
                        self.ended = true;
                    }
                }
                Ok(other @ (Frame::Hello(_) | Frame::Auth { .. })) => {
                    let e = format!(
                        "{}: unexpected {} frame at byte {}; closing this connection",
                        self.config.addr,
                        frame_name(&other),
                        conn.offset()
                    );
                    log::warn!("live: {e}");
                    self.stats.update(|r| r.bad_frames += 1);
                    self.conn = None;
                }
                Err(e @ LinkError::Protocol { .. }) => {
                    log::warn!("live: {e}; closing this connection");
                    self.stats.update(|r| r.bad_frames += 1);
                    self.conn = None;
                }
                Err(e) => {
                    log::warn!("live: link lost: {e}; reconnecting");
                    self.stats.update(|r| r.link_drops += 1);
                    self.conn = None;
                }
            }
        }
        self.stats.update(|r| r.offset_ns = self.offset.offset_ns());
        Ok(())
    }
}

impl Drop for LiveSource {
    fn drop(&mut self) {
        // A Unix-domain socket we listened on leaves its file behind otherwise.
        #[cfg(unix)]
        if let (Some(Listener::Unix(_)), Some(path)) = (
            &self.listener,
            self.config.addr.strip_prefix(super::link::UNIX_PREFIX),
        ) {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn frame_name(f: &Frame) -> &'static str {
    match f {
        Frame::Hello(_) => "hello",
        Frame::Sample { .. } => "sample",
        Frame::ImuBatch { .. } => "IMU batch",
        Frame::Heartbeat { .. } => "heartbeat",
        Frame::Goodbye { .. } => "goodbye",
        Frame::Auth { .. } => "auth",
        Frame::UnknownStream { .. } => "unknown-stream sample",
    }
}

impl Source for LiveSource {
    fn describe(&self) -> String {
        match &self.hello {
            Some(h) => format!("live {} on {}", h.device_serial, self.config.addr),
            None => format!("live device on {}", self.config.addr),
        }
    }

    /// What the hello announced (before a hello: Gen1's streams).
    fn streams(&self) -> Vec<StreamId> {
        match &self.hello {
            Some(h) => h.known_streams(),
            None => GEN1_STREAMS.to_vec(),
        }
    }

    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        if let Some(s) = self.pending.pop_front() {
            return Some(Ok(s));
        }
        if self.ended {
            return None;
        }
        if let Err(e) = self.fill() {
            self.ended = true;
            return Some(Err(e));
        }
        self.pending.pop_front().map(Ok)
    }
}
