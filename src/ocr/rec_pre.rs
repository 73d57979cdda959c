//! Recognition and direction-classifier preprocessing, as RapidOCR's `resize_norm_img`:
//! resize the line crop to the model's height keeping its aspect (width rounded up, capped at
//! the padded width), normalise `(x/255 − 0.5)/0.5`, pad with zeros on the right.

use super::error::OcrError;
use super::image::BgrImage;

/// Writes one `3 × height × padded_w` tensor for `img` into `out` (appended).
pub fn resize_norm_pad(
    img: &BgrImage,
    height: u32,
    padded_w: u32,
    out: &mut Vec<f32>,
) -> Result<(), OcrError> {
    let ratio = f64::from(img.width()) / f64::from(img.height());
    let want = (f64::from(height) * ratio).ceil();
    let resized_w = if want > f64::from(padded_w) {
        padded_w
    } else {
        (want as u32).max(1)
    };
    let resized = img.resize(resized_w, height)?;
    let (pw, h, rw) = (padded_w as usize, height as usize, resized_w as usize);
    let start = out.len();
    out.resize(start + 3 * h * pw, 0.0);
    let t = &mut out[start..];
    for (i, px) in resized.data().chunks_exact(3).enumerate() {
        let (y, x) = (i / rw, i % rw);
        for c in 0..3 {
            t[c * h * pw + y * pw + x] = (f32::from(px[c]) / 255.0 - 0.5) / 0.5;
        }
    }
    Ok(())
}

/// The padded width RapidOCR gives a batch: `int(height · max(base_ratio, widest w/h))`.
pub fn batch_width(height: u32, base_width: u32, crops: &[&BgrImage]) -> u32 {
    let mut r = f64::from(base_width) / f64::from(height);
    for c in crops {
        r = r.max(f64::from(c.width()) / f64::from(c.height()));
    }
    // Bounded so a pathological crop cannot ask for a huge tensor.
    (f64::from(height) * r).min(16_384.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_crops_are_padded_and_wide_ones_fill() {
        let img = BgrImage::new(4, 2, vec![255; 24]).unwrap();
        let mut t = Vec::new();
        resize_norm_pad(&img, 4, 10, &mut t).unwrap();
        assert_eq!(t.len(), 3 * 4 * 10);
        // 4:2 at height 4 is 8 wide: columns 0..8 are +1, 8..10 padding 0.
        assert_eq!(t[7], 1.0);
        assert_eq!(t[8], 0.0);
        assert_eq!(t[9], 0.0);
        assert_eq!(batch_width(48, 320, &[&img]), 320);
        let wide = BgrImage::new(100, 10, vec![0; 3000]).unwrap();
        assert_eq!(batch_width(48, 320, &[&img, &wide]), 480);
    }
}
