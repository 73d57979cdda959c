//! Pyramidal Lucas–Kanade tracking of one point between two images (pure): from the
//! coarsest level to the finest, Gauss–Newton steps on the window's translation, with the
//! template's gradients (inverse compositional, so the 2×2 system is built once per level)
//! and mean-removed intensities (an exposure change between frames does not move the
//! point). A track fails when the window leaves the image, the window has no texture in
//! two directions, or the final mean-removed difference stays large (an occlusion or a
//! wrong match).

use super::image::Pyramid;

/// Settings of the tracker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KltConfig {
    /// Half-size of the window, px (the window is `2r + 1` square).
    pub window_r_px: usize,
    /// Gauss–Newton steps per level at most.
    pub iterations: usize,
    /// A step shorter than this ends a level, px.
    pub converged_px: f32,
    /// Largest mean absolute mean-removed difference of a kept track, grey levels.
    pub max_residual: f32,
    /// Smallest eigenvalue of the window's structure tensor, per pixel, (grey levels/px)².
    pub min_eigen: f32,
}

impl Default for KltConfig {
    /// A 9 × 9 window (the features of a 320-px-wide image), 20 steps, 0.02 px, a residual
    /// of 10 grey levels, texture of at least 4 (grey levels/px)².
    fn default() -> Self {
        Self {
            window_r_px: 4,
            iterations: 20,
            converged_px: 0.02,
            max_residual: 10.0,
            min_eigen: 4.0,
        }
    }
}

/// Why a track failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackFailure {
    /// The window left the image.
    OutOfImage,
    /// Too little texture to fix the position.
    Flat,
    /// The windows differ too much at the end.
    Residual,
}

/// Tracks the point `from` of `prev` into `next`, starting the search at `guess` (both in
/// level-0 pixels). Returns the position in `next`.
pub fn track(
    prev: &Pyramid,
    next: &Pyramid,
    from: [f32; 2],
    guess: [f32; 2],
    cfg: &KltConfig,
) -> Result<[f32; 2], TrackFailure> {
    let levels = prev.levels.len().min(next.levels.len());
    if levels == 0 {
        return Err(TrackFailure::OutOfImage);
    }
    // At most a 17 × 17 window (the sample buffer below).
    let r_px = cfg.window_r_px.min(8);
    let r = r_px as isize;
    let rf = r_px as f32;
    let n = ((2 * r + 1) * (2 * r + 1)) as usize;
    let mut tmpl = Vec::with_capacity(n);
    let mut grads = Vec::with_capacity(n);
    // Offset of the point in `next` from its position in `prev`, level-0 px.
    let mut d = [guess[0] - from[0], guess[1] - from[1]];
    let mut residual = f32::INFINITY;
    for level in (0..levels).rev() {
        let scale = (1u32 << level) as f32;
        let (p, q) = (&prev.levels[level], &next.levels[level]);
        let (x0, y0) = (from[0] / scale, from[1] / scale);
        if !p.inside(x0, y0, rf + 1.0) {
            if level == 0 {
                return Err(TrackFailure::OutOfImage);
            }
            continue;
        }
        tmpl.clear();
        grads.clear();
        let (mut gxx, mut gxy, mut gyy) = (0f32, 0f32, 0f32);
        for dy in -r..=r {
            for dx in -r..=r {
                let (x, y) = (x0 + dx as f32, y0 + dy as f32);
                tmpl.push(p.sample(x, y));
                let g = p.gradient(x, y);
                gxx += g[0] * g[0];
                gxy += g[0] * g[1];
                gyy += g[1] * g[1];
                grads.push(g);
            }
        }
        let nf = n as f32;
        let tr = 0.5 * (gxx + gyy) / nf;
        let min_eig = tr - ((0.5 * (gxx - gyy) / nf).powi(2) + (gxy / nf).powi(2)).sqrt();
        if min_eig < cfg.min_eigen {
            if level == 0 {
                return Err(TrackFailure::Flat);
            }
            continue;
        }
        let det = gxx * gyy - gxy * gxy;
        let t_mean = tmpl.iter().sum::<f32>() / nf;
        let mut dl = [d[0] / scale, d[1] / scale];
        for _ in 0..cfg.iterations {
            let (cx, cy) = (x0 + dl[0], y0 + dl[1]);
            if !q.inside(cx, cy, rf + 1.0) {
                return Err(TrackFailure::OutOfImage);
            }
            let mut vals = [0f32; 289];
            let mut sum = 0f32;
            let mut k = 0;
            for dy in -r..=r {
                for dx in -r..=r {
                    let v = q.sample(cx + dx as f32, cy + dy as f32);
                    vals[k] = v;
                    sum += v;
                    k += 1;
                }
            }
            let i_mean = sum / nf;
            let (mut bx, mut by, mut abs) = (0f32, 0f32, 0f32);
            for k in 0..n {
                let e = (tmpl[k] - t_mean) - (vals[k] - i_mean);
                bx += grads[k][0] * e;
                by += grads[k][1] * e;
                abs += e.abs();
            }
            residual = abs / nf;
            let step = [(gyy * bx - gxy * by) / det, (gxx * by - gxy * bx) / det];
            dl[0] += step[0];
            dl[1] += step[1];
            if step[0].hypot(step[1]) < cfg.converged_px {
                break;
            }
        }
        d = [dl[0] * scale, dl[1] * scale];
    }
    if residual > cfg.max_residual {
        return Err(TrackFailure::Residual);
    }
    Ok([from[0] + d[0], from[1] + d[1]])
}

