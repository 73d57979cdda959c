//! Camera frames in the assistant's answers (a bundle with a vision projector, `lm.mmproj`).
//!
//! [`VisionConsumer`] is a consumer of the run's RGB stream: each time it is woken it takes
//! the newest frame only (older ones in the same batch are superseded and counted) and gives
//! it to a [`FrameEmbedder`], which encodes at most one frame per [`IMAGE_EVERY_NS`] of
//! capture time and shares the newest embedding. The bundle's prompt layout
//! ([`super::layout::BundleLayout`]: [`VisionGenerator`] in lock step, the prefill thread in
//! real time) answers the forms that should see (scene descriptions and open questions) with
//! that embedding at the prompt's image placeholder — in the user turn, after the system turn
//! (standing prompt and state text; in real time the frame too is prefilled ahead of
//! requests) — when the frame is at most [`IMAGE_MAX_AGE_NS`] older
//! than the state being answered; an older frame, or none, leaves the answer on the text
//! (recorded in the decision and counted). Other forms, and alerts, never wait for images.
//! With a fusion network too, the sensor tokens go at the sensor placeholder in the system
//! turn as with [`super::sensor::SensorGenerator`].
//!
//! Lock-step replay stays deterministic: consumers run concurrently within a round, so an
//! answer (given synchronously inside the perception consumer's round) first waits until
//! the vision consumer has finished the same round (its `now`), then reads the newest
//! embedding. In real time nothing waits: the answer takes what is there.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::layout::BundleLayout;
use super::prefill::PromptLayout;
use super::sensor::SensorTokenCache;
use super::threads::ThreadPolicy;
use crate::buffer::Reader;
use crate::infer::llm::frame_embedder::{EmbeddedFrame, FrameEmbedder, LatestImage};
use crate::infer::llm::{LmEngine, VisionEncoder};
use crate::profile::{LatencyHistogram, Percentiles};
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::{ImageFrame, Payload, Sample, StreamId};
use crate::state::{
    Continue, EnvironmentState, GenerationPrompt, GenerationStats, Generator, GeneratorError,
    PerceptionSink, StateTap,
};
use crate::time::HostTime;

/// A frame older than this (capture time before the answered state's time) is not shown to
/// the model: the answer uses the text alone.
pub const IMAGE_MAX_AGE_NS: i64 = 1_000_000_000;

/// At most one frame is encoded per this much capture time.
pub const IMAGE_EVERY_NS: i64 = 500_000_000;

/// Threads of the vision encoder (one: measured fastest on the loaded 2-core machine).
pub const ENCODER_THREADS: u32 = 1;

/// Frames kept in the encoder's per-frame cache.
pub const ENCODER_CACHE_FRAMES: usize = 4;

/// Longest a lock-step answer waits for the vision consumer to finish its round (a safety
/// net: it is counted, and the answer goes on with what is there).
const ROUND_WAIT: Duration = Duration::from_secs(20);

/// The forms whose answers see the camera frame.
pub fn form_sees(form: &str) -> bool {
    matches!(form, "scene" | "question")
}

#[derive(Debug, Default)]
struct Progress {
    /// The newest round (`now`, host ns) the consumer has finished.
    done_now: Option<i64>,
    /// The consumer has finished (no more rounds).
    finished: bool,
}

#[derive(Debug, Default)]
struct Counters {
    frames_seen: AtomicU64,
    frames_superseded: AtomicU64,
    frames_encoded: AtomicU64,
    frames_interval_skipped: AtomicU64,
    encode_failures: AtomicU64,
    answers_with_image: AtomicU64,
    answers_stale_image: AtomicU64,
    answers_no_image: AtomicU64,
    answers_image_too_long: AtomicU64,
    round_wait_timeouts: AtomicU64,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// What a seeing answer showed, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// A frame.
    Image,
    /// The newest frame was too old: text only.
    Stale,
    /// No frame yet: text only.
    NoFrame,
    /// The frame did not fit the context window: text only.
    TooLong,
}

/// What the camera side and the answer side share.
#[derive(Debug)]
pub struct VisionShared {
    latest: LatestImage,
    progress: Mutex<Progress>,
    cv: Condvar,
    /// The newest state offered to the assistant: (its device time, the clock's `now`).
    state: Mutex<Option<(i64, i64)>>,
    counters: Counters,
    encode: Mutex<LatencyHistogram>,
    max_age_ns: i64,
    every_ns: i64,
}

