//! The language model's side of the assistant.
//!
//! * [`route`]: which requests the language model answers (the rest get templates).
//! * [`setup`]: which model a run uses (a GGUF, a bundle, or none) and loading it.
//! * [`threads`]: how many threads it gets.
//! * [`context`]: the model's view of the environment state.
//! * `prefill` (feature `llm`): the prompt prefilled ahead of requests, the KV cache kept.
//! * `sensor`, `bundle`, `layout` (feature `llm`): the sensor-fusion network's tokens and
//!   a bundle's prompt layout.
//! * `vision` (feature `llm`): camera frames in the answers of a bundle with a vision
//!   projector.

#[cfg(feature = "llm")]
pub mod bundle;

pub mod context;
#[cfg(feature = "llm")]
pub mod layout;
#[cfg(feature = "llm")]
pub mod prefill;
pub mod route;
#[cfg(feature = "llm")]
pub mod sensor;
pub mod setup;
pub mod threads;
#[cfg(feature = "llm")]
pub mod vision;

/// The prefill thread's stage in the CPU accounting (see `prefill`).
pub const PREFILL_STAGE: &str = crate::profile::stages::LM_PREFILL;
