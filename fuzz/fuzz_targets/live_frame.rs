//! Fuzz target: arbitrary bytes through the live wire protocol's frame decoder
//! (`vista::source::live::protocol::decode_frame`) with the default limits, and every frame
//! it accepts through the encoder and back. Run with `cargo +nightly fuzz run live_frame`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vista::source::live::protocol::{decode_frame, encode_frame, Limits};

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    let body = bytes::Bytes::copy_from_slice(data);
    if let Ok(frame) = decode_frame(&body, &limits) {
        let mut out = Vec::new();
        if encode_frame(&frame, &mut out).is_ok() {
            // A frame that decoded must re-encode (length prefix + body) to a body that
            // decodes again.
            let body = bytes::Bytes::from(out).slice(4..);
            assert!(decode_frame(&body, &limits).is_ok());
        }
    }
});
