//! vista: an on-device wearable assistant runtime for blind and low-vision people, on
//! Project Aria glasses.
//!
//! The crate reads like the data flow (see `ARCHITECTURE.md`): [`aria`] reads and writes the
//! recording formats, [`source`] turns recordings (and later live input) into [`sample::Sample`]s
//! on one device clock ([`time`]), [`buffer`] holds the recent past of every stream, and
//! [`runtime`] wires stages together with bounded queues while [`profile`] measures where
//! every millisecond goes.

#![warn(missing_docs)]
// No unwrap/expect outside tests: input paths return typed errors (clippy.toml allows them
// in `#[cfg(test)]` code).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod aria;
pub mod assistant;
pub mod audio;
pub mod budget;
pub mod buffer;
pub mod detect;
pub mod eval;
pub mod fuzz;
pub mod infer;
pub mod jsonl;
pub mod judge;
pub mod lexicon;
pub mod listen;
pub mod ocr;
pub mod perception;
pub mod pipeline;
pub mod profile;
pub mod report;
pub mod runtime;
pub mod sample;
pub mod source;
pub mod speech;
pub mod state;
pub mod stop;
pub mod suite;
pub mod synth;
pub mod sys;
pub mod time;
pub mod view;
pub mod window;
pub mod worker;
