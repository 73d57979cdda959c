//! Camera frames in the assistant's answers (a bundle with a vision projector, `lm.mmproj`).
//!
//! [`VisionConsumer`] is a consumer of the run's RGB stream: each time it is woken it takes
//! the newest frame only (older ones in the same batch are superseded and counted) and gives
//! it to a [`FrameEmbedder`], which encodes at most one frame per [`IMAGE_EVERY_NS`] of
//! capture time and shares the newest embedding. [`VisionGenerator`] answers the forms that
//! should see (scene descriptions and open questions) with that embedding at the prompt's
//! image placeholder — in the user turn, after the system turn (standing prompt and state
//! text, reused from the KV cache) — when the frame is at most [`IMAGE_MAX_AGE_NS`] older
//! than the state being answered; an older frame, or none, leaves the answer on the text
//! (recorded in the decision and counted). Other forms, and alerts, never wait for images.
//! With a fusion network too, the sensor tokens go at the sensor placeholder in the system
//! turn as with [`super::lm_sensor::SensorGenerator`].
//!
//! Lock-step replay stays deterministic: consumers run concurrently within a round, so an
//! answer (given synchronously inside the perception consumer's round) first waits until
//! the vision consumer has finished the same round (its `now`), then reads the newest
//! embedding. In real time nothing waits: the answer takes what is there.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::lm_sensor::{SensorFrame, SensorTokenCache};
use super::lm_threads::ThreadPolicy;
use crate::buffer::Reader;
use crate::infer::llm::frame_embedder::{FrameEmbedder, LatestImage};
use crate::infer::llm::generator::{port_stats, system_turn, user_turn};
use crate::infer::llm::{
    GenOptions, ImageEmbedding, ImagePiece, LmEngine, LmError, LmStats, Piece, VisionEncoder,
    DEFAULT_SYSTEM_PROMPT,
};
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

/// Sensor tokens newer than the prefilled ones by at most this much are not worth
/// decoding the camera frame after them again: a request uses the prefilled ones.
pub const SENSOR_MAX_STALE_NS: i64 = 1_000_000_000;

/// What a prompt shows besides the state text.
#[derive(Clone, Default)]
struct View {
    /// The camera frame: capture time (device ns), embedding.
    image: Option<(i64, Arc<ImageEmbedding>)>,
    /// The sensor tokens.
    sensor: Option<Arc<SensorFrame>>,
}

/// An owned piece of a laid-out prompt.
enum Part {
    Text(String),
    Sensor(Arc<SensorFrame>),
    Image(i64, Arc<ImageEmbedding>),
}

fn hash_of(x: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// The key naming a sensor frame's rows (its window end and its values).
fn sensor_key(f: &SensorFrame) -> u64 {
    let bits: Vec<u32> = f.tokens.data.iter().map(|v| v.to_bits()).collect();
    hash_of(("sensor", f.at_ns, bits))
}

/// The pieces of `parts` as the engine takes them (image rows keyed by capture time and
/// piece).
fn pieces_of(parts: &[Part]) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push(Piece::Text(t)),
            Part::Sensor(f) => out.push(Piece::Rows {
                key: sensor_key(f),
                rows: &f.tokens.data,
                width: f.tokens.width,
            }),
            Part::Image(capture_ns, img) => {
                for (i, piece) in img.pieces.iter().enumerate() {
                    out.push(match piece {
                        ImagePiece::Tokens(t) => Piece::Tokens(t),
                        ImagePiece::Embeddings(rows) => Piece::Rows {
                            key: hash_of(("image", *capture_ns, i)),
                            rows,
                            width: img.width,
                        },
                    });
                }
            }
        }
    }
    out
}

