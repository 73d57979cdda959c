//! Seeded surface texture for the synthetic world (pure compute): the fine detail that real
//! plaster, concrete, carpet, paving and clothing show a camera, so that corner tracking
//! and stereo matching find what they find on real footage instead of only the edges of
//! flat-coloured shapes.
//!
//! The model: a surface's albedo is multiplied by `1 + Σₖ aₖ·nₖ(p)`, where each `nₖ` is
//! value noise in `[-1, 1]` (a hashed lattice, smoothstep-interpolated) at wavelength
//! `λₖ` ∈ {1 m, 0.3 m, 9 cm, 2.7 cm} with amplitude `aₖ` ∈ {0.15, 0.15, 0.12, 0.10},
//! evaluated on the world point in the plane most nearly facing the surface's normal (so a
//! wall, a floor and a box side each get a 2-D pattern fixed to the world: every camera
//! and every frame sees the same texture at the same place). The albedo's RMS contrast is
//! about 9 %, near the middle of what indoor and street surfaces show under diffuse light
//! (roughly 3–15 %). Like a camera's optics (which integrate over a pixel), an octave
//! fades out where its wavelength drops below four pixel footprints and is gone at two, so
//! distant and grazing surfaces do not alias into noise that no two views agree on.
//! The seed shifts the whole pattern, so sessions of different seeds see different
//! textures.

use nalgebra::Vector3;

/// Wavelengths of the octaves, m.
const WAVELENGTH_M: [f64; 4] = [1.0, 0.3, 0.09, 0.027];
/// Amplitudes of the octaves (albedo share).
const AMPLITUDE: [f32; 4] = [0.15, 0.15, 0.12, 0.10];
/// An octave is whole where its wavelength spans at least this many pixel footprints...
const FULL_AT_FOOTPRINTS: f64 = 4.0;
/// ...and gone where it spans this many or fewer.
const GONE_AT_FOOTPRINTS: f64 = 2.0;
/// Smallest |cos| of the viewing angle used to stretch the footprint on grazing surfaces.
const MIN_COS: f64 = 0.15;

/// A seeded texture over every surface of a world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceTexture {
    seed: u32,
}

impl SurfaceTexture {
    /// The texture of sessions seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            seed: (seed ^ (seed >> 32)) as u32 ^ 0x5eed_7e87,
        }
    }

    /// The albedo factor (around 1) at the world point `p` of a surface with unit normal
    /// `n`, seen along the unit ray `d` by a pixel `px_angle_rad` wide from `t_m` away.
    pub fn albedo(
        &self,
        p: &Vector3<f64>,
        n: &Vector3<f64>,
        d: &Vector3<f64>,
        t_m: f64,
        px_angle_rad: f64,
    ) -> f32 {
        let cos = n.dot(d).abs().max(MIN_COS);
        let footprint_m = t_m * px_angle_rad / cos;
        // The plane most nearly facing the normal.
        let (a, b, plane) = if n.z.abs() >= n.x.abs() && n.z.abs() >= n.y.abs() {
            (p.x, p.y, 0u32)
        } else if n.x.abs() >= n.y.abs() {
            (p.y, p.z, 1)
        } else {
            (p.x, p.z, 2)
        };
        let mut f = 1.0f32;
        for (k, (&lambda, &amp)) in WAVELENGTH_M.iter().zip(&AMPLITUDE).enumerate() {
            let span = lambda / footprint_m.max(1e-9);
            if span <= GONE_AT_FOOTPRINTS {
                break;
            }
            let fade = ((span - GONE_AT_FOOTPRINTS) / (FULL_AT_FOOTPRINTS - GONE_AT_FOOTPRINTS))
                .min(1.0) as f32;
            let salt = self.seed ^ (plane << 28) ^ ((k as u32) << 24);
            f += amp * fade * value_noise(a / lambda, b / lambda, salt);
        }
        f.max(0.0)
    }
}

