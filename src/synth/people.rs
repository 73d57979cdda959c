//! People as moving bodies (pure compute): each scenario person is a vertical cylinder at
//! its path position at a given time, for the renderer, the semi-dense points and the
//! ground truth.

use super::render::{Cylinder, Rgb};
use super::scenario::World;

/// Clothing colours, by person index (distinct from the world's surfaces).
pub const PERSON_RGB: [Rgb; 3] = [[0.70, 0.15, 0.15], [0.15, 0.25, 0.65], [0.55, 0.20, 0.55]];

/// Replaces `out` with the cylinders of `world`'s people at `t_s` (no allocation once
/// `out` has the capacity).
pub fn person_cylinders(world: &World, t_s: f64, out: &mut Vec<Cylinder>) {
    out.clear();
    for (i, p) in world.people.iter().enumerate() {
        let [x, y] = p.position_at(t_s);
        out.push(Cylinder {
            base_m: [x, y, world.floor_z_m],
            radius_m: p.radius_m,
            height_m: p.height_m,
            rgb: PERSON_RGB[i % PERSON_RGB.len()],
        });
    }
}
