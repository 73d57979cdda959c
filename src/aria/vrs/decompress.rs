//! Whole-payload decompression of records: zstd frames (streaming, so trailing padding after
//! the frame is ignored) and LZ4 frames. Pure compute; the reader adds file and offset.

use std::cell::RefCell;
use std::io::Read;

use zstd::stream::raw::{Decoder as ZstdDecoder, Operation};

use super::types::Compression;

/// Largest decompressed payload of any record, index records included (bounds memory on
/// corrupt sizes). 1 GiB: a classic index of 56 M records (19 bytes each) still fits. Readers
/// pass a tighter budget per record (see [`MAX_RECORD_BYTES`] and the per-stream budgets of
/// `VrsReader::set_payload_budget`); this is the ceiling none of them may exceed.
pub const MAX_PAYLOAD_BYTES: usize = 1 << 30;

/// Largest decompressed payload of one description, configuration, state or data record
/// (the default budget of a stream whose configuration says nothing about its size). 64 MiB:
/// the largest record an Aria device writes is a raw RGB frame, 2880 × 2880 × 3 = 24.9 MB on
/// Gen1 and under 50 MB for any 4-channel 12 Mpx frame, so twice the Gen1 frame plus room.
/// A 1 GiB budget let a 2 MB file of zstd bombs take 12.3 GB in replay.
pub const MAX_RECORD_BYTES: usize = 64 << 20;

thread_local! {
    static ZSTD: RefCell<Option<ZstdDecoder<'static>>> = const { RefCell::new(None) };
}

/// First output allocation for a compressed payload: the declared size, but no more than a
/// generous multiple of the input, so a corrupt size on a tiny frame cannot claim memory.
fn initial_capacity(input_len: usize, expected: usize) -> usize {
    expected.min(input_len.saturating_mul(16).saturating_add(1 << 16))
}

/// Refuses a declared size above `budget` (or above [`MAX_PAYLOAD_BYTES`]) before anything
/// is allocated or decompressed.
fn check_budget(expected: usize, budget: usize) -> Result<(), String> {
    let budget = budget.min(MAX_PAYLOAD_BYTES);
    if expected > budget {
        return Err(format!(
            "declared size {expected} bytes exceeds the budget of {budget} bytes"
        ));
    }
    Ok(())
}

/// Decompresses the first zstd frame of `input` into `out`, which must come out exactly
/// `expected` bytes long. Bytes after the frame are ignored. The output grows as the frame
/// produces data, never past `expected`.
pub fn zstd_frame(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<(), String> {
    zstd_frame_within(input, expected, MAX_PAYLOAD_BYTES, out)
}

/// [`zstd_frame`] with a budget: a declared size above `budget` is refused up front.
pub fn zstd_frame_within(
    input: &[u8],
    expected: usize,
    budget: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    check_budget(expected, budget)?;
    out.clear();
    out.resize(initial_capacity(input.len(), expected), 0);
    let result = ZSTD.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(ZstdDecoder::new().map_err(|e| e.to_string())?);
        }
        let dec = slot.as_mut().ok_or("no zstd context")?;
        dec.reinit().map_err(|e| e.to_string())?;
        let (mut in_pos, mut out_pos) = (0usize, 0usize);
        loop {
            if out_pos == out.len() && out.len() < expected {
                let grown = out.len().saturating_mul(2).max(1 << 16).min(expected);
                out.resize(grown, 0);
            }
            let src = input.get(in_pos..).unwrap_or_default();
            let dst = out.get_mut(out_pos..).unwrap_or_default();
            let st = dec.run_on_buffers(src, dst).map_err(|e| e.to_string())?;
            in_pos += st.bytes_read;
            out_pos += st.bytes_written;
            if st.remaining == 0 {
                break;
            }
            if st.bytes_read == 0 && st.bytes_written == 0 && out_pos < out.len() {
                return Err(format!("frame ends early: {out_pos} of {expected} bytes"));
            }
            if st.bytes_read == 0 && st.bytes_written == 0 && out.len() == expected {
                return Err(format!(
                    "frame holds more than the declared {expected} bytes"
                ));
            }
        }
        Ok(out_pos)
    });
    let produced = result?;
    out.truncate(produced);
    if produced != expected {
        return Err(format!(
            "frame holds {produced} bytes, header declares {expected}"
        ));
    }
    Ok(())
}

