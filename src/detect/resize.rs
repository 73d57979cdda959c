//! The detector's input from a decoded frame: the whole image stretched to a square of
//! `side × side` RGB values 0–255 (as the model was trained: no letterbox), by area
//! averaging, so that a 1408-pixel Aria frame shrunk to 300 keeps thin things (a pole, a
//! bicycle's frame) instead of aliasing them away as point sampling would. Grey frames (SLAM
//! cameras, greyscale JPEG) are repeated into the three channels.

use crate::aria::recording::image::DecodedImage;

/// For one output coordinate: the first source index and the weight of each source pixel
/// it covers (the weights sum to 1).
#[derive(Debug)]
struct Taps {
    first: usize,
    weights: Vec<f32>,
}

/// Area-averaging taps from `src` pixels to `dst` pixels (`src`, `dst` ≥ 1): output pixel
/// `i` covers source interval `[i·s, (i+1)·s)` with `s = src/dst`; each source pixel weighs
/// its overlap with it. When enlarging (`s < 1`) this is nearest-neighbour with a blend at
/// the seams.
fn taps(src: usize, dst: usize) -> Vec<Taps> {
    let s = src as f64 / dst as f64;
    (0..dst)
        .map(|i| {
            let a = i as f64 * s;
            let b = ((i + 1) as f64 * s).min(src as f64);
            let first = (a.floor() as usize).min(src - 1);
            let last = ((b.ceil() as usize).max(first + 1)).min(src);
            let weights = (first..last)
                .map(|j| {
                    let lo = a.max(j as f64);
                    let hi = b.min((j + 1) as f64);
                    (((hi - lo).max(0.0)) / (b - a)) as f32
                })
                .collect();
            Taps { first, weights }
        })
        .collect()
}

/// A rectangle of an image, pixels: left, top, width, height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

impl Region {
    /// All of a `w × h` image.
    pub fn whole(w: u32, h: u32) -> Self {
        Self { x: 0, y: 0, w, h }
    }

    /// The square of side `share` of the shorter side, centred in a `w × h` image.
    pub fn centre(w: u32, h: u32, share: f32) -> Self {
        let side = ((w.min(h) as f32 * share.clamp(0.0, 1.0)).round() as u32).max(1);
        Self {
            x: w.saturating_sub(side) / 2,
            y: h.saturating_sub(side) / 2,
            w: side.min(w),
            h: side.min(h),
        }
    }
}

/// `img` as `side × side × 3` floats (RGB, 0–255, rows top to bottom), or `None` when it
/// has no pixels, `side` is 0, or its channel count is neither 1 nor 3, or its pixel buffer
/// is shorter than its size says.
pub fn square_rgb(img: &DecodedImage, side: usize) -> Option<Vec<f32>> {
    square_rgb_of(img, Region::whole(img.width, img.height), side)
}