/// The images of a run, for `profile.json`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct VisionReport {
    /// The age bound, ms.
    pub max_age_ms: f64,
    /// The sampling interval, ms of capture time.
    pub every_ms: f64,
    /// RGB frames the consumer read.
    pub frames_seen: u64,
    /// Frames passed over because a newer one came in the same batch.
    pub frames_superseded: u64,
    /// Frames decoded and encoded.
    pub frames_encoded: u64,
    /// Frames passed over inside the sampling interval.
    pub frames_interval_skipped: u64,
    /// Frames that could not be decoded or encoded.
    pub encode_failures: u64,
    /// Answers with a frame in the prompt.
    pub answers_with_image: u64,
    /// Seeing answers whose newest frame was too old (text only).
    pub answers_stale_image: u64,
    /// Seeing answers without any frame yet (text only).
    pub answers_no_image: u64,
    /// Seeing answers whose frame did not fit the context window (text only).
    pub answers_image_too_long: u64,
    /// Lock-step answers that stopped waiting for the vision consumer.
    pub round_wait_timeouts: u64,
    /// Per encoded frame (JPEG decode, conversion and encoder), µs.
    pub encode_us: Option<Percentiles>,
}

impl VisionShared {
    fn new(latest: LatestImage) -> Self {
        Self {
            latest,
            progress: Mutex::default(),
            cv: Condvar::new(),
            state: Mutex::default(),
            counters: Counters::default(),
            encode: Mutex::new(LatencyHistogram::new()),
            max_age_ns: IMAGE_MAX_AGE_NS,
            every_ns: IMAGE_EVERY_NS,
        }
    }

    fn mark(&self, f: impl FnOnce(&mut Progress)) {
        if let Ok(mut p) = self.progress.lock() {
            f(&mut p);
        }
        self.cv.notify_all();
    }

    /// The state being answered: its device time and the clock's `now` (host ns) — what the
    /// perception sink wrapper records before each state reaches the assistant.
    pub fn set_state(&self, at_ns: i64, now_ns: i64) {
        if let Ok(mut s) = self.state.lock() {
            *s = Some((at_ns, now_ns));
        }
    }

    /// The newest state offered (device time, the clock's `now`); in lock step first waits
    /// for the vision consumer to finish that round.
    pub(super) fn answered_state(&self, lock_step: bool) -> Option<(i64, i64)> {
        let state = self.state.lock().ok().and_then(|s| *s);
        if lock_step {
            if let Some((_, now)) = state {
                self.wait_round(now);
            }
        }
        state
    }

    /// The newest embedded frame.
    pub(super) fn latest_image(&self) -> Option<EmbeddedFrame> {
        self.latest.get()
    }

    /// The age bound of a frame shown with a state, ns.
    pub(super) fn max_age_ns(&self) -> i64 {
        self.max_age_ns
    }

    /// Counts what a seeing answer showed.
    pub(super) fn count(&self, shown: Shown) {
        let c = &self.counters;
        bump(match shown {
            Shown::Image => &c.answers_with_image,
            Shown::Stale => &c.answers_stale_image,
            Shown::NoFrame => &c.answers_no_image,
            Shown::TooLong => &c.answers_image_too_long,
        });
    }

    /// Waits until the consumer has finished the round at host time `now` (lock-step).
    fn wait_round(&self, now: i64) {
        let deadline = Instant::now() + ROUND_WAIT;
        let Ok(mut p) = self.progress.lock() else {
            return;
        };
        while !(p.finished || p.done_now.is_some_and(|d| d >= now)) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                bump(&self.counters.round_wait_timeouts);
                log::warn!("images: the vision consumer did not finish its round in time");
                return;
            }
            match self.cv.wait_timeout(p, left) {
                Ok((g, _)) => p = g,
                Err(_) => return,
            }
        }
    }

    /// The counters and the encode histogram.
    pub fn report(&self) -> VisionReport {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let encode = self
            .encode
            .lock()
            .ok()
            .filter(|h| h.count() > 0)
            .map(|h| h.percentiles());
        VisionReport {
            max_age_ms: self.max_age_ns as f64 / 1e6,
            every_ms: self.every_ns as f64 / 1e6,
            frames_seen: get(&c.frames_seen),
            frames_superseded: get(&c.frames_superseded),
            frames_encoded: get(&c.frames_encoded),
            frames_interval_skipped: get(&c.frames_interval_skipped),
            encode_failures: get(&c.encode_failures),
            answers_with_image: get(&c.answers_with_image),
            answers_stale_image: get(&c.answers_stale_image),
            answers_no_image: get(&c.answers_no_image),
            answers_image_too_long: get(&c.answers_image_too_long),
            round_wait_timeouts: get(&c.round_wait_timeouts),
            encode_us: encode,
        }
    }
}

