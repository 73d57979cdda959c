//! Decoding camera frames to pixels: JPEG with zune-jpeg, PNG with `png`, H.265 key frames
//! with libde265 ([`super::hevc`]), raw grey8/rgb8 by copying rows. Every decoder reads the
//! image's own header first and refuses dimensions beyond the frame's configured size or the
//! pixel budget before allocating any pixel.

use crate::sample::{ImageEncoding, ImageFrame};
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

use super::RecordingError;

/// Most pixels a camera frame may decode to: 4096 × 4096, twice the largest Aria camera
/// (Gen1 RGB, 2880 × 2880 = 8.3 Mpx). A frame's header cannot claim more, whatever the
/// stream says its size is.
pub const MAX_FRAME_PIXELS: u64 = 4096 * 4096;

/// Most pixels a still image given on its own (no stream, no configured size: `vista ocr`,
/// `vista ask --image`) may decode to: 8192 × 8192 (64 Mpx, 192 MB as RGB), above any phone
/// camera's 48–50 Mpx. A JPEG header claiming 16384² took 1.6 GB in `vista ocr`.
pub const MAX_STILL_PIXELS: u64 = 8192 * 8192;

/// Refuses image dimensions (`w × h`, read from an image's own header before any pixel is
/// decoded) that exceed the frame's configured size (`frame.width × frame.height`, when
/// non-zero) or the pixel budget of its kind.
pub fn check_dimensions(frame: &ImageFrame, w: u64, h: u64) -> Result<(), RecordingError> {
    let configured = frame.width > 0 && frame.height > 0;
    if configured && (w > u64::from(frame.width) || h > u64::from(frame.height)) {
        return Err(err(format!(
            "image header claims {w}×{h}, larger than the stream's {}×{}",
            frame.width, frame.height
        )));
    }
    let budget = if configured {
        MAX_FRAME_PIXELS
    } else {
        MAX_STILL_PIXELS
    };
    if w.saturating_mul(h) > budget {
        return Err(err(format!(
            "image header claims {w}×{h}, more than the {budget} pixels allowed"
        )));
    }
    Ok(())
}

/// A decoded image, rows top to bottom, tightly packed.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 1 (grey) or 3 (RGB).
    pub channels: u8,
    /// `width × height × channels` bytes.
    pub pixels: Vec<u8>,
}

fn err(reason: String) -> RecordingError {
    RecordingError::Image { reason }
}

/// Decodes a frame to pixels. JPEG (greyscale or colour) and raw grey8 / rgb8 are supported.
pub fn decode_image(frame: &ImageFrame) -> Result<DecodedImage, RecordingError> {
    match frame.encoding {
        ImageEncoding::Jpeg => decode_jpeg(frame),
        ImageEncoding::Raw {
            pixel_format,
            stride,
        } => decode_raw(frame, pixel_format, stride),
        ImageEncoding::Png => decode_png(frame),
        ImageEncoding::Hevc { key_frame_index } => decode_hevc_key_frame(frame, key_frame_index),
    }
}

/// An H.265 key frame, decoded on its own; a frame after a key frame needs the frames before
/// it ([`super::hevc::HevcStream`]), so alone it is an error saying so.
fn decode_hevc_key_frame(
    frame: &ImageFrame,
    key_frame_index: u32,
) -> Result<DecodedImage, RecordingError> {
    if key_frame_index != 0 {
        return Err(err(format!(
            "H.265 frame {key_frame_index} after its key frame: it decodes only with the \
             frames before it, in its stream's order"
        )));
    }
    let expect = (frame.width > 0 && frame.height > 0).then_some((frame.width, frame.height));
    let mut dec = super::hevc::HevcStream::new().map_err(|e| err(e.to_string()))?;
    dec.decode(&frame.data, expect)
        .map_err(|e| err(e.to_string()))
}

