//! [`DetectorSeer`]: the object detector as perception's [`ObjectSeer`]. It passes on at most
//! one RGB frame per `min_interval_ns` of capture time, turned upright, looked at whole and
//! in its middle half by turns (what lies ahead, seen larger), and runs the detector on it
//! either
//! inline (lock-step replay: the same run gives the same things) or on its own thread, where
//! the newest frame waiting wins (real time: detection never holds perception up, and a frame
//! replaced while the detector was busy is counted). Every detection is timed (a `detect`
//! span on the timeline, a latency histogram) and its CPU counted under the `detector`
//! stage. A frame that does not decode is skipped and counted.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use super::detector::Detector;
use super::resize::Region;
use crate::aria::recording::image::decode_image;
use crate::aria::recording::orientation::Orientation;
use crate::budget::RateDial;
use crate::profile::{timeline, LatencyHistogram, Percentiles, Span};
use crate::sample::{Payload, Sample};
use crate::state::{ObjectSeer, SeenObject};
use crate::worker::{Worker, WorkerError};

/// The stage name of one detection on the timeline and in the CPU accounting.
pub const DETECT_STAGE: &str = crate::profile::stages::DETECTOR;
/// Frames' worth of results held for the perception thread to collect.
const RESULT_CAPACITY: usize = 8;

#[derive(Debug, Default)]
struct Counts {
    detect_ns: LatencyHistogram,
    offered: u64,
    detected: u64,
    things: u64,
    skipped_throttle: u64,
    held_back: u64,
    skipped_busy: u64,
    undecodable: u64,
    failed: u64,
    results_dropped: u64,
}

/// The seer's counters, shared with its thread.
#[derive(Debug, Default)]
pub struct SeerStats {
    inner: Mutex<Counts>,
}

/// What the object detector did in a run (`profile.json`'s `objects`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SeerReport {
    /// RGB frames offered by perception.
    pub frames_offered: u64,
    /// Frames the detector ran on.
    pub frames_detected: u64,
    /// Things found in all.
    pub things: u64,
    /// Frames passed over: within the interval of the last frame passed on.
    pub skipped_throttle: u64,
    /// Of them, frames the detector's own interval would have taken but the CPU budget
    /// held back (see [`crate::budget`]).
    pub held_back: u64,
    /// Frames passed over: replaced by a newer one while the detector was busy.
    pub skipped_busy: u64,
    /// Frames that did not decode.
    pub undecodable: u64,
    /// Frames the model failed on.
    pub failed: u64,
    /// Results dropped because perception had not collected them.
    pub results_dropped: u64,
    /// Time per detection (decoding, input, model), µs.
    pub detect_us: Percentiles,
}

impl SeerStats {
    fn with(&self, f: impl FnOnce(&mut Counts)) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g);
    }

    /// The report so far.
    pub fn report(&self) -> SeerReport {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        SeerReport {
            frames_offered: g.offered,
            frames_detected: g.detected,
            things: g.things,
            skipped_throttle: g.skipped_throttle,
            held_back: g.held_back,
            skipped_busy: g.skipped_busy,
            undecodable: g.undecodable,
            failed: g.failed,
            results_dropped: g.results_dropped,
            detect_us: g.detect_ns.percentiles(),
        }
    }
}

impl SeerReport {
    /// One line for the terminal report.
    pub fn to_line(&self) -> String {
        format!(
            "objects: {} frames offered, {} detected ({} things), {} throttled ({} by the CPU budget), \
             {} replaced while busy, {} undecodable, {} failed; detection p50 {:.1} ms, p99 {:.1} ms",
            self.frames_offered,
            self.frames_detected,
            self.things,
            self.skipped_throttle,
            self.held_back,
            self.skipped_busy,
            self.undecodable,
            self.failed,
            self.detect_us.p50 / 1e3,
            self.detect_us.p99 / 1e3,
        )
    }
}

/// How the RGB camera's frames must be turned to stand upright (Aria Gen1: a quarter
/// clockwise, as the text reader turns them).
const RGB_ORIENTATION: Orientation = Orientation::RotateCw90;

