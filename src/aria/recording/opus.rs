//! Opus audio, as Aria Gen2 records its microphones: one Opus multistream packet per record
//! (one mono stream per channel, no stereo pairs, channel i from stream i, exactly as VRS's
//! `AudioBlock::opusDecompress` sets the decoder up), decoded by libopus (Debian
//! `libopus-dev`, BSD-3-Clause, linked dynamically) through a small binding.
//!
//! A packet's decoding depends on the packets before it, so a stream's decoder lives as long
//! as the stream is read in order. Readers pass the packets on coded ([`AudioCoding::Opus`]):
//! only a consumer that needs the samples decodes them ([`OpusPcm`]).

use std::ffi::{c_char, c_int, CStr};

use crate::sample::{AudioBlock, AudioCoding};

/// Largest Opus frame, 120 ms, in samples per channel at 48 kHz (the spec's maximum).
pub const MAX_FRAME_SAMPLES: usize = 5760;
/// Most channels a multistream decoder takes.
pub const MAX_CHANNELS: u32 = 255;

/// libopus's multistream decoder (opaque).
#[repr(C)]
struct OpusMsDecoder {
    _private: [u8; 0],
}

#[link(name = "opus")]
extern "C" {
    fn opus_multistream_decoder_create(
        fs: i32,
        channels: c_int,
        streams: c_int,
        coupled_streams: c_int,
        mapping: *const u8,
        error: *mut c_int,
    ) -> *mut OpusMsDecoder;
    fn opus_multistream_decode(
        st: *mut OpusMsDecoder,
        data: *const u8,
        len: i32,
        pcm: *mut i16,
        frame_size: c_int,
        decode_fec: c_int,
    ) -> c_int;
    fn opus_multistream_decoder_destroy(st: *mut OpusMsDecoder);
    fn opus_strerror(error: c_int) -> *const c_char;
}

fn error_text(code: c_int) -> String {
    // SAFETY: libopus returns a static, NUL-terminated string for any code.
    let p = unsafe { opus_strerror(code) };
    if p.is_null() {
        return format!("error {code}");
    }
    // SAFETY: non-null, static C string (see above).
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// One Opus stream's decoder.
pub struct OpusStream {
    dec: *mut OpusMsDecoder,
    channels: u32,
    rate_hz: u32,
}

// SAFETY: the decoder is owned by this value alone; libopus keeps no thread-local state, and
// every call takes `&mut self`, so calls never overlap.
unsafe impl Send for OpusStream {}

impl std::fmt::Debug for OpusStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpusStream")
            .field("channels", &self.channels)
            .field("rate_hz", &self.rate_hz)
            .finish()
    }
}

impl OpusStream {
    /// A decoder for `channels` mono streams at `rate_hz` (Opus decodes at 8, 12, 16, 24 or
    /// 48 kHz).
    pub fn new(channels: u32, rate_hz: u32) -> Result<Self, String> {
        if channels == 0 || channels > MAX_CHANNELS {
            return Err(format!("Opus with {channels} channels"));
        }
        if ![8_000, 12_000, 16_000, 24_000, 48_000].contains(&rate_hz) {
            return Err(format!(
                "Opus at {rate_hz} Hz (8, 12, 16, 24 or 48 kHz only)"
            ));
        }
        let mapping: Vec<u8> = (0..channels).map(|i| i as u8).collect();
        let mut error: c_int = 0;
        // SAFETY: `mapping` holds `channels` bytes and outlives the call (libopus copies it);
        // `error` is a valid out-pointer; the counts were checked above.
        let dec = unsafe {
            opus_multistream_decoder_create(
                rate_hz as i32,
                channels as c_int,
                channels as c_int,
                0,
                mapping.as_ptr(),
                &mut error,
            )
        };
        if dec.is_null() || error != 0 {
            if !dec.is_null() {
                // SAFETY: created just above, destroyed once.
                unsafe { opus_multistream_decoder_destroy(dec) };
            }
            return Err(format!("Opus decoder: {}", error_text(error)));
        }
        Ok(Self {
            dec,
            channels,
            rate_hz,
        })
    }