impl VisionReport {
    /// One line for the run's summary.
    pub fn line(&self) -> String {
        format!(
            "images: {} frame(s) read, {} encoded (p50 {:.1} ms, max {:.1} ms), {} superseded, \
             {} inside the {:.0} ms interval, {} failed; answers: {} with an image, {} with \
             a frame older than {:.0} ms, {} before any frame, {} too long",
            self.frames_seen,
            self.frames_encoded,
            self.encode_us.map_or(0.0, |p| p.p50 / 1e3),
            self.encode_us.map_or(0.0, |p| p.max / 1e3),
            self.frames_superseded,
            self.frames_interval_skipped,
            self.every_ms,
            self.encode_failures,
            self.answers_with_image,
            self.answers_stale_image,
            self.max_age_ms,
            self.answers_no_image,
            self.answers_image_too_long,
        )
    }
}

/// The consumer that embeds the newest RGB frame as frames arrive (stage `image_encode` in
/// the profile).
pub struct VisionConsumer {
    embedder: FrameEmbedder,
    shared: Arc<VisionShared>,
    batch: Vec<Sample>,
}

impl std::fmt::Debug for VisionConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisionConsumer")
            .field("stats", &self.embedder.stats())
            .finish()
    }
}

impl VisionConsumer {
    /// Takes one frame captured at `capture_ns` (what each wake-up does with the newest):
    /// encoded when due, else passed over; a frame that cannot be decoded or encoded is
    /// counted and the previous embedding stays.
    pub fn on_frame(&mut self, capture_ns: i64, frame: &ImageFrame) {
        let c = &self.shared.counters;
        let t0 = Instant::now();
        match self.embedder.on_frame(capture_ns, frame) {
            Ok(true) => {
                bump(&c.frames_encoded);
                if let Ok(mut h) = self.shared.encode.lock() {
                    h.record_ns(i64::try_from(t0.elapsed().as_nanos()).unwrap_or(i64::MAX));
                }
            }
            Ok(false) => bump(&c.frames_interval_skipped),
            Err(e) => {
                bump(&c.encode_failures);
                log::debug!("images: frame at {capture_ns} ns: {e}");
            }
        }
    }
}

impl Consumer for VisionConsumer {
    fn name(&self) -> &str {
        "image_encode"
    }

    fn wants(&self, stream: StreamId) -> bool {
        stream == StreamId::CameraRgb
    }

    fn on_samples(&mut self, reader: &mut Reader, now: HostTime) -> Result<(), ConsumerError> {
        self.batch.clear();
        let n = reader.drain_new_into(StreamId::CameraRgb, &mut self.batch);
        let c = &self.shared.counters;
        c.frames_seen.fetch_add(n as u64, Ordering::Relaxed);
        let newest = self.batch.iter().rev().find_map(|s| match &s.payload {
            Payload::Image(f) => Some((s.capture.ns(), f)),
            _ => None,
        });
        if let Some((capture_ns, frame)) = newest {
            c.frames_superseded
                .fetch_add(n.saturating_sub(1) as u64, Ordering::Relaxed);
            let frame = frame.clone();
            self.on_frame(capture_ns, &frame);
        }
        self.batch.clear();
        self.shared.mark(|p| {
            p.done_now = Some(p.done_now.map_or(now.ns(), |d| d.max(now.ns())));
        });
        Ok(())
    }

    fn finish(&mut self) {
        self.shared.mark(|p| p.finished = true);
    }
}

/// The camera side of a run: the consumer (until the run takes it) and the shared state.
pub struct VisionParts {
    consumer: Option<VisionConsumer>,
    shared: Arc<VisionShared>,
}

impl std::fmt::Debug for VisionParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisionParts")
            .field("consumer", &self.consumer.is_some())
            .finish()
    }
}

