//! Speaking: eSpeak NG text to speech on its own thread ([`tts`], over the hand-written FFI
//! in [`espeak_ffi`]) and a clause chunker for streamed tokens
//! ([`chunker`]).

pub mod chunker;
pub mod espeak_ffi;
pub mod tts;

pub use tts::{Flow, SynthReport, Tts, TtsError, VoiceParams};
