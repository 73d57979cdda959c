//! [`PerceptionConsumer`]: perception as a runtime [`Consumer`]. It drains every new
//! sample of the streams it wants, folds them into a [`Perception`] in capture order, and
//! ticks on the device-time cadence (every 50–100 ms): before folding in the first sample
//! at or after a tick boundary, the state at that boundary is computed, its hazards go to
//! the sink's `on_hazard` and the state to `on_state`. RGB frames go to an optional
//! [`TextReader`] with the gaze pixel and to an optional [`ObjectSeer`] (the object
//! detector); their texts and things are folded in at each tick. When the
//! assistant asks for a whole-frame read ([`ReadRequests`]), the newest RGB frame is read
//! whole (one such read at a time); the tick that folds its text in marks the asks made
//! before it started as served, just before the state goes to the sink.

use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::buffer::Reader;
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::{Sample, StreamId};
use crate::state::{ObjectSeer, PerceptionSink, ReadRequests, TextReader};
use crate::time::{DeviceTime, HostTime};

use super::depth_input::{DepthInput, DepthInputStats};
use super::engine::{Perception, PerceptionStats};
use super::movers::{MoverInput, MoverStats};
use super::points::PointMap;
use super::stereo::filter::DepthFilterStats;

/// What perception counted over a run (the profile's `perception`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PerceptionReport {
    /// The engine's counters (ticks, and the live map's among them).
    pub engine: PerceptionStats,
    /// What the depth filter removed, by reason.
    pub depth_filter: DepthFilterStats,
    /// Stereo depth's pairs and frames (absent without stereo depth).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<DepthInputStats>,
    /// The motion detector's frames and tracks (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movers: Option<MoverStats>,
}

/// Where a [`PerceptionConsumer`] leaves its [`PerceptionReport`] when it finishes.
pub type PerceptionReportSlot = Arc<Mutex<Option<PerceptionReport>>>;

/// Streams perception reads.
pub const WANTED: [StreamId; 7] = [
    StreamId::ImuRight,
    StreamId::ImuLeft,
    StreamId::Magnetometer,
    StreamId::Barometer,
    StreamId::EyeGaze,
    StreamId::DevicePose,
    StreamId::CameraRgb,
];

/// Perception on its runtime thread.
pub struct PerceptionConsumer {
    name: String,
    engine: Perception,
    sink: Box<dyn PerceptionSink>,
    reader: Option<Box<dyn TextReader>>,
    seer: Option<Box<dyn ObjectSeer>>,
    whole: Option<WholeReads>,
    depth: Option<DepthInput>,
    movers: Option<MoverInput>,
    depth_tap: Option<DepthTap>,
    scratch: Vec<Sample>,
    next_tick_ns: Option<i64>,
    ticks: u64,
    report: Option<PerceptionReportSlot>,
}

/// Shown each stereo depth frame once folded in: its capture time (device ns), the clock's
/// present, the points the depth filter kept (world, m), and the live map after it, when one
/// is built. It must return quickly (it runs on the perception thread).
pub type DepthTap = Box<dyn FnMut(i64, HostTime, &[[f32; 3]], Option<Arc<PointMap>>) + Send>;

/// Whole-frame reads on request: the asks, the newest RGB frame, the read under way.
struct WholeReads {
    requests: Arc<ReadRequests>,
    newest: Option<Sample>,
    /// The newest ticket the read under way answers.
    under_way: Option<u64>,
    /// The reader's finished whole-frame reads at the last tick.
    finished: u64,
}

impl std::fmt::Debug for PerceptionConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerceptionConsumer")
            .field("name", &self.name)
            .field("ticks", &self.ticks)
            .field("stats", &self.engine.stats())
            .finish()
    }
}

impl PerceptionConsumer {
    /// `engine` feeding `sink`.
    pub fn new(engine: Perception, sink: Box<dyn PerceptionSink>) -> Self {
        Self {
            name: "perception".to_string(),
            engine,
            sink,
            reader: None,
            seer: None,
            whole: None,
            depth: None,
            depth_tap: None,
            movers: None,
            scratch: Vec::with_capacity(4096),
            next_tick_ns: None,
            ticks: 0,
            report: None,
        }
    }

