//! H.265 (HEVC) frames, as Aria Gen2 records every camera: each frame's size read from its
//! own sequence parameter set and checked against the stream's before any pixel is decoded,
//! then decoded by libde265 (Debian `libde265-dev`, LGPL-3.0, linked dynamically) through a
//! small hand-written binding. The pure-Rust HEVC decoders on crates.io refuse monochrome
//! (4:0:0) streams, which is how Gen2 stores its SLAM and eye cameras.
//!
//! A frame is decoded on its own when it starts a group (a key frame, `image_key_frame_index`
//! 0, with its parameter sets); frames between key frames need the ones before them, which a
//! per-stream [`HevcStream`] keeps.

use std::ffi::{c_char, c_int, c_void, CStr};

use super::image::DecodedImage;

/// Why a frame did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HevcError {
    /// The bitstream holds no sequence parameter set to size the frame by.
    #[error("H.265 frame without a sequence parameter set (not a key frame)")]
    NoSequenceParameters,
    /// The parameter set is cut short or malformed.
    #[error("H.265 sequence parameter set: {0}")]
    BadSequenceParameters(&'static str),
    /// The decoder reported an error.
    #[error("H.265 decoder: {0}")]
    Decoder(String),
    /// The decoder produced no picture from the frame.
    #[error("H.265 frame decoded to no picture")]
    NoPicture,
    /// A picture layout this reader does not turn into pixels.
    #[error("H.265 picture with {0}")]
    Unsupported(String),
}

/// Size and chroma of a coded video sequence, from its sequence parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SequenceInfo {
    /// `pic_width_in_luma_samples`.
    pub width: u32,
    /// `pic_height_in_luma_samples`.
    pub height: u32,
    /// `chroma_format_idc` (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4).
    pub chroma_format_idc: u32,
}

/// NAL unit type of a sequence parameter set.
const NAL_SPS: u8 = 33;

/// The first sequence parameter set of an Annex-B byte stream, parsed as far as the picture
/// size (H.265 §7.3.2.2.1); `Ok(None)` when the stream holds none.
pub fn sequence_info(annex_b: &[u8]) -> Result<Option<SequenceInfo>, HevcError> {
    for nal in nal_units(annex_b) {
        if nal.len() >= 2 && (nal[0] >> 1) & 0x3f == NAL_SPS {
            return parse_sps(&unescape(&nal[2..])).map(Some);
        }
    }
    Ok(None)
}

/// The NAL units of an Annex-B stream (between `00 00 01` start codes).
fn nal_units(b: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 3 <= b.len() {
        if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 {
            starts.push(i + 3);
            i += 3;
        } else {
            i += 1;
        }
    }
    let ends: Vec<usize> = starts
        .iter()
        .skip(1)
        .map(|&s| s - 3)
        .chain(std::iter::once(b.len()))
        .collect();
    starts.into_iter().zip(ends).map(move |(s, e)| {
        // A four-byte start code leaves a zero before the next one.
        let mut e = e.max(s);
        while e > s && b[e - 1] == 0 {
            e -= 1;
        }
        &b[s..e]
    })
}

/// Removes emulation-prevention bytes (`00 00 03` → `00 00`).
fn unescape(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut zeros = 0;
    for &x in b {
        if zeros >= 2 && x == 3 {
            zeros = 0;
            continue;
        }
        zeros = if x == 0 { zeros + 1 } else { 0 };
        out.push(x);
    }
    out
}

/// MSB-first bit reader with Exp-Golomb codes.
struct Bits<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn bit(&mut self) -> Result<u32, HevcError> {
        let byte = self
            .b
            .get(self.pos / 8)
            .ok_or(HevcError::BadSequenceParameters("cut short"))?;
        let v = (byte >> (7 - self.pos % 8)) & 1;
        self.pos += 1;
        Ok(u32::from(v))
    }
    fn bits(&mut self, n: u32) -> Result<u32, HevcError> {
        let mut v = 0;
        for _ in 0..n {
            v = (v << 1) | self.bit()?;
        }
        Ok(v)
    }
    fn skip(&mut self, n: usize) -> Result<(), HevcError> {
        self.pos += n;
        if self.pos > self.b.len() * 8 {
            return Err(HevcError::BadSequenceParameters("cut short"));
        }
        Ok(())
    }
    fn ue(&mut self) -> Result<u32, HevcError> {
        let mut zeros = 0;
        while self.bit()? == 0 {
            zeros += 1;
            if zeros > 31 {
                return Err(HevcError::BadSequenceParameters("Exp-Golomb code too long"));
            }
        }
        Ok(((1u64 << zeros) - 1 + u64::from(self.bits(zeros)?)) as u32)
    }
}

