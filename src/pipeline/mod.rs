//! The pipeline: one place that assembles a run from typed options and runs it. A
//! [`Pipeline`] takes its input (a [`ReplayInput`] or a [`LiveInput`]) and, when the
//! assistant runs, its [`AssistantOptions`]; it opens the source, loads the models ahead of
//! the clock, wires perception, text reading, the language model, the assistant and its
//! speaker to the runtime, owns the run's threads through one [`StopHandle`], and writes
//! every output (`--profile FILE`; with the assistant: speech, transcript, decisions,
//! `profile.json`, `trace.json`, `latency.svg`, `run.json`, `session_clock.json` and, with
//! ground truth, `score.json`). It returns the terminal report; printing is the caller's.
//!
//! The run's profiling (the trace's timeline, CPU accounting) is process-wide, so one
//! pipeline runs at a time in a process: [`Pipeline::run`] waits for any other to end.
//!
//! ```text
//! options → source (replay | live → read-ahead → primed → map overlay)
//!         → [derived pose from the IMU] → runtime (ingest, rings, consumers)
//!              consumers: perception (+ depth, vehicles, text reading) → assistant → speech
//!                         language model window / vision, sequence digest
//!         → outputs (profile, trace, picture, score)
//! ```
//!
//! Beside runs, the one-shot tools: [`still_text`] reads text in one image (`vista ocr`),
//! [`speak_text`] speaks one text (`vista say`), `ask` puts one question to the language
//! model (`vista ask`, feature `llm`), `lm_bench` measures its speed (`vista bench lm`).

#[cfg(feature = "llm")]
pub mod ask;
mod assemble;
mod budget;
mod digest;
mod error;
mod inputs;
mod live;
#[cfg(feature = "llm")]
pub mod lm_bench;
mod monitor;
mod options;
mod outputs;
mod replay;
pub mod speak_text;
pub mod still_text;
mod stream_report;
mod view;
mod voice;

use std::path::PathBuf;
use std::sync::Mutex;

pub use assemble::AssistantRun;
pub use budget::{too_low as budget_too_low, MIN_BUDGET_CORES};
pub use error::PipelineError;
pub use inputs::AssistantInputs;
pub use options::{
    clock_jump_ns, AssistantOptions, LiveInput, LmOptions, Pace, ReplayInput, SightOptions,
    DEFAULT_MAX_CLOCK_JUMP_S,
};
pub use outputs::{AssistantCountersJson, AssistantSummary};
pub use stream_report::{LiveProfile, Pacing, ReplayProfile, StreamLine};

use crate::runtime::{ProgressFn, StopHandle, StopReason};

/// Where a run's samples come from.
#[derive(Clone, Debug)]
pub enum Input {
    /// A recorded session.
    Replay(ReplayInput),
    /// The glasses (or the device simulator).
    Live(LiveInput),
}

/// Makes the progress callback, given the device seconds the run will cover (0 when not
/// known in advance: live input).
pub type ProgressFactory = Box<dyn FnOnce(f64) -> ProgressFn + Send>;

/// A run, assembled from typed options.
pub struct Pipeline {
    input: Input,
    assistant: Option<AssistantOptions>,
    stop: StopHandle,
    handle_signals: bool,
    progress: Option<ProgressFactory>,
    profile_file: Option<PathBuf>,
    view: Option<crate::view::ViewTarget>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("input", &self.input)
            .field("assistant", &self.assistant)
            .field("handle_signals", &self.handle_signals)
            .field("profile_file", &self.profile_file)
            .field("view", &self.view)
            .finish()
    }
}

/// What a run did.
#[derive(Debug)]
pub struct RunOutcome {
    /// The per-stream table (delivered, dropped, rate, pacing or link latency).
    pub stream_table: String,
    /// With the assistant: its report (latency, text reads, score, CPU, counts).
    pub assistant_report: Option<String>,
    /// Why the run stopped.
    pub stop_reason: StopReason,
    /// The stream report (as written to `--profile FILE` and `profile.json`).
    pub profile: StreamProfile,
}

/// The stream report of a replay or a live run.
#[derive(Debug)]
pub enum StreamProfile {
    /// A replay.
    Replay(ReplayProfile),
    /// A live run: the replay fields and the link.
    Live(LiveProfile),
}

impl StreamProfile {
    /// The replay fields (of a live run too).
    pub fn base(&self) -> &ReplayProfile {
        match self {
            StreamProfile::Replay(p) => p,
            StreamProfile::Live(l) => &l.base,
        }
    }
}

/// One pipeline at a time per process (its profiling is process-wide).
static RUNNING: Mutex<()> = Mutex::new(());

impl Pipeline {
    /// A run of `input`, without the assistant, not handling signals.
    pub fn new(input: Input) -> Self {
        Self {
            input,
            assistant: None,
            stop: StopHandle::new(),
            handle_signals: false,
            progress: None,
            profile_file: None,
            view: None,
        }
    }

    /// Runs the assistant too, with `options`.
    pub fn with_assistant(mut self, options: AssistantOptions) -> Self {
        self.assistant = Some(options);
        self
    }

    /// SIGINT, SIGTERM and SIGHUP stop the run in order, with every output written (for a
    /// command-line program; a library caller stops it through [`Self::stop_handle`]).
    pub fn handle_signals(mut self, on: bool) -> Self {
        self.handle_signals = on;
        self
    }

    /// Reports progress through the callback `factory` makes.
    pub fn with_progress(mut self, factory: ProgressFactory) -> Self {
        self.progress = Some(factory);
        self
    }

    /// Also writes the stream report as JSON to `path`.
    pub fn with_profile_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.profile_file = Some(path.into());
        self
    }

    /// Also makes a Rerun recording of the run (`--rerun FILE.rrd`, `--rerun-connect ADDR`):
    /// the cameras, pose, gaze, hands, perception's states and hazards, decisions and speech
    /// on the device and processing timelines (see [`crate::view`]).
    pub fn with_view(mut self, target: Option<crate::view::ViewTarget>) -> Self {
        self.view = target;
        self
    }

    /// The handle that stops the run (from any thread): the source stops, queued samples
    /// are delivered, and every output is written.
    pub fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    /// Runs to the end of the input (or a stop) and writes every output.
    pub fn run(self) -> Result<RunOutcome, PipelineError> {
        if let Some(a) = &self.assistant {
            budget::check(a.cpu_budget_cores)?;
        }
        let _one_at_a_time = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        match self.input.clone() {
            Input::Replay(r) => replay::run(self, r),
            Input::Live(l) => live::run(self, l),
        }
    }
}
