//! [`SeeThrough`]: free space from one depth frame (pure). The frame's points, as seen from
//! the cameras, are binned by direction (azimuth and elevation, world frame, one degree per
//! cell) keeping each direction's nearest range. A place the cameras see *through* — the
//! directions that cross it all reach surfaces well beyond it — holds nothing this frame.
//!
//! The live map uses it to tell a surface from a mismatch that repeats: stereo matching
//! makes a few wrong matches that land at the same place frame after frame while the wearer
//! stands still (a far wall's texture matched one period off), and each looks like a thing
//! standing in open air. The pixels around such a mismatch see past it to the floor or the
//! wall behind; the pixels around a real surface see the surface. This is the free-space
//! test of occupancy mapping (OctoMap's ray casting), done by projection: each map voxel is
//! looked up in the frame's direction grid instead of casting every ray through the map.

/// Cell of the direction grid, degrees.
pub const CELL_DEG: f32 = 1.0;
const AZ_CELLS: usize = (360.0 / CELL_DEG) as usize;
const EL_CELLS: usize = (180.0 / CELL_DEG) as usize;

/// What one frame says about a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// More of the directions across it reach surfaces beyond it than stop at it.
    SeenThrough,
    /// Something was measured at it or in front of it.
    NotThrough,
    /// The frame measured nothing in its directions (out of view, or no texture).
    Unseen,
}

/// The nearest range per direction of one frame.
#[derive(Debug, Clone)]
pub struct SeeThrough {
    origin_m: [f32; 3],
    /// Nearest range per cell, m (`INFINITY`: nothing measured).
    nearest_m: Vec<f32>,
}

impl Default for SeeThrough {
    fn default() -> Self {
        Self::new()
    }
}

fn cell_of(az_rad: f32, el_rad: f32) -> Option<(usize, usize)> {
    let a = (az_rad.to_degrees() + 180.0) / CELL_DEG;
    let e = (el_rad.to_degrees() + 90.0) / CELL_DEG;
    if !(a.is_finite() && e.is_finite()) {
        return None;
    }
    let ai = (a.floor() as i64).rem_euclid(AZ_CELLS as i64) as usize;
    let ei = (e.floor() as i64).clamp(0, EL_CELLS as i64 - 1) as usize;
    Some((ai, ei))
}

fn direction(origin: [f32; 3], p: &[f32; 3]) -> (f32, f32, f32) {
    let (dx, dy, dz) = (p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]);
    let h = dx.hypot(dy);
    (dy.atan2(dx), dz.atan2(h), h.hypot(dz))
}

impl SeeThrough {
    /// An empty grid (allocated once: 64 800 cells).
    pub fn new() -> Self {
        Self {
            origin_m: [0.0; 3],
            nearest_m: vec![f32::INFINITY; AZ_CELLS * EL_CELLS],
        }
    }