fn parse_sps(rbsp: &[u8]) -> Result<SequenceInfo, HevcError> {
    let mut r = Bits { b: rbsp, pos: 0 };
    r.skip(4)?; // sps_video_parameter_set_id
    let max_sub_layers_minus1 = r.bits(3)? as usize;
    r.skip(1)?; // sps_temporal_id_nesting_flag
                // profile_tier_level(1, max_sub_layers_minus1): general profile (88 bits) and level (8).
    r.skip(96)?;
    let mut sub_profile = [false; 8];
    let mut sub_level = [false; 8];
    for i in 0..max_sub_layers_minus1 {
        sub_profile[i] = r.bit()? == 1;
        sub_level[i] = r.bit()? == 1;
    }
    if max_sub_layers_minus1 > 0 {
        r.skip(2 * (8 - max_sub_layers_minus1))?; // reserved_zero_2bits
    }
    for i in 0..max_sub_layers_minus1 {
        if sub_profile[i] {
            r.skip(88)?;
        }
        if sub_level[i] {
            r.skip(8)?;
        }
    }
    let _sps_id = r.ue()?;
    let chroma_format_idc = r.ue()?;
    if chroma_format_idc > 3 {
        return Err(HevcError::BadSequenceParameters(
            "chroma_format_idc above 3",
        ));
    }
    if chroma_format_idc == 3 {
        r.skip(1)?; // separate_colour_plane_flag
    }
    let width = r.ue()?;
    let height = r.ue()?;
    if width == 0 || height == 0 {
        return Err(HevcError::BadSequenceParameters("zero picture size"));
    }
    Ok(SequenceInfo {
        width,
        height,
        chroma_format_idc,
    })
}

/// libde265's decoder context (opaque).
#[repr(C)]
struct De265Context {
    _private: [u8; 0],
}
/// libde265's picture (opaque).
#[repr(C)]
struct De265Image {
    _private: [u8; 0],
}

const DE265_OK: c_int = 0;
const DE265_ERROR_WAITING_FOR_INPUT_DATA: c_int = 13;

#[link(name = "de265")]
extern "C" {
    fn de265_new_decoder() -> *mut De265Context;
    fn de265_free_decoder(ctx: *mut De265Context) -> c_int;
    fn de265_push_data(
        ctx: *mut De265Context,
        data: *const c_void,
        length: c_int,
        pts: i64,
        user_data: *mut c_void,
    ) -> c_int;
    fn de265_push_end_of_frame(ctx: *mut De265Context);
    fn de265_flush_data(ctx: *mut De265Context) -> c_int;
    fn de265_decode(ctx: *mut De265Context, more: *mut c_int) -> c_int;
    fn de265_get_next_picture(ctx: *mut De265Context) -> *const De265Image;
    fn de265_get_image_width(img: *const De265Image, channel: c_int) -> c_int;
    fn de265_get_image_height(img: *const De265Image, channel: c_int) -> c_int;
    fn de265_get_chroma_format(img: *const De265Image) -> c_int;
    fn de265_get_bits_per_pixel(img: *const De265Image, channel: c_int) -> c_int;
    fn de265_get_image_plane(
        img: *const De265Image,
        channel: c_int,
        out_stride: *mut c_int,
    ) -> *const u8;
    fn de265_get_error_text(err: c_int) -> *const c_char;
    fn de265_isOK(err: c_int) -> c_int;
}

fn error_text(code: c_int) -> String {
    // SAFETY: libde265 returns a pointer to a static, NUL-terminated string for any code.
    let p = unsafe { de265_get_error_text(code) };
    if p.is_null() {
        return format!("error {code}");
    }
    // SAFETY: `p` is non-null and points at a static C string (see above).
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// One H.265 stream's decoder: frames pushed in order, each returned as pixels. A key frame
/// starts afresh; the frames after it decode against the pictures before them.
pub struct HevcStream {
    ctx: *mut De265Context,
}

impl std::fmt::Debug for HevcStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HevcStream")
    }
}