impl VisionParts {
    /// Over a loaded encoder.
    pub fn new(encoder: VisionEncoder) -> Self {
        let embedder = FrameEmbedder::new(encoder, IMAGE_EVERY_NS);
        let shared = Arc::new(VisionShared::new(embedder.latest()));
        Self {
            consumer: Some(VisionConsumer {
                embedder,
                shared: Arc::clone(&shared),
                batch: Vec::new(),
            }),
            shared,
        }
    }

    /// The consumer to add to the run (once).
    pub fn take_consumer(&mut self) -> Option<VisionConsumer> {
        self.consumer.take()
    }

    /// The run has no camera for the consumer (it is dropped): answers never wait for it.
    pub fn no_camera(&mut self) {
        self.consumer = None;
        self.shared.mark(|p| p.finished = true);
    }

    /// The shared state.
    pub fn shared(&self) -> Arc<VisionShared> {
        Arc::clone(&self.shared)
    }

    /// Wraps the assistant's perception sink, so the vision side learns which state is being
    /// answered.
    pub fn sink<S: PerceptionSink>(
        &self,
        inner: S,
    ) -> StateTap<S, impl FnMut(&Arc<EnvironmentState>, HostTime) + Send> {
        let shared = Arc::clone(&self.shared);
        StateTap::new(
            inner,
            move |state: &Arc<EnvironmentState>, now: HostTime| {
                shared.set_state(state.at.ns(), now.ns())
            },
        )
    }

    /// The run's counters so far.
    pub fn report(&self) -> VisionReport {
        self.shared.report()
    }
}

/// The assistant's generator with camera frames (and sensor tokens, when the bundle has a
/// fusion network) in its prompts, answering without a prefill (lock-step replay; in real
/// time [`super::prefill::LmPrefill::start_with_layout`] runs the same layout with one).
pub struct VisionGenerator {
    engine: LmEngine,
    layout: Arc<BundleLayout>,
    threads: ThreadPolicy,
}

impl std::fmt::Debug for VisionGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisionGenerator")
            .field("engine", &self.engine)
            .field("layout", &self.layout)
            .finish()
    }
}

impl VisionGenerator {
    /// Over `engine`, reading frames from `shared` (see [`BundleLayout::new`]).
    pub fn new(
        engine: LmEngine,
        shared: Arc<VisionShared>,
        image_placeholder: &str,
        sensor: Option<(SensorTokenCache, String)>,
        lock_step: bool,
    ) -> Self {
        Self {
            engine,
            layout: Arc::new(BundleLayout::new(
                shared,
                image_placeholder,
                sensor,
                lock_step,
            )),
            threads: ThreadPolicy::Auto,
        }
    }

    /// Chooses llama.cpp threads by `threads` (automatic by default).
    pub fn with_threads(mut self, threads: ThreadPolicy) -> Self {
        self.threads = threads;
        self
    }

    /// The engine.
    pub fn engine(&self) -> &LmEngine {
        &self.engine
    }

    /// The engine and the layout back (to run them with a prefill thread).
    pub fn into_parts(self) -> (LmEngine, Arc<BundleLayout>) {
        (self.engine, self.layout)
    }
}

impl Generator for VisionGenerator {
    fn name(&self) -> &str {
        self.engine.name()
    }

    fn generate(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        let threads = self.threads.threads();
        self.engine.set_threads(threads);
        self.layout
            .answer(
                &mut self.engine,
                prompt,
                &prompt.context,
                false,
                on_text,
                cancel,
            )
            .map(|st| GenerationStats { threads, ..st })
            .map_err(|e| GeneratorError {
                generator: self.engine.name().to_string(),
                message: e.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_scenes_and_questions_see() {
        assert!(form_sees("scene") && form_sees("question"));
        assert!(!form_sees("goal") && !form_sees("ambient"));
    }

    #[test]
    fn a_lock_step_wait_ends_with_the_round_or_the_consumer() {
        let s = Arc::new(VisionShared::new(LatestImage::default()));
        s.mark(|p| p.done_now = Some(10));
        s.wait_round(10);
        s.wait_round(5);
        let s2 = Arc::clone(&s);
        let t = crate::worker::Worker::spawn("test-round", move |_| s2.wait_round(20)).unwrap();
        s.mark(|p| p.finished = true);
        t.join().unwrap();
        assert_eq!(s.report().round_wait_timeouts, 0);
    }
}