    /// Bins one frame's points (world, m) seen from `origin_m`; non-finite ones are skipped.
    pub fn set_frame<'a>(
        &mut self,
        origin_m: [f32; 3],
        points: impl IntoIterator<Item = &'a [f32; 3]>,
    ) {
        self.origin_m = origin_m;
        self.nearest_m.fill(f32::INFINITY);
        for p in points {
            let (az, el, r) = direction(origin_m, p);
            if let Some((a, e)) = cell_of(az, el) {
                if let Some(c) = self.nearest_m.get_mut(e * AZ_CELLS + a) {
                    *c = c.min(r);
                }
            }
        }
    }

    /// What the frame says about a cube of side `side_m` centred at `p` (world, m): seen
    /// through when, of the cells its directions cross, more reach beyond it (past its far
    /// side by `tolerance_m`, the depth error allowed) than stop at or before it.
    pub fn verdict(&self, p: [f32; 3], side_m: f32, tolerance_m: f32) -> Verdict {
        let (az, el, r) = direction(self.origin_m, &p);
        if !(r.is_finite() && r > side_m) {
            return Verdict::Unseen;
        }
        // The cube's angular half-size; at least half a cell, at most four cells.
        let half =
            (0.5 * side_m / r).clamp(0.5 * CELL_DEG.to_radians(), 4.0 * CELL_DEG.to_radians());
        let (Some((a0, e0)), Some((a1, e1))) =
            (cell_of(az - half, el - half), cell_of(az + half, el + half))
        else {
            return Verdict::Unseen;
        };
        let beyond = r + 0.5 * side_m + tolerance_m;
        let (mut through, mut stopped) = (0u32, 0u32);
        let mut a = a0;
        loop {
            for e in e0..=e1 {
                match self.nearest_m.get(e * AZ_CELLS + a) {
                    Some(&n) if n.is_finite() => {
                        if n > beyond {
                            through += 1;
                        } else {
                            stopped += 1;
                        }
                    }
                    _ => {}
                }
            }
            if a == a1 {
                break;
            }
            a = (a + 1) % AZ_CELLS;
        }
        if through + stopped == 0 {
            Verdict::Unseen
        } else if through > stopped {
            Verdict::SeenThrough
        } else {
            Verdict::NotThrough
        }
    }

    /// Whether the direction of `p` lies within the frame's view: within `row_reach` cells
    /// of elevation of its own, one row measured directions on both sides of its azimuth,
    /// each within a quarter turn (a frame spans far less than half a turn). Tells a place
    /// out of view from one in view with nothing measured around it (open space).
    pub fn in_view(&self, p: [f32; 3], row_reach: usize) -> bool {
        let (az, el, _) = direction(self.origin_m, &p);
        let Some((a, e)) = cell_of(az, el) else {
            return false;
        };
        let quarter = AZ_CELLS / 4;
        let lo = e.saturating_sub(row_reach);
        let hi = (e + row_reach).min(EL_CELLS - 1);
        (lo..=hi).any(|row| {
            let measured = |k: usize| {
                self.nearest_m
                    .get(row * AZ_CELLS + k % AZ_CELLS)
                    .is_some_and(|n| n.is_finite())
            };
            (0..=quarter).any(|d| measured(a + AZ_CELLS - d))
                && (0..=quarter).any(|d| measured(a + d))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wall 5 m ahead, seen from the origin, and one wrong point 2 m ahead in front of it.
    fn wall_and_mismatch() -> Vec<[f32; 3]> {
        let mut pts = Vec::new();
        for i in -40..=40 {
            for k in -20..=20 {
                pts.push([5.0, 0.02 * i as f32, 0.02 * k as f32]);
            }
        }
        pts.push([2.0, 0.0, 0.0]);
        pts
    }

    #[test]
    fn a_lone_point_in_front_of_a_wall_is_seen_through_the_wall_is_not() {
        let mut g = SeeThrough::new();
        g.set_frame([0.0; 3], &wall_and_mismatch());
        assert_eq!(g.verdict([2.0, 0.0, 0.0], 0.08, 0.2), Verdict::SeenThrough);
        assert_eq!(g.verdict([5.0, 0.1, 0.1], 0.08, 0.2), Verdict::NotThrough);
        // Behind the wall: occluded, not seen through.
        assert_eq!(g.verdict([7.0, 0.0, 0.0], 0.08, 0.2), Verdict::NotThrough);
        // Where the frame saw nothing.
        assert_eq!(g.verdict([-3.0, 0.0, 0.0], 0.08, 0.2), Verdict::Unseen);
        assert_eq!(g.verdict([0.01, 0.0, 0.0], 0.08, 0.2), Verdict::Unseen);
    }

    #[test]
    fn a_surface_in_front_of_the_wall_is_not_seen_through() {
        let mut pts = wall_and_mismatch();
        // A box face 0.4 m wide at 2 m.
        for i in -10..=10 {
            for k in -10..=10 {
                pts.push([2.0, 0.02 * i as f32, 0.02 * k as f32]);
            }
        }
        let mut g = SeeThrough::new();
        g.set_frame([0.0; 3], &pts);
        assert_eq!(g.verdict([2.0, 0.0, 0.0], 0.08, 0.2), Verdict::NotThrough);
        // Its edge: half the directions see the box.
        assert_eq!(g.verdict([2.0, 0.2, 0.0], 0.08, 0.2), Verdict::NotThrough);
    }

    #[test]
    fn azimuth_wraps_and_bad_points_are_skipped() {
        let mut g = SeeThrough::new();
        let pts: Vec<[f32; 3]> = (-10..=10)
            .flat_map(|i| (-5..=5).map(move |k| [-6.0, 0.02 * i as f32, 0.02 * k as f32]))
            .chain([[f32::NAN, 0.0, 0.0], [f32::INFINITY, 1.0, 0.0]])
            .collect();
        g.set_frame([0.0; 3], &pts);
        assert_eq!(g.verdict([-2.0, 0.0, 0.0], 0.08, 0.2), Verdict::SeenThrough);
    }

    #[test]
    fn a_direction_between_measured_ones_is_in_view_one_beside_them_is_not() {
        let mut g = SeeThrough::new();
        g.set_frame([0.0; 3], &wall_and_mismatch());
        // The wall spans about ±9° across and ±4.6° up at 5 m: 9° up nothing is measured,
        // but rows within reach are.
        assert!(g.in_view([3.0, 0.0, 0.0], 0));
        assert!(g.in_view([3.0, 0.3, 0.5], 10));
        assert!(!g.in_view([3.0, 0.3, 0.5], 0));
        // 45° left: beside the wall, out of view.
        assert!(!g.in_view([3.0, 3.0, 0.0], 10));
    }
}
