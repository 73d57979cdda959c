//! Coarse images for motion detection (pure): a greyscale frame averaged over `k × k`
//! blocks, and, per camera, the ray through each coarse pixel's centre. Motion is looked
//! for at this scale: a car 20 m away covers ~10 × 6 coarse pixels of a Gen1 SLAM camera
//! at `k = 2` (the default), and a frame costs a quarter of the full one.

use nalgebra::{Point2, Vector3};

use crate::aria::calib::CameraCalibration;

/// A greyscale image averaged over `k × k` blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct CoarseImage {
    /// Width, coarse pixels.
    pub width: usize,
    /// Height, coarse pixels.
    pub height: usize,
    /// Block size, full pixels.
    pub k: usize,
    /// Pixels, row-major.
    pub pixels: Vec<u8>,
}

impl CoarseImage {
    /// The `k × k` block averages of a `width × height` greyscale image (partial blocks
    /// at the right and bottom edges are left out); `None` when the pixel count does not
    /// match or `k` is 0 or larger than the image.
    pub fn from_grey(width: usize, height: usize, pixels: &[u8], k: usize) -> Option<Self> {
        if k == 0 || width < k || height < k || pixels.len() != width.checked_mul(height)? {
            return None;
        }
        let (w, h) = (width / k, height / k);
        let mut sums = vec![0u32; w];
        let mut out = Vec::with_capacity(w * h);
        let area = (k * k) as u32;
        for cy in 0..h {
            sums.iter_mut().for_each(|s| *s = 0);
            for row in pixels[cy * k * width..].chunks_exact(width).take(k) {
                for (s, block) in sums.iter_mut().zip(row.chunks_exact(k)) {
                    *s += block.iter().map(|&p| u32::from(p)).sum::<u32>();
                }
            }
            out.extend(sums.iter().map(|&s| ((s + area / 2) / area) as u8));
        }
        Some(Self {
            width: w,
            height: h,
            k,
            pixels: out,
        })
    }

    /// The pixel at `(x, y)`, `None` outside.
    #[inline]
    pub fn get(&self, x: isize, y: isize) -> Option<u8> {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            return None;
        }
        self.pixels
            .get(y as usize * self.width + x as usize)
            .copied()
    }
}

/// Full-resolution pixel of a coarse pixel's centre (the centre of its block).
#[inline]
pub fn full_of_coarse(c: f64, k: usize) -> f64 {
    c * k as f64 + (k as f64 - 1.0) / 2.0
}

/// Coarse pixel (fractional) of a full-resolution pixel.
#[inline]
pub fn coarse_of_full(u: f64, k: usize) -> f64 {
    (u - (k as f64 - 1.0) / 2.0) / k as f64
}

/// The unit ray (camera frame) through the centre of every coarse pixel of one camera;
/// `None` where the pixel lies outside the camera's valid region.
#[derive(Clone, Debug)]
pub struct RayGrid {
    /// Width, coarse pixels.
    pub width: usize,
    /// Height, coarse pixels.
    pub height: usize,
    /// Block size, full pixels.
    pub k: usize,
    /// Rays, row-major.
    pub rays: Vec<Option<Vector3<f64>>>,
}

impl RayGrid {
    /// The rays of `camera` at block size `k` (`None` when `k` is 0 or larger than the
    /// image).
    pub fn new(camera: &CameraCalibration, k: usize) -> Option<Self> {
        let (fw, fh) = (camera.image_width as usize, camera.image_height as usize);
        if k == 0 || fw < k || fh < k {
            return None;
        }
        let (w, h) = (fw / k, fh / k);
        let mut rays = Vec::with_capacity(w * h);
        for cy in 0..h {
            for cx in 0..w {
                let uv = Point2::new(full_of_coarse(cx as f64, k), full_of_coarse(cy as f64, k));
                rays.push(camera.unproject(&uv).and_then(|r| r.try_normalize(1e-12)));
            }
        }
        Some(Self {
            width: w,
            height: h,
            k,
            rays,
        })
    }

    /// The ray at coarse pixel `(x, y)`.
    #[inline]
    pub fn ray(&self, x: usize, y: usize) -> Option<&Vector3<f64>> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.rays.get(y * self.width + x)?.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_averaged_and_partial_blocks_left_out() {
        // 5 × 3 image, k = 2: 2 × 1 coarse pixels.
        let px = [
            0u8, 2, 10, 10, 99, //
            4, 6, 20, 20, 99, //
            99, 99, 99, 99, 99,
        ];
        let c = CoarseImage::from_grey(5, 3, &px, 2).unwrap();
        assert_eq!((c.width, c.height), (2, 1));
        assert_eq!(c.pixels, vec![3, 15]);
        assert_eq!(c.get(1, 0), Some(15));
        assert_eq!(c.get(2, 0), None);
        assert_eq!(c.get(-1, 0), None);
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(CoarseImage::from_grey(4, 4, &[0; 15], 2).is_none());
        assert!(CoarseImage::from_grey(4, 4, &[0; 16], 0).is_none());
        assert!(CoarseImage::from_grey(4, 4, &[0; 16], 5).is_none());
    }

    #[test]
    fn coarse_and_full_coordinates_invert() {
        for k in [1usize, 2, 4] {
            for c in [0.0, 3.0, 10.5] {
                assert!((coarse_of_full(full_of_coarse(c, k), k) - c).abs() < 1e-12);
            }
        }
        // The centre of the first 4 × 4 block is at full pixel 1.5.
        assert_eq!(full_of_coarse(0.0, 4), 1.5);
    }
}
