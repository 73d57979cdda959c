//! [`MotionWitness`]: whether the depth frames saw a thing whose track seems to move
//! actually move (pure). A track's velocity comes from its centroid, and a still thing's
//! centroid slides when its points come and go: a box coming into view as the head turns,
//! the near face of a bench growing as the wearer walks up, a pose that lags the walk. What
//! tells a thing that moved from one seen anew is free space: a thing that moved stands where
//! the cameras saw *through* a moment ago (to the wall behind), or has left a place they see
//! through now. A thing seen anew stands where something was measured before (itself, or
//! what hid it) or where nothing was seen, and its old place still holds it.
//!
//! The last few depth frames are kept as see-through grids ([`SeeThrough`], one per frame,
//! bounded); [`MotionWitness::verdict`] asks the earlier frames about a thing's place now
//! (those old enough for it to have moved clear of its own old place at its velocity,
//! [`MIN_DISPLACEMENT_M`]) and the newest frame about the oldest place its track holds
//! (where it was seen, not where its velocity puts it: a box coming into view has a
//! velocity, and its place a second ago by that velocity is beside it). Where no frame measured anything around either place (open space behind it,
//! beyond stereo's range) the frames cannot tell, and the track's velocity stands alone.

use std::collections::VecDeque;

use super::see_through::{SeeThrough, Verdict};
use super::stereo::filter::depth_tolerance_m;

/// Frames kept (at 5 Hz: the last second).
pub const FRAMES: usize = 6;
/// An earlier frame is looked at when at least this much older than the newest, ns.
pub const MIN_AGE_NS: i64 = 150_000_000;
/// ...and at most this much, ns.
pub const MAX_AGE_NS: i64 = 1_000_000_000;
/// Side of the cube asked about at a thing's place, m (a person's torso).
pub const PLACE_SIDE_M: f32 = 0.3;
/// An earlier frame is asked only when the thing would have moved at least this far since
/// (half a person's width and half the cube): nearer, a thing that moved still overlaps
/// its own old place.
pub const MIN_DISPLACEMENT_M: f32 = 0.4;
/// Depth error allowed beyond the cube, px of disparity...
pub const DISPARITY_ERR_PX: f32 = 0.5;
/// ...and at least this much, m: a pose that lags the walk by a tenth or two of a metre
/// shifts a still thing along the rays by as much.
pub const MIN_TOLERANCE_M: f32 = 0.15;

/// What the frames say about a thing that seems to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MotionVerdict {
    /// A frame saw through its place now before, or sees through its old place now.
    Moved,
    /// No frame saw through either place, and one measured something at or in front of
    /// one of them: its place now held something before, or its old place still does.
    Stayed,
    /// The frames looked at both places and measured nothing around them (open space
    /// behind, beyond stereo's range): they cannot tell.
    Unseen,
    /// No frame could have seen it move yet: none is old enough for it to have moved
    /// [`MIN_DISPLACEMENT_M`] since, or its place now was out of view in those that are
    /// (a thing coming into view as the head turns).
    NotYet,
}

/// A direction is in a frame's view when, within this many degrees of elevation of its
/// own, the frame measured directions on both sides of its azimuth (rows at the horizon
/// often measure little: the floor there is beyond stereo's range).
const VIEW_ROW_REACH: usize = 10;

/// The see-through grids of the last [`FRAMES`] depth frames.
#[derive(Debug, Clone, Default)]
pub struct MotionWitness {
    /// `(capture_ns, grid)`, oldest first.
    frames: VecDeque<(i64, SeeThrough)>,
    /// Grids of frames that fell out, reused.
    spare: Vec<SeeThrough>,
}

impl MotionWitness {
    /// No frames yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one depth frame (every point it measured, world, m) captured at `capture_ns`
    /// from cameras at `origin_m`. A frame no newer than the newest kept is ignored, unless
    /// it is older by more than [`MAX_AGE_NS`] (the clock jumped back): then the others are
    /// forgotten.
    pub fn add_frame(&mut self, capture_ns: i64, origin_m: [f32; 3], points_world: &[[f32; 3]]) {
        if let Some(t) = self.frames.back().map(|(t, _)| *t) {
            if t.saturating_sub(capture_ns) > MAX_AGE_NS {
                self.clear();
            } else if t >= capture_ns {
                return;
            }
        }
        let mut grid = if self.frames.len() >= FRAMES {
            self.frames.pop_front().map(|(_, g)| g)
        } else {
            self.spare.pop()
        }
        .unwrap_or_default();
        grid.set_frame(origin_m, points_world);
        self.frames.push_back((capture_ns, grid));
    }

    /// Forgets every frame (a clock jump).
    pub fn clear(&mut self) {
        self.spare.extend(self.frames.drain(..).map(|(_, g)| g));
    }