/// [`square_rgb`] of the part `r` of `img` (`None` also when `r` is empty or not inside).
pub fn square_rgb_of(img: &DecodedImage, r: Region, side: usize) -> Option<Vec<f32>> {
    let (w, h) = (img.width as usize, img.height as usize);
    let ch = usize::from(img.channels);
    if w == 0 || h == 0 || side == 0 || !(ch == 1 || ch == 3) {
        return None;
    }
    if img.pixels.len() < w.checked_mul(h)?.checked_mul(ch)? {
        return None;
    }
    let (rx, ry, rw, rh) = (r.x as usize, r.y as usize, r.w as usize, r.h as usize);
    if rw == 0 || rh == 0 || rx.checked_add(rw)? > w || ry.checked_add(rh)? > h {
        return None;
    }
    let xs = taps(rw, side);
    let ys = taps(rh, side);
    // Horizontal pass: every source row of the region to `side` columns of three channels.
    let mut rows = vec![0f32; rh * side * 3];
    for y in 0..rh {
        let row = (ry + y) * w * ch;
        let src = &img.pixels[row + rx * ch..row + (rx + rw) * ch];
        let dst = &mut rows[y * side * 3..(y + 1) * side * 3];
        for (x, t) in xs.iter().enumerate() {
            let mut acc = [0f32; 3];
            for (k, &wt) in t.weights.iter().enumerate() {
                let p = (t.first + k) * ch;
                if ch == 3 {
                    acc[0] += wt * f32::from(src[p]);
                    acc[1] += wt * f32::from(src[p + 1]);
                    acc[2] += wt * f32::from(src[p + 2]);
                } else {
                    let g = wt * f32::from(src[p]);
                    acc = [acc[0] + g, acc[1] + g, acc[2] + g];
                }
            }
            dst[x * 3..x * 3 + 3].copy_from_slice(&acc);
        }
    }
    // Vertical pass.
    let mut out = vec![0f32; side * side * 3];
    for (y, t) in ys.iter().enumerate() {
        let dst = &mut out[y * side * 3..(y + 1) * side * 3];
        for (k, &wt) in t.weights.iter().enumerate() {
            let src = &rows[(t.first + k) * side * 3..(t.first + k + 1) * side * 3];
            for (d, s) in dst.iter_mut().zip(src) {
                *d += wt * s;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: u32, h: u32, channels: u8, f: impl Fn(u32, u32, u8) -> u8) -> DecodedImage {
        let mut pixels = Vec::new();
        for y in 0..h {
            for x in 0..w {
                for c in 0..channels {
                    pixels.push(f(x, y, c));
                }
            }
        }
        DecodedImage {
            width: w,
            height: h,
            channels,
            pixels,
        }
    }

    #[test]
    fn weights_cover_each_output_once() {
        for (src, dst) in [(1408, 300), (300, 300), (100, 300), (7, 3), (1, 5)] {
            let t = taps(src, dst);
            assert_eq!(t.len(), dst);
            for tap in &t {
                let sum: f32 = tap.weights.iter().sum();
                assert!((sum - 1.0).abs() < 1e-4, "{src}->{dst}: {sum}");
                assert!(tap.first + tap.weights.len() <= src);
            }
        }
    }

    #[test]
    fn a_flat_image_stays_flat_and_grey_fills_three_channels() {
        let img = image(1408, 1408, 1, |_, _, _| 77);
        let out = square_rgb(&img, 300).unwrap();
        assert_eq!(out.len(), 300 * 300 * 3);
        assert!(out.iter().all(|v| (v - 77.0).abs() < 1e-3));
    }

    /// One-pixel black and white stripes average to grey instead of aliasing to one colour.
    #[test]
    fn stripes_average_instead_of_aliasing() {
        let img = image(1200, 40, 3, |x, _, _| if x % 2 == 0 { 0 } else { 255 });
        let out = square_rgb(&img, 300).unwrap();
        assert!(
            out.iter().all(|v| (v - 127.5).abs() < 1.0),
            "{:?}",
            &out[..6]
        );
    }

    #[test]
    fn channels_keep_their_order() {
        let img = image(10, 10, 3, |_, _, c| [10, 20, 30][usize::from(c)]);
        let out = square_rgb(&img, 4).unwrap();
        assert_eq!(&out[..3], &[10.0, 20.0, 30.0]);
    }

    #[test]
    fn a_region_is_taken_alone() {
        // Left half black, right half white: the right half's region is all white.
        let img = image(20, 10, 1, |x, _, _| if x < 10 { 0 } else { 255 });
        let out = square_rgb_of(
            &img,
            Region {
                x: 10,
                y: 0,
                w: 10,
                h: 10,
            },
            4,
        )
        .unwrap();
        assert!(out.iter().all(|v| (v - 255.0).abs() < 1e-3));
        assert!(square_rgb_of(
            &img,
            Region {
                x: 15,
                y: 0,
                w: 10,
                h: 10
            },
            4
        )
        .is_none());
        assert_eq!(
            Region::centre(1408, 1408, 0.5),
            Region {
                x: 352,
                y: 352,
                w: 704,
                h: 704
            }
        );
    }

    #[test]
    fn unusable_images_give_none() {
        assert!(square_rgb(&image(0, 4, 3, |_, _, _| 0), 300).is_none());
        assert!(square_rgb(&image(4, 4, 2, |_, _, _| 0), 300).is_none());
        assert!(square_rgb(&image(4, 4, 3, |_, _, _| 0), 0).is_none());
        let mut short = image(4, 4, 3, |_, _, _| 0);
        short.pixels.truncate(10);
        assert!(square_rgb(&short, 300).is_none());
    }
}
