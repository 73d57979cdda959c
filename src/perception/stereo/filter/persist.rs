//! The temporal-consistency filter: a stereo point counts only when its place holds a
//! dense patch of points in this frame (an isolated mismatch does not) and a dense patch
//! was also there, or within walking reach of there, in an earlier recent frame (a
//! mismatch that flickers from frame to frame does not; a person walking does, and a
//! still one trivially). Places are cells of a horizontal world grid; the reach grows
//! with the time since the earlier frame, at a person's top walking speed.
//!
//! [`dense_cells`] and [`supported`] are pure; [`Persistence`] keeps the last few frames'
//! dense cells (bounded).

use std::collections::VecDeque;

use crate::perception::cellhash::{CellMap, CellSet};

/// Settings of the filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PersistConfig {
    /// Horizontal grid cell, m.
    pub cell_m: f32,
    /// Points a cell needs in one frame to be dense.
    pub min_points: u32,
    /// Reach between frames at no time apart, m...
    pub base_reach_m: f32,
    /// ...plus this speed times the time between them, m/s.
    pub max_speed_mps: f32,
    /// Earlier frames older than this are not looked at, ns.
    pub window_ns: i64,
    /// Earlier frames (within the window) that must support a cell (0: every dense cell
    /// is kept at once).
    pub min_support: usize,
    /// Frames remembered at most.
    pub max_frames: usize,
}

impl Default for PersistConfig {
    fn default() -> Self {
        Self {
            cell_m: 0.25,
            min_points: 6,
            base_reach_m: 0.25,
            max_speed_mps: 2.0,
            window_ns: 700_000_000,
            min_support: 1,
            max_frames: 4,
        }
    }
}

/// The cell of `p` on a `cell_m` grid (`None` for a non-finite point).
pub fn cell_of(p: &[f32; 3], cell_m: f32) -> Option<(i32, i32)> {
    if !(p[0].is_finite() && p[1].is_finite()) {
        return None;
    }
    Some((
        (p[0] / cell_m).floor() as i32,
        (p[1] / cell_m).floor() as i32,
    ))
}

/// The cells of `points` holding at least `min_points` of them (counts in `counts`,
/// cleared first).
pub fn dense_cells(
    points: &[[f32; 3]],
    cell_m: f32,
    min_points: u32,
    counts: &mut CellMap<u32>,
) -> CellSet {
    counts.clear();
    for p in points {
        if let Some(c) = cell_of(p, cell_m) {
            *counts.entry(c).or_insert(0) += 1;
        }
    }
    counts
        .iter()
        .filter(|(_, &n)| n >= min_points)
        .map(|(&c, _)| c)
        .collect()
}

/// Whether at least `need` of `earlier` (each a frame's dense cells with its reach in
/// cells) hold a dense cell within that reach of `c`.
pub fn supported(c: (i32, i32), earlier: &[(&CellSet, i32)], need: usize) -> bool {
    let n = earlier
        .iter()
        .filter(|(cells, reach)| {
            let r = (*reach).max(0);
            (-r..=r).any(|i| (-r..=r).any(|j| cells.contains(&(c.0 + i, c.1 + j))))
        })
        .count();
    n >= need
}

/// Dense cells of the last few frames; see the module documentation.
#[derive(Debug, Clone)]
pub struct Persistence {
    cfg: PersistConfig,
    frames: VecDeque<(i64, CellSet)>,
    counts: CellMap<u32>,
}

