//! What a run is asked to do, as typed options (no command-line types): the input (a replay
//! of a session, or live input from the glasses' bridge or the device simulator), and the
//! assistant's options when it runs. The command line turns its flags into these.

use std::path::PathBuf;
use std::time::Duration;

use crate::assistant::lm::setup::LmChoice;
use crate::assistant::lm::threads::ThreadPolicy;
use crate::assistant::Verbosity;
use crate::speech::sink::AudioChoice;
use crate::speech::{AnswerVoice, VoiceParams};

/// How a replay is paced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// On the host clock at `rate` × real time (1 = as captured).
    RealTime {
        /// Speed factor.
        rate: f64,
    },
    /// As fast as possible and deterministic: a virtual clock, consumers in lock step.
    LockStep,
}

impl Pace {
    /// Whether the run follows the host clock.
    pub fn is_real_time(self) -> bool {
        matches!(self, Pace::RealTime { .. })
    }

    /// The speed factor (1 in lock step, where it has no meaning).
    pub fn rate(self) -> f64 {
        match self {
            Pace::RealTime { rate } => rate,
            Pace::LockStep => 1.0,
        }
    }
}

/// A replay of a recorded session.
#[derive(Clone, Debug)]
pub struct ReplayInput {
    /// A session folder (`recording.vrs`, optional `mps/`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// How it is paced.
    pub pace: Pace,
    /// Start this many seconds after the recording's first sample.
    pub from_s: Option<f64>,
    /// Stop this many seconds after the recording's first sample.
    pub to_s: Option<f64>,
    /// Replay the session this many extra times.
    pub extra_loops: u32,
    /// Leave out MPS-derived streams (eye gaze, hands, trajectory): what live input sees.
    pub recorded_only: bool,
    /// Plausibility window of capture times, seconds (see [`clock_jump_ns`]).
    pub max_clock_jump_s: f64,
    /// Coalesce wake-ups: samples due within this many µs of the last are delivered together.
    pub pacing_granularity_us: u32,
    /// Compute a digest of the delivered sample sequence.
    pub digest: bool,
}

impl ReplayInput {
    /// A real-time replay of `session` with the defaults of `vista replay`.
    pub fn new(session: impl Into<PathBuf>) -> Self {
        Self {
            session: session.into(),
            pace: Pace::RealTime { rate: 1.0 },
            from_s: None,
            to_s: None,
            extra_loops: 0,
            recorded_only: false,
            max_clock_jump_s: DEFAULT_MAX_CLOCK_JUMP_S,
            pacing_granularity_us: 0,
            digest: false,
        }
    }
}

/// Live input from the glasses' bridge or `vista device-sim`.
#[derive(Clone, Debug)]
pub struct LiveInput {
    /// The device's address (`host:port` or `unix:/path`): connected to, or listened on.
    pub address: String,
    /// Listen on `address` and let the device connect (loopback or a Unix socket only).
    pub listen: bool,
    /// Shared token, when the device requires one.
    pub token: Option<String>,
    /// After the device says goodbye, wait for the next connection instead of ending.
    pub stay: bool,
    /// Plausibility window of the device clock, seconds (see [`clock_jump_ns`]).
    pub max_clock_jump_s: f64,
    /// Seconds to keep trying to (re)connect before giving up (not finite: 10 s).
    pub reconnect_s: f64,
    /// With the assistant: this session folder's semi-dense map and MPS-derived streams,
    /// merged in by capture time.
    pub map: Option<PathBuf>,
    /// With the assistant: score against this session's ground truth (and take its
    /// `requests.jsonl` unless the assistant's options name requests).
    pub truth: Option<PathBuf>,
}

impl LiveInput {
    /// Connects to `address` with the defaults of `vista live`.
    pub fn new(address: impl Into<String>) -> Self {
        Self {
            address: address.into(),
            listen: false,
            token: None,
            stay: false,
            max_clock_jump_s: DEFAULT_MAX_CLOCK_JUMP_S,
            reconnect_s: 10.0,
            map: None,
            truth: None,
        }
    }

    /// How long to keep trying to (re)connect.
    pub fn reconnect_for(&self) -> Duration {
        if self.stay {
            Duration::MAX
        } else {
            let s = if self.reconnect_s.is_finite() {
                self.reconnect_s.clamp(0.0, 86_400.0)
            } else {
                10.0
            };
            Duration::from_secs_f64(s)
        }
    }
}