/// How a bundle's prompts are laid out, for answers and for the prefill ahead of them
/// ([`super::lm_prefill::PromptLayout`]): the system turn holds the standing prompt, the
/// state text and, with a fusion network, the sensor tokens at the sensor placeholder; the
/// user turn starts with the camera frame at the image placeholder ("Camera view: …") and
/// then holds the form's instructions and the request. Everything up to the end of the frame
/// (or of the sensor tokens, for answers that do not see) is the prefix the KV cache keeps
/// and a prefill brings up to date, so a request over a prefilled view decodes only its own
/// tokens.
pub struct VisionLayout {
    shared: Arc<VisionShared>,
    image_placeholder: String,
    sensor: Option<(SensorTokenCache, String)>,
    lock_step: bool,
    /// What the last complete prefill showed besides the state text.
    prefilled: Mutex<View>,
}

impl std::fmt::Debug for VisionLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisionLayout")
            .field("image_placeholder", &self.image_placeholder)
            .field("sensor", &self.sensor.is_some())
            .field("lock_step", &self.lock_step)
            .finish()
    }
}

/// The frame an answer would see.
struct Pick {
    capture_ns: i64,
    age_ns: i64,
    embedding: Option<Arc<ImageEmbedding>>,
}

impl VisionLayout {
    /// Reading frames from `shared`; `image_placeholder` (the bundle's
    /// `prompt.image_placeholder`) marks where they go; `sensor`: the fusion outputs and
    /// the sensor placeholder, with a fusion network. `lock_step`: wait for the vision
    /// consumer's round before answering (deterministic replay).
    pub fn new(
        shared: Arc<VisionShared>,
        image_placeholder: &str,
        sensor: Option<(SensorTokenCache, String)>,
        lock_step: bool,
    ) -> Self {
        Self {
            shared,
            image_placeholder: image_placeholder.to_string(),
            sensor,
            lock_step,
            prefilled: Mutex::new(View::default()),
        }
    }

    /// The newest state's device time and the frame an answer to it would see: the
    /// prefilled frame when `prefilled` and it is fresh enough, else the newest.
    fn pick(&self, prefilled: bool) -> Option<Pick> {
        let state = self.shared.state.lock().ok().and_then(|s| *s);
        if self.lock_step {
            if let Some((_, now)) = state {
                self.shared.wait_round(now);
            }
        }
        let age = |capture_ns: i64| {
            state
                .map_or(0, |(at, _)| at.saturating_sub(capture_ns))
                .max(0)
        };
        if prefilled {
            let pre = self.prefilled.lock().ok().and_then(|v| v.image.clone());
            if let Some((capture_ns, e)) = pre {
                if age(capture_ns) <= self.shared.max_age_ns {
                    return Some(Pick {
                        capture_ns,
                        age_ns: age(capture_ns),
                        embedding: Some(e),
                    });
                }
            }
        }
        let (capture_ns, e) = self.shared.latest.get()?;
        let age_ns = age(capture_ns);
        let fresh = age_ns <= self.shared.max_age_ns;
        Some(Pick {
            capture_ns,
            age_ns,
            embedding: fresh.then_some(e),
        })
    }

    /// The sensor tokens an answer uses: the prefilled ones when `prefilled` and the newest
    /// are at most [`SENSOR_MAX_STALE_NS`] newer, else the newest.
    fn sensor_frame(&self, prefilled: bool) -> Option<Arc<SensorFrame>> {
        let (cache, _) = self.sensor.as_ref()?;
        let latest = cache.latest()?;
        if prefilled {
            let pre = self.prefilled.lock().ok().and_then(|v| v.sensor.clone());
            if let Some(p) = pre {
                if latest.at_ns.saturating_sub(p.at_ns) <= SENSOR_MAX_STALE_NS {
                    return Some(p);
                }
            }
        }
        Some(latest)
    }

    /// Removes the placeholders from text that is not ours to place them in.
    fn scrub(&self, text: &str) -> String {
        let mut t = text.replace(self.image_placeholder.as_str(), "image");
        if let Some((_, ph)) = &self.sensor {
            t = t.replace(ph.as_str(), "sensors");
        }
        t
    }