    /// Leaves its counters in `slot` when it finishes.
    pub fn with_report(mut self, slot: PerceptionReportSlot) -> Self {
        self.report = Some(slot);
        self
    }

    /// Its counters so far.
    pub fn report(&self) -> PerceptionReport {
        PerceptionReport {
            engine: self.engine.stats(),
            depth_filter: self.engine.depth_filter_stats(),
            depth: self.depth_stats(),
            movers: self.mover_stats(),
        }
    }

    /// Also reads text from RGB frames through `reader`.
    pub fn with_text_reader(mut self, reader: Box<dyn TextReader>) -> Self {
        self.reader = Some(reader);
        self
    }

    /// Also sees what things are in RGB frames through `seer`.
    pub fn with_object_seer(mut self, seer: Box<dyn ObjectSeer>) -> Self {
        self.engine.set_sees_objects(true);
        self.seer = Some(seer);
        self
    }

    /// Reads the newest RGB frame whole when `requests` asks (with a text reader only).
    pub fn with_read_requests(mut self, requests: Arc<ReadRequests>) -> Self {
        self.whole = Some(WholeReads {
            requests,
            newest: None,
            under_way: None,
            finished: 0,
        });
        self
    }

    /// Also sees depth from the SLAM stereo pair through `depth`.
    pub fn with_depth(mut self, depth: DepthInput) -> Self {
        self.engine
            .set_focal_baseline_px_m(depth.focal_baseline_px_m());
        self.depth = Some(depth);
        self
    }

    /// Shows every depth frame folded in to `tap` (see [`DepthTap`]).
    pub fn with_depth_tap(mut self, tap: DepthTap) -> Self {
        self.depth_tap = Some(tap);
        self
    }

    /// Also sees things moving on the ground (vehicles) through `movers`.
    pub fn with_movers(mut self, movers: MoverInput) -> Self {
        self.movers = Some(movers);
        self
    }

    /// The motion detector's counters, when there is one.
    pub fn mover_stats(&self) -> Option<super::movers::MoverStats> {
        self.movers.as_ref().map(MoverInput::stats)
    }

    /// The stereo depth input's counters, when there is one.
    pub fn depth_stats(&self) -> Option<super::depth_input::DepthInputStats> {
        self.depth.as_ref().map(DepthInput::stats)
    }

    /// The engine (counters, last view).
    pub fn engine(&self) -> &Perception {
        &self.engine
    }

    /// Ticks run.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Starts a whole-frame read of the newest RGB frame when one is asked for and none is
    /// under way.
    fn start_whole_read(&mut self) {
        let (Some(r), Some(w)) = (self.reader.as_mut(), self.whole.as_mut()) else {
            return;
        };
        if w.under_way.is_some() || !w.requests.wanted() {
            return;
        }
        let Some(frame) = w.newest.as_ref() else {
            return;
        };
        let ticket = w.requests.asked();
        let _cpu = crate::profile::cpu::scope(crate::profile::stages::OCR);
        r.read_whole(frame, self.engine.gaze_pixel(frame.capture));
        w.under_way = Some(ticket);
    }

    fn tick(&mut self, at_ns: i64, now: HostTime) {
        if let Some(r) = self.reader.as_mut() {
            // Counted before the poll: a counted read's texts are in this poll.
            let finished = r.whole_reads_finished();
            let texts = r.poll();
            self.engine.add_texts(texts);
            if let Some(w) = self.whole.as_mut() {
                if finished > w.finished {
                    w.finished = finished;
                    if let Some(t) = w.under_way.take() {
                        w.requests.serve(t);
                    }
                }
            }
        }
        if let Some(seer) = self.seer.as_mut() {
            self.engine.add_objects(seer.poll());
        }
        if let Some(d) = self.depth.as_mut() {
            for f in d.poll() {
                let kept = self
                    .engine
                    .on_depth_frame(f.capture_ns, f.origin_m, &f.points_world);
                if let Some(tap) = self.depth_tap.as_mut() {
                    tap(f.capture_ns, now, &kept, self.engine.live_map_points());
                }
            }
        }
        if let Some(m) = self.movers.as_mut() {
            if let Some(floor) = self.engine.floor_z_m(at_ns) {
                let _cpu = crate::profile::cpu::scope(crate::profile::stages::MOVERS);
                for (t, sightings) in m.poll(floor) {
                    self.engine.on_mover_sightings(t, &sightings);
                }
            }
        }
        let (state, events) = self.engine.tick(DeviceTime(at_ns), now);
        self.ticks += 1;
        for e in &events {
            self.sink.on_hazard(e);
        }
        self.sink.on_state(&state, now);
        // A request answered from this state may have asked for a whole-frame read.
        self.start_whole_read();
    }

