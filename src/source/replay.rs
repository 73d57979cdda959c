//! Replay of a recorded session: every stream of the VRS recording and the MPS-derived
//! streams merged into one sequence in capture order.
//!
//! Each stream is a *lane* (an iterator already in capture order); a k-way merge on a binary
//! heap keyed by `(capture time, lane index)` interleaves them, so ties are broken the same
//! way on every run. The source does not pace: the runtime's ingest stage paces samples by
//! their capture time with a [`crate::time::Clock`], one sample at a time, so a 1 kHz IMU
//! arrives at 1 kHz rather than in bursts.
//!
//! MPS-derived streams (eye gaze, hand tracking, device pose) are delivered at their own
//! timestamps and are marked derived by their [`StreamId`]: live input will not have them
//! unless they are estimated live. A lane that yields a bad record reports it as a
//! recoverable [`SourceError::Skipped`] and the replay continues, as does a sample whose
//! capture time is implausibly far from both its neighbours in its lane ([`SpikeFilter`]):
//! one corrupt timestamp would otherwise hold its whole lane back in the merge.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use crate::aria::mps;
use crate::aria::recording::{AriaRecording, StreamDecoders};
use crate::aria::vrs::RecordType;
use crate::sample::{Payload, PoseSample, Sample, StreamId};
use crate::source::session_files::SessionFiles;
use crate::source::{Source, SourceError};
use crate::time::{DeviceTime, HostTime};

/// What to replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Start this many seconds after the recording's first sample.
    pub from_s: Option<f64>,
    /// Stop this many seconds after the recording's first sample.
    pub to_s: Option<f64>,
    /// Replay the session this many extra times (soak tests); each loop is shifted in
    /// device time so capture times keep increasing.
    pub extra_loops: u32,
    /// Leave out the MPS-derived streams (what live input would see).
    pub recorded_only: bool,
    /// Plausibility window of a lane's capture times, ns (0: [`DEFAULT_SPIKE_WINDOW_NS`]):
    /// a sample this far from both its neighbours in its lane is left out (see
    /// [`SpikeFilter`]).
    pub max_clock_jump_ns: i64,
}

/// Default plausibility window of a lane: 10 s.
pub const DEFAULT_SPIKE_WINDOW_NS: i64 = 10_000_000_000;

/// Errors opening a replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The session could not be located.
    #[error(transparent)]
    Session(#[from] crate::source::session_files::SessionError),
    /// The recording could not be opened.
    #[error("{path}: {message}")]
    Recording {
        /// The recording's path.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// An MPS file could not be read.
    #[error(transparent)]
    Mps(#[from] mps::MpsError),
}

/// One stream's samples in capture order (the merge's input).
pub(crate) type Lane = Box<dyn Iterator<Item = Result<Sample, SourceError>> + Send>;

/// A recorded session as a [`Source`].
pub struct ReplaySource {
    files: SessionFiles,
    recording: Arc<AriaRecording>,
    options: ReplayOptions,
    /// First capture time of the recording (the origin of `from_s` / `to_s`).
    origin: DeviceTime,
    /// Span of one loop (last − first capture), for looping.
    span_ns: i64,
    lanes: Vec<Lane>,
    heads: Vec<Option<Sample>>,
    heap: BinaryHeap<Reverse<(i64, usize)>>,
    pending_errors: VecDeque<SourceError>,
    seq: [u64; StreamId::COUNT],
    loops_done: u32,
    loop_offset_ns: i64,
    /// Latest capture time read from any lane, before loop offsets.
    last_raw_ns: i64,
    streams: Vec<StreamId>,
}

impl std::fmt::Debug for ReplaySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplaySource")
            .field("recording", &self.files.recording)
            .field("origin", &self.origin)
            .field("lanes", &self.lanes.len())
            .finish()
    }
}