/// Share of the frame's side that the middle view covers. The model sees 300 pixels square:
/// the whole 110° view shrunk that far leaves a bicycle 4 m away some 50 pixels wide, too
/// small to be told; every other frame passed on is looked at in its middle half instead,
/// where what lies ahead at walking distances is, twice as large.
const MIDDLE_SHARE: f32 = 0.5;

/// Which part of a frame is looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Whole,
    Middle,
}

/// Decodes `frame` and runs `detector` on `view` of it upright, timed and counted; the
/// things seen, boxed in the recorded frame.
fn detect_frame(
    detector: &mut Detector,
    stats: &SeerStats,
    frame: &Sample,
    view: View,
) -> Vec<SeenObject> {
    let Payload::Image(image) = &frame.payload else {
        return Vec::new();
    };
    let span = Span::begin(DETECT_STAGE, frame.capture);
    let decoded = match decode_image(image) {
        Ok(d) => d,
        Err(e) => {
            log::debug!("detector: frame at {} ns: {e}", frame.capture.ns());
            stats.with(|c| c.undecodable += 1);
            return Vec::new();
        }
    };
    let region = match view {
        View::Whole => Region::whole(decoded.width, decoded.height),
        View::Middle => Region::centre(decoded.width, decoded.height, MIDDLE_SHARE),
    };
    let found = match detector.detect_in(&decoded, RGB_ORIENTATION, region) {
        Ok(f) => f,
        Err(e) => {
            log::warn!("detector: frame at {} ns: {e}", frame.capture.ns());
            stats.with(|c| c.failed += 1);
            return Vec::new();
        }
    };
    let span = span.finish();
    timeline::record_span(&span);
    stats.with(|c| {
        c.detect_ns.record_ns(span.duration_ns());
        c.detected += 1;
        c.things += found.len() as u64;
    });
    found
        .into_iter()
        .map(|d| SeenObject {
            class: d.class,
            confidence: d.score,
            rgb_box: [d.box_px.x0, d.box_px.y0, d.box_px.x1, d.box_px.y1],
            foot_px: d.box_px.foot(RGB_ORIENTATION),
            top_px: Some(d.box_px.top(RGB_ORIENTATION)),
            at: frame.capture,
        })
        .collect()
}

#[derive(Default)]
struct Slot {
    frame: Option<(Sample, View)>,
    stop: bool,
}

#[derive(Default)]
struct Mailbox {
    slot: Mutex<Slot>,
    ready: Condvar,
}

impl Mailbox {
    /// The slot; a poisoned lock still holds plain data, so it is used as it is.
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

enum Mode {
    Inline {
        detector: Box<Detector>,
        pending: Vec<SeenObject>,
    },
    Thread {
        mailbox: Arc<Mailbox>,
        rx: Receiver<Vec<SeenObject>>,
        /// Declared last: dropped (stopped and joined) after `Drop` has signalled.
        _thread: Worker,
    },
}

/// The object detector behind the [`ObjectSeer`] port: see the module documentation.
pub struct DetectorSeer {
    mode: Mode,
    stats: Arc<SeerStats>,
    min_interval_ns: i64,
    dial: RateDial,
    last_passed_ns: Option<i64>,
    /// Frames passed on so far (even: the whole view, odd: the middle).
    passed: u64,
}

impl std::fmt::Debug for DetectorSeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetectorSeer")
            .field("min_interval_ns", &self.min_interval_ns)
            .field("threaded", &matches!(self.mode, Mode::Thread { .. }))
            .finish_non_exhaustive()
    }
}

impl DetectorSeer {
    /// Detects on the caller's thread (lock step), at most one frame per `min_interval_ns`.
    pub fn inline(detector: Detector, min_interval_ns: i64) -> Self {
        Self {
            mode: Mode::Inline {
                detector: Box::new(detector),
                pending: Vec::new(),
            },
            stats: Arc::new(SeerStats::default()),
            min_interval_ns,
            dial: RateDial::new(),
            last_passed_ns: None,
            passed: 0,
        }
    }