    /// Folds `s` in, first running every tick whose boundary it reaches.
    fn fold(&mut self, s: &Sample, now: HostTime) {
        let period = self.engine.config().tick_ns();
        let t = s.capture.ns();
        let next = *self.next_tick_ns.get_or_insert_with(|| {
            t.div_euclid(period)
                .saturating_add(1)
                .saturating_mul(period)
        });
        if t >= next {
            // One tick at the last boundary reached (a gap in the data is not replayed
            // tick by tick).
            let last = t.div_euclid(period).saturating_mul(period);
            self.tick(last, now);
            self.next_tick_ns = Some(last.saturating_add(period));
        }
        if s.stream == StreamId::CameraRgb {
            if let Some(r) = self.reader.as_mut() {
                let _cpu = crate::profile::cpu::scope(crate::profile::stages::OCR);
                r.submit(s, self.engine.gaze_pixel(s.capture));
            }
            if let Some(seer) = self.seer.as_mut() {
                seer.submit(s);
            }
            if let Some(w) = self.whole.as_mut() {
                if w.newest.is_none() {
                    w.requests.set_ready();
                }
                w.newest = Some(s.clone());
            }
            // An ask made before any frame came is read from this one.
            self.start_whole_read();
        }
        if let Some(d) = self.depth.as_mut() {
            if DepthInput::wants(s.stream) {
                let _cpu = crate::profile::cpu::scope(crate::profile::stages::STEREO);
                d.on_sample(s);
            }
        }
        if let Some(m) = self.movers.as_mut() {
            if MoverInput::wants(s.stream) {
                let _cpu = crate::profile::cpu::scope(crate::profile::stages::MOVERS);
                m.on_sample(s);
            }
        }
        if WANTED.contains(&s.stream) {
            self.engine.on_sample(s);
        }
    }
}

impl Consumer for PerceptionConsumer {
    fn name(&self) -> &str {
        &self.name
    }

    fn wants(&self, stream: StreamId) -> bool {
        (WANTED.contains(&stream)
            && (stream != StreamId::CameraRgb || self.reader.is_some() || self.seer.is_some()))
            || (self.depth.is_some() && DepthInput::wants(stream))
            || (self.movers.is_some() && MoverInput::wants(stream))
    }

    fn on_samples(&mut self, reader: &mut Reader, now: HostTime) -> Result<(), ConsumerError> {
        let mut batch = std::mem::take(&mut self.scratch);
        batch.clear();
        for s in StreamId::ALL {
            if self.wants(s) {
                reader.drain_new_into(s, &mut batch);
            }
        }
        batch.sort_by_key(|s| s.capture);
        for s in &batch {
            self.fold(s, now);
        }
        batch.clear();
        self.scratch = batch;
        Ok(())
    }

    fn finish(&mut self) {
        let report = self.report();
        if let Some(m) = report.movers.as_ref() {
            log::info!("motion detection: {m:?}");
        }
        if let Some(d) = report.depth.as_ref() {
            log::info!("stereo depth: {d:?}");
            log::info!("stereo depth filter: {:?}", report.depth_filter);
        }
        if report.engine.live_map.frames > 0 {
            log::info!("live map: {:?}", report.engine.live_map);
        }
        if let Some(slot) = self.report.as_ref() {
            if let Ok(mut r) = slot.lock() {
                *r = Some(report);
            }
        }
        self.sink.finish();
    }
}