// SAFETY: the context is owned by this value alone and libde265 keeps no thread-local state
// for it; moving it to another thread between calls is allowed (calls never overlap: every
// method takes `&mut self`).
unsafe impl Send for HevcStream {}

impl HevcStream {
    /// A new decoder.
    pub fn new() -> Result<Self, HevcError> {
        // SAFETY: plain constructor; a null return is handled.
        let ctx = unsafe { de265_new_decoder() };
        if ctx.is_null() {
            return Err(HevcError::Decoder("could not create a decoder".into()));
        }
        Ok(Self { ctx })
    }

    /// Decodes one frame's Annex-B bytes into grey (monochrome streams) or RGB (4:2:0,
    /// BT.601 limited range) pixels. The size its parameter set claims must be `expect` (the
    /// stream's configured size, when known) and within [`super::image::MAX_FRAME_PIXELS`],
    /// checked before decoding; frames without parameter sets keep their sequence's size.
    pub fn decode(
        &mut self,
        frame: &[u8],
        expect: Option<(u32, u32)>,
    ) -> Result<DecodedImage, HevcError> {
        if let Some(info) = sequence_info(frame)? {
            if let Some((w, h)) = expect {
                if (info.width, info.height) != (w, h) {
                    return Err(HevcError::Unsupported(format!(
                        "size {}×{} where the stream says {w}×{h}",
                        info.width, info.height
                    )));
                }
            }
            if u64::from(info.width) * u64::from(info.height) > super::image::MAX_FRAME_PIXELS {
                return Err(HevcError::Unsupported(format!(
                    "size {}×{}, more than {} pixels",
                    info.width,
                    info.height,
                    super::image::MAX_FRAME_PIXELS
                )));
            }
        }
        let len = c_int::try_from(frame.len())
            .map_err(|_| HevcError::Decoder("frame larger than 2 GiB".into()))?;
        // SAFETY: `ctx` is live; libde265 copies `len` bytes from `frame` before returning.
        let err = unsafe {
            de265_push_data(
                self.ctx,
                frame.as_ptr().cast(),
                len,
                0,
                std::ptr::null_mut(),
            )
        };
        if err != DE265_OK {
            return Err(HevcError::Decoder(error_text(err)));
        }
        // SAFETY: `ctx` is live.
        unsafe { de265_push_end_of_frame(self.ctx) };
        let mut flushed = false;
        loop {
            let mut more: c_int = 0;
            // SAFETY: `ctx` is live and `more` is a valid out-pointer.
            let err = unsafe { de265_decode(self.ctx, &mut more) };
            // SAFETY: `ctx` is live; the picture is copied out before any other call.
            let img = unsafe { de265_get_next_picture(self.ctx) };
            if !img.is_null() {
                return copy_picture(img);
            }
            if err == DE265_ERROR_WAITING_FOR_INPUT_DATA || (err == DE265_OK && more == 0) {
                if flushed {
                    return Err(HevcError::NoPicture);
                }
                // The frame is complete: let the decoder output it.
                // SAFETY: `ctx` is live.
                unsafe { de265_flush_data(self.ctx) };
                flushed = true;
                continue;
            }
            // SAFETY: pure function of the code.
            if unsafe { de265_isOK(err) } == 0 && more == 0 {
                return Err(HevcError::Decoder(error_text(err)));
            }
        }
    }
}

impl Drop for HevcStream {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from `de265_new_decoder` and is freed once, here.
        unsafe { de265_free_decoder(self.ctx) };
    }
}

