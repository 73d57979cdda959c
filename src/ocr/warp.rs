//! Cutting a text line out of the image: the perspective warp of its quad onto an upright
//! rectangle, as RapidOCR's `get_rotate_crop_image` (`cv2.warpPerspective`, bicubic,
//! replicated border, sample positions quantised to 1/32 pixel), turned a quarter
//! counter-clockwise when it is much taller than wide.
//!
//! Detected boxes are minimum-area rectangles, so for rotated text this is an exact rotated
//! crop, not an approximation.

use nalgebra::{SMatrix, SVector};

use super::error::OcrError;
use super::geometry::{dist, Quad};
use super::image::BgrImage;

/// Crops `quad` (tl, tr, br, bl) out of `img` onto an upright rectangle.
pub fn crop_quad(img: &BgrImage, quad: &Quad) -> Result<BgrImage, OcrError> {
    let w = dist(quad[0], quad[1]).max(dist(quad[2], quad[3])) as u32;
    let h = dist(quad[0], quad[3]).max(dist(quad[1], quad[2])) as u32;
    if w == 0 || h == 0 || w > 16_384 || h > 16_384 {
        return Err(OcrError::bad_image(format!(
            "text box {quad:?} gives a {w}×{h} crop"
        )));
    }
    let dst: Quad = [
        [0.0, 0.0],
        [w as f32, 0.0],
        [w as f32, h as f32],
        [0.0, h as f32],
    ];
    let hm = homography(&dst, quad)
        .ok_or_else(|| OcrError::bad_image(format!("degenerate text box {quad:?}")))?;
    let mut data = Vec::with_capacity(w as usize * h as usize * 3);
    for y in 0..h {
        for x in 0..w {
            let (xf, yf) = (f64::from(x), f64::from(y));
            let den = hm[6] * xf + hm[7] * yf + 1.0;
            let (sx, sy) = if den.abs() > 1e-12 {
                (
                    (hm[0] * xf + hm[1] * yf + hm[2]) / den,
                    (hm[3] * xf + hm[4] * yf + hm[5]) / den,
                )
            } else {
                (0.0, 0.0)
            };
            data.extend_from_slice(&bicubic(img, sx, sy));
        }
    }
    let out = BgrImage::new(w, h, data)?;
    if f64::from(h) / f64::from(w) >= 1.5 {
        Ok(out.rotate_ccw90())
    } else {
        Ok(out)
    }
}

/// The homography (row-major, `h33 = 1`) taking `from[i]` to `to[i]`.
fn homography(from: &Quad, to: &Quad) -> Option<[f64; 8]> {
    let mut a = SMatrix::<f64, 8, 8>::zeros();
    let mut b = SVector::<f64, 8>::zeros();
    for i in 0..4 {
        let (x, y) = (f64::from(from[i][0]), f64::from(from[i][1]));
        let (u, v) = (f64::from(to[i][0]), f64::from(to[i][1]));
        let r = 2 * i;
        a.set_row(
            r,
            &SMatrix::<f64, 1, 8>::from_row_slice(&[x, y, 1.0, 0.0, 0.0, 0.0, -x * u, -y * u]),
        );
        a.set_row(
            r + 1,
            &SMatrix::<f64, 1, 8>::from_row_slice(&[0.0, 0.0, 0.0, x, y, 1.0, -x * v, -y * v]),
        );
        b[r] = u;
        b[r + 1] = v;
    }
    let s = a.lu().solve(&b)?;
    let mut h = [0.0; 8];
    h.copy_from_slice(s.as_slice());
    h.iter().all(|v| v.is_finite()).then_some(h)
}

/// Keys' cubic convolution weights with `a = −0.75` (OpenCV's `INTER_CUBIC`).
fn cubic_weights(t: f64) -> [f64; 4] {
    const A: f64 = -0.75;
    let w0 = ((A * (t + 1.0) - 5.0 * A) * (t + 1.0) + 8.0 * A) * (t + 1.0) - 4.0 * A;
    let w1 = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
    let w2 = ((A + 2.0) * (1.0 - t) - (A + 3.0)) * (1.0 - t) * (1.0 - t) + 1.0;
    [w0, w1, w2, 1.0 - w0 - w1 - w2]
}

/// Bicubic sample at `(x, y)` (pixel centres at integers), border replicated, the position
/// quantised to 1/32 pixel as OpenCV's remap tables do.
fn bicubic(img: &BgrImage, x: f64, y: f64) -> [u8; 3] {
    let (xq, yq) = ((x * 32.0).round() / 32.0, (y * 32.0).round() / 32.0);
    if !xq.is_finite() || !yq.is_finite() {
        return img.pixel_clamped(0, 0);
    }
    let (x0, y0) = (xq.floor(), yq.floor());
    let (wx, wy) = (cubic_weights(xq - x0), cubic_weights(yq - y0));
    let (x0, y0) = (x0 as i64, y0 as i64);
    let mut acc = [0f64; 3];
    for (j, wyj) in wy.iter().enumerate() {
        for (i, wxi) in wx.iter().enumerate() {
            let p = img.pixel_clamped(x0 - 1 + i as i64, y0 - 1 + j as i64);
            let w = wxi * wyj;
            for c in 0..3 {
                acc[c] += w * f64::from(p[c]);
            }
        }
    }
    acc.map(|v| v.round().clamp(0.0, 255.0) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(w: u32, h: u32) -> BgrImage {
        let data = (0..w * h)
            .flat_map(|i| [(i % 251) as u8, (i / 7 % 256) as u8, ((i * 13) % 256) as u8])
            .collect();
        BgrImage::new(w, h, data).unwrap()
    }

    #[test]
    fn an_axis_aligned_box_is_an_exact_crop() {
        let img = pattern(40, 30);
        let q: Quad = [[5.0, 4.0], [25.0, 4.0], [25.0, 14.0], [5.0, 14.0]];
        let c = crop_quad(&img, &q).unwrap();
        assert_eq!(c, img.crop(5, 4, 20, 10).unwrap());
    }

    #[test]
    fn a_tall_box_is_turned_to_read_left_to_right() {
        let img = pattern(40, 30);
        let q: Quad = [[5.0, 2.0], [11.0, 2.0], [11.0, 22.0], [5.0, 22.0]];
        let c = crop_quad(&img, &q).unwrap();
        assert_eq!(c, img.crop(5, 2, 6, 20).unwrap().rotate_ccw90());
    }

    #[test]
    fn a_quarter_turned_quad_reads_pixels_along_its_sides() {
        // tl at (20, 5) going down: the crop's row 0 is the image's column 20, downwards.
        let img = pattern(40, 30);
        let q: Quad = [[20.0, 5.0], [20.0, 15.0], [15.0, 15.0], [15.0, 5.0]];
        let c = crop_quad(&img, &q).unwrap();
        assert_eq!((c.width(), c.height()), (10, 5));
        for x in 0..10 {
            assert_eq!(c.pixel_clamped(x, 0), img.pixel_clamped(20, 5 + x));
        }
    }

    #[test]
    fn degenerate_boxes_are_errors() {
        let img = pattern(10, 10);
        assert!(crop_quad(&img, &[[1.0, 1.0]; 4]).is_err());
        assert!(crop_quad(&img, &[[0.0, 0.0], [f32::MAX, 0.0], [0.0, 3.0], [0.0, 3.0]]).is_err());
    }
}
