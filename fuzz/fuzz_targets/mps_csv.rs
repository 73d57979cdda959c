//! Fuzz target: arbitrary bytes through `vista::fuzz::mps_csv` (see its doc). Run with
//! `cargo +nightly fuzz run mps_csv fuzz/corpus/mps_csv fuzz/seeds/mps_csv`;
//! `tests/fuzz_corpus.rs` runs the committed seeds through the same function on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::mps_csv(data);
});
