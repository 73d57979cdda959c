//! Fuzz target: arbitrary bytes through `vista::fuzz::scenario_json` (see its doc). Run with
//! `cargo +nightly fuzz run scenario_json fuzz/corpus/scenario_json fuzz/seeds/scenario_json`;
//! `tests/fuzz_corpus.rs` runs the committed seeds through the same function on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::scenario_json(data);
});
