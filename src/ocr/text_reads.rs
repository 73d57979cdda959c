//! Text reading, measured: [`ProfiledReader`] wraps a *synchronous* [`TextReader`] (PP-OCR),
//! passes it at most one frame per `min_interval_ns` of capture time, runs it inline
//! (deterministic replay) or on a [`NewestFrameWorker`] thread, newest frame wins (real time),
//! and times every read. [`TextReadStats`] holds the per-read latency histogram and counts
//! (reads, reads that found text, texts, frames skipped by the throttle, frames replaced
//! while the reader was busy, results dropped), reported as [`TextReadReport`] in
//! `profile.json` and as a table; every read is also an `ocr read` span on the timeline.
//! Whole-frame reads on request ([`TextReader::read_whole`]) pass the throttle, go ahead of
//! the frame waiting and are never replaced; they are counted and timed apart (`ocr read
//! whole` spans), so `reads` stays the count of offered frames read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::newest_frame::{FrameJob, FrameWork, NewestFrameWorker};
use crate::budget::RateDial;
use crate::profile::{timeline, LatencyHistogram, Percentiles, Span};
use crate::sample::Sample;
use crate::state::{TextFact, TextReader};
use crate::worker::WorkerError;

/// Text reading's stage in the CPU accounting.
pub const CPU_STAGE: &str = crate::profile::stages::OCR;
/// Whole-frame reads on request, in the CPU accounting.
pub const WHOLE_CPU_STAGE: &str = crate::profile::stages::OCR_WHOLE;
/// The stage name of a read on the timeline.
pub const READ_STAGE: &str = "ocr read";
/// The stage name of a whole-frame read on request.
pub const WHOLE_READ_STAGE: &str = "ocr read whole";

#[derive(Debug, Default)]
struct Counts {
    read_ns: LatencyHistogram,
    reads: u64,
    with_text: u64,
    texts: u64,
    skipped_throttle: u64,
    held_back: u64,
    skipped_busy: u64,
    results_dropped: u64,
    submitted: u64,
    whole_ns: LatencyHistogram,
    whole: u64,
    whole_with_text: u64,
}

/// Shared counters and the per-read latency histogram.
#[derive(Debug, Default)]
pub struct TextReadStats {
    inner: Mutex<Counts>,
}

/// Text reading in `profile.json`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TextReadReport {
    /// Frames offered by perception.
    pub frames_offered: u64,
    /// Frames read to the end.
    pub reads: u64,
    /// Reads that found at least one text.
    pub reads_with_text: u64,
    /// Texts found in all.
    pub texts: u64,
    /// Frames not read: within `min_interval` of the last frame passed on.
    pub skipped_throttle: u64,
    /// Of them, frames the reader's own interval would have read but the CPU budget held
    /// back (see [`crate::budget`]).
    pub held_back: u64,
    /// Frames not read: replaced by a newer frame while the reader was busy.
    pub skipped_busy: u64,
    /// Results dropped because they were not collected in time.
    pub results_dropped: u64,
    /// Duration of each read, µs.
    pub read_us: Percentiles,
    /// Whole-frame reads on request (an answer needed text the state did not hold): the
    /// newest frame read whole, outside the throttle; not in `reads`.
    pub whole_frame_reads: u64,
    /// Whole-frame reads that found at least one text.
    pub whole_frame_reads_with_text: u64,
    /// Duration of each whole-frame read, µs.
    pub whole_read_us: Percentiles,
}

impl TextReadStats {
    /// Empty statistics.
    pub fn new() -> Self {
        Self::default()
    }

