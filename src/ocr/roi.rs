//! Regions of interest: read a square around a point (the gaze pixel) first, or the whole
//! image, with boxes mapped back to the image's own pixels.

use super::det_pre::py_round;
use super::engine::{OcrEngine, TextLine};
use super::error::OcrError;
use super::image::BgrImage;

/// What part of an image to read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// The whole image.
    Whole,
    /// A square of `size_px` (clamped to the image) centred on `center_px` as far as the
    /// image allows.
    Around {
        /// The point to read around, pixels.
        center_px: [f32; 2],
        /// Side of the square, pixels.
        size_px: u32,
    },
}

/// A rectangle of whole pixels inside an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    /// Left column.
    pub x0: u32,
    /// Top row.
    pub y0: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

/// The crop for `region` in a `width × height` image: the square's corner is
/// `round(center − size/2)`, then moved to lie inside the image. Non-finite centres read
/// the middle of the image.
pub fn region_rect(width: u32, height: u32, region: Region) -> PixelRect {
    match region {
        Region::Whole => PixelRect {
            x0: 0,
            y0: 0,
            w: width,
            h: height,
        },
        Region::Around { center_px, size_px } => {
            let (sw, sh) = (size_px.min(width), size_px.min(height));
            let corner = |c: f32, s: u32, n: u32, mid: f64| {
                let c = if c.is_finite() { f64::from(c) } else { mid };
                py_round(c - f64::from(s) / 2.0).clamp(0, i64::from(n - s)) as u32
            };
            PixelRect {
                x0: corner(center_px[0], sw, width, f64::from(width) / 2.0),
                y0: corner(center_px[1], sh, height, f64::from(height) / 2.0),
                w: sw,
                h: sh,
            }
        }
    }
}

/// Reads `region` of `img`; boxes are in `img`'s pixels.
pub fn read_region(
    engine: &mut OcrEngine,
    img: &BgrImage,
    region: Region,
) -> Result<Vec<TextLine>, OcrError> {
    let r = region_rect(img.width(), img.height(), region);
    if r.w == img.width() && r.h == img.height() {
        return engine.read(img);
    }
    let crop = img.crop(r.x0, r.y0, r.w, r.h)?;
    let mut lines = engine.read(&crop)?;
    for l in &mut lines {
        for p in &mut l.quad {
            p[0] += r.x0 as f32;
            p[1] += r.y0 as f32;
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_square_stays_inside_the_frame() {
        let around = |x, y| Region::Around {
            center_px: [x, y],
            size_px: 640,
        };
        let r = region_rect(1408, 1408, around(975.0, 480.0));
        assert_eq!((r.x0, r.y0, r.w, r.h), (655, 160, 640, 640));
        let r = region_rect(1408, 1408, around(1400.0, 5.0));
        assert_eq!((r.x0, r.y0), (768, 0));
        let r = region_rect(300, 200, around(10.0, 10.0));
        assert_eq!((r.x0, r.y0, r.w, r.h), (0, 0, 300, 200));
        let r = region_rect(1408, 1408, around(f32::NAN, 700.0));
        assert_eq!((r.x0, r.y0), (384, 380));
        assert_eq!(
            region_rect(10, 20, Region::Whole),
            PixelRect {
                x0: 0,
                y0: 0,
                w: 10,
                h: 20
            }
        );
    }
}
