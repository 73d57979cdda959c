//! Fuzz target: arbitrary bytes through the live wire protocol's frame decoder with the
//! default limits, and every frame it accepts through the encoder and back
//! (`vista::fuzz::live_frame`). Run with
//! `cargo +nightly fuzz run live_frame fuzz/corpus/live_frame fuzz/seeds/live_frame`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    vista::fuzz::live_frame(data);
});