    /// Whether this decoder fits a stream of `channels` at `rate_hz`.
    pub fn fits(&self, channels: u32, rate_hz: u32) -> bool {
        self.channels == channels && self.rate_hz == rate_hz
    }

    /// Decodes one packet into interleaved 16-bit samples (`frames × channels`).
    pub fn decode(&mut self, packet: &[u8]) -> Result<Vec<i16>, String> {
        let len = i32::try_from(packet.len()).map_err(|_| "Opus packet over 2 GiB".to_string())?;
        // The most one packet can hold: 120 ms at this rate.
        let max_frames = MAX_FRAME_SAMPLES * self.rate_hz as usize / 48_000;
        let mut pcm = vec![0i16; max_frames * self.channels as usize];
        // SAFETY: `dec` is live; `packet` holds `len` bytes; `pcm` holds `max_frames ×
        // channels` samples, the most libopus writes for `frame_size = max_frames`.
        let n = unsafe {
            opus_multistream_decode(
                self.dec,
                packet.as_ptr(),
                len,
                pcm.as_mut_ptr(),
                max_frames as c_int,
                0,
            )
        };
        if n < 0 {
            return Err(format!("Opus packet: {}", error_text(n)));
        }
        pcm.truncate(n as usize * self.channels as usize);
        Ok(pcm)
    }
}

/// Audio blocks to interleaved 32-bit PCM for one stream read in order: Opus packets through
/// one decoder kept from block to block (a new one when the layout changes), PCM as it is.
#[derive(Debug, Default)]
pub struct OpusPcm {
    stream: Option<OpusStream>,
}

impl OpusPcm {
    /// `block`'s samples as interleaved `i32` little-endian bytes, appended to `out` (16-bit
    /// Opus samples scaled to the full 32-bit range, like Gen1's PCM).
    pub fn pcm(&mut self, block: &AudioBlock, out: &mut Vec<u8>) -> Result<(), String> {
        match block.coding {
            AudioCoding::PcmI32Le => {
                out.extend_from_slice(&block.data);
                Ok(())
            }
            AudioCoding::Opus => {
                let (channels, rate) = (u32::from(block.channels), block.sample_rate_hz);
                let dec = match self.stream.take() {
                    Some(d) if d.fits(channels, rate) => d,
                    _ => OpusStream::new(channels, rate)?,
                };
                let dec = self.stream.insert(dec);
                let pcm = match dec.decode(&block.data) {
                    Ok(p) => p,
                    Err(e) => {
                        // A damaged packet: the next one starts afresh.
                        self.stream = None;
                        return Err(e);
                    }
                };
                let frames = pcm.len() / block.channels.max(1) as usize;
                if frames != block.timestamps_ns.len() {
                    return Err(format!(
                        "Opus packet decoded to {frames} frames, the block has {} timestamps",
                        block.timestamps_ns.len()
                    ));
                }
                out.reserve(pcm.len() * 4);
                for v in pcm {
                    out.extend_from_slice(&(i32::from(v) << 16).to_le_bytes());
                }
                Ok(())
            }
        }
    }
}

impl Drop for OpusStream {
    fn drop(&mut self) {
        // SAFETY: `dec` came from `opus_multistream_decoder_create` and is destroyed once.
        unsafe { opus_multistream_decoder_destroy(self.dec) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_and_packets_are_errors() {
        assert!(OpusStream::new(0, 16_000).is_err());
        assert!(OpusStream::new(2, 44_100).is_err());
        let mut d = OpusStream::new(8, 16_000).unwrap();
        assert!(d.fits(8, 16_000) && !d.fits(7, 16_000));
        // A packet claiming more frames than exist, and an empty one (packet loss: libopus
        // conceals it with silence-like samples, never a panic).
        assert!(d.decode(&[0xff, 0xff, 0xff]).is_err());
        let _ = d.decode(&[]);
    }
}
