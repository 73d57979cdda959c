//! [`OcrReader`]: the [`TextReader`] port over the OCR pipeline. Synchronous mode reads each
//! frame inside `submit` (deterministic, for as-fast-as-possible replay); background mode
//! reads on the [`NewestFrameWorker`] thread (a one-slot mailbox where the newest frame wins:
//! a frame waiting when another arrives is replaced and counted as skipped; results that do
//! not fit its bounded channel are dropped and counted). A whole-frame read asked for with
//! [`TextReader::read_whole`] has a slot of its own, read before the waiting frame and never
//! replaced by one.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::bearing::RgbGeometry;
use super::engine::OcrEngine;
use super::error::OcrError;
use super::facts::{facts_from_lines, FactFilter, Orientation};
use super::image::BgrImage;
use super::newest_frame::{FrameJob, FrameWork, NewestFrameWorker};
use super::roi::{read_region, Region};
use super::tiles::read_tiled_each;
use crate::sample::{Payload, Sample};
use crate::state::{TextFact, TextReader};

/// Where reading happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// In `submit`, on the caller's thread.
    Synchronous,
    /// On the reader's own thread, newest frame wins.
    Background,
}

/// Reader settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ReaderConfig {
    /// Synchronous or background.
    pub mode: ReadMode,
    /// Side of the square read around the gaze point, pixels of the recorded frame (640).
    pub roi_size_px: u32,
    /// Read the whole frame when no gaze point is given (true); else a square at the centre.
    pub whole_frame_without_gaze: bool,
    /// How recorded frames are turned upright (Aria RGB: a quarter clockwise).
    pub orientation: Orientation,
    /// Which lines become facts.
    pub filter: FactFilter,
    /// Frames' worth of results held for `poll` (16); older ones are dropped and counted.
    pub results_capacity: usize,
    /// Whole-frame reads asked for with [`TextReader::read_whole`] read the frame as
    /// overlapping squares of this side (640), at its own resolution (see
    /// [`super::tiles`]: small, far text is lost in one read of the whole frame); `None`:
    /// one read of the whole frame.
    pub whole_tile_px: Option<u32>,
}

impl Default for ReaderConfig {
    fn default() -> Self {
        Self {
            mode: ReadMode::Synchronous,
            roi_size_px: 640,
            whole_frame_without_gaze: true,
            orientation: Orientation::RotateCw90,
            filter: FactFilter::default(),
            results_capacity: 16,
            whole_tile_px: Some(640),
        }
    }
}

/// Counters, as a snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Frames read to the end.
    pub frames_read: u64,
    /// Frames replaced in the mailbox before they were read (background mode).
    pub frames_skipped: u64,
    /// Frames that could not be read (not an image, bad JPEG, inference error).
    pub errors: u64,
    /// Frames' results dropped because nobody polled in time.
    pub results_dropped: u64,
    /// Lines read but filtered out (low confidence, too short).
    pub lines_filtered: u64,
    /// Whole-frame reads asked for with [`TextReader::read_whole`] and finished (read or
    /// failed).
    pub whole_reads: u64,
}

#[derive(Default)]
struct Counters {
    read: AtomicU64,
    skipped: AtomicU64,
    errors: AtomicU64,
    dropped: AtomicU64,
    filtered: AtomicU64,
    /// Shared with the worker thread, which counts the whole-frame reads it finishes.
    whole: Arc<AtomicU64>,
}

impl Counters {
    fn snapshot(&self) -> ReaderStats {
        ReaderStats {
            frames_read: self.read.load(Ordering::Relaxed),
            frames_skipped: self.skipped.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            results_dropped: self.dropped.load(Ordering::Relaxed),
            lines_filtered: self.filtered.load(Ordering::Relaxed),
            whole_reads: self.whole.load(Ordering::Acquire),
        }
    }
}

/// The engine, the geometry and the settings: reads one frame.
struct ReadCore {
    engine: OcrEngine,
    geometry: Option<RgbGeometry>,
    cfg: ReaderConfig,
    counters: Arc<Counters>,
}

