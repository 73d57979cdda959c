//! Fuzz target: arbitrary bytes through `VrsReader` open + full scan + split + DataLayout
//! lookups, then the typed Aria layer and image decoding (`vista::fuzz::vrs_reader`). Run
//! with `cargo +nightly fuzz run vrs_reader fuzz/corpus/vrs_reader fuzz/seeds/vrs_reader`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::vrs_reader(data);
});
