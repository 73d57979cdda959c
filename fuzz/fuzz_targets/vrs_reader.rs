//! Fuzz target: arbitrary bytes through `VrsReader` open + full scan + split + DataLayout
//! lookups (`vista::aria::vrs::fuzz_entry`). Run with `cargo +nightly fuzz run vrs_reader`;
//! seed the corpus with `tests/data/gen1/*.vrs` cut to a few KB.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::aria::vrs::fuzz_entry(data);
});