impl ReplaySource {
    /// Opens a session folder or a bare `.vrs` file.
    pub fn open(path: &Path, options: ReplayOptions) -> Result<Self, ReplayError> {
        let files = SessionFiles::locate(path)?;
        for note in files.missing() {
            log::warn!("{}: {note}", files.root.display());
        }
        let recording =
            AriaRecording::open(&files.recording).map_err(|e| ReplayError::Recording {
                path: files.recording.clone(),
                message: e.to_string(),
            })?;
        let summaries = recording.summaries();
        let known: Vec<_> = summaries
            .iter()
            .filter(|s| s.stream.is_some() && s.data_records > 0)
            .collect();
        let origin = known.iter().filter_map(|s| s.first_ns).min().unwrap_or(0);
        let last = known
            .iter()
            .filter_map(|s| s.last_ns)
            .max()
            .unwrap_or(origin);
        let mut streams: Vec<StreamId> = known.iter().filter_map(|s| s.stream).collect();
        if !options.recorded_only {
            streams.extend(mps_streams(&files.mps));
        }
        streams.sort();
        streams.dedup();
        let mut this = Self {
            files,
            recording: Arc::new(recording),
            options,
            origin: DeviceTime(origin),
            span_ns: last.saturating_sub(origin),
            lanes: Vec::new(),
            heads: Vec::new(),
            heap: BinaryHeap::new(),
            pending_errors: VecDeque::new(),
            seq: [0; StreamId::COUNT],
            loops_done: 0,
            loop_offset_ns: 0,
            last_raw_ns: i64::MIN,
            streams,
        };
        this.start_loop(false)?;
        // The origin is the earliest sample of any lane (MPS output may start before the
        // recording's first record).
        if let Some(Reverse((first, _))) = this.heap.peek() {
            this.origin = DeviceTime(origin.min(*first));
            this.span_ns = last.saturating_sub(this.origin.ns());
        }
        if this.options.from_s.is_some() {
            // Now that the origin is known, start again with the VRS lane seeked to --from.
            this.start_loop(true)?;
        }
        Ok(this)
    }

    /// The session's files.
    pub fn files(&self) -> &SessionFiles {
        &self.files
    }

    /// The recording being replayed.
    pub fn recording(&self) -> &AriaRecording {
        &self.recording
    }

    /// Capture time of the recording's first sample.
    pub fn origin(&self) -> DeviceTime {
        self.origin
    }

    /// Capture time at which the replay starts (after `--from`).
    pub fn start_time(&self) -> DeviceTime {
        self.origin
            .add_ns(secs_to_ns(self.options.from_s.unwrap_or(0.0)))
    }

    /// Capture time after which the replay stops (`--to`), if any.
    pub fn end_time(&self) -> Option<DeviceTime> {
        self.options.to_s.map(|s| self.origin.add_ns(secs_to_ns(s)))
    }

    /// Device-time length of what will be replayed per loop, in seconds.
    pub fn duration_s(&self) -> f64 {
        let end = self
            .end_time()
            .map_or(self.origin.ns() + self.span_ns, |e| {
                e.ns().min(self.origin.ns() + self.span_ns)
            });
        (end - self.start_time().ns()).max(0) as f64 * 1e-9
    }

    /// (Re)creates every lane from the start; `seek` skips VRS records before `--from`
    /// through the index.
    fn start_loop(&mut self, seek: bool) -> Result<(), ReplayError> {
        self.lanes.clear();
        self.heads.clear();
        self.heap.clear();
        // MPS's offline estimates replace the device's own (Gen2) pose, gaze and hands: one
        // source per stream, never two frames interleaved in one ring.
        let skip = if self.options.recorded_only {
            Vec::new()
        } else {
            mps_streams(&self.files.mps)
        };
        let mut vrs = vrs_lane(Arc::clone(&self.recording), skip);
        if seek && self.options.from_s.is_some() {
            // Skip whole records before the start through the index (sorted by timestamp),
            // keeping a margin for capture times that differ slightly from record times.
            let t0 = self.start_time().secs_f64() - 0.5;
            vrs.pos = self
                .recording
                .vrs()
                .index()
                .partition_point(|e| e.timestamp_s < t0);
        }
        let window = match self.options.max_clock_jump_ns {
            w if w > 0 => w,
            _ => DEFAULT_SPIKE_WINDOW_NS,
        };
        self.lanes
            .push(Box::new(SpikeFilter::new(Box::new(vrs), window)));
        if !self.options.recorded_only {
            for lane in mps_lanes(&self.files.mps)? {
                self.lanes.push(Box::new(SpikeFilter::new(lane, window)));
            }
        }
        self.heads = (0..self.lanes.len()).map(|_| None).collect();
        for i in 0..self.lanes.len() {
            self.refill(i);
        }
        Ok(())
    }