    fn with(&self, f: impl FnOnce(&mut Counts)) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g);
    }

    /// Records one read of `duration_ns` that found `texts` texts.
    pub fn record_read(&self, duration_ns: i64, texts: usize) {
        self.with(|c| {
            c.read_ns.record_ns(duration_ns);
            c.reads += 1;
            c.texts += texts as u64;
            if texts > 0 {
                c.with_text += 1;
            }
        });
    }

    /// Records one whole-frame read of `duration_ns` that found `texts` texts.
    pub fn record_whole_read(&self, duration_ns: i64, texts: usize) {
        self.with(|c| {
            c.whole_ns.record_ns(duration_ns);
            c.whole += 1;
            c.texts += texts as u64;
            if texts > 0 {
                c.whole_with_text += 1;
            }
        });
    }

    /// The report so far.
    pub fn report(&self) -> TextReadReport {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        TextReadReport {
            frames_offered: g.submitted,
            reads: g.reads,
            reads_with_text: g.with_text,
            texts: g.texts,
            skipped_throttle: g.skipped_throttle,
            held_back: g.held_back,
            skipped_busy: g.skipped_busy,
            results_dropped: g.results_dropped,
            read_us: g.read_ns.percentiles(),
            whole_frame_reads: g.whole,
            whole_frame_reads_with_text: g.whole_with_text,
            whole_read_us: g.whole_ns.percentiles(),
        }
    }
}

impl TextReadReport {
    /// A terminal table.
    pub fn to_table(&self) -> String {
        let mut t = format!(
            "{:<12} {:>7} {:>9} {:>6} {:>9} {:>6} {:>10} {:>10} {:>10}\n\
             {:<12} {:>7} {:>9} {:>6} {:>9} {:>6} {:>8.1}ms {:>8.1}ms {:>8.1}ms\n",
            "text reads",
            "offered",
            "read",
            "text",
            "throttled",
            "busy",
            "read p50",
            "read p99",
            "read max",
            "",
            self.frames_offered,
            self.reads,
            self.reads_with_text,
            self.skipped_throttle,
            self.skipped_busy,
            self.read_us.p50 / 1e3,
            self.read_us.p99 / 1e3,
            self.read_us.max / 1e3,
        );
        t.push_str(&format!(
            "{:<12} {:>7} {:>9} {:>6} {:>9} {:>6} {:>8.1}ms {:>8.1}ms {:>8.1}ms\n",
            "whole frame",
            "",
            self.whole_frame_reads,
            self.whole_frame_reads_with_text,
            "",
            "",
            self.whole_read_us.p50 / 1e3,
            self.whole_read_us.p99 / 1e3,
            self.whole_read_us.max / 1e3,
        ));
        t
    }
}

/// Reads one frame with the synchronous `reader`, timing it; returns the facts.
fn timed_read(
    reader: &mut dyn TextReader,
    stats: &TextReadStats,
    frame: &Sample,
    gaze: Option<[f32; 2]>,
) -> Vec<TextFact> {
    let span = Span::begin(READ_STAGE, frame.capture);
    reader.submit(frame, gaze);
    let facts = reader.poll();
    let span = span.finish();
    stats.record_read(span.duration_ns(), facts.len());
    timeline::record_span(&span);
    facts
}

/// Reads all of one frame with the synchronous `reader`, timing it, handing each part's
/// facts to `on_part` as it is read.
fn timed_whole_read(
    reader: &mut dyn TextReader,
    stats: &TextReadStats,
    frame: &Sample,
    gaze: Option<[f32; 2]>,
    on_part: &mut dyn FnMut(Vec<TextFact>),
) {
    // Asked for by the wearer: its CPU is its own stage's, apart from the periodic reads
    // whose rate the budget sets.
    let _cpu = crate::profile::cpu::scope(WHOLE_CPU_STAGE);
    let span = Span::begin(WHOLE_READ_STAGE, frame.capture);
    let mut texts = 0;
    reader.read_whole_parts(frame, gaze, &mut |facts| {
        texts += facts.len();
        if !facts.is_empty() {
            on_part(facts);
        }
    });
    let span = span.finish();
    stats.record_whole_read(span.duration_ns(), texts);
    timeline::record_span(&span);
}

enum Mode {
    Inline {
        reader: Box<dyn TextReader>,
        pending: Vec<TextFact>,
    },
    Thread(NewestFrameWorker),
}

