//! The traits that join perception, text reading, generation and the assistant, so each
//! side can be built and tested alone.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::environment::{EnvironmentState, SeenObject, TextFact};
use super::hazard::HazardEvent;
use crate::sample::Sample;
use crate::time::HostTime;

/// What perception feeds: the assistant implements it. Both calls come on the perception
/// thread; `on_hazard` must return quickly (the safety path never waits for a model).
pub trait PerceptionSink: Send {
    /// A hazard needs an alert now.
    fn on_hazard(&mut self, event: &HazardEvent);
    /// A new state snapshot, once per perception tick (`now`: the clock's present).
    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime);
    /// The run is over: flush and stop.
    fn finish(&mut self) {}
}

/// A sink that shows every state to `tap` first, then forwards everything to `inner`
/// (the language model's prefill and vision side watch states this way).
pub struct StateTap<S, F> {
    inner: S,
    tap: F,
}

impl<S, F> StateTap<S, F> {
    /// Wraps `inner`.
    pub fn new(inner: S, tap: F) -> Self {
        Self { inner, tap }
    }
}

impl<S: PerceptionSink, F: FnMut(&Arc<EnvironmentState>, HostTime) + Send> PerceptionSink
    for StateTap<S, F>
{
    fn on_hazard(&mut self, event: &HazardEvent) {
        self.inner.on_hazard(event);
    }

    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime) {
        (self.tap)(state, now);
        self.inner.on_state(state, now);
    }

    fn finish(&mut self) {
        self.inner.finish();
    }
}

/// Reads text from RGB frames (PP-OCR behind it). Perception submits frames and polls
/// results; an implementation may read synchronously (deterministic replay) or on its own
/// thread, keeping only the newest frame (dropping, and counting, the rest). On request
/// (see [`super::ReadRequests`]) it reads a whole frame: not throttled, ahead of the frames
/// waiting, and never replaced by a newer frame.
pub trait TextReader: Send {
    /// A new RGB frame (a `Payload::Image` sample). `gaze_px` is where the wearer looks in
    /// it (recorded resolution), when known: read around it first.
    fn submit(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>);
    /// Reads all of `frame` (not only around the gaze), as soon as the reader can. Its text
    /// comes through [`TextReader::poll`] like any other; once it is there (or the read
    /// failed), [`TextReader::whole_reads_finished`] counts it.
    fn read_whole(&mut self, frame: &Sample, gaze_px: Option<[f32; 2]>);
    /// [`TextReader::read_whole`] on the caller's thread, handing text to `on_part` as
    /// soon as each part of the frame is read (a wrapper that reads on its own thread
    /// passes it on early; the wait for the text it needs ends sooner). By default: the
    /// whole read, then everything polled, as one part.
    fn read_whole_parts(
        &mut self,
        frame: &Sample,
        gaze_px: Option<[f32; 2]>,
        on_part: &mut dyn FnMut(Vec<TextFact>),
    ) {
        self.read_whole(frame, gaze_px);
        on_part(self.poll());
    }
    /// Whole-frame reads finished so far (read or failed). Every text of a counted read is
    /// in the next [`TextReader::poll`] when this is called before it.
    fn whole_reads_finished(&self) -> u64;
    /// Text read since the last poll.
    fn poll(&mut self) -> Vec<TextFact>;
}

/// Sees what things are in RGB frames (the object detector), off the perception thread:
/// [`ObjectSeer::submit`] offers each frame and returns at once; the seer keeps only the
/// newest frame waiting, at a bounded rate, and counts the frames it passed over.
pub trait ObjectSeer: Send {
    /// A new RGB frame (a `Payload::Image` sample).
    fn submit(&mut self, frame: &Sample);
    /// Things seen since the last poll.
    fn poll(&mut self) -> Vec<SeenObject>;
}

/// What a generator is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationPrompt {
    /// The standing system prompt (stable across requests: a cache prefix).
    pub system: String,
    /// The environment state as text.
    pub context: String,
    /// The user's request.
    pub request: String,
    /// Response form: `scene`, `question` or `goal`.
    pub form: String,
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
}

/// Whether to continue after a piece of streamed text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continue {
    /// Keep generating.
    Yes,
    /// Stop now.
    Stop,
}

/// What a generation cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GenerationStats {
    /// Prompt tokens actually prefilled (after prefix reuse).
    pub prefill_tokens: u32,
    /// Tokens generated.
    pub generated_tokens: u32,
    /// Time to first token, ns (host).
    pub first_token_ns: i64,
    /// Whole generation, ns (host).
    pub total_ns: i64,
    /// Whether it was cancelled.
    pub cancelled: bool,
    /// Time prefilling this request's prompt tokens, ns (host; 0 when unknown).
    pub prefill_ns: i64,
    /// Time waiting for the model before the request could start (a prefill ahead of
    /// requests in flight), ns (host).
    pub wait_ns: i64,
    /// Threads the model ran with (0 when not applicable).
    pub threads: u32,
    /// Whether the request answered over a state prefilled ahead of it.
    pub on_prefilled: bool,
    /// Sensor-token rows decoded into the prompt (0: none).
    pub sensor_tokens: u32,
    /// Whether a camera frame's embedding was at the prompt's image placeholder.
    pub image_used: bool,
    /// The capture time (device ns) of the newest embedded frame the answer considered
    /// (used, or passed over as too old); `None`: no frame.
    pub image_capture_ns: Option<i64>,
    /// That frame's age at the answer: the state's device time minus its capture, ns.
    pub image_age_ns: Option<i64>,
}

/// A generation failed (the assistant then falls back to templates).
#[derive(Debug, thiserror::Error)]
#[error("{generator}: {message}")]
pub struct GeneratorError {
    /// Which generator.
    pub generator: String,
    /// What went wrong.
    pub message: String,
}

/// Produces the text of an answer, streamed piece by piece. `cancel` is set by the
/// assistant (a hazard alert or a newer request); a generator checks it between tokens.
pub trait Generator: Send {
    /// A short name (`template`, `smollm2`, ...), recorded in decisions.
    fn name(&self) -> &str;
    /// Generates an answer to `prompt`, calling `on_text` with each new piece of text.
    fn generate(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError>;
}