    /// Pulls lane `i`'s next sample into `heads[i]` and the heap; errors go to
    /// `pending_errors` so ordering is never disturbed.
    fn refill(&mut self, i: usize) {
        let Some(lane) = self.lanes.get_mut(i) else {
            return;
        };
        loop {
            match lane.next() {
                None => return,
                Some(Err(e)) => self.pending_errors.push_back(e),
                Some(Ok(mut s)) => {
                    self.last_raw_ns = self.last_raw_ns.max(s.capture.ns());
                    s.capture = s.capture.add_ns(self.loop_offset_ns);
                    self.heap.push(Reverse((s.capture.ns(), i)));
                    if let Some(h) = self.heads.get_mut(i) {
                        *h = Some(s);
                    }
                    return;
                }
            }
        }
    }
}

fn secs_to_ns(s: f64) -> i64 {
    if s.is_finite() {
        (s * 1e9).round() as i64
    } else {
        0
    }
}

impl Source for ReplaySource {
    fn describe(&self) -> String {
        format!("replay of {}", self.files.recording.display())
    }

    fn streams(&self) -> Vec<StreamId> {
        self.streams.clone()
    }

    fn stream_origin(&self, stream: StreamId) -> Option<String> {
        if !self.options.recorded_only && mps_streams(&self.files.mps).contains(&stream) {
            return None; // MPS's, not the recording's
        }
        self.recording.vrs_stream(stream).map(|id| id.to_string())
    }

    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        loop {
            if let Some(e) = self.pending_errors.pop_front() {
                return Some(Err(e));
            }
            if let Some(Reverse((_, i))) = self.heap.pop() {
                let Some(mut s) = self.heads.get_mut(i).and_then(Option::take) else {
                    continue;
                };
                let raw = s.capture.add_ns(-self.loop_offset_ns);
                if self.end_time().is_some_and(|e| raw > e) {
                    continue; // lanes are in capture order: this lane has nothing more in range
                }
                self.refill(i);
                if raw < self.start_time() {
                    continue;
                }
                let k = s.stream.index();
                s.seq = self.seq[k];
                self.seq[k] += 1;
                s.arrival = HostTime::now();
                return Some(Ok(s));
            }
            if !self.pending_errors.is_empty() {
                continue;
            }
            if self.loops_done < self.options.extra_loops {
                self.loops_done += 1;
                // Shift the next loop past this one (plus 1 ms, so capture times increase).
                let last = self
                    .end_time()
                    .map_or(self.last_raw_ns, |e| self.last_raw_ns.min(e.ns()));
                let span = last.saturating_sub(self.start_time().ns());
                self.loop_offset_ns = self.loop_offset_ns.saturating_add(span + 1_000_000);
                if let Err(e) = self.start_loop(true) {
                    return Some(Err(SourceError::Fatal(e.to_string())));
                }
                continue;
            }
            return None;
        }
    }
}

