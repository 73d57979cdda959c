//! [`Decision`]: one line of `decisions.jsonl`, the structured record of everything the
//! assistant decided to say (or not to say), joined with `transcript.jsonl` by
//! `request_id` + text for scoring and profiling.

use serde::{Deserialize, Serialize};

use super::clock::ClockHour;
use super::environment::ThingKind;

/// Why something was said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// A hazard alert.
    Alert,
    /// An answer to a user request.
    Answer,
    /// A periodic scene update.
    Ambient,
}

/// What the safety guard did to an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum GuardAction {
    /// Passed unchanged.
    Passed,
    /// A sentence was removed or replaced; `reason` says which claim failed the check.
    Replaced {
        /// The text that was blocked.
        blocked: String,
        /// Why.
        reason: String,
    },
}

/// One decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Alert, answer or ambient.
    pub kind: DecisionKind,
    /// The `request_id` of the utterances it produced (as in `transcript.jsonl`).
    pub request_id: u64,
    /// For answers: the index of the request in the session's request list (0-based,
    /// `requests.jsonl` order), or `None` for requests typed live.
    pub request_index: Option<usize>,
    /// For answers: the request's form (`scene`, `question`, `goal`) and text.
    pub request: Option<(String, String)>,
    /// The full text decided (before clause chunking).
    pub text: String,
    /// For alerts: what the alert is about (the most urgent thing it names).
    pub hazard: Option<DecisionHazard>,
    /// For alerts that name several things at once ("Stop, obstacle and head-high."): the
    /// others, in the order said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_hazards: Vec<DecisionHazard>,
    /// Capture time (device ns) of the newest sample it rests on.
    pub capture_ns: i64,
    /// When it was decided (host ns, session clock).
    pub decided_ns: i64,
    /// Device time (ns) of the state it was decided from.
    pub state_at_ns: i64,
    /// Which generator produced the text (`template`, `smollm2`, ...).
    pub generator: String,
    /// What the guard did.
    pub guard: GuardAction,
    /// For generated answers: when the first token came (host ns, session clock, like
    /// `decided_ns`; on a virtual clock, the decision time plus the measured delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_ns: Option<i64>,
    /// For answers the language model was asked for: where the time went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lm: Option<LmTiming>,
    /// For answers held for a whole-frame text read: how long and what it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_read: Option<TextReadWait>,
    /// For a request said aloud: when the voice ended and its text was heard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voice: Option<VoiceTiming>,
    /// For an answer: what the request was understood to ask, written (`where_is cup`,
    /// `goal exit`, `people approaching`, `unsupported`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<String>,
}

/// How an answer's wait for a whole-frame text read ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadOutcome {
    /// The text the request needs is in the state (from the whole-frame read or an earlier
    /// one that finished meanwhile).
    Found,
    /// The whole-frame read finished without it.
    NotFound,
    /// The read did not finish within the wait limit; answered from what the state held.
    TimedOut,
    /// A newer request came first; answered from what the state held.
    Cut,
    /// The run ended first; answered from what the state held.
    RunEnded,
}

/// When a request said aloud was said and heard, on the session clock (host ns): the end of
/// the wearer's voice, and the moment its text was recognised (the request's arrival).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoiceTiming {
    /// The end of the wearer's voice.
    pub voice_end_ns: i64,
    /// When the text was heard.
    pub text_ns: i64,
}

/// An answer's wait for a whole-frame text read (the request needed text the state did
/// not hold).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextReadWait {
    /// From holding the request to answering it, ms on the session clock (processing time
    /// in real time; on a virtual clock, the virtual time, so lock-step runs repeat).
    pub waited_for_read_ms: f64,
    /// How the wait ended.
    pub outcome: ReadOutcome,
    /// Whether the answer's state holds the text the request needs.
    pub found: bool,
}

/// Where a language-model answer's time went (host ns on the session clock unless named a
/// duration), for the profile's question → first audio breakdown.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LmTiming {
    /// When the request was asked (a scripted request's device time on the session clock,
    /// or a live request's arrival).
    pub asked_ns: i64,
    /// When the answer thread took the request (after the queue).
    pub started_ns: i64,
    /// When the model was called (the state text rendered).
    pub generate_ns: i64,
    /// Waiting for the model (a prefill ahead of requests in flight), duration ns.
    pub wait_ns: i64,
    /// Prompt tokens prefilled for this request.
    pub prefill_tokens: u32,
    /// Their prefill time, duration ns.
    pub prefill_ns: i64,
    /// Whether the request answered over a state prefilled ahead of it.
    pub on_prefilled: bool,
    /// Tokens generated.
    pub generated_tokens: u32,
    /// When the first sentence passed the guard and went to the speaker.
    pub first_speech_ns: Option<i64>,
    /// When generation ended.
    pub end_ns: i64,
    /// llama.cpp threads used.
    pub threads: u32,
    /// Sensor-token rows decoded into the prompt (0: none).
    pub sensor_tokens: u32,
    /// Whether a camera frame's embedding was in the prompt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub image_used: bool,
    /// Capture time (device ns) of the newest embedded frame considered (used, or passed over
    /// as older than the bound); absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_capture_ns: Option<i64>,
    /// Its age at the answer (state time minus capture), ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_age_ns: Option<i64>,
    /// Why the model did not finish the answer, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Whether nothing the model said passed the guard, so the templates answered.
    #[serde(default)]
    pub template_fallback: bool,
}

/// The hazard an alert is about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionHazard {
    /// Perception's thing id.
    pub thing_id: u32,
    /// Its kind.
    pub kind: ThingKind,
    /// Direction when alerted.
    pub clock: ClockHour,
    /// Distance when alerted, metres.
    pub distance_m: f32,
    /// World position, when known.
    pub world_m: Option<[f32; 3]>,
}
