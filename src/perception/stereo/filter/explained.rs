//! The static-map filter (pure): a stereo point lying on something the static map already
//! holds adds nothing (the corridor analysis sees the map's own points there), while its
//! depth noise can only add phantoms beside the real surface. Depth is kept for what the
//! map lacks — people and other things that move or appeared since the map saw the place.
//!
//! The map's points near the wearer go into a [`VoxelSet`] (a 3-D grid of occupied
//! cells); a stereo point is *explained* when an occupied cell lies within `reach` cells
//! of its own in every axis, or of a place along its viewing ray within its depth
//! uncertainty ([`explained_along_ray`]): stereo depth errs along the ray, by
//! `range² / (focal · baseline)` per pixel of disparity error — 0.16 m at 2 m but 0.65 m
//! at 4 m for the Gen1 SLAM pair — so a far surface the map holds comes back scattered
//! well in front of and behind it, and a fixed reach alone leaves those points as
//! phantom obstacles in front of the real one.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::perception::cellhash::CellHasher;

/// Occupied cells of a 3-D grid.
#[derive(Debug, Clone)]
pub struct VoxelSet {
    cell_m: f32,
    cells: HashSet<(i32, i32, i32), BuildHasherDefault<CellHasher>>,
}

impl VoxelSet {
    /// An empty set of `cell_m` cells (at least 1 cm).
    pub fn new(cell_m: f32) -> Self {
        let cell_m = if cell_m.is_finite() {
            cell_m.max(0.01)
        } else {
            0.1
        };
        Self {
            cell_m,
            cells: HashSet::default(),
        }
    }

    /// The cell size, m.
    pub fn cell_m(&self) -> f32 {
        self.cell_m
    }

    fn key(&self, p: &[f32; 3]) -> Option<(i32, i32, i32)> {
        if !p.iter().all(|v| v.is_finite()) {
            return None;
        }
        let k = |v: f32| (v / self.cell_m).floor() as i32;
        Some((k(p[0]), k(p[1]), k(p[2])))
    }

    /// Empties the set (keeping its memory).
    pub fn clear(&mut self) {
        self.cells.clear();
    }

    /// Marks the cell of `p` occupied (non-finite points are ignored).
    pub fn insert(&mut self, p: &[f32; 3]) {
        if let Some(k) = self.key(p) {
            self.cells.insert(k);
        }
    }

    /// Occupied cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True when no cell is occupied.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Whether an occupied cell lies within `reach` cells of `p`'s in every axis.
    pub fn near(&self, p: &[f32; 3], reach: i32) -> bool {
        let Some((x, y, z)) = self.key(p) else {
            return false;
        };
        let r = reach.max(0);
        (-r..=r).any(|i| {
            (-r..=r).any(|j| (-r..=r).any(|k| self.cells.contains(&(x + i, y + j, z + k))))
        })
    }
}

/// Whether the static map (`map`) explains the stereo point `p`.
pub fn explained(p: &[f32; 3], map: &VoxelSet, reach: i32) -> bool {
    map.near(p, reach)
}

/// Places looked at along a ray at most (each side of the point), bounding the cost of a
/// far point's long uncertainty.
pub const MAX_RAY_STEPS: i32 = 12;

/// Whether the static `map` explains the stereo point `p` seen from `origin` (world, m):
/// an occupied cell lies within `reach` cells of `p` or of a place on the ray from
/// `origin` through `p` less than `depth_tol_m` from it (looked at every cell along the
/// ray, at most [`MAX_RAY_STEPS`] each way).
pub fn explained_along_ray(
    p: &[f32; 3],
    origin: &[f32; 3],
    map: &VoxelSet,
    reach: i32,
    depth_tol_m: f32,
) -> bool {
    if map.near(p, reach) {
        return true;
    }
    let d = [p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]];
    let r = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    if !(r.is_finite() && r > 1e-3 && depth_tol_m.is_finite() && depth_tol_m > 0.0) {
        return false;
    }
    let step = map.cell_m();
    let n = ((depth_tol_m / step).floor() as i32).clamp(0, MAX_RAY_STEPS);
    let u = [d[0] / r, d[1] / r, d[2] / r];
    (1..=n).any(|k| {
        [-1.0f32, 1.0].iter().any(|&sgn| {
            let t = sgn * k as f32 * step;
            map.near(&[p[0] + u[0] * t, p[1] + u[1] * t, p[2] + u[2] * t], reach)
        })
    })
}

