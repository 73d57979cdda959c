//! Float greyscale images and their pyramids for feature tracking (pure): bilinear
//! sampling, central-difference gradients and 2×2 box down-sampling. Pixels outside the
//! image are never read: callers check [`Grey::inside`] first.

/// A greyscale image, row-major, one `f32` per pixel (grey levels 0–255).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grey {
    /// Width, px.
    pub width: usize,
    /// Height, px.
    pub height: usize,
    /// Pixels.
    pub px: Vec<f32>,
}

impl Grey {
    /// From 8-bit pixels (`width × height` of them; missing ones read as 0).
    pub fn from_u8(width: usize, height: usize, pixels: &[u8]) -> Self {
        let mut px: Vec<f32> = pixels
            .iter()
            .take(width * height)
            .map(|&p| f32::from(p))
            .collect();
        px.resize(width * height, 0.0);
        Self { width, height, px }
    }

    /// The pixel at integer `(x, y)` (0 outside).
    pub fn at(&self, x: usize, y: usize) -> f32 {
        if x < self.width && y < self.height {
            self.px[y * self.width + x]
        } else {
            0.0
        }
    }

    /// Whether a window of half-size `r_px` around `(x, y)` lies inside with one pixel to
    /// spare for bilinear sampling and gradients.
    pub fn inside(&self, x: f32, y: f32, r_px: f32) -> bool {
        x - r_px >= 1.0
            && y - r_px >= 1.0
            && x + r_px < self.width as f32 - 2.0
            && y + r_px < self.height as f32 - 2.0
    }

    /// Bilinear sample at `(x, y)`; the caller keeps `(x, y)` inside (see [`Self::inside`]).
    pub fn sample(&self, x: f32, y: f32) -> f32 {
        let x0 = x.floor();
        let y0 = y.floor();
        let (fx, fy) = (x - x0, y - y0);
        let (xi, yi) = (x0.max(0.0) as usize, y0.max(0.0) as usize);
        let xi = xi.min(self.width.saturating_sub(2));
        let yi = yi.min(self.height.saturating_sub(2));
        let i = yi * self.width + xi;
        let (a, b) = (self.px[i], self.px[i + 1]);
        let (c, d) = (self.px[i + self.width], self.px[i + self.width + 1]);
        let top = a + (b - a) * fx;
        let bottom = c + (d - c) * fx;
        top + (bottom - top) * fy
    }

    /// Gradient `(∂x, ∂y)` at `(x, y)` by central differences of bilinear samples.
    pub fn gradient(&self, x: f32, y: f32) -> [f32; 2] {
        [
            0.5 * (self.sample(x + 1.0, y) - self.sample(x - 1.0, y)),
            0.5 * (self.sample(x, y + 1.0) - self.sample(x, y - 1.0)),
        ]
    }

    /// Half the size, each pixel the mean of a 2×2 block.
    pub fn half(&self) -> Self {
        let (w, h) = (self.width / 2, self.height / 2);
        let mut px = Vec::with_capacity(w * h);
        for y in 0..h {
            let r0 = 2 * y * self.width;
            let r1 = r0 + self.width;
            for x in 0..w {
                let s = self.px[r0 + 2 * x]
                    + self.px[r0 + 2 * x + 1]
                    + self.px[r1 + 2 * x]
                    + self.px[r1 + 2 * x + 1];
                px.push(0.25 * s);
            }
        }
        Self {
            width: w,
            height: h,
            px,
        }
    }
}

/// An image and its successively halved copies (level 0 is the image).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pyramid {
    /// Level 0 first.
    pub levels: Vec<Grey>,
}

impl Pyramid {
    /// `levels` levels (at least one), stopping early below 16 px.
    pub fn new(base: Grey, levels: usize) -> Self {
        let mut out = vec![base];
        while out.len() < levels.max(1) {
            let Some(last) = out.last() else { break };
            if last.width < 32 || last.height < 32 {
                break;
            }
            let next = last.half();
            out.push(next);
        }
        Self { levels: out }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(w: usize, h: usize) -> Grey {
        let px: Vec<u8> = (0..w * h).map(|i| ((i % w) * 2 + (i / w)) as u8).collect();
        Grey::from_u8(w, h, &px)
    }

    #[test]
    fn bilinear_sampling_and_gradients_of_a_ramp() {
        let g = ramp(40, 30);
        // 2x + y is linear: exact at any point.
        assert!((g.sample(10.25, 7.5) - (20.5 + 7.5)).abs() < 1e-4);
        let [gx, gy] = g.gradient(12.3, 9.7);
        assert!((gx - 2.0).abs() < 1e-4 && (gy - 1.0).abs() < 1e-4);
        assert!(g.inside(5.0, 5.0, 3.0));
        assert!(!g.inside(2.0, 5.0, 3.0));
        assert!(!g.inside(5.0, 27.5, 3.0));
    }

    #[test]
    fn a_pyramid_halves_and_averages() {
        let g = Grey::from_u8(4, 2, &[0, 4, 8, 8, 4, 0, 8, 8]);
        let h = g.half();
        assert_eq!((h.width, h.height), (2, 1));
        assert_eq!(h.px, vec![2.0, 8.0]);
        let p = Pyramid::new(ramp(128, 96), 3);
        let sizes: Vec<_> = p.levels.iter().map(|l| (l.width, l.height)).collect();
        assert_eq!(sizes, vec![(128, 96), (64, 48), (32, 24)]);
        // Short input: one level only.
        assert_eq!(Pyramid::new(ramp(20, 20), 3).levels.len(), 1);
    }
}