/// The default plausibility window of capture times, seconds.
pub const DEFAULT_MAX_CLOCK_JUMP_S: f64 = 10.0;

/// A plausibility window in seconds as ns: at least 1 ms, at most a day; not finite → 10 s.
pub fn clock_jump_ns(s: f64) -> i64 {
    if s.is_finite() {
        (s.clamp(0.001, 86_400.0) * 1e9) as i64
    } else {
        (DEFAULT_MAX_CLOCK_JUMP_S * 1e9) as i64
    }
}

/// The assistant on a run: where its outputs go, where its requests come from, what it
/// sees with and which models answer.
#[derive(Clone, Debug)]
pub struct AssistantOptions {
    /// The output folder (speech, transcript, decisions, profile, trace, picture, score).
    pub out_dir: PathBuf,
    /// Where speech plays.
    pub audio: AudioChoice,
    /// Scripted requests (default: the session's `requests.jsonl`, when present).
    pub requests: Option<PathBuf>,
    /// Also take requests typed on standard input.
    pub stdin_requests: bool,
    /// Also take requests from this loopback TCP address (`IP:PORT`), one per line.
    pub requests_listen: Option<String>,
    /// Describe the scene every this many seconds of device time.
    pub scene_every_s: Option<f64>,
    /// What perception and text reading use.
    pub sight: SightOptions,
    /// The language model.
    pub lm: LmOptions,
    /// The voice's speaking rate, words per minute.
    pub speech_rate_wpm: u32,
    /// How much is said.
    pub verbosity: Verbosity,
    /// The voice answers are said in.
    pub answer_voice: AnswerVoice,
    /// Type the questions no rule types by likeness to labelled examples (the sentence
    /// encoder from the model cache, when present).
    pub likeness: bool,
    /// Hear spoken requests in the recording's or the glasses' audio stream.
    pub listen: bool,
    /// How a spoken request starts (a wake phrase, or every utterance).
    pub wake: crate::listen::Wake,
    /// Keep the whole process within this many cores at real time by lowering the rates of
    /// optional stages (see [`crate::budget`]); `None`: no budget.
    pub cpu_budget_cores: Option<f64>,
}

impl AssistantOptions {
    /// The assistant writing into `out_dir`, speech to a WAV, every sense on, the default
    /// language model.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        Self {
            out_dir: out_dir.into(),
            audio: AudioChoice::Wav,
            requests: None,
            stdin_requests: false,
            requests_listen: None,
            scene_every_s: None,
            sight: SightOptions::default(),
            lm: LmOptions::default(),
            speech_rate_wpm: VoiceParams::default().rate_wpm,
            verbosity: Verbosity::default(),
            answer_voice: AnswerVoice::default(),
            likeness: true,
            listen: false,
            wake: crate::listen::Wake::default(),
            cpu_budget_cores: Some(crate::budget::DEFAULT_BUDGET_CORES),
        }
    }

    /// The scene period in device ns, when it is a positive number of seconds.
    pub fn ambient_every_ns(&self) -> Option<i64> {
        self.scene_every_s
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| (s * 1e9) as i64)
    }
}

/// Which of perception's optional senses run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SightOptions {
    /// Read text (PP-OCR) when its models are present.
    pub read_text: bool,
    /// See what things are (the object detector) when its model is present.
    pub objects: bool,
    /// Stereo depth from the two SLAM cameras.
    pub stereo_depth: bool,
    /// Vehicles from motion in the SLAM cameras' images.
    pub movers: bool,
    /// Where input has no device pose: the position from visual odometry on the SLAM
    /// cameras (else from counted steps alone). Off by default until perception's
    /// downstream stages are measured with it (docs/design.md).
    pub odometry: bool,
    /// Where input has no semi-dense map: a map built live from stereo depth. Off by
    /// default: it raises recall and false alerts alike (docs/design.md).
    pub live_map: bool,
}

impl Default for SightOptions {
    fn default() -> Self {
        Self {
            read_text: true,
            objects: true,
            stereo_depth: true,
            movers: true,
            odometry: false,
            live_map: false,
        }
    }
}

/// The language model for scene descriptions and open questions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LmOptions {
    /// Which model (or none).
    pub choice: LmChoice,
    /// llama.cpp threads.
    pub threads: ThreadPolicy,
}

impl Default for LmOptions {
    fn default() -> Self {
        Self {
            choice: LmChoice::Default,
            threads: ThreadPolicy::Auto,
        }
    }
}