/// Decompresses an LZ4 frame into `out` (exactly `expected` bytes, at most `budget`).
pub fn lz4_frame(
    input: &[u8],
    expected: usize,
    budget: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    check_budget(expected, budget)?;
    out.clear();
    out.reserve(initial_capacity(input.len(), expected));
    let dec = lz4_flex::frame::FrameDecoder::new(input);
    dec.take(expected as u64 + 1)
        .read_to_end(out)
        .map_err(|e| e.to_string())?;
    if out.len() != expected {
        return Err(format!(
            "frame holds {} bytes, header declares {expected}",
            out.len()
        ));
    }
    Ok(())
}

/// Decompresses `input` with `codec` into `out`; a declared size (or, uncompressed, a stored
/// size) above `budget` bytes is refused before anything is allocated.
pub fn decompress(
    codec: Compression,
    input: &[u8],
    expected: usize,
    budget: usize,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    match codec {
        Compression::None => {
            check_budget(input.len(), budget)?;
            out.clear();
            out.extend_from_slice(input);
            Ok(())
        }
        Compression::Zstd => zstd_frame_within(input, expected, budget, out),
        Compression::Lz4 => lz4_frame(input, expected, budget, out),
    }
}

/// Compresses `input` with `codec` (writer side).
pub fn compress(codec: Compression, input: &[u8]) -> std::io::Result<Vec<u8>> {
    match codec {
        Compression::None => Ok(input.to_vec()),
        Compression::Zstd => zstd::bulk::compress(input, 3),
        Compression::Lz4 => {
            let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
            std::io::Write::write_all(&mut enc, input)?;
            enc.finish().map_err(std::io::Error::other)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_padding() {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for codec in [Compression::Zstd, Compression::Lz4] {
            let mut c = compress(codec, &data).unwrap();
            let mut out = Vec::new();
            decompress(codec, &c, data.len(), MAX_RECORD_BYTES, &mut out).unwrap();
            assert_eq!(out, data);
            // Wrong declared size is an error.
            assert!(decompress(codec, &c, data.len() - 1, MAX_RECORD_BYTES, &mut out).is_err());
            assert!(decompress(codec, &c, data.len() + 1, MAX_RECORD_BYTES, &mut out).is_err());
            // Cut frames are errors.
            assert!(decompress(
                codec,
                &c[..c.len() / 2],
                data.len(),
                MAX_RECORD_BYTES,
                &mut out
            )
            .is_err());
            if codec == Compression::Zstd {
                // Zero padding after a zstd frame (pre-allocated index) is ignored.
                c.extend_from_slice(&[0u8; 64]);
                decompress(codec, &c, data.len(), MAX_RECORD_BYTES, &mut out).unwrap();
                assert_eq!(out, data);
            }
        }
        let mut out = Vec::new();
        assert!(decompress(
            Compression::Zstd,
            b"garbage!",
            10,
            MAX_RECORD_BYTES,
            &mut out
        )
        .is_err());
        // A huge declared size on a small frame fails without allocating it.
        let small = compress(Compression::Zstd, &data[..1000]).unwrap();
        assert!(decompress(
            Compression::Zstd,
            &small,
            900 << 20,
            MAX_PAYLOAD_BYTES,
            &mut out
        )
        .is_err());
        assert!(out.capacity() < 10 << 20, "{}", out.capacity());
        // Large output that needs the buffer to grow several times.
        let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 7) as u8).collect();
        let c = compress(Compression::Zstd, &big).unwrap();
        assert!(c.len() * 16 + (1 << 16) < big.len());
        decompress(Compression::Zstd, &c, big.len(), MAX_RECORD_BYTES, &mut out).unwrap();
        assert_eq!(out, big);
        assert!(decompress(
            Compression::Lz4,
            b"garbage!",
            10,
            MAX_RECORD_BYTES,
            &mut out
        )
        .is_err());
    }

    #[test]
    fn a_bomb_beyond_its_budget_is_refused_before_decompressing() {
        // 8 MiB of zeros compress to a few hundred bytes: a frame that really produces what
        // it declares, but more than the record's budget allows.
        let zeros = vec![0u8; 8 << 20];
        for codec in [Compression::Zstd, Compression::Lz4] {
            let c = compress(codec, &zeros).unwrap();
            let mut out = Vec::new();
            let e = decompress(codec, &c, zeros.len(), 1 << 20, &mut out).unwrap_err();
            assert!(e.contains("budget of 1048576 bytes"), "{e}");
            assert!(out.capacity() < 1 << 20, "{}", out.capacity());
            decompress(codec, &c, zeros.len(), 8 << 20, &mut out).unwrap();
            assert_eq!(out.len(), zeros.len());
        }
        // Stored (uncompressed) payloads answer to the same budget.
        let mut out = Vec::new();
        assert!(decompress(Compression::None, &zeros, zeros.len(), 1 << 20, &mut out).is_err());
    }
}