    /// The prompt for `context` (the state text), `view` and the user turn `user`, cut at
    /// the end of the last embedding: (the prefix's parts, the tail text).
    fn lay_out(
        &self,
        engine: &LmEngine,
        context: &str,
        view: &View,
        user: &str,
    ) -> Result<(Vec<Part>, String), LmError> {
        let fitted = engine.fitted_context(&self.scrub(context))?;
        let mut system = system_turn(DEFAULT_SYSTEM_PROMPT, &fitted);
        let sensor = view
            .sensor
            .as_ref()
            .zip(self.sensor.as_ref().map(|(_, ph)| ph.as_str()));
        if let Some((_, ph)) = sensor {
            system.push_str("\nSensor readings: ");
            system.push_str(ph);
        }
        let user = match &view.image {
            Some(_) => format!("Camera view: {}\n{user}", self.image_placeholder),
            None => user.to_string(),
        };
        let full = engine.format().chat(engine.model(), &system, &user)?.full;
        let mut parts = Vec::new();
        let mut text: &str = &full;
        if let Some((frame, ph)) = sensor {
            let (before, after) = text.split_once(ph).ok_or_else(|| {
                LmError::Prompt(format!(
                    "the chat template dropped the sensor placeholder {ph:?}"
                ))
            })?;
            parts.push(Part::Text(before.to_string()));
            parts.push(Part::Sensor(Arc::clone(frame)));
            text = after;
        }
        if let Some((capture_ns, img)) = &view.image {
            let (before, after) = text
                .rsplit_once(self.image_placeholder.as_str())
                .ok_or_else(|| {
                    LmError::Prompt(format!(
                        "the chat template dropped the image placeholder {:?}",
                        self.image_placeholder
                    ))
                })?;
            parts.push(Part::Text(before.to_string()));
            parts.push(Part::Image(*capture_ns, Arc::clone(img)));
            text = after;
        }
        Ok((parts, text.to_string()))
    }

    /// Answers over `context` and `view` (text only when the view is empty).
    fn answer_over(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        view: &View,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        if view.image.is_none() && view.sensor.is_none() {
            return engine.generate_with_context(prompt, context, on_text, cancel);
        }
        let user = user_turn(&prompt.system, &self.scrub(&prompt.request));
        let (parts, tail) = self.lay_out(engine, context, view, &user)?;
        let mut forward = |s: &str| on_text(s) == Continue::Yes;
        engine.generate_after_pieces(
            &pieces_of(&parts),
            &tail,
            GenOptions::new(prompt.max_tokens),
            &mut forward,
            cancel,
        )
    }