/// A throttled, timed [`TextReader`] over a synchronous one.
pub struct ProfiledReader {
    mode: Mode,
    stats: Arc<TextReadStats>,
    /// Whole-frame reads finished (counted after their facts are handed over).
    whole_done: Arc<AtomicU64>,
    min_interval_ns: i64,
    dial: RateDial,
    last: Option<i64>,
}

impl std::fmt::Debug for ProfiledReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfiledReader")
            .field("min_interval_ns", &self.min_interval_ns)
            .field("threaded", &matches!(self.mode, Mode::Thread(_)))
            .finish()
    }
}

/// Results held for `poll` in threaded mode (frames' worth).
const RESULTS_CAPACITY: usize = 16;

impl ProfiledReader {
    /// Wraps `reader`, which must read inside `submit` (synchronous). `threaded`: read on
    /// a thread of its own, newest frame wins; otherwise inline in `submit`.
    pub fn new(
        reader: Box<dyn TextReader>,
        min_interval_ns: i64,
        threaded: bool,
        stats: Arc<TextReadStats>,
    ) -> Result<Self, WorkerError> {
        let whole_done = Arc::new(AtomicU64::new(0));
        let mode = if threaded {
            let work = TimedReads {
                reader,
                stats: Arc::clone(&stats),
            };
            Mode::Thread(NewestFrameWorker::spawn(
                work,
                RESULTS_CAPACITY,
                Arc::clone(&whole_done),
            )?)
        } else {
            Mode::Inline {
                reader,
                pending: Vec::new(),
            }
        };
        Ok(Self {
            mode,
            stats,
            whole_done,
            min_interval_ns,
            dial: RateDial::new(),
            last: None,
        })
    }

    /// Stretches the interval between reads around the gaze by `dial` (the CPU budget's;
    /// whole-frame reads on request are never held back).
    pub fn with_dial(mut self, dial: RateDial) -> Self {
        self.dial = dial;
        self
    }

    /// The shared statistics.
    pub fn stats(&self) -> Arc<TextReadStats> {
        Arc::clone(&self.stats)
    }
}

/// The worker thread's reads: timed, and only the facts of reads that found text sent.
struct TimedReads {
    reader: Box<dyn TextReader>,
    stats: Arc<TextReadStats>,
}

impl FrameWork for TimedReads {
    fn read(&mut self, job: &FrameJob, send: &mut dyn FnMut(Vec<TextFact>)) {
        let mut send_found = |facts: Vec<TextFact>| {
            if !facts.is_empty() {
                send(facts);
            }
        };
        if job.asks > 0 {
            // Each part goes out as soon as it is read.
            timed_whole_read(
                self.reader.as_mut(),
                &self.stats,
                &job.frame,
                job.gaze_px,
                &mut send_found,
            );
        } else {
            send_found(timed_read(
                self.reader.as_mut(),
                &self.stats,
                &job.frame,
                job.gaze_px,
            ));
        }
    }

    fn result_dropped(&self) {
        self.stats.with(|c| c.results_dropped += 1);
    }
}

impl TextReader for ProfiledReader {
    fn submit(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        self.stats.with(|c| c.submitted += 1);
        let t = frame.capture.ns();
        let skips = self
            .last
            .and_then(|l| self.dial.skips(self.min_interval_ns, t.saturating_sub(l)));
        if let Some(held) = skips {
            self.stats.with(|c| {
                c.skipped_throttle += 1;
                c.held_back += u64::from(held);
            });
            return;
        }
        self.last = Some(t);
        match &mut self.mode {
            Mode::Inline { reader, pending } => {
                let facts = timed_read(reader.as_mut(), &self.stats, frame, gaze_px);
                pending.extend(facts);
            }
            Mode::Thread(worker) => {
                let job = FrameJob {
                    frame: frame.clone(),
                    gaze_px,
                    whole: false,
                    asks: 0,
                };
                if worker.offer(job) {
                    self.stats.with(|c| c.skipped_busy += 1);
                }
            }
        }
    }

