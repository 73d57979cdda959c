//! Speaking: eSpeak NG text to speech on its own thread ([`tts`], over the hand-written FFI
//! in [`espeak_ffi`]).

pub mod espeak_ffi;
pub mod tts;

pub use tts::{Flow, SynthReport, Tts, TtsError, VoiceParams};