    /// What the frames say about a thing at `place_m` (world, m; its centroid) that seems
    /// to move at `velocity_mps` (world `[x, y]`), asking each earlier frame (between
    /// [`MIN_AGE_NS`] and [`MAX_AGE_NS`] older than the newest, and old enough for it to have
    /// moved [`MIN_DISPLACEMENT_M`]) about its place now, and the newest frame about
    /// `oldest_m` (world `[x, y]`, at the same height), the oldest place its track holds,
    /// when that is [`MIN_DISPLACEMENT_M`] away. `origin_m` is where the
    /// cameras are now and `focal_baseline_px_m` the stereo pair's rectified focal length
    /// times its baseline: they set the depth error allowed at its range
    /// ([`DISPARITY_ERR_PX`], at least [`MIN_TOLERANCE_M`]).
    pub fn verdict(
        &self,
        place_m: [f32; 3],
        velocity_mps: [f32; 2],
        oldest_m: Option<[f32; 2]>,
        origin_m: [f32; 3],
        focal_baseline_px_m: f32,
    ) -> MotionVerdict {
        let Some((newest_ns, newest)) = self.frames.back() else {
            return MotionVerdict::Unseen;
        };
        let range = ((place_m[0] - origin_m[0]).powi(2)
            + (place_m[1] - origin_m[1]).powi(2)
            + (place_m[2] - origin_m[2]).powi(2))
        .sqrt();
        let tol = depth_tolerance_m(range, DISPARITY_ERR_PX, focal_baseline_px_m);
        let tol = if tol.is_finite() {
            tol.max(MIN_TOLERANCE_M)
        } else {
            MIN_TOLERANCE_M
        };
        let speed = velocity_mps[0].hypot(velocity_mps[1]);
        let (mut stayed, mut unseen, mut out_of_view) = (false, false, false);
        if let Some(o) = oldest_m {
            if (o[0] - place_m[0]).hypot(o[1] - place_m[1]) >= MIN_DISPLACEMENT_M {
                match newest.verdict([o[0], o[1], place_m[2]], PLACE_SIDE_M, tol) {
                    Verdict::SeenThrough => return MotionVerdict::Moved,
                    Verdict::NotThrough => stayed = true,
                    Verdict::Unseen => unseen = true,
                }
            }
        }
        for (t, grid) in &self.frames {
            let age = newest_ns.saturating_sub(*t);
            let dt = age as f32 * 1e-9;
            if !(MIN_AGE_NS..=MAX_AGE_NS).contains(&age) || speed * dt < MIN_DISPLACEMENT_M {
                continue;
            }
            match grid.verdict(place_m, PLACE_SIDE_M, tol) {
                Verdict::SeenThrough => return MotionVerdict::Moved,
                Verdict::NotThrough => stayed = true,
                Verdict::Unseen if grid.in_view(place_m, VIEW_ROW_REACH) => unseen = true,
                Verdict::Unseen => out_of_view = true,
            }
        }
        if stayed {
            MotionVerdict::Stayed
        } else if unseen && !out_of_view {
            MotionVerdict::Unseen
        } else {
            MotionVerdict::NotYet
        }
    }

    /// Frames kept.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no frame is kept.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    /// Gen1's SLAM pair: 180 px × 0.138 m.
    const FB: f32 = 24.8;

    /// A wall across x = 6 m seen from eyes at the origin (the floor 1.65 m below), and a
    /// box of `width` m centred at `(x, y)`, 0.4 m to 1.6 m up (its face toward the
    /// origin), as a depth frame sees them: only the parts within `fov_deg` of +x.
    fn scene(x: f32, y: f32, width: f32, fov_deg: f32) -> Vec<[f32; 3]> {
        let mut pts = Vec::new();
        for i in -150..=150 {
            for k in 0..=52 {
                pts.push([6.0, 0.02 * i as f32, 0.05 * k as f32 - 1.6]);
            }
        }
        let n = (width / 0.02) as i32;
        for i in -n / 2..=n / 2 {
            for k in 0..=24 {
                pts.push([x - 0.1, y + 0.02 * i as f32, 0.05 * k as f32 - 1.25]);
            }
        }
        let half = fov_deg.to_radians() * 0.5;
        pts.retain(|p| p[1].atan2(p[0]).abs() <= half);
        pts
    }

