//! The static-map filter (pure): a stereo point lying on something the static map already
//! holds adds nothing (the corridor analysis sees the map's own points there), while its
//! depth noise can only add phantoms beside the real surface. Depth is kept for what the
//! map lacks — people and other things that move or appeared since the map saw the place.
//!
//! The map's points near the wearer go into a [`VoxelSet`] (a 3-D grid of occupied
//! cells); a stereo point is *explained* when an occupied cell lies within `reach` cells
//! of its own in every axis.

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
}