/// A lane without its lone timestamp spikes. A sample captured more than the window away
/// from the lane's previous sample, whose successor is back within the window of that
/// previous sample, is a corrupt timestamp: it is reported as a recoverable
/// [`SourceError::Skipped`] (counted) and left out. Without this, a sample at +1e18 ns would
/// stay at the head of its lane until every other lane ended (the merge is in capture
/// order), and its lane's later samples would then all be dropped as going backwards.
/// A lasting jump (both the sample and its successor far away) is a gap and passes.
pub(crate) struct SpikeFilter {
    inner: Lane,
    window_ns: i64,
    /// Capture of the last sample passed.
    last_ns: Option<i64>,
    /// Read ahead: the successor of a suspect, and errors met while reading it.
    ahead: VecDeque<Result<Sample, SourceError>>,
}

impl SpikeFilter {
    pub(crate) fn new(inner: Lane, window_ns: i64) -> Self {
        Self {
            inner,
            window_ns: window_ns.max(1),
            last_ns: None,
            ahead: VecDeque::new(),
        }
    }

    fn pull(&mut self) -> Option<Result<Sample, SourceError>> {
        self.ahead.pop_front().or_else(|| self.inner.next())
    }

    fn far(&self, a: i64, b: i64) -> bool {
        a.saturating_sub(b).saturating_abs() > self.window_ns
    }
}

impl Iterator for SpikeFilter {
    type Item = Result<Sample, SourceError>;
    fn next(&mut self) -> Option<Self::Item> {
        let s = match self.pull()? {
            Ok(s) => s,
            Err(e) => return Some(Err(e)),
        };
        let c = s.capture.ns();
        let Some(last) = self.last_ns.filter(|&l| self.far(c, l)) else {
            self.last_ns = Some(c);
            return Some(Ok(s));
        };
        // A suspect: read ahead to its next sample (errors on the way are kept in order).
        let mut next_ns = self
            .ahead
            .iter()
            .find_map(|x| x.as_ref().ok().map(|n| n.capture.ns()));
        while next_ns.is_none() {
            let Some(x) = self.inner.next() else {
                break;
            };
            next_ns = x.as_ref().ok().map(|n| n.capture.ns());
            self.ahead.push_back(x);
        }
        if next_ns.is_some_and(|n| !self.far(n, last)) {
            return Some(Err(SourceError::Skipped {
                stream: s.stream.name().to_string(),
                message: format!(
                    "capture time {} is {:.3} s from its neighbours in capture order (at {}): \
                     a corrupt timestamp, left out",
                    s.capture,
                    s.capture.since(DeviceTime(last)) as f64 * 1e-9,
                    DeviceTime(last)
                ),
            }));
        }
        self.last_ns = Some(c);
        Some(Ok(s))
    }
}

/// Every recorded sample of known streams, in file (capture) order.
struct VrsLane {
    recording: Arc<AriaRecording>,
    pos: usize,
    scratch: Vec<u8>,
    blocks: Vec<std::ops::Range<usize>>,
    /// Streams the recording holds that another lane provides instead (a Gen2 device's
    /// own pose, gaze or hands when the session has MPS outputs of the same kind).
    skip: Vec<StreamId>,
    /// Decoding state carried from record to record (Gen2's Opus microphones, H.265 frames
    /// after a key frame); a lane made for a new loop or a seek starts afresh.
    decoders: StreamDecoders,
}

fn vrs_lane(recording: Arc<AriaRecording>, skip: Vec<StreamId>) -> VrsLane {
    VrsLane {
        recording,
        pos: 0,
        scratch: Vec::new(),
        blocks: Vec::new(),
        skip,
        decoders: StreamDecoders::default(),
    }
}

impl Iterator for VrsLane {
    type Item = Result<Sample, SourceError>;
    fn next(&mut self) -> Option<Self::Item> {
        let index = self.recording.vrs().index();
        while let Some(e) = index.get(self.pos) {
            self.pos += 1;
            if e.record_type != RecordType::Data {
                continue;
            }
            let Some(stream) = self.recording.stream_of(e.stream) else {
                continue; // streams vista does not use (time mapping, GPS, PPG, beacons)
            };
            if self.skip.contains(&stream) {
                continue;
            }
            return Some(
                match self.recording.decode_entry(
                    stream,
                    e,
                    &mut self.scratch,
                    &mut self.blocks,
                    &mut self.decoders,
                ) {
                    Ok((stream, capture, payload)) => Ok(Sample {
                        stream,
                        capture,
                        arrival: HostTime(0),
                        seq: 0,
                        payload,
                    }),
                    Err(err) => Err(SourceError::Skipped {
                        stream: stream.name().to_string(),
                        message: err.to_string(),
                    }),
                },
            );
        }
        None
    }
}