/// Value noise at `(x, y)` (lattice units) in `[-1, 1]`.
fn value_noise(x: f64, y: f64, salt: u32) -> f32 {
    let (fx, fy) = (x.floor(), y.floor());
    let (tx, ty) = ((x - fx) as f32, (y - fy) as f32);
    // Lattice coordinates wrap at 2³² cells, far beyond any world.
    let (ix, iy) = (fx as i64 as u32, fy as i64 as u32);
    let (sx, sy) = (smooth(tx), smooth(ty));
    let v00 = lattice(ix, iy, salt);
    let v10 = lattice(ix.wrapping_add(1), iy, salt);
    let v01 = lattice(ix, iy.wrapping_add(1), salt);
    let v11 = lattice(ix.wrapping_add(1), iy.wrapping_add(1), salt);
    let top = v00 + (v10 - v00) * sx;
    let bottom = v01 + (v11 - v01) * sx;
    top + (bottom - top) * sy
}

fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// A lattice value in `[-1, 1]` (an integer hash of the cell and the salt).
fn lattice(x: u32, y: u32, salt: u32) -> f32 {
    let mut h = x.wrapping_mul(0x8da6_b343) ^ y.wrapping_mul(0xd816_3841) ^ salt;
    h ^= h >> 16;
    h = h.wrapping_mul(0x7feb_352d);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846c_a68b);
    h ^= h >> 16;
    (h as f32 / u32::MAX as f32) * 2.0 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(xs: &[f32]) -> (f32, f32) {
        let n = xs.len() as f32;
        let mean = xs.iter().sum::<f32>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / n;
        (mean, var.sqrt())
    }

    /// Albedo factors over a 4 m × 4 m patch of floor seen head-on from `t_m`.
    fn floor_patch(tex: &SurfaceTexture, t_m: f64) -> Vec<f32> {
        let (n, d) = (Vector3::z(), -Vector3::z());
        (0..200)
            .flat_map(|i| (0..200).map(move |j| (i, j)))
            .map(|(i, j)| {
                let p = Vector3::new(i as f64 * 0.02, j as f64 * 0.02, 0.0);
                tex.albedo(&p, &n, &d, t_m, 0.004)
            })
            .collect()
    }

    #[test]
    fn contrast_is_near_real_surfaces_up_close_and_fades_with_distance() {
        let tex = SurfaceTexture::new(5);
        let (mean, sd) = stats(&floor_patch(&tex, 1.0));
        assert!((mean - 1.0).abs() < 0.05, "{mean}");
        assert!((0.05..0.15).contains(&sd), "{sd}");
        // 60 m away a pixel spans 24 cm: only the 1 m octave is left.
        let (_, far_sd) = stats(&floor_patch(&tex, 60.0));
        assert!(far_sd < sd * 0.8, "{far_sd} vs {sd}");
    }

    #[test]
    fn same_point_same_value_and_seeds_differ() {
        let (a, b) = (SurfaceTexture::new(1), SurfaceTexture::new(2));
        let p = Vector3::new(1.234, -5.6, 0.0);
        let (n, d) = (Vector3::z(), -Vector3::z());
        assert_eq!(
            a.albedo(&p, &n, &d, 2.0, 0.004),
            a.albedo(&p, &n, &d, 2.0, 0.004)
        );
        let pa = floor_patch(&a, 1.0);
        let pb = floor_patch(&b, 1.0);
        let differ = pa
            .iter()
            .zip(&pb)
            .filter(|(x, y)| (*x - *y).abs() > 0.02)
            .count();
        assert!(differ > pa.len() / 2, "{differ}");
    }

    #[test]
    fn texture_is_continuous_across_the_lattice() {
        let tex = SurfaceTexture::new(9);
        let (n, d) = (Vector3::x(), -Vector3::x());
        // Steps of 1 mm along a wall: neighbouring values differ by a small amount only.
        let vals: Vec<f32> = (0..5000)
            .map(|i| {
                tex.albedo(
                    &Vector3::new(0.0, i as f64 * 0.001, 1.0),
                    &n,
                    &d,
                    1.0,
                    0.002,
                )
            })
            .collect();
        let worst = vals
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f32::max);
        assert!(worst < 0.05, "{worst}");
    }
}
