//! Fuzz target: arbitrary bytes through `vista::fuzz::image` (see its doc). Run with
//! `cargo +nightly fuzz run image fuzz/corpus/image fuzz/seeds/image`;
//! `tests/fuzz_corpus.rs` runs the committed seeds through the same function on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::image(data);
});
