//! Detection preprocessing, as RapidOCR's `DetPreProcess`: scale so the limited side meets
//! the limit, round both sides to multiples of 32, normalise `(x/255 − 0.5)/0.5` per BGR
//! channel, lay out as NCHW.

use super::error::OcrError;
use super::image::BgrImage;

/// Which side the detection size limit applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetLimit {
    /// Scale up until the shorter side is at least this (RapidOCR's default: 736); larger
    /// images keep their size.
    Min(u32),
    /// Scale down until the longer side is at most this; smaller images keep their size.
    Max(u32),
}

impl Default for DetLimit {
    fn default() -> Self {
        DetLimit::Min(736)
    }
}

/// Python's `round` (half to even) on a non-negative value, as an integer.
pub(crate) fn py_round(x: f64) -> i64 {
    x.round_ties_even() as i64
}

/// The detector's input size `(w, h)` for an image, or `None` when it rounds to nothing.
pub fn det_input_size(width: u32, height: u32, limit: DetLimit) -> Option<(u32, u32)> {
    let (w, h) = (f64::from(width), f64::from(height));
    let ratio = match limit {
        DetLimit::Max(l) if width.max(height) > l => f64::from(l) / w.max(h),
        DetLimit::Min(l) if width.min(height) < l => f64::from(l) / w.min(h),
        _ => 1.0,
    };
    let rw = py_round((w * ratio).trunc() / 32.0) * 32;
    let rh = py_round((h * ratio).trunc() / 32.0) * 32;
    if rw <= 0 || rh <= 0 {
        return None;
    }
    Some((u32::try_from(rw).ok()?, u32::try_from(rh).ok()?))
}

/// Normalises a BGR image into `out` as a `1 × 3 × h × w` tensor.
pub fn normalise_nchw(img: &BgrImage, out: &mut Vec<f32>) {
    let plane = img.width() as usize * img.height() as usize;
    out.clear();
    out.resize(plane * 3, 0.0);
    for (i, px) in img.data().chunks_exact(3).enumerate() {
        for c in 0..3 {
            out[c * plane + i] = (f32::from(px[c]) / 255.0 - 0.5) / 0.5;
        }
    }
}

/// The resized image and its tensor, or `None` when the image is too small to detect in.
pub fn det_preprocess(
    img: &BgrImage,
    limit: DetLimit,
    out: &mut Vec<f32>,
) -> Result<Option<(u32, u32)>, OcrError> {
    let Some((w, h)) = det_input_size(img.width(), img.height(), limit) else {
        return Ok(None);
    };
    let resized = img.resize(w, h)?;
    normalise_nchw(&resized, out);
    Ok(Some((w, h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_rapidocr() {
        // Worked by hand from DetPreProcess.resize.
        assert_eq!(
            det_input_size(320, 140, DetLimit::Min(736)),
            Some((1696, 736))
        );
        assert_eq!(
            det_input_size(1408, 1408, DetLimit::Min(736)),
            Some((1408, 1408))
        );
        assert_eq!(
            det_input_size(1408, 1408, DetLimit::Max(960)),
            Some((960, 960))
        );
        assert_eq!(
            det_input_size(640, 640, DetLimit::Max(960)),
            Some((640, 640))
        );
        // 100 → 96 (3.125 rounds to 3), 112 → 128 (3.5 rounds half to even: 4).
        assert_eq!(
            det_input_size(100, 112, DetLimit::Max(2000)),
            Some((96, 128))
        );
        assert_eq!(det_input_size(10, 10, DetLimit::Max(2000)), None);
    }

    #[test]
    fn normalisation_maps_0_and_255_to_minus_and_plus_one() {
        let img = BgrImage::new(2, 1, vec![0, 255, 51, 255, 0, 0]).unwrap();
        let mut t = Vec::new();
        normalise_nchw(&img, &mut t);
        assert_eq!(t.len(), 6);
        assert_eq!(&t[0..2], &[-1.0, 1.0]); // blue plane
        assert_eq!(&t[2..4], &[1.0, -1.0]); // green plane
        assert!((t[4] - (-0.6)).abs() < 1e-6);
    }
}
