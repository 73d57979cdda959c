//! Reports over a run's outputs (pure compute over `decisions.jsonl`, `transcript.jsonl`
//! and the profiler's numbers): what the run's measurements mean to a reader.
//!
//! * [`utterance`]: per-utterance latency (capture → decision → first token → first audio)
//!   and the hazard alert latency; [`utterance_lm`]: where the language model's answer time
//!   goes; [`utterance_voice`]: end of speech → first audio of the answer to a request said
//!   aloud.
//! * [`plot`]: the latency picture as one SVG; [`cpu_view`]: its CPU panel;
//!   [`panel`]: a panel of share bars below it (the listener's metrics);
//!   [`run_view`]: the picture and the trace tracks of any spoken run.
//!
//! The measuring itself (spans, histograms, CPU accounting, pacing, the trace writer) is
//! [`crate::profile`], low in the crate so every stage can use it; this module sits above
//! speech (it reads the transcript), and the scorer ([`crate::eval`]) adds ground truth to
//! the same picture.

pub mod cpu_view;
pub mod panel;
pub mod plot;
pub mod run_view;
pub mod utterance;
pub mod utterance_lm;
pub mod utterance_voice;