    #[test]
    fn a_person_crossing_was_seen_to_move() {
        let mut w = MotionWitness::new();
        // Walking across at 1 m/s, 3 m ahead.
        for (i, y) in [0.8f32, 0.6, 0.4, 0.2].iter().enumerate() {
            w.add_frame(i as i64 * 200 * MS, [0.0; 3], &scene(3.0, *y, 0.4, 90.0));
        }
        assert_eq!(w.len(), 4);
        assert_eq!(
            w.verdict(
                [3.0, 0.2, -0.65],
                [0.0, -1.0],
                Some([3.0, 0.8]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::Moved
        );
    }

    #[test]
    fn a_person_walking_toward_or_away_was_seen_to_move() {
        let mut w = MotionWitness::new();
        for (i, x) in [4.0f32, 3.8, 3.6, 3.4].iter().enumerate() {
            w.add_frame(i as i64 * 200 * MS, [0.0; 3], &scene(*x, 0.0, 0.4, 90.0));
        }
        assert_eq!(
            w.verdict(
                [3.4, 0.0, -0.65],
                [-1.0, 0.0],
                Some([4.0, 0.0]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::Moved
        );
        let mut w = MotionWitness::new();
        for (i, x) in [3.4f32, 3.6, 3.8, 4.0].iter().enumerate() {
            w.add_frame(i as i64 * 200 * MS, [0.0; 3], &scene(*x, 0.0, 0.4, 90.0));
        }
        assert_eq!(
            w.verdict(
                [4.0, 0.0, -0.65],
                [1.0, 0.0],
                Some([3.4, 0.0]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::Moved
        );
    }

    #[test]
    fn a_box_coming_into_view_or_still_was_not_seen_to_move() {
        // The head turns: the box at 3 m, 1.2 m left, comes into view bit by bit, and its
        // centroid slides left at 0.5 m/s from where its first part was seen.
        let mut w = MotionWitness::new();
        for (i, fov) in [30.0f32, 33.0, 36.0, 40.0, 44.0, 48.0].iter().enumerate() {
            w.add_frame(i as i64 * 200 * MS, [0.0; 3], &scene(3.0, 1.2, 0.6, *fov));
        }
        assert_eq!(
            w.verdict(
                [3.0, 1.3, -0.65],
                [0.0, 0.5],
                Some([3.0, 0.95]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::NotYet
        );
        // Standing still in full view, its centroid wandering 0.5 m/s either way.
        let mut w = MotionWitness::new();
        for i in 0..6 {
            w.add_frame(i * 200 * MS, [0.0; 3], &scene(3.0, 0.0, 0.6, 90.0));
        }
        assert_eq!(
            w.verdict(
                [3.0, 0.1, -0.65],
                [0.0, 0.5],
                Some([3.0, 0.0]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::Stayed
        );
        assert_eq!(
            w.verdict(
                [3.0, 0.0, -0.65],
                [-0.5, 0.0],
                Some([3.1, 0.0]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::Stayed
        );
    }

    #[test]
    fn in_open_space_the_frames_cannot_tell() {
        // Nothing behind the person within stereo's range: the person and the floor out to
        // 7 m are measured.
        let person = |y: f32| -> Vec<[f32; 3]> {
            let mut pts: Vec<[f32; 3]> = scene(5.0, y, 0.4, 90.0)
                .into_iter()
                .filter(|p| p[0] < 5.5)
                .collect();
            for i in 10..=70 {
                for j in -60..=60 {
                    pts.push([0.1 * i as f32, 0.05 * j as f32, -1.65]);
                }
            }
            pts
        };
        let mut w = MotionWitness::new();
        for (i, y) in [0.8f32, 0.6, 0.4, 0.2].iter().enumerate() {
            w.add_frame(i as i64 * 200 * MS, [0.0; 3], &person(*y));
        }
        assert_eq!(
            w.verdict(
                [5.0, 0.2, -0.65],
                [0.0, -1.0],
                Some([5.0, 0.8]),
                [0.0; 3],
                FB
            ),
            MotionVerdict::Unseen
        );
    }

    #[test]
    fn too_few_or_too_recent_frames_see_nothing() {
        let mut w = MotionWitness::new();
        assert_eq!(
            w.verdict([3.0, 0.0, 0.0], [1.0, 0.0], None, [0.0; 3], FB),
            MotionVerdict::Unseen
        );
        // A slow thing (0.4 m/s) in frames 0.6 s apart has not cleared its own place.
        for i in 0..4 {
            w.add_frame(i * 200 * MS, [0.0; 3], &scene(3.0, 0.0, 0.6, 90.0));
        }
        assert_eq!(
            w.verdict([3.0, 0.0, -0.65], [0.4, 0.0], None, [0.0; 3], FB),
            MotionVerdict::NotYet
        );
        w.clear();
        w.add_frame(0, [0.0; 3], &scene(3.0, 0.8, 0.4, 90.0));
        w.add_frame(100 * MS, [0.0; 3], &scene(3.0, 0.7, 0.4, 90.0));
        // Only 100 ms apart: below MIN_AGE_NS.
        assert_eq!(
            w.verdict([3.0, 0.7, -0.65], [0.0, -1.0], None, [0.0; 3], FB),
            MotionVerdict::NotYet
        );
        // A frame from the past is ignored; clear forgets.
        w.add_frame(50 * MS, [0.0; 3], &scene(3.0, 0.0, 0.4, 90.0));
        assert_eq!(w.len(), 2);
        // The clock jumped back by more than MAX_AGE_NS: a fresh start.
        w.add_frame(-2_000 * MS, [0.0; 3], &scene(3.0, 0.0, 0.4, 90.0));
        assert_eq!(w.len(), 1);
        w.clear();
        assert!(w.is_empty());
    }
}