impl Persistence {
    /// An empty history.
    pub fn new(cfg: PersistConfig) -> Self {
        Self {
            frames: VecDeque::with_capacity(cfg.max_frames.max(1)),
            cfg,
            counts: CellMap::default(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &PersistConfig {
        &self.cfg
    }

    /// Appends to `out` the points of the frame captured at `capture_ns` that lie in
    /// dense, supported cells, and remembers the frame's dense cells. Returns how many
    /// were kept.
    pub fn filter(
        &mut self,
        capture_ns: i64,
        points: &[[f32; 3]],
        out: &mut Vec<[f32; 3]>,
    ) -> usize {
        let cfg = self.cfg;
        let cell_m = if cfg.cell_m.is_finite() && cfg.cell_m > 0.01 {
            cfg.cell_m
        } else {
            0.25
        };
        if cfg.min_support == 0 && cfg.min_points <= 1 {
            // Nothing to check: keep every finite point.
            let before = out.len();
            out.extend(points.iter().filter(|p| cell_of(p, cell_m).is_some()));
            return out.len() - before;
        }
        let dense = dense_cells(points, cell_m, cfg.min_points, &mut self.counts);
        // Earlier frames within the window (a frame from the future, out of order, is not
        // support).
        let earlier: Vec<(&CellSet, i32)> = self
            .frames
            .iter()
            .filter(|(t, _)| *t < capture_ns && capture_ns - *t <= cfg.window_ns)
            .map(|(t, cells)| {
                let dt = (capture_ns - *t) as f32 * 1e-9;
                let reach = (cfg.base_reach_m + cfg.max_speed_mps * dt) / cell_m;
                (cells, reach.ceil() as i32)
            })
            .collect();
        let mut keep: CellSet = CellSet::default();
        for &c in &dense {
            if supported(c, &earlier, cfg.min_support) {
                keep.insert(c);
            }
        }
        let before = out.len();
        out.extend(
            points
                .iter()
                .filter(|p| cell_of(p, cell_m).is_some_and(|c| keep.contains(&c))),
        );
        self.frames.push_back((capture_ns, dense));
        while self.frames.len() > cfg.max_frames.max(1) {
            self.frames.pop_front();
        }
        out.len() - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` points in a 10 cm patch around `(x, y)`, from 0.3 to 1.7 m up.
    fn blob(x: f32, y: f32, n: usize) -> Vec<[f32; 3]> {
        (0..n)
            .map(|i| {
                let a = i as f32 * 0.37;
                [
                    x + 0.05 * a.sin(),
                    y + 0.05 * a.cos(),
                    0.3 + 1.4 * (i as f32 / n as f32),
                ]
            })
            .collect()
    }

    const MS: i64 = 1_000_000;

    #[test]
    fn a_flickering_mismatch_is_dropped_and_a_walking_person_kept() {
        let mut f = Persistence::new(PersistConfig::default());
        let mut out = Vec::new();
        // Frame 1: a person at (3, 0) and a mismatch blob at (2, 1). Nothing has support
        // yet.
        let mut pts = blob(3.125, 0.125, 40);
        pts.extend(blob(2.125, 1.125, 30));
        assert_eq!(f.filter(0, &pts, &mut out), 0);
        // Frame 2, 200 ms later: the person walked 0.3 m along y; the mismatch is now
        // elsewhere (1.5 m away), and a single stray point sits on the old spot.
        let mut pts = blob(3.125, 0.425, 40);
        pts.extend(blob(3.625, 2.375, 30));
        pts.push([2.1, 1.1, 1.0]);
        out.clear();
        assert_eq!(f.filter(200 * MS, &pts, &mut out), 40);
        assert!(out
            .iter()
            .all(|p| (p[0] - 3.125).abs() < 0.1 && (p[1] - 0.425).abs() < 0.1));
        // Frame 3: the person again, kept; the mismatch from frame 2 did not repeat.
        out.clear();
        assert_eq!(f.filter(400 * MS, &blob(3.125, 0.725, 40), &mut out), 40);
    }

    #[test]
    fn sparse_cells_old_frames_and_far_jumps_give_no_support() {
        let cfg = PersistConfig::default();
        let mut f = Persistence::new(cfg);
        let mut out = Vec::new();
        // A sparse patch (fewer than min_points) is never kept, however often it repeats.
        for k in 0..4 {
            assert_eq!(f.filter(k * 200 * MS, &blob(1.125, 1.125, 5), &mut out), 0);
        }
        // A dense patch seen once, then again after the window: no support.
        let mut f = Persistence::new(cfg);
        f.filter(0, &blob(1.125, 1.125, 20), &mut out);
        assert_eq!(
            f.filter(cfg.window_ns + 100 * MS, &blob(1.125, 1.125, 20), &mut out),
            0
        );
        // A dense patch that jumps 2 m in 200 ms (faster than anyone walks): no support.
        let mut f = Persistence::new(cfg);
        f.filter(0, &blob(1.125, 1.125, 20), &mut out);
        assert_eq!(f.filter(200 * MS, &blob(3.125, 1.125, 20), &mut out), 0);
        // Over 700 ms the reach is 0.25 + 2 × 0.7 = 1.65 m: a 2 m jump is still beyond it.
        let mut f = Persistence::new(cfg);
        f.filter(0, &blob(1.125, 1.125, 20), &mut out);
        assert_eq!(f.filter(700 * MS, &blob(3.125, 1.125, 20), &mut out), 0);
        // A 1 m move over 400 ms is within reach (0.25 + 0.8 = 1.05 m).
        let mut f = Persistence::new(cfg);
        f.filter(0, &blob(1.125, 1.125, 20), &mut out);
        assert_eq!(f.filter(400 * MS, &blob(2.125, 1.125, 20), &mut out), 20);
    }

    #[test]
    fn supported_counts_frames_within_their_reach() {
        let a: CellSet = [(0, 0)].into_iter().collect();
        let b: CellSet = [(5, 5)].into_iter().collect();
        assert!(supported((1, 1), &[(&a, 1)], 1));
        assert!(!supported((2, 0), &[(&a, 1)], 1));
        assert!(supported((2, 0), &[(&a, 2)], 1));
        assert!(!supported((1, 1), &[(&a, 1), (&b, 1)], 2));
        assert!(supported((4, 4), &[(&a, 4), (&b, 1)], 2));
        let mut counts = CellMap::default();
        let d = dense_cells(
            &[[0.1, 0.1, 1.0], [0.2, 0.2, 1.0], [0.6, 0.1, 1.0]],
            0.25,
            2,
            &mut counts,
        );
        assert_eq!(d.into_iter().collect::<Vec<_>>(), vec![(0, 0)]);
        assert_eq!(counts.get(&(2, 0)), Some(&1));
    }
}