    /// Detects on a thread of its own (`detector`), newest frame wins, at most one frame per
    /// `min_interval_ns`.
    pub fn threaded(detector: Detector, min_interval_ns: i64) -> Result<Self, WorkerError> {
        let stats = Arc::new(SeerStats::default());
        let mailbox = Arc::new(Mailbox::default());
        let (tx, rx) = crossbeam_channel::bounded(RESULT_CAPACITY);
        let (mb, st) = (Arc::clone(&mailbox), Arc::clone(&stats));
        let thread = Worker::spawn(DETECT_STAGE, move |_| run(detector, &mb, &tx, &st))?;
        Ok(Self {
            mode: Mode::Thread {
                mailbox,
                rx,
                _thread: thread,
            },
            stats,
            min_interval_ns,
            dial: RateDial::new(),
            last_passed_ns: None,
            passed: 0,
        })
    }

    /// Stretches the interval between detections by `dial` (the CPU budget's).
    pub fn with_dial(mut self, dial: RateDial) -> Self {
        self.dial = dial;
        self
    }

    /// The counters (shared: readable after the seer moved into perception).
    pub fn stats(&self) -> Arc<SeerStats> {
        Arc::clone(&self.stats)
    }
}

/// The thread: wait for a frame, detect, send.
fn run(mut detector: Detector, mailbox: &Mailbox, tx: &Sender<Vec<SeenObject>>, stats: &SeerStats) {
    let _cpu = crate::profile::cpu::account(DETECT_STAGE);
    loop {
        let frame = {
            let mut g = mailbox.lock();
            loop {
                if g.stop {
                    return;
                }
                if let Some(f) = g.frame.take() {
                    break f;
                }
                match mailbox.ready.wait(g) {
                    Ok(ng) => g = ng,
                    Err(_) => return,
                }
            }
        };
        let seen = detect_frame(&mut detector, stats, &frame.0, frame.1);
        if seen.is_empty() {
            continue;
        }
        match tx.try_send(seen) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => stats.with(|c| c.results_dropped += 1),
            Err(TrySendError::Disconnected(_)) => return,
        }
    }
}

impl ObjectSeer for DetectorSeer {
    fn submit(&mut self, frame: &Sample) {
        let t = frame.capture.ns();
        self.stats.with(|c| c.offered += 1);
        let skips = self
            .last_passed_ns
            .filter(|&last| t >= last)
            .and_then(|last| self.dial.skips(self.min_interval_ns, t - last));
        if let Some(held) = skips {
            self.stats.with(|c| {
                c.skipped_throttle += 1;
                c.held_back += u64::from(held);
            });
            return;
        }
        self.last_passed_ns = Some(t);
        let view = if self.passed % 2 == 0 {
            View::Whole
        } else {
            View::Middle
        };
        self.passed += 1;
        match &mut self.mode {
            Mode::Inline { detector, pending } => {
                let _cpu = crate::profile::cpu::scope(DETECT_STAGE);
                pending.extend(detect_frame(detector, &self.stats, frame, view));
            }
            Mode::Thread { mailbox, .. } => {
                let mut g = mailbox.lock();
                if g.frame.replace((frame.clone(), view)).is_some() {
                    self.stats.with(|c| c.skipped_busy += 1);
                }
                mailbox.ready.notify_all();
            }
        }
    }

    fn poll(&mut self) -> Vec<SeenObject> {
        match &mut self.mode {
            Mode::Inline { pending, .. } => std::mem::take(pending),
            Mode::Thread { rx, .. } => rx.try_iter().flatten().collect(),
        }
    }
}

impl Drop for DetectorSeer {
    fn drop(&mut self) {
        if let Mode::Thread { mailbox, .. } = &self.mode {
            // A frame still waiting is not detected (the run is over); the thread is joined
            // when `_thread` drops, after this.
            let mut g = mailbox.lock();
            g.stop = true;
            mailbox.ready.notify_all();
        }
    }
}