#[cfg(test)]
mod tests {
    use super::super::image::Grey;
    use super::*;

    /// A smooth blob pattern, shifted by a sub-pixel offset and brightened.
    fn pattern(w: usize, h: usize, sx: f32, sy: f32, gain: f32) -> Grey {
        let mut px = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                let (u, v) = (x as f32 - sx, y as f32 - sy);
                let s = (u * 0.21).sin() * (v * 0.17).cos() + (u * 0.05 + v * 0.08).sin();
                px.push((110.0 + 50.0 * s) * gain + 5.0);
            }
        }
        Grey {
            width: w,
            height: h,
            px,
        }
    }

    #[test]
    fn follows_a_shift_of_many_pixels_and_a_brightness_change() {
        let a = Pyramid::new(pattern(160, 120, 0.0, 0.0, 1.0), 3);
        let b = Pyramid::new(pattern(160, 120, 9.4, -6.3, 1.0), 3);
        let to = track(&a, &b, [70.0, 60.0], [70.0, 60.0], &KltConfig::default()).unwrap();
        assert!(
            (to[0] - 79.4).abs() < 0.05 && (to[1] - 53.7).abs() < 0.05,
            "{to:?}"
        );
        // The same with 20 grey levels brighter: mean removal keeps it.
        let mut brighter = pattern(160, 120, 9.4, -6.3, 1.0);
        brighter.px.iter_mut().for_each(|p| *p += 20.0);
        let c = Pyramid::new(brighter, 3);
        let to = track(&a, &c, [70.0, 60.0], [72.0, 58.0], &KltConfig::default()).unwrap();
        assert!(
            (to[0] - 79.4).abs() < 0.05 && (to[1] - 53.7).abs() < 0.05,
            "{to:?}"
        );
    }

    #[test]
    fn refuses_flat_windows_the_border_and_what_is_not_there() {
        let flat = Pyramid::new(
            Grey {
                width: 100,
                height: 100,
                px: vec![90.0; 10_000],
            },
            3,
        );
        let cfg = KltConfig::default();
        assert_eq!(
            track(&flat, &flat, [50.0, 50.0], [50.0, 50.0], &cfg),
            Err(TrackFailure::Flat)
        );
        let a = Pyramid::new(pattern(160, 120, 0.0, 0.0, 1.0), 3);
        assert_eq!(
            track(&a, &a, [2.0, 60.0], [2.0, 60.0], &cfg),
            Err(TrackFailure::OutOfImage)
        );
        // Another pattern entirely: the residual stays large.
        let mut other = pattern(160, 120, 0.0, 0.0, 1.0);
        for (i, p) in other.px.iter_mut().enumerate() {
            *p = if (i / 3 + i / 480) % 2 == 0 {
                20.0
            } else {
                230.0
            };
        }
        let o = Pyramid::new(other, 1);
        let a1 = Pyramid::new(pattern(160, 120, 0.0, 0.0, 1.0), 1);
        assert!(track(&a1, &o, [70.0, 60.0], [70.0, 60.0], &cfg).is_err());
    }
}
