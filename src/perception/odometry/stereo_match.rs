//! The depth of one feature from the rectified stereo pair (pure): its window in the left
//! image is compared, by the sum of absolute mean-removed differences, with windows along
//! the same row of the right image at every disparity in range; the best must be clearly
//! better than any other not next to it (a repeated pattern is refused), and a parabola
//! through the best and its neighbours gives the sub-pixel disparity.

use super::image::Grey;

/// Disparities searched at most.
const MAX_SEARCHED: usize = 128;

/// Settings of the search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchConfig {
    /// Half-size of the window, px.
    pub window_r_px: usize,
    /// Smallest disparity searched, px (sets the farthest depth).
    pub min_disparity_px: f32,
    /// Largest disparity searched, px (sets the nearest depth).
    pub max_disparity_px: f32,
    /// The best cost times this must stay below every other cost not next to it.
    pub uniqueness: f32,
    /// Largest mean absolute difference of the best window, grey levels.
    pub max_cost: f32,
}

impl Default for MatchConfig {
    /// A 7 × 7 window, disparities 1–64 px (at f = 180 px and a 0.12 m baseline: 0.34 m to
    /// 22 m), 20 % uniqueness, 12 grey levels.
    fn default() -> Self {
        Self {
            window_r_px: 3,
            min_disparity_px: 1.0,
            max_disparity_px: 64.0,
            uniqueness: 1.2,
            max_cost: 12.0,
        }
    }
}

/// The disparity of the left image's point `xy` in the right image, px, or `None` when no
/// window matches clearly.
pub fn disparity(left: &Grey, right: &Grey, xy: [f32; 2], cfg: &MatchConfig) -> Option<f32> {
    let r = cfg.window_r_px.min(8) as isize;
    let rf = r as f32;
    if !left.inside(xy[0], xy[1], rf) {
        return None;
    }
    let mut patch = [0f32; 289];
    let mut n = 0;
    let mut sum = 0f32;
    for dy in -r..=r {
        for dx in -r..=r {
            let v = left.sample(xy[0] + dx as f32, xy[1] + dy as f32);
            patch[n] = v;
            sum += v;
            n += 1;
        }
    }
    let nf = n as f32;
    let mean = sum / nf;
    for p in patch.iter_mut().take(n) {
        *p -= mean;
    }
    let d_min = cfg.min_disparity_px.max(0.0).floor() as i32;
    // At most `MAX_SEARCHED` disparities (the cost buffer below).
    let d_max = (cfg.max_disparity_px.floor() as i32).min(d_min + MAX_SEARCHED as i32 - 1);
    let mut buf = [(0i32, 0f32); MAX_SEARCHED];
    let mut n_costs = 0;
    let mut vals = [0f32; 289];
    for d in d_min..=d_max {
        let x = xy[0] - d as f32;
        if !right.inside(x, xy[1], rf) {
            break;
        }
        let mut k = 0;
        let mut s = 0f32;
        for dy in -r..=r {
            for dx in -r..=r {
                let v = right.sample(x + dx as f32, xy[1] + dy as f32);
                vals[k] = v;
                s += v;
                k += 1;
            }
        }
        let m = s / nf;
        let cost: f32 = (0..n)
            .map(|i| (patch[i] - (vals[i] - m)).abs())
            .sum::<f32>()
            / nf;
        buf[n_costs] = (d, cost);
        n_costs += 1;
    }
    let costs = &buf[..n_costs];
    let (bi, &(best_d, best)) = costs
        .iter()
        .enumerate()
        .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1))?;
    if best > cfg.max_cost {
        return None;
    }
    let rival = costs
        .iter()
        .filter(|(d, _)| (d - best_d).abs() > 1)
        .map(|&(_, c)| c)
        .fold(f32::INFINITY, f32::min);
    if rival.is_finite() && best * cfg.uniqueness >= rival {
        return None;
    }
    // Sub-pixel: a parabola through the best and its two neighbours.
    let (Some(&(_, c0)), Some(&(_, c2))) = (costs.get(bi.wrapping_sub(1)), costs.get(bi + 1))
    else {
        return None;
    };
    let denom = c0 - 2.0 * best + c2;
    let offset = if denom > 1e-6 {
        (0.5 * (c0 - c2) / denom).clamp(-0.5, 0.5)
    } else {
        0.0
    };
    let d = best_d as f32 + offset;
    (d >= cfg.min_disparity_px).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Value noise: random grey levels on a 3 px lattice, bilinear between (so a
    /// sub-pixel shift is well defined), seen `shift` px to the right.
    fn scene(w: usize, h: usize, shift: f32) -> Grey {
        let lattice = |i: i64, j: i64| {
            let mut z = (i * 73_856_093) ^ (j * 19_349_663);
            z = (z ^ (z >> 13)).wrapping_mul(1_274_126_177);
            (z.rem_euclid(200) + 25) as f32
        };
        let mut px = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                let (u, v) = ((x as f32 + shift) / 3.0, y as f32 / 3.0);
                let (i, j) = (u.floor(), v.floor());
                let (fu, fv) = (u - i, v - j);
                let (i, j) = (i as i64, j as i64);
                let top = lattice(i, j) * (1.0 - fu) + lattice(i + 1, j) * fu;
                let bottom = lattice(i, j + 1) * (1.0 - fu) + lattice(i + 1, j + 1) * fu;
                px.push(top * (1.0 - fv) + bottom * fv);
            }
        }
        Grey {
            width: w,
            height: h,
            px,
        }
    }

    #[test]
    fn finds_a_sub_pixel_disparity() {
        // The right image sees the scene 12.3 px further left.
        let left = scene(200, 60, 0.0);
        let right = scene(200, 60, 12.3);
        let d = disparity(&left, &right, [120.0, 30.0], &MatchConfig::default()).unwrap();
        assert!((d - 12.3).abs() < 0.15, "{d}");
    }

    #[test]
    fn refuses_a_repeated_pattern_and_a_missing_match() {
        // Vertical stripes every 6 px: many disparities fit equally.
        let stripes = |w: usize, h: usize| Grey {
            width: w,
            height: h,
            px: (0..w * h)
                .map(|i| if (i % w) % 6 < 3 { 40.0 } else { 200.0 })
                .collect(),
        };
        let cfg = MatchConfig::default();
        assert_eq!(
            disparity(&stripes(200, 60), &stripes(200, 60), [120.0, 30.0], &cfg),
            None
        );
        // A right image of something else.
        let left = scene(200, 60, 0.0);
        let other = Grey {
            width: 200,
            height: 60,
            px: (0..12_000).map(|i| ((i * 7919) % 251) as f32).collect(),
        };
        assert_eq!(disparity(&left, &other, [120.0, 30.0], &cfg), None);
    }
}