fn decode_jpeg(frame: &ImageFrame) -> Result<DecodedImage, RecordingError> {
    let data: &[u8] = &frame.data;
    let mut dec = JpegDecoder::new(data);
    dec.decode_headers()
        .map_err(|e| err(format!("JPEG header: {e:?}")))?;
    let (w, h) = dec
        .dimensions()
        .ok_or_else(|| err("JPEG without dimensions".into()))?;
    check_dimensions(frame, w as u64, h as u64)?;
    let grey = matches!(
        dec.get_input_colorspace(),
        Some(ColorSpace::Luma | ColorSpace::LumaA)
    );
    let out_cs = if grey {
        ColorSpace::Luma
    } else {
        ColorSpace::RGB
    };
    let opts = DecoderOptions::default()
        .jpeg_set_out_colorspace(out_cs)
        .set_max_width(w)
        .set_max_height(h);
    let mut dec = JpegDecoder::new_with_options(data, opts);
    dec.decode_headers()
        .map_err(|e| err(format!("JPEG header: {e:?}")))?;
    let (w, h) = dec
        .dimensions()
        .ok_or_else(|| err("JPEG without dimensions".into()))?;
    let size = dec
        .output_buffer_size()
        .ok_or_else(|| err("JPEG output size overflows".into()))?;
    let mut pixels = vec![0u8; size];
    dec.decode_into(&mut pixels)
        .map_err(|e| err(format!("JPEG data: {e:?}")))?;
    Ok(DecodedImage {
        width: w as u32,
        height: h as u32,
        channels: if grey { 1 } else { 3 },
        pixels,
    })
}

/// PNG (8 or 16 bit, any colour type, interlaced or not) to grey or RGB; alpha is dropped.
fn decode_png(frame: &ImageFrame) -> Result<DecodedImage, RecordingError> {
    use png::{ColorType, Transformations};
    let data: &[u8] = &frame.data;
    let mut dec = png::Decoder::new_with_limits(
        std::io::Cursor::new(data),
        png::Limits {
            bytes: (MAX_STILL_PIXELS * 4) as usize,
        },
    );
    dec.set_transformations(Transformations::EXPAND | Transformations::STRIP_16);
    let mut reader = dec
        .read_info()
        .map_err(|e| err(format!("PNG header: {e}")))?;
    let (w, h) = (reader.info().width, reader.info().height);
    check_dimensions(frame, u64::from(w), u64::from(h))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| err("PNG output size overflows".into()))?;
    let mut buf = vec![0u8; size];
    let out = reader
        .next_frame(&mut buf)
        .map_err(|e| err(format!("PNG data: {e}")))?;
    buf.truncate(out.buffer_size());
    let (channels, step) = match out.color_type {
        ColorType::Grayscale => (1u8, 1usize),
        ColorType::GrayscaleAlpha => (1, 2),
        ColorType::Rgb => (3, 3),
        ColorType::Rgba => (3, 4),
        ColorType::Indexed => return Err(err("PNG palette was not expanded".into())),
    };
    let pixels = if step == usize::from(channels) {
        buf
    } else {
        buf.chunks_exact(step)
            .flat_map(|p| p.iter().take(usize::from(channels)).copied())
            .collect()
    };
    Ok(DecodedImage {
        width: w,
        height: h,
        channels,
        pixels,
    })
}