    /// Answers `prompt` over `context` (its own state text, or a prefilled one when
    /// `prefilled`: then the prefilled frame and sensor tokens are used while fresh enough).
    pub fn answer(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        prefilled: bool,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, LmError> {
        let c = &self.shared.counters;
        let pick = if form_sees(&prompt.form) {
            let p = self.pick(prefilled);
            match &p {
                None => bump(&c.answers_no_image),
                Some(Pick {
                    embedding: None, ..
                }) => bump(&c.answers_stale_image),
                Some(_) => {}
            }
            p
        } else {
            None
        };
        let mut view = View {
            image: pick
                .as_ref()
                .and_then(|p| p.embedding.clone().map(|e| (p.capture_ns, e))),
            sensor: self.sensor_frame(prefilled),
        };
        let mut used = view.image.is_some();
        let st = match self.answer_over(engine, prompt, context, &view, on_text, cancel) {
            Err(LmError::ContextFull { .. }) if used => {
                // The frame does not fit with this state: text (and sensors) only.
                bump(&c.answers_image_too_long);
                used = false;
                view.image = None;
                self.answer_over(engine, prompt, context, &view, on_text, cancel)?
            }
            r => r?,
        };
        if used {
            bump(&c.answers_with_image);
        }
        let mut stats = port_stats(&st);
        stats.sensor_tokens = view
            .sensor
            .as_ref()
            .map_or(0, |f| u32::try_from(f.tokens.n_tokens).unwrap_or(u32::MAX));
        stats.image_used = used;
        if let Some(p) = &pick {
            stats.image_capture_ns = Some(p.capture_ns);
            stats.image_age_ns = Some(p.age_ns);
        }
        Ok(stats)
    }

    /// What a prefill for a state at `at_ns` would show besides its text: the newest frame
    /// when fresh for that state, and the newest sensor tokens.
    fn view_for(&self, at_ns: i64) -> View {
        let image =
            self.shared.latest.get().filter(|(capture_ns, _)| {
                at_ns.saturating_sub(*capture_ns) <= self.shared.max_age_ns
            });
        let sensor = self.sensor.as_ref().and_then(|(cache, _)| cache.latest());
        View { image, sensor }
    }

    /// A key for what [`Self::prefill`] would show besides the text at `at_ns`.
    pub fn extras(&self, at_ns: i64) -> u64 {
        let v = self.view_for(at_ns);
        hash_of((v.image.map(|(c, _)| c), v.sensor.map(|f| f.at_ns)))
    }

    /// Brings the cache up to the prefix of a seeing answer over `text` at `at_ns` (the
    /// system turn, the sensor tokens, the newest fresh frame), stopping between chunks
    /// once `stop` is set. Returns the positions decoded and whether the prefix is whole.
    pub fn prefill(
        &self,
        engine: &mut LmEngine,
        text: &str,
        at_ns: i64,
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError> {
        let view = self.view_for(at_ns);
        let result = if view.image.is_none() && view.sensor.is_none() {
            engine
                .prefill_context_until(text, stop)
                .map(|(_, n, complete)| (n, complete))
        } else {
            // The user turn after the frame does not matter: the prefix ends with the frame.
            let (parts, _) = self.lay_out(engine, text, &view, "Request: …")?;
            engine.prefill_pieces_until(&pieces_of(&parts), stop)
        };
        if let Ok((_, true)) = result {
            if let Ok(mut p) = self.prefilled.lock() {
                *p = view;
            }
        }
        result
    }
}

impl super::lm_prefill::PromptLayout for VisionLayout {
    fn extras(&self, at_ns: i64) -> u64 {
        VisionLayout::extras(self, at_ns)
    }

    fn prefill(
        &self,
        engine: &mut LmEngine,
        text: &str,
        at_ns: i64,
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError> {
        VisionLayout::prefill(self, engine, text, at_ns, stop)
    }

    fn answer(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        prefilled: bool,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, LmError> {
        VisionLayout::answer(self, engine, prompt, context, prefilled, on_text, cancel)
    }
}

/// The assistant's generator with camera frames (and sensor tokens, when the bundle has a
/// fusion network) in its prompts, answering without a prefill (lock-step replay; in real
/// time [`super::lm_prefill::LmPrefill::start_with_layout`] runs the same layout with one).
pub struct VisionGenerator {
    engine: LmEngine,
    layout: Arc<VisionLayout>,
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
    /// Over `engine`, reading frames from `shared` (see [`VisionLayout::new`]).
    pub fn new(
        engine: LmEngine,
        shared: Arc<VisionShared>,
        image_placeholder: &str,
        sensor: Option<(SensorTokenCache, String)>,
        lock_step: bool,
    ) -> Self {
        Self {
            engine,
            layout: Arc::new(VisionLayout::new(
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
    pub fn into_parts(self) -> (LmEngine, Arc<VisionLayout>) {
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
        let t = std::thread::spawn(move || s2.wait_round(20));
        s.mark(|p| p.finished = true);
        t.join().unwrap();
        assert_eq!(s.report().round_wait_timeouts, 0);
    }
}