impl ReadCore {
    /// Reads `frame`: around the gaze, or all of it (`whole`), square by square when
    /// `tiled` (with [`ReaderConfig::whole_tile_px`]), handing the facts to `on_part` (a
    /// tiled read: square by square, as they are read).
    fn read(
        &mut self,
        frame: &Sample,
        gaze_px: Option<[f32; 2]>,
        whole: bool,
        tiled: bool,
        on_part: &mut dyn FnMut(Vec<TextFact>),
    ) -> Result<(), OcrError> {
        let Payload::Image(image) = &frame.payload else {
            return Err(OcrError::bad_image(format!(
                "{} sample on {}, not an image",
                frame.payload.kind(),
                frame.stream.name()
            )));
        };
        let raw = BgrImage::from_frame(image)?;
        let raw_h = raw.height();
        let (upright, gaze_up) = match self.cfg.orientation {
            Orientation::AsRecorded => (raw, gaze_px),
            o @ Orientation::RotateCw90 => {
                (raw.rotate_cw90(), gaze_px.map(|g| o.to_upright(g, raw_h)))
            }
        };
        let region = match gaze_up {
            _ if whole => Region::Whole,
            Some(g) => Region::Around {
                center_px: g,
                size_px: self.cfg.roi_size_px,
            },
            None if self.cfg.whole_frame_without_gaze => Region::Whole,
            None => Region::Around {
                center_px: [upright.width() as f32 / 2.0, upright.height() as f32 / 2.0],
                size_px: self.cfg.roi_size_px,
            },
        };
        let (orientation, geometry, filter) = (
            self.cfg.orientation,
            self.geometry.as_ref(),
            &self.cfg.filter,
        );
        let counters = &self.counters;
        let mut part = |lines: Vec<super::engine::TextLine>| {
            let (facts, filtered) = facts_from_lines(
                &lines,
                orientation,
                raw_h,
                geometry,
                gaze_px,
                frame.capture,
                filter,
            );
            counters
                .filtered
                .fetch_add(filtered as u64, Ordering::Relaxed);
            on_part(facts);
        };
        match self.cfg.whole_tile_px {
            Some(tile) if tiled => read_tiled_each(&mut self.engine, &upright, tile, &mut part)?,
            _ => part(read_region(&mut self.engine, &upright, region)?),
        }
        self.counters.read.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Reads, counting and logging a failure instead of returning it (what was read before
    /// a failure was handed on).
    fn read_counted(
        &mut self,
        frame: &Sample,
        gaze: Option<[f32; 2]>,
        whole: bool,
        tiled: bool,
        on_part: &mut dyn FnMut(Vec<TextFact>),
    ) {
        if let Err(e) = self.read(frame, gaze, whole, tiled, on_part) {
            if self.counters.errors.fetch_add(1, Ordering::Relaxed) == 0 {
                log::warn!("OCR: frame {} at {} ns: {e}", frame.seq, frame.capture.0);
            }
        }
    }

    /// [`ReadCore::read_counted`], the facts in one part (`None` when it failed).
    fn read_all(
        &mut self,
        frame: &Sample,
        gaze: Option<[f32; 2]>,
        whole: bool,
    ) -> Option<Vec<TextFact>> {
        let errors = self.counters.errors.load(Ordering::Relaxed);
        let mut all = Vec::new();
        self.read_counted(frame, gaze, whole, false, &mut |f| all.extend(f));
        (self.counters.errors.load(Ordering::Relaxed) == errors).then_some(all)
    }
}

impl FrameWork for Box<ReadCore> {
    fn read(&mut self, job: &FrameJob, send: &mut dyn FnMut(Vec<TextFact>)) {
        let asked = job.asks > 0;
        self.read_counted(&job.frame, job.gaze_px, job.whole, asked, &mut |facts| {
            if !(facts.is_empty() && asked) {
                send(facts);
            }
        });
    }

    fn result_dropped(&self) {
        self.counters.dropped.fetch_add(1, Ordering::Relaxed);
    }
}

enum Inner {
    Sync {
        core: Box<ReadCore>,
        pending: VecDeque<Vec<TextFact>>,
    },
    Background(NewestFrameWorker),
}

/// Reads text from RGB frames: see the module documentation.
pub struct OcrReader {
    inner: Inner,
    counters: Arc<Counters>,
    whole_next: AtomicBool,
    capacity: usize,
}

impl OcrReader {
    /// A reader over a loaded engine; `geometry` places text in clock directions (without it
    /// every fact is at 12 o'clock).
    pub fn new(
        engine: OcrEngine,
        geometry: Option<RgbGeometry>,
        cfg: ReaderConfig,
    ) -> Result<Self, OcrError> {
        let counters = Arc::new(Counters::default());
        let capacity = cfg.results_capacity.max(1);
        let mode = cfg.mode;
        let core = Box::new(ReadCore {
            engine,
            geometry,
            cfg,
            counters: Arc::clone(&counters),
        });
        let inner = match mode {
            ReadMode::Synchronous => Inner::Sync {
                core,
                pending: VecDeque::with_capacity(capacity),
            },
            ReadMode::Background => {
                let whole_done = Arc::clone(&counters.whole);
                let worker = NewestFrameWorker::spawn(core, capacity, whole_done).map_err(|e| {
                    OcrError::Inference {
                        stage: "reader thread",
                        reason: e.to_string(),
                    }
                })?;
                Inner::Background(worker)
            }
        };
        Ok(Self {
            inner,
            counters,
            whole_next: AtomicBool::new(false),
            capacity,
        })
    }

    /// Reads the whole of the next submitted frame, whatever the gaze.
    pub fn request_whole_frame(&self) {
        self.whole_next.store(true, Ordering::Relaxed);
    }

    /// The counters so far.
    pub fn stats(&self) -> ReaderStats {
        self.counters.snapshot()
    }

    /// Background mode: waits until the mailbox is empty and the worker idle, or until
    /// `timeout` passes; returns whether it went idle. Synchronous mode: true at once.
    pub fn wait_idle(&self, timeout: std::time::Duration) -> bool {
        match &self.inner {
            Inner::Background(worker) => worker.wait_idle(timeout),
            Inner::Sync { .. } => true,
        }
    }
}

impl TextReader for OcrReader {
    fn submit(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        let whole = self.whole_next.swap(false, Ordering::Relaxed);
        match &mut self.inner {
            Inner::Sync { core, pending } => {
                if let Some(facts) = core.read_all(frame, gaze_px, whole) {
                    if pending.len() >= self.capacity {
                        pending.pop_front();
                        self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                    }
                    pending.push_back(facts);
                }
            }
            Inner::Background(worker) => {
                let job = FrameJob {
                    frame: frame.clone(),
                    gaze_px,
                    whole,
                    asks: 0,
                };
                if worker.offer(job) {
                    self.counters.skipped.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    fn read_whole(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        let (counters, capacity) = (Arc::clone(&self.counters), self.capacity);
        match &mut self.inner {
            Inner::Sync { core, pending } => {
                core.read_counted(frame, gaze_px, true, true, &mut |facts| {
                    if pending.len() >= capacity {
                        pending.pop_front();
                        counters.dropped.fetch_add(1, Ordering::Relaxed);
                    }
                    pending.push_back(facts);
                });
                self.counters.whole.fetch_add(1, Ordering::Release);
            }
            Inner::Background(worker) => worker.ask_whole(frame, gaze_px),
        }
    }

    fn read_whole_parts(
        &mut self,
        frame: &Sample,
        gaze_px: Option<[f32; 2]>,
        on_part: &mut dyn FnMut(Vec<TextFact>),
    ) {
        match &mut self.inner {
            Inner::Sync { core, .. } => {
                core.read_counted(frame, gaze_px, true, true, on_part);
                self.counters.whole.fetch_add(1, Ordering::Release);
            }
            // The worker hands the parts on through `poll` as it reads them.
            Inner::Background(_) => self.read_whole(frame, gaze_px),
        }
    }

    fn whole_reads_finished(&self) -> u64 {
        self.counters.whole.load(Ordering::Acquire)
    }

    fn poll(&mut self) -> Vec<TextFact> {
        match &mut self.inner {
            Inner::Sync { pending, .. } => pending.drain(..).flatten().collect(),
            Inner::Background(worker) => worker.poll(),
        }
    }
}