fn decode_raw(
    frame: &ImageFrame,
    pixel_format: u32,
    stride: u32,
) -> Result<DecodedImage, RecordingError> {
    let channels: u8 = match pixel_format {
        1 => 1,
        4 => 3,
        other => return Err(err(format!("raw pixel format {other} not supported"))),
    };
    check_dimensions(frame, u64::from(frame.width), u64::from(frame.height))?;
    let row = frame.width as usize * channels as usize;
    let stride = if stride == 0 { row } else { stride as usize };
    if stride < row {
        return Err(err(format!("stride {stride} < row of {row} bytes")));
    }
    // Every row must be there before the output is allocated.
    let need = stride
        .saturating_mul((frame.height as usize).saturating_sub(1))
        .saturating_add(row);
    if frame.height > 0 && frame.data.len() < need {
        return Err(err(format!(
            "raw frame too short: {} bytes, {}×{} needs {need}",
            frame.data.len(),
            frame.width,
            frame.height
        )));
    }
    let mut pixels = Vec::with_capacity(row * frame.height as usize);
    for y in 0..frame.height as usize {
        let src = frame
            .data
            .get(y * stride..y * stride + row)
            .ok_or_else(|| err(format!("raw frame too short: row {y} missing")))?;
        pixels.extend_from_slice(src);
    }
    Ok(DecodedImage {
        width: frame.width,
        height: frame.height,
        channels,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn frame(encoding: ImageEncoding, w: u32, h: u32, data: Vec<u8>) -> ImageFrame {
        ImageFrame {
            width: w,
            height: h,
            encoding,
            data: Bytes::from(data),
            frame_number: 0,
            exposure_s: 0.0,
            gain: 1.0,
        }
    }

    #[test]
    fn raw_grey_with_stride_drops_padding() {
        let raw = ImageEncoding::Raw {
            pixel_format: 1,
            stride: 3,
        };
        let img = decode_image(&frame(raw, 2, 2, vec![1, 2, 99, 3, 4, 99])).unwrap();
        assert_eq!((img.width, img.height, img.channels), (2, 2, 1));
        assert_eq!(img.pixels, vec![1, 2, 3, 4]);
        // The last row needs no padding, but a missing pixel is an error, not a panic.
        assert!(decode_image(&frame(raw, 2, 2, vec![1, 2, 99, 3, 4])).is_ok());
        assert!(decode_image(&frame(raw, 2, 2, vec![1, 2, 99, 3])).is_err());
        let rgba = ImageEncoding::Raw {
            pixel_format: 6,
            stride: 0,
        };
        assert!(decode_image(&frame(rgba, 1, 1, vec![0; 4])).is_err());
    }

    #[test]
    fn bad_jpeg_is_an_error() {
        let jpg = ImageEncoding::Jpeg;
        assert!(decode_image(&frame(jpg, 8, 8, vec![])).is_err());
        assert!(decode_image(&frame(jpg, 8, 8, vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 16])).is_err());
        assert!(decode_image(&frame(ImageEncoding::Png, 1, 1, vec![0])).is_err());
    }

    /// A real 16 × 16 grey JPEG whose frame header claims `w × h`.
    fn jpeg_header_claiming(w: u16, h: u16) -> Vec<u8> {
        let px: Vec<u8> = (0..256).map(|i| (i * 7 % 251) as u8).collect();
        let mut j = crate::synth::jpeg::encode_grey(&px, 16, 16, 90).unwrap();
        let sof = j
            .windows(2)
            .position(|p| p[0] == 0xFF && p[1] == 0xC0)
            .unwrap();
        j[sof + 5..sof + 7].copy_from_slice(&h.to_be_bytes());
        j[sof + 7..sof + 9].copy_from_slice(&w.to_be_bytes());
        j
    }

    #[test]
    fn a_jpeg_larger_than_its_stream_is_refused_before_decoding() {
        let jpg = jpeg_header_claiming(16384, 16384);
        let e = decode_image(&frame(ImageEncoding::Jpeg, 640, 480, jpg.clone())).unwrap_err();
        assert!(
            e.to_string().contains("larger than the stream's 640×480"),
            "{e}"
        );
        // A live frame whose own header claims the same 16384² answers to the frame budget.
        let e = decode_image(&frame(ImageEncoding::Jpeg, 16384, 16384, jpg.clone())).unwrap_err();
        assert!(e.to_string().contains("pixels allowed"), "{e}");
        // A still with no configured size answers to the still budget (16384² > 8192²).
        let e = decode_image(&frame(ImageEncoding::Jpeg, 0, 0, jpg)).unwrap_err();
        assert!(e.to_string().contains("pixels allowed"), "{e}");
        // A raw frame claiming more than it holds is refused before allocating.
        let raw = ImageEncoding::Raw {
            pixel_format: 1,
            stride: 0,
        };
        let e = decode_image(&frame(raw, 4000, 4000, vec![0; 100])).unwrap_err();
        assert!(e.to_string().contains("too short"), "{e}");
    }

    #[test]
    fn png_decodes_grey_rgb_and_drops_alpha() {
        fn png(w: u32, h: u32, ct: png::ColorType, px: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(ct);
            enc.set_depth(png::BitDepth::Eight);
            let mut wr = enc.write_header().unwrap();
            wr.write_image_data(px).unwrap();
            wr.finish().unwrap();
            out
        }
        let g = png(2, 1, png::ColorType::Grayscale, &[10, 20]);
        let img = decode_image(&frame(ImageEncoding::Png, 0, 0, g)).unwrap();
        assert_eq!((img.width, img.height, img.channels), (2, 1, 1));
        assert_eq!(img.pixels, vec![10, 20]);
        let rgba = png(1, 2, png::ColorType::Rgba, &[1, 2, 3, 255, 4, 5, 6, 0]);
        let img = decode_image(&frame(ImageEncoding::Png, 0, 0, rgba)).unwrap();
        assert_eq!((img.width, img.height, img.channels), (1, 2, 3));
        assert_eq!(img.pixels, vec![1, 2, 3, 4, 5, 6]);
        // A PNG larger than its frame is refused from its header.
        let big = png(8, 8, png::ColorType::Grayscale, &[0; 64]);
        assert!(decode_image(&frame(ImageEncoding::Png, 4, 4, big)).is_err());
    }
}
