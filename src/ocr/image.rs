//! [`BgrImage`]: the 8-bit, 3-channel, BGR pixel buffer the PP-OCR models were trained on
//! (RapidOCR loads images with OpenCV, in BGR order), with the few operations the pipeline
//! needs: crop, quarter turns, OpenCV-compatible bilinear resize, letterbox padding.

use super::error::OcrError;
use crate::aria::recording::{decode_image, DecodedImage};
use crate::sample::ImageFrame;

/// An 8-bit BGR image, rows top to bottom, tightly packed (`width × height × 3` bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BgrImage {
    width: u32,
    height: u32,
    data: Vec<u8>,
}

/// Bits of OpenCV's fixed-point bilinear weights (`INTER_RESIZE_COEF_BITS`).
const COEF_BITS: u32 = 11;
const COEF_ONE: i32 = 1 << COEF_BITS;

impl BgrImage {
    /// Wraps BGR bytes; errors when the size does not match or is zero.
    pub fn new(width: u32, height: u32, data: Vec<u8>) -> Result<Self, OcrError> {
        let want = (width as usize)
            .checked_mul(height as usize)
            .and_then(|n| n.checked_mul(3))
            .ok_or_else(|| OcrError::bad_image(format!("{width}×{height} overflows")))?;
        if width == 0 || height == 0 {
            return Err(OcrError::bad_image(format!("empty image {width}×{height}")));
        }
        if data.len() != want {
            return Err(OcrError::bad_image(format!(
                "{width}×{height} BGR needs {want} bytes, got {}",
                data.len()
            )));
        }
        Ok(Self {
            width,
            height,
            data,
        })
    }

    /// From RGB bytes (`width × height × 3`), swapping to BGR.
    pub fn from_rgb(width: u32, height: u32, mut rgb: Vec<u8>) -> Result<Self, OcrError> {
        for px in rgb.chunks_exact_mut(3) {
            px.swap(0, 2);
        }
        Self::new(width, height, rgb)
    }

    /// From a decoded frame: RGB is swapped to BGR, grey is replicated into three channels.
    pub fn from_decoded(img: &DecodedImage) -> Result<Self, OcrError> {
        match img.channels {
            3 => Self::from_rgb(img.width, img.height, img.pixels.clone()),
            1 => {
                let data = img.pixels.iter().flat_map(|&g| [g, g, g]).collect();
                Self::new(img.width, img.height, data)
            }
            c => Err(OcrError::bad_image(format!("{c} channels not supported"))),
        }
    }

    /// Decodes a camera frame (JPEG or raw) to BGR.
    pub fn from_frame(frame: &ImageFrame) -> Result<Self, OcrError> {
        let decoded = decode_image(frame).map_err(|e| OcrError::bad_image(e.to_string()))?;
        Self::from_decoded(&decoded)
    }

    /// Decodes a still image file's bytes (PNG by its signature, else JPEG) to BGR.
    pub fn from_encoded(bytes: &[u8]) -> Result<Self, OcrError> {
        Self::from_frame(&ImageFrame::still(bytes::Bytes::copy_from_slice(bytes)))
    }

