//! [`RecentDepth`]: the last few stereo depth frames, every point each measured (world
//! frame), for placing what a camera saw where no map holds it (pure, bounded).
//!
//! Text reads and detected things are placed where the ray through their box meets the
//! first surface behind it ([`super::text_distance::ray_hit`]). With MPS that surface comes
//! from the semi-dense map, with `--live-map` from the map stereo builds; without either —
//! live on the glasses by default — the depth frames themselves hold it. The depth filter
//! keeps only what stands between floor and head height for the corridor, and a sign hangs
//! above a door: so the frames are kept whole here, for a short while. A read comes about a
//! second after its frame (PP-OCR's latency); the frames from then until now still see the
//! wall it hangs on when the wearer faces it, and a static surface is where it was.

use std::collections::VecDeque;

use nalgebra::{Point3, Vector3};

use super::text_distance::{ray_hit, RayHit, RayHitConfig};

/// Frames kept (at 5 Hz: about the last second and a half).
pub const FRAMES: usize = 8;
/// Points kept per frame, at most (every other one beyond, counted).
pub const MAX_POINTS_PER_FRAME: usize = 120_000;
/// A frame captured this long before the thing's own frame is still asked, ns (the head
/// moves little in a frame's time, and a wall not at all).
pub const BEFORE_NS: i64 = 500_000_000;

/// The last [`FRAMES`] depth frames.
#[derive(Debug, Clone, Default)]
pub struct RecentDepth {
    /// `(capture_ns, points)`, oldest first.
    frames: VecDeque<(i64, Vec<[f32; 3]>)>,
    /// Points left out for [`MAX_POINTS_PER_FRAME`].
    thinned: u64,
}

impl RecentDepth {
    /// No frames yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one depth frame (world, m) captured at `capture_ns`. A frame older than the
    /// newest kept by more than a second (the clock jumped back) forgets the others; one
    /// no newer than the newest is ignored.
    pub fn push(&mut self, capture_ns: i64, points_world: &[[f32; 3]]) {
        if let Some(t) = self.frames.back().map(|(t, _)| *t) {
            if t.saturating_sub(capture_ns) > 1_000_000_000 {
                self.frames.clear();
            } else if t >= capture_ns {
                return;
            }
        }
        let mut kept = if self.frames.len() >= FRAMES {
            self.frames.pop_front().map(|(_, v)| v).unwrap_or_default()
        } else {
            Vec::new()
        };
        kept.clear();
        let step = points_world.len().div_ceil(MAX_POINTS_PER_FRAME).max(1);
        kept.extend(points_world.iter().step_by(step).copied());
        self.thinned += (points_world.len() - kept.len()) as u64;
        self.frames.push_back((capture_ns, kept));
    }

    /// Where the ray from `origin` along `dir` meets the first surface among the points of
    /// the frames captured from [`BEFORE_NS`] before `at_ns` on (to the newest): `None`
    /// when those frames hold no surface on it.
    pub fn hit(
        &self,
        origin: &Point3<f64>,
        dir: &Vector3<f64>,
        at_ns: i64,
        cfg: &RayHitConfig,
    ) -> Option<RayHit> {
        let from = at_ns.saturating_sub(BEFORE_NS);
        let points = self
            .frames
            .iter()
            .filter(|(t, _)| *t >= from)
            .flat_map(|(_, v)| v.iter().copied());
        ray_hit(origin, dir, points, cfg)
    }

    /// Frames held now.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no frame is held.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Points left out so far for [`MAX_POINTS_PER_FRAME`].
    pub fn thinned(&self) -> u64 {
        self.thinned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// A wall at x = `x`, points on a 5 cm grid over y in [-1, 1], z in [0, 2.5].
    fn wall(x: f32) -> Vec<[f32; 3]> {
        let mut v = Vec::new();
        for i in -20..=20 {
            for j in 0..=50 {
                v.push([x, i as f32 * 0.05, j as f32 * 0.05]);
            }
        }
        v
    }

    #[test]
    fn a_read_is_placed_on_the_wall_the_frames_since_its_own_see() {
        let mut d = RecentDepth::new();
        let eye = Point3::new(0.0, 0.0, 1.6);
        // A sign above a door, 0.6 m above the eyes, 3 m ahead.
        let dir = Vector3::new(3.0, 0.0, 0.6);
        let cfg = RayHitConfig::default();
        assert!(d.hit(&eye, &dir, 1_000 * MS, &cfg).is_none());
        d.push(1_000 * MS, &wall(3.0));
        d.push(1_200 * MS, &wall(3.0));
        // Read at 1.1 s: the frames from 0.6 s on are asked.
        let hit = d.hit(&eye, &dir, 1_100 * MS, &cfg).unwrap();
        let expect = (3.0f64 * 3.0 + 0.6 * 0.6).sqrt();
        assert!((hit.range_m - expect).abs() < 0.05, "{hit:?} vs {expect}");
        // A read older than the frames by more than BEFORE_NS: not theirs to place.
        assert!(d.hit(&eye, &dir, 2_000 * MS, &cfg).is_none());
        // Nothing on the ray (looking the other way): no surface.
        let back = Vector3::new(-1.0, 0.0, 0.0);
        assert!(d.hit(&eye, &back, 1_100 * MS, &cfg).is_none());
    }

    #[test]
    fn frames_are_bounded_and_a_clock_jump_back_forgets_them() {
        let mut d = RecentDepth::new();
        for k in 0..(FRAMES as i64 + 4) {
            d.push(k * 200 * MS, &wall(3.0));
        }
        assert_eq!(d.len(), FRAMES);
        // An older frame within a second: ignored.
        let newest = (FRAMES as i64 + 3) * 200 * MS;
        d.push(newest - 200 * MS, &wall(5.0));
        assert_eq!(d.len(), FRAMES);
        // Back by more than a second: the others are forgotten.
        d.push(0, &wall(3.0));
        assert_eq!(d.len(), 1);
        // A frame larger than the cap is thinned, and it is counted.
        let many = vec![[3.0f32, 0.0, 1.0]; MAX_POINTS_PER_FRAME + 10];
        d.push(100 * MS, &many);
        assert!(d.thinned() > 0);
        assert!(d
            .frames
            .back()
            .is_some_and(|(_, v)| v.len() <= MAX_POINTS_PER_FRAME));
    }
}