/// Copies a decoded picture into tightly packed grey or RGB pixels.
fn copy_picture(img: *const De265Image) -> Result<DecodedImage, HevcError> {
    // SAFETY (all calls in this function): `img` is the picture just returned by
    // `de265_get_next_picture`, valid until the next call on its decoder, which the caller
    // makes only after this function has copied the pixels out.
    let chroma = unsafe { de265_get_chroma_format(img) };
    let w = unsafe { de265_get_image_width(img, 0) };
    let h = unsafe { de265_get_image_height(img, 0) };
    let bits = unsafe { de265_get_bits_per_pixel(img, 0) };
    if bits != 8 {
        return Err(HevcError::Unsupported(format!("{bits} bits per sample")));
    }
    let (w, h) = (
        usize::try_from(w).map_err(|_| HevcError::NoPicture)?,
        usize::try_from(h).map_err(|_| HevcError::NoPicture)?,
    );
    let plane = |channel: c_int, pw: usize, ph: usize| -> Result<Vec<u8>, HevcError> {
        let mut stride: c_int = 0;
        let p = unsafe { de265_get_image_plane(img, channel, &mut stride) };
        let stride = usize::try_from(stride).unwrap_or(0);
        if p.is_null() || stride < pw {
            return Err(HevcError::NoPicture);
        }
        let mut out = Vec::with_capacity(pw * ph);
        for y in 0..ph {
            // SAFETY: libde265 guarantees `ph` rows of `stride ≥ pw` bytes at `p`.
            let row = unsafe { std::slice::from_raw_parts(p.add(y * stride), pw) };
            out.extend_from_slice(row);
        }
        Ok(out)
    };
    let luma = plane(0, w, h)?;
    match chroma {
        0 => Ok(DecodedImage {
            width: w as u32,
            height: h as u32,
            channels: 1,
            pixels: luma,
        }),
        1 => {
            let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
            let u = plane(1, cw, ch)?;
            let v = plane(2, cw, ch)?;
            Ok(DecodedImage {
                width: w as u32,
                height: h as u32,
                channels: 3,
                pixels: yuv420_to_rgb(&luma, &u, &v, w, h),
            })
        }
        other => Err(HevcError::Unsupported(format!("chroma format {other}"))),
    }
}

/// YUV 4:2:0 (BT.601, limited "video" range, as projectaria_tools converts Gen2 RGB) to
/// packed RGB, chroma taken from the co-sited sample.
fn yuv420_to_rgb(y: &[u8], u: &[u8], v: &[u8], w: usize, h: usize) -> Vec<u8> {
    let cw = w.div_ceil(2);
    let mut out = vec![0u8; w * h * 3];
    for row in 0..h {
        for col in 0..w {
            let yy = 1.164_383_6 * (f32::from(y[row * w + col]) - 16.0);
            let c = (row / 2) * cw + col / 2;
            let cb = f32::from(u[c]) - 128.0;
            let cr = f32::from(v[c]) - 128.0;
            let px = &mut out[(row * w + col) * 3..(row * w + col) * 3 + 3];
            px[0] = (yy + 1.596_026_8 * cr).round().clamp(0.0, 255.0) as u8;
            px[1] = (yy - 0.391_762_3 * cb - 0.812_967_6 * cr)
                .round()
                .clamp(0.0, 255.0) as u8;
            px[2] = (yy + 2.017_232_2 * cb).round().clamp(0.0, 255.0) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_golomb_and_unescaping() {
        // 1 → 0, 010 → 1, 011 → 2, 00100 → 3.
        let mut r = Bits {
            b: &[0b1010_0110, 0b0100_0000],
            pos: 0,
        };
        assert_eq!(
            (r.ue().unwrap(), r.ue().unwrap(), r.ue().unwrap()),
            (0, 1, 2)
        );
        assert_eq!(r.ue().unwrap(), 3);
        assert_eq!(unescape(&[0, 0, 3, 1, 0, 0, 3]), vec![0, 0, 1, 0, 0]);
        let nals: Vec<&[u8]> = nal_units(&[0, 0, 0, 1, 0x40, 1, 0, 0, 1, 0x42, 1]).collect();
        assert_eq!(nals, vec![&[0x40, 1][..], &[0x42, 1][..]]);
    }

    #[test]
    fn cut_and_garbage_parameter_sets_are_errors_not_panics() {
        for len in 0..40 {
            let mut sps = vec![0, 0, 1, 0x42, 0x01];
            sps.extend(std::iter::repeat_n(0xff, len));
            let _ = sequence_info(&sps);
        }
        assert_eq!(sequence_info(&[1, 2, 3]).unwrap(), None);
    }
}
