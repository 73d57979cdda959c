//! Decoding camera frames to pixels: JPEG with zune-jpeg, raw grey8/rgb8 by copying rows.

use crate::sample::{ImageEncoding, ImageFrame};
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

use super::RecordingError;

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
        ImageEncoding::Jpeg => decode_jpeg(&frame.data),
        ImageEncoding::Raw {
            pixel_format,
            stride,
        } => decode_raw(frame, pixel_format, stride),
        ImageEncoding::Png => Err(err("PNG frames are not supported".into())),
    }
}

fn decode_jpeg(data: &[u8]) -> Result<DecodedImage, RecordingError> {
    let mut dec = JpegDecoder::new(data);
    dec.decode_headers()
        .map_err(|e| err(format!("JPEG header: {e:?}")))?;
    let grey = matches!(
        dec.get_input_colorspace(),
        Some(ColorSpace::Luma | ColorSpace::LumaA)
    );
    let out_cs = if grey {
        ColorSpace::Luma
    } else {
        ColorSpace::RGB
    };
    let opts = DecoderOptions::default().jpeg_set_out_colorspace(out_cs);
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
    let row = frame.width as usize * channels as usize;
    let stride = if stride == 0 { row } else { stride as usize };
    if stride < row {
        return Err(err(format!("stride {stride} < row of {row} bytes")));
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
}