    fn read_whole(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        match &mut self.mode {
            Mode::Inline { reader, pending } => {
                timed_whole_read(reader.as_mut(), &self.stats, frame, gaze_px, &mut |f| {
                    pending.extend(f)
                });
                self.whole_done.fetch_add(1, Ordering::Release);
            }
            Mode::Thread(worker) => worker.ask_whole(frame, gaze_px),
        }
    }

    fn whole_reads_finished(&self) -> u64 {
        self.whole_done.load(Ordering::Acquire)
    }

    fn poll(&mut self) -> Vec<TextFact> {
        match &mut self.mode {
            Mode::Inline { pending, .. } => std::mem::take(pending),
            Mode::Thread(worker) => worker.poll(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{ImuSample, Payload, StreamId};
    use crate::state::ClockHour;
    use crate::time::{DeviceTime, HostTime};

    /// Finds one text in every frame whose capture ms is even, after sleeping `sleep_ms`.
    struct Fake {
        sleep_ms: u64,
        out: Vec<TextFact>,
        whole: u64,
    }

    impl TextReader for Fake {
        fn submit(&mut self, frame: &Sample, _gaze: Option<[f32; 2]>) {
            std::thread::sleep(std::time::Duration::from_millis(self.sleep_ms));
            if (frame.capture.ns() / 1_000_000) % 2 == 0 {
                self.out.push(TextFact {
                    text: format!("t{}", frame.capture.ns()),
                    confidence: 1.0,
                    clock: ClockHour::new(12),
                    distance_m: None,
                    rgb_box: [0.0; 4],
                    gazed: false,
                    at: frame.capture,
                });
            }
        }
        fn read_whole(&mut self, frame: &Sample, gaze: Option<[f32; 2]>) {
            self.whole += 1;
            self.submit(frame, gaze);
        }
        fn whole_reads_finished(&self) -> u64 {
            self.whole
        }
        fn poll(&mut self) -> Vec<TextFact> {
            std::mem::take(&mut self.out)
        }
    }

    fn frame(ms: i64) -> Sample {
        Sample {
            stream: StreamId::CameraRgb,
            capture: DeviceTime(ms * 1_000_000),
            arrival: HostTime(0),
            seq: 0,
            payload: Payload::Imu(ImuSample::default()),
        }
    }

    #[test]
    fn inline_reads_are_throttled_counted_and_timed() {
        let stats = Arc::new(TextReadStats::new());
        let fake = Fake {
            sleep_ms: 3,
            out: Vec::new(),
            whole: 0,
        };
        let mut r =
            ProfiledReader::new(Box::new(fake), 100_000_000, false, Arc::clone(&stats)).unwrap();
        // Frames every 50 ms over 0..=500 ms: the throttle passes 0, 100, …, 500 (6 frames).
        for k in 0..=10 {
            r.submit(&frame(k * 50), None);
        }
        let facts = r.poll();
        let rep = stats.report();
        assert_eq!(rep.frames_offered, 11);
        assert_eq!(rep.reads, 6);
        assert_eq!(rep.skipped_throttle, 5);
        // Frames at 0, 100, …, 500 ms are all even ms: each found one text.
        assert_eq!(rep.reads_with_text, 6);
        assert_eq!(facts.len(), 6);
        assert_eq!(rep.read_us.count, 6);
        // Each read slept 3 ms: the median read is at least 3 ms and far below 1 s.
        assert!(rep.read_us.p50 >= 3_000.0, "{:?}", rep.read_us);
        assert!(rep.read_us.max < 1_000_000.0, "{:?}", rep.read_us);
    }

    #[test]
    fn threaded_reader_keeps_the_newest_frame_while_busy() {
        let stats = Arc::new(TextReadStats::new());
        let fake = Fake {
            sleep_ms: 200,
            out: Vec::new(),
            whole: 0,
        };
        let mut r = ProfiledReader::new(Box::new(fake), 0, true, Arc::clone(&stats)).unwrap();
        // The first frame starts a 200 ms read; the next three arrive meanwhile: the
        // slot keeps only the newest (2 replaced), which is read after the first.
        r.submit(&frame(0), None);
        std::thread::sleep(std::time::Duration::from_millis(50));
        r.submit(&frame(2), None);
        r.submit(&frame(4), None);
        r.submit(&frame(6), None);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut facts = Vec::new();
        while facts.len() < 2 && std::time::Instant::now() < deadline {
            facts.extend(r.poll());
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, vec!["t0", "t6000000"]);
        let rep = stats.report();
        assert_eq!(rep.skipped_busy, 2);
        assert_eq!(rep.reads, 2);
        assert!(rep.read_us.p50 >= 200_000.0, "{:?}", rep.read_us);
    }

    #[test]
    fn whole_frame_reads_pass_the_throttle_go_first_and_are_counted_apart() {
        let stats = Arc::new(TextReadStats::new());
        let fake = Fake {
            sleep_ms: 100,
            out: Vec::new(),
            whole: 0,
        };
        let mut r =
            ProfiledReader::new(Box::new(fake), 1_000_000_000, true, Arc::clone(&stats)).unwrap();
        // Frame 0 starts a 100 ms read; frame 400 is within the throttle's second; frame
        // 1000 waits in the slot when a whole-frame read of frame 800 is asked for (not
        // throttled): it is read before frame 1000.
        r.submit(&frame(0), None);
        std::thread::sleep(std::time::Duration::from_millis(30));
        r.submit(&frame(400), None);
        r.submit(&frame(1000), None);
        r.read_whole(&frame(800), None);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut facts = Vec::new();
        while facts.len() < 3 && std::time::Instant::now() < deadline {
            // The whole-frame read's facts are in the poll after it is counted.
            let finished = r.whole_reads_finished();
            let got = r.poll();
            if finished == 1 {
                assert!(
                    facts
                        .iter()
                        .chain(&got)
                        .any(|f: &TextFact| f.text == "t800000000"),
                    "{got:?}"
                );
            }
            facts.extend(got);
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(texts, vec!["t0", "t800000000", "t1000000000"]);
        assert_eq!(r.whole_reads_finished(), 1);
        let rep = stats.report();
        assert_eq!(rep.frames_offered, 3);
        assert_eq!(rep.skipped_throttle, 1);
        assert_eq!(rep.reads, 2);
        assert_eq!(rep.whole_frame_reads, 1);
        assert_eq!(rep.whole_frame_reads_with_text, 1);
        assert_eq!(rep.whole_read_us.count, 1);
    }

    #[test]
    fn the_budgets_dial_spaces_reads_and_counts_what_it_held_back() {
        let stats = Arc::new(TextReadStats::new());
        let fake = Fake {
            sleep_ms: 0,
            out: Vec::new(),
            whole: 0,
        };
        let dial = crate::budget::RateDial::new();
        dial.set_stretch_pct(400);
        let mut r = ProfiledReader::new(Box::new(fake), 100_000_000, false, Arc::clone(&stats))
            .unwrap()
            .with_dial(dial.clone());
        // Frames every 50 ms over 0..=1000 ms: a read every 400 ms (0, 400, 800).
        for k in 0..=20 {
            r.submit(&frame(k * 50), None);
        }
        let rep = stats.report();
        assert_eq!(rep.reads, 3, "{rep:?}");
        // Held back: frames 100 ms or more after the last read but before 400 ms (100,
        // 150, …, 350 ms after the reads at 0 and 400; 100, 150, 200 after the one at 800).
        assert_eq!(rep.skipped_throttle, 18, "{rep:?}");
        assert_eq!(rep.held_back, 15, "{rep:?}");
        // Back at its own rate, and a whole-frame read is never held back.
        dial.set_stretch_pct(crate::budget::PAUSED);
        r.read_whole(&frame(1010), None);
        assert_eq!(stats.report().whole_frame_reads, 1);
        dial.set_stretch_pct(100);
        r.submit(&frame(1100), None);
        assert_eq!(stats.report().reads, 4);
    }
}
