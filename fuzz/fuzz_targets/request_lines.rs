//! Fuzz target: arbitrary bytes through `vista::fuzz::request_lines` (see its doc). Run with
//! `cargo +nightly fuzz run request_lines fuzz/corpus/request_lines fuzz/seeds/request_lines`;
//! `tests/fuzz_corpus.rs` runs the committed seeds through the same function on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::request_lines(data);
});
