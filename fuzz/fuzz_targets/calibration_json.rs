//! Fuzz target: arbitrary bytes through `vista::fuzz::calibration_json` (see its doc). Run with
//! `cargo +nightly fuzz run calibration_json fuzz/corpus/calibration_json fuzz/seeds/calibration_json`;
//! `tests/fuzz_corpus.rs` runs the committed seeds through the same function on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::calibration_json(data);
});
