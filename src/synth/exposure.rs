//! Auto-exposure of the synthetic SLAM cameras (pure compute): like the glasses' own
//! cameras, each frame's exposure brings its mean level to a target, so a dim street or a
//! dark corridor is recorded at the brightness (and so with the contrast over the sensor's
//! noise) a real auto-exposed frame has, not at the render's fixed scale. The render is
//! made at 16 bits ([`super::render::render_grey16_threads`]) so that brightening a dark
//! frame keeps its fine texture instead of stretching 8-bit steps. The exposure used is
//! recorded with the frame (exposure time × gain), as the glasses record theirs, so that
//! whatever compares frames can take a change of exposure out.
//!
//! The target is measured, not chosen: the real Gen1 sample's SLAM frames
//! (`tests/data/gen1/`, indoor, auto-exposed at 5.3–5.4 ms and gain 5) average 100–103 DN
//! over the stereo overlap.

/// Mean level an exposure brings a frame's valid pixels to, DN.
pub const TARGET_MEAN_DN: f32 = 100.0;
/// Exposure time of the render's own brightness scale, s.
pub const BASE_EXPOSURE_S: f32 = 0.004;
/// Longest exposure time; a brighter frame needs gain (a walking head blurs longer ones), s.
pub const MAX_EXPOSURE_S: f32 = 0.008;
/// Least and most brightening relative to the render (exposure × gain over
/// [`BASE_EXPOSURE_S`]): a very bright or very dark scene stays brighter or darker than
/// the target, as on a real sensor at the ends of its range.
pub const FACTOR_RANGE: (f32, f32) = (0.25, 8.0);

/// How a frame was exposed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exposure {
    /// Exposure time, s.
    pub exposure_s: f32,
    /// Analogue gain.
    pub gain: f32,
}

impl Exposure {
    /// The render's own scale: [`BASE_EXPOSURE_S`] at gain 1.
    pub const BASE: Self = Self {
        exposure_s: BASE_EXPOSURE_S,
        gain: 1.0,
    };

    /// The exposure that brightens the render by `factor`: time up to
    /// [`MAX_EXPOSURE_S`], then gain.
    pub fn of_factor(factor: f32) -> Self {
        let t = BASE_EXPOSURE_S * factor;
        let exposure_s = t.min(MAX_EXPOSURE_S);
        Self {
            exposure_s,
            gain: t / exposure_s,
        }
    }

    /// Brightening relative to the render.
    pub fn factor(&self) -> f32 {
        self.exposure_s * self.gain / BASE_EXPOSURE_S
    }
}

/// Exposes a 16-bit linear render (`2·n` bytes, little-endian, 256 per DN, 0 outside the
/// valid region) in place into `n` 8-bit levels (valid pixels `1..=255`, invalid 0) with
/// the factor that brings the valid pixels' mean to [`TARGET_MEAN_DN`] (within
/// [`FACTOR_RANGE`]), and returns the exposure used. A trailing odd byte is dropped.
pub fn auto_expose(pixels: &mut Vec<u8>) -> Exposure {
    let n = pixels.len() / 2;
    let (mut sum, mut count) = (0u64, 0u64);
    for c in pixels.chunks_exact(2) {
        let v = u16::from_le_bytes([c[0], c[1]]);
        if v != 0 {
            sum += u64::from(v);
            count += 1;
        }
    }
    let factor = if sum == 0 {
        1.0
    } else {
        let mean_dn = sum as f64 / count as f64 / 256.0;
        (f64::from(TARGET_MEAN_DN) / mean_dn)
            .clamp(f64::from(FACTOR_RANGE.0), f64::from(FACTOR_RANGE.1)) as f32
    };
    let scale = factor / 256.0;
    for i in 0..n {
        let v = u16::from_le_bytes([pixels[2 * i], pixels[2 * i + 1]]);
        // Writing index i after reading 2i and 2i+1 (i ≤ 2i): nothing unread is overwritten.
        pixels[i] = if v == 0 {
            0
        } else {
            (f32::from(v) * scale).round().clamp(1.0, 255.0) as u8
        };
    }
    pixels.truncate(n);
    Exposure::of_factor(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear(levels: &[f32]) -> Vec<u8> {
        levels
            .iter()
            .flat_map(|&l| ((l * 256.0).round() as u16).to_le_bytes())
            .collect()
    }

    #[test]
    fn a_dark_frame_is_brightened_to_the_target_keeping_its_fine_steps() {
        // A dark textured surface: 30 ± 0.5 DN, which 8 bits would round to 30 and 31.
        let levels: Vec<f32> = (0..1000)
            .map(|i| {
                if i == 3 {
                    0.0
                } else {
                    30.0 + 0.25 * (i % 5) as f32 - 0.5
                }
            })
            .collect();
        let mut px = linear(&levels);
        let e = auto_expose(&mut px);
        assert_eq!(px.len(), 1000);
        assert_eq!(px[3], 0, "outside the valid region stays 0");
        let valid: Vec<f32> = px
            .iter()
            .filter(|&&p| p != 0)
            .map(|&p| f32::from(p))
            .collect();
        let mean = valid.iter().sum::<f32>() / valid.len() as f32;
        assert!((mean - TARGET_MEAN_DN).abs() < 1.0, "{mean}");
        let mut distinct: Vec<u8> = px.iter().copied().filter(|&p| p != 0).collect();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            5,
            "the quarter-level texture survives: {distinct:?}"
        );
        assert!((e.factor() - 100.0 / 30.0).abs() < 0.05, "{e:?}");
        assert!(e.exposure_s <= MAX_EXPOSURE_S && e.gain > 1.0, "{e:?}");
    }

    #[test]
    fn the_range_bounds_the_factor_and_bright_pixels_saturate() {
        let mut black = linear(&[0.01; 100]);
        let e = auto_expose(&mut black);
        assert_eq!(e.factor(), FACTOR_RANGE.1);
        assert!(black.iter().all(|&p| p == 1), "{black:?}");
        let mut bright = linear(&[250.0, 250.0, 250.0, 10.0]);
        let e = auto_expose(&mut bright);
        assert!((e.factor() - 100.0 / 190.0).abs() < 1e-3, "{e:?}");
        assert_eq!(bright, vec![132, 132, 132, 5]);
        let mut none = linear(&[0.0; 10]);
        assert_eq!(auto_expose(&mut none), Exposure::BASE);
        assert_eq!(none, vec![0; 10]);
    }

    #[test]
    fn exposure_time_rises_first_then_gain() {
        assert_eq!(Exposure::of_factor(1.0), Exposure::BASE);
        let e = Exposure::of_factor(1.5);
        assert!(
            (e.exposure_s - 0.006).abs() < 1e-6 && e.gain == 1.0,
            "{e:?}"
        );
        let e = Exposure::of_factor(4.0);
        assert!((e.exposure_s - MAX_EXPOSURE_S).abs() < 1e-9 && (e.gain - 2.0).abs() < 1e-6);
        assert!((e.factor() - 4.0).abs() < 1e-6);
    }
}