    /// Decodes JPEG bytes to BGR.
    pub fn from_jpeg(bytes: &[u8]) -> Result<Self, OcrError> {
        let frame = ImageFrame {
            width: 0,
            height: 0,
            encoding: crate::sample::ImageEncoding::Jpeg,
            data: bytes::Bytes::copy_from_slice(bytes),
            frame_number: 0,
            exposure_s: 0.0,
            gain: 1.0,
        };
        Self::from_frame(&frame)
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The BGR bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The pixel at `(x, y)` with coordinates clamped into the image (border replication).
    #[inline]
    pub fn pixel_clamped(&self, x: i64, y: i64) -> [u8; 3] {
        let x = x.clamp(0, i64::from(self.width) - 1) as usize;
        let y = y.clamp(0, i64::from(self.height) - 1) as usize;
        let i = (y * self.width as usize + x) * 3;
        match self.data.get(i..i + 3) {
            Some(p) => [p[0], p[1], p[2]],
            None => [0, 0, 0],
        }
    }

    /// The rectangle `[x0, x0 + w) × [y0, y0 + h)`; errors when it is empty or leaves the
    /// image.
    pub fn crop(&self, x0: u32, y0: u32, w: u32, h: u32) -> Result<Self, OcrError> {
        let inside = x0.checked_add(w).is_some_and(|x1| x1 <= self.width)
            && y0.checked_add(h).is_some_and(|y1| y1 <= self.height);
        if !inside || w == 0 || h == 0 {
            return Err(OcrError::bad_image(format!(
                "crop {w}×{h} at ({x0}, {y0}) outside a {}×{} image",
                self.width, self.height
            )));
        }
        let mut data = Vec::with_capacity(w as usize * h as usize * 3);
        let stride = self.width as usize * 3;
        for y in y0 as usize..(y0 + h) as usize {
            let start = y * stride + x0 as usize * 3;
            data.extend_from_slice(&self.data[start..start + w as usize * 3]);
        }
        Self::new(w, h, data)
    }

    /// Turned a quarter clockwise: the result is `height × width`, and the pixel at
    /// `(x', y')` comes from `(y', height − 1 − x')` (the upright view of an Aria RGB frame).
    pub fn rotate_cw90(&self) -> Self {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut data = vec![0u8; w * h * 3];
        for yn in 0..w {
            for xn in 0..h {
                let (xs, ys) = (yn, h - 1 - xn);
                let s = (ys * w + xs) * 3;
                let d = (yn * h + xn) * 3;
                data[d..d + 3].copy_from_slice(&self.data[s..s + 3]);
            }
        }
        Self {
            width: self.height,
            height: self.width,
            data,
        }
    }

    /// Turned a quarter counter-clockwise (`np.rot90`): the result is `height × width`, and
    /// the pixel at `(x', y')` comes from `(width − 1 − y', x')`.
    pub fn rotate_ccw90(&self) -> Self {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut data = vec![0u8; w * h * 3];
        for yn in 0..w {
            for xn in 0..h {
                let (xs, ys) = (w - 1 - yn, xn);
                let s = (ys * w + xs) * 3;
                let d = (yn * h + xn) * 3;
                data[d..d + 3].copy_from_slice(&self.data[s..s + 3]);
            }
        }
        Self {
            width: self.height,
            height: self.width,
            data,
        }
    }

    /// Turned half a turn.
    pub fn rotate_180(&self) -> Self {
        let mut data = Vec::with_capacity(self.data.len());
        for px in self.data.chunks_exact(3).rev() {
            data.extend_from_slice(px);
        }
        Self {
            width: self.width,
            height: self.height,
            data,
        }
    }

    /// Black rows added above and below (`cv2.copyMakeBorder`, constant 0).
    pub fn pad_vertical(&self, top: u32, bottom: u32) -> Self {
        let row = self.width as usize * 3;
        let mut data = vec![0u8; top as usize * row];
        data.extend_from_slice(&self.data);
        data.resize(data.len() + bottom as usize * row, 0);
        Self {
            width: self.width,
            height: self.height + top + bottom,
            data,
        }
    }

    /// Bilinear resize as OpenCV's `cv2.resize(…, INTER_LINEAR)` does it: pixel centres
    /// aligned (`src = (dst + 0.5)·scale − 0.5`), edges clamped, 11-bit fixed-point weights.
    /// Errors on a zero size.
    pub fn resize(&self, new_w: u32, new_h: u32) -> Result<Self, OcrError> {
        if new_w == 0 || new_h == 0 {
            return Err(OcrError::bad_image(format!("resize to {new_w}×{new_h}")));
        }
        if new_w == self.width && new_h == self.height {
            return Ok(self.clone());
        }
        let xs = taps(self.width, new_w);
        let ys = taps(self.height, new_h);
        let (sw, nw) = (self.width as usize, new_w as usize);
        let mut out = vec![0u8; nw * new_h as usize * 3];
        // Horizontal pass into two cached rows, then vertical blend.
        let mut rows: [Vec<i32>; 2] = [vec![0; nw * 3], vec![0; nw * 3]];
        let mut cached: [usize; 2] = [usize::MAX, usize::MAX];
        for (yd, &(y0, wy0, y1, wy1)) in ys.iter().enumerate() {
            for (slot, sy) in [(0usize, y0), (1, y1)] {
                if cached[slot] != sy {
                    let src = &self.data[sy * sw * 3..(sy + 1) * sw * 3];
                    let dst = &mut rows[slot];
                    for (xd, &(x0, wx0, x1, wx1)) in xs.iter().enumerate() {
                        for c in 0..3 {
                            dst[xd * 3 + c] =
                                i32::from(src[x0 * 3 + c]) * wx0 + i32::from(src[x1 * 3 + c]) * wx1;
                        }
                    }
                    cached[slot] = sy;
                }
            }
            let o = &mut out[yd * nw * 3..(yd + 1) * nw * 3];
            for (i, v) in o.iter_mut().enumerate() {
                // OpenCV: (((r0·wy0) >> 4) + ((r1·wy1) >> 4) + 2) >> 2, after >> 16 overall.
                let a = (rows[0][i] >> 4) * wy0;
                let b = (rows[1][i] >> 4) * wy1;
                let s = ((a >> 16) + (b >> 16) + 2) >> 2;
                *v = s.clamp(0, 255) as u8;
            }
        }
        Self::new(new_w, new_h, out)
    }
}

/// For every destination coordinate: the two source coordinates and their fixed-point weights.
fn taps(src: u32, dst: u32) -> Vec<(usize, i32, usize, i32)> {
    let scale = f64::from(src) / f64::from(dst);
    let last = src as i64 - 1;
    (0..dst)
        .map(|d| {
            let f = (f64::from(d) + 0.5) * scale - 0.5;
            let mut s = f.floor() as i64;
            let mut frac = (f - s as f64) as f32;
            if s < 0 {
                s = 0;
                frac = 0.0;
            }
            if s >= last {
                s = last;
                frac = 0.0;
            }
            let w1 = (frac * COEF_ONE as f32).round() as i32;
            let s1 = (s + 1).min(last);
            (s as usize, COEF_ONE - w1, s1 as usize, w1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(w: u32, h: u32) -> BgrImage {
        let data = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                [(x * 10) as u8, (y * 10) as u8, 7]
            })
            .collect();
        BgrImage::new(w, h, data).unwrap()
    }

    #[test]
    fn sizes_are_checked() {
        assert!(BgrImage::new(2, 2, vec![0; 11]).is_err());
        assert!(BgrImage::new(0, 2, vec![]).is_err());
        assert!(ramp(4, 3).crop(2, 1, 3, 1).is_err());
        assert!(ramp(4, 3).resize(0, 3).is_err());
    }

    #[test]
    fn quarter_turns_move_pixels_where_expected() {
        let img = ramp(4, 3);
        let cw = img.rotate_cw90();
        assert_eq!((cw.width(), cw.height()), (3, 4));
        // The raw top-left corner ends at the top-right after a clockwise turn.
        assert_eq!(cw.pixel_clamped(2, 0), img.pixel_clamped(0, 0));
        assert_eq!(cw.pixel_clamped(0, 3), img.pixel_clamped(3, 2));
        let ccw = img.rotate_ccw90();
        assert_eq!(ccw.pixel_clamped(0, 3), img.pixel_clamped(0, 0));
        assert_eq!(ccw.rotate_cw90(), img);
        assert_eq!(img.rotate_180().rotate_180(), img);
        assert_eq!(
            img.rotate_180().pixel_clamped(0, 0),
            img.pixel_clamped(3, 2)
        );
    }

    #[test]
    fn bilinear_matches_hand_computed_values() {
        // 2 px → 4 px: src = (d + 0.5)/2 − 0.5 = −0.25, 0.25, 0.75, 1.25 → clamp, ¾·a + ¼·b, …
        let img = BgrImage::new(2, 1, vec![0, 0, 0, 200, 100, 40]).unwrap();
        let r = img.resize(4, 1).unwrap();
        let blue: Vec<u8> = r.data().chunks(3).map(|p| p[0]).collect();
        assert_eq!(blue, vec![0, 50, 150, 200]);
        // Downscaling a constant image keeps it constant.
        let c = BgrImage::new(5, 5, vec![77; 75])
            .unwrap()
            .resize(3, 2)
            .unwrap();
        assert!(c.data().iter().all(|&v| v == 77));
    }

    #[test]
    fn crop_and_padding_keep_pixels() {
        let img = ramp(4, 3);
        let c = img.crop(1, 1, 2, 2).unwrap();
        assert_eq!(c.pixel_clamped(0, 0), img.pixel_clamped(1, 1));
        let p = img.pad_vertical(2, 1);
        assert_eq!(p.height(), 6);
        assert_eq!(p.pixel_clamped(0, 0), [0, 0, 0]);
        assert_eq!(p.pixel_clamped(3, 4), img.pixel_clamped(3, 2));
    }
}