/// The streams the session's MPS outputs provide.
fn mps_streams(files: &mps::MpsFiles) -> Vec<StreamId> {
    let mut out = Vec::new();
    if files.eye_gaze.is_some() {
        out.push(StreamId::EyeGaze);
    }
    if files.wrist_and_palm.is_some() {
        out.push(StreamId::HandTracking);
    }
    if files.closed_loop.is_some() || files.open_loop.is_some() {
        out.push(StreamId::DevicePose);
    }
    out
}

/// The MPS-derived lanes that the session has: device pose (closed loop, else open loop),
/// eye gaze and hand tracking, each in capture order (also the live `--map` overlay's).
pub(crate) fn mps_lanes(files: &mps::MpsFiles) -> Result<Vec<Lane>, mps::MpsError> {
    let mut lanes: Vec<Lane> = Vec::new();
    if let Some(p) = files.closed_loop.as_ref().or(files.open_loop.as_ref()) {
        let path = p.display().to_string();
        let reader = mps::TrajectoryReader::open(p)?;
        lanes.push(Box::new(reader.map(move |r| match r {
            Ok(pose) => Ok(derived(
                StreamId::DevicePose,
                pose.tracking_time,
                Payload::Pose(PoseSample {
                    t_world_device: pose.t_world_device,
                    linear_velocity_mps: vec3_f32(&pose.linear_velocity_mps),
                    angular_velocity_radps: vec3_f32(&pose.angular_velocity_device_radps),
                    quality: pose.quality_score,
                }),
            )),
            Err(e) => Err(SourceError::Skipped {
                stream: path.clone(),
                message: e.to_string(),
            }),
        })));
    }
    // Eye gaze and hand tracking are optional: a file that cannot be read is reported (one
    // skipped-sample error naming it and what the run goes without) and left out.
    if let Some(p) = &files.eye_gaze {
        match mps::read_eye_gaze(p) {
            Ok(rows) => lanes.push(Box::new(rows.into_iter().map(|g| {
                Ok(derived(
                    StreamId::EyeGaze,
                    g.tracking_time,
                    Payload::EyeGaze(g.to_sample()),
                ))
            }))),
            Err(e) => lanes.push(left_out(StreamId::EyeGaze, &e)),
        }
    }
    if let Some(p) = &files.wrist_and_palm {
        match mps::read_wrist_and_palm(p) {
            Ok(rows) => lanes.push(Box::new(rows.into_iter().map(|h| {
                Ok(derived(
                    StreamId::HandTracking,
                    h.tracking_time,
                    Payload::Hands(h.to_sample()),
                ))
            }))),
            Err(e) => lanes.push(left_out(StreamId::HandTracking, &e)),
        }
    }
    Ok(lanes)
}

/// A lane for an optional MPS input that could not be read: it yields one error saying
/// so (logged and counted like any skipped sample) and nothing else.
fn left_out(stream: StreamId, e: &mps::MpsError) -> Lane {
    log::warn!("{e}: the run continues without {}", stream.name());
    Box::new(std::iter::once(Err(SourceError::Skipped {
        stream: stream.name().to_string(),
        message: format!("{e}; left out, the run continues without it"),
    })))
}

fn derived(stream: StreamId, capture: DeviceTime, payload: Payload) -> Sample {
    Sample {
        stream,
        capture,
        arrival: HostTime(0),
        seq: 0,
        payload,
    }
}

fn vec3_f32(v: &nalgebra::Vector3<f64>) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}