/// Depth uncertainty of a stereo point at `range_m`, m: `disparity_err_px · range² /
/// focal_baseline_px_m` (`focal_baseline_px_m`: rectified focal length, px, times the
/// baseline, m).
pub fn depth_tolerance_m(range_m: f32, disparity_err_px: f32, focal_baseline_px_m: f32) -> f32 {
    if focal_baseline_px_m > 0.0 && range_m.is_finite() {
        (disparity_err_px.max(0.0) * range_m * range_m / focal_baseline_px_m).max(0.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_on_a_mapped_wall_are_explained_and_a_person_before_it_is_not() {
        // A wall at x = 4 m mapped sparsely (every 20 cm).
        let mut map = VoxelSet::new(0.15);
        for j in 0..20 {
            for k in 0..12 {
                map.insert(&[4.0, -2.0 + 0.2 * j as f32, 0.2 * k as f32]);
            }
        }
        // Stereo points on the wall with 8 cm of depth noise, between the map's points.
        for (dx, y, z) in [(0.08, 0.1, 1.1), (-0.08, -0.9, 0.5), (0.0, 1.3, 2.0)] {
            assert!(explained(&[4.0 + dx, y, z], &map, 1), "{dx} {y} {z}");
        }
        // A person 0.6 m in front of the wall is not.
        assert!(!explained(&[3.4, 0.0, 1.0], &map, 1));
        // Nor anything in open space, nor a non-finite point.
        assert!(!explained(&[2.0, 0.0, 1.0], &map, 1));
        assert!(!explained(&[f32::NAN, 0.0, 1.0], &map, 1));
        // Reach 0: only the point's own cell (the wall's cells are x ∈ [3.9, 4.05)).
        assert!(explained(&[4.1, 0.0, 1.0], &map, 1));
        assert!(!explained(&[4.1, 0.0, 1.0], &map, 0));
        let mut empty = map.clone();
        empty.clear();
        assert!(empty.is_empty() && !explained(&[4.0, 0.0, 1.0], &empty, 1));
    }

    #[test]
    fn a_far_surface_scattered_along_the_ray_is_explained_a_near_person_is_not() {
        // A trolley's front face at x = 4.7 m, mapped every 10 cm, 0.2 to 0.9 m up.
        let mut map = VoxelSet::new(0.15);
        for j in 0..6 {
            for k in 0..8 {
                map.insert(&[4.7, -0.1 + 0.1 * j as f32, 0.2 + 0.1 * k as f32]);
            }
        }
        let eye = [0.6, 0.1, 1.6];
        // Stereo points on that face 4.1 m away that came back 0.7 m short (one pixel of
        // disparity is 0.68 m there for the Gen1 pair, f·b = 24.8 px·m): the fixed reach
        // does not explain them, the ray does.
        let tol = depth_tolerance_m(4.1, 1.0, 24.8);
        assert!((tol - 0.678).abs() < 0.01, "{tol}");
        let short = [4.0, 0.1, 0.95];
        assert!(!explained(&short, &map, 1));
        assert!(explained_along_ray(&short, &eye, &map, 1, tol));
        // A person 1.7 m in front of the face, 2.4 m from the cameras (0.23 m of
        // uncertainty): not explained.
        let person = [3.0, 0.1, 1.0];
        let tol = depth_tolerance_m(2.4, 1.0, 24.8);
        assert!(!explained_along_ray(&person, &eye, &map, 1, tol));
        // No tolerance: the fixed reach only.
        assert!(!explained_along_ray(&short, &eye, &map, 1, 0.0));
        // A point on the ray's other side (behind the face) within the tolerance.
        assert!(explained_along_ray(&[5.3, 0.1, 0.8], &eye, &map, 1, 0.7));
        // Degenerate: the point at the cameras, non-finite tolerance.
        assert!(!explained_along_ray(&eye, &eye, &map, 1, 1.0));
        assert!(!explained_along_ray(&short, &eye, &map, 1, f32::NAN));
    }
}
