//! People and vehicles as moving bodies (pure compute): each scenario person is a body
//! cylinder with a skin-coloured head set forward toward the way they face (so facing is
//! visible) and, while waving, a raised hand swinging beside the head; each vehicle is a
//! box at its path position. For the renderer, the semi-dense points and the ground truth.

use super::hands::SKIN_RGB;
use super::render::{Aabb, Cylinder, Rgb};
use super::scenario::World;

/// Clothing colours, by person index (distinct from the world's surfaces).
pub const PERSON_RGB: [Rgb; 3] = [[0.70, 0.15, 0.15], [0.15, 0.25, 0.65], [0.55, 0.20, 0.55]];
/// Vehicle colours, by vehicle index.
pub const VEHICLE_RGB: [Rgb; 3] = [[0.80, 0.75, 0.20], [0.25, 0.30, 0.35], [0.85, 0.85, 0.85]];
/// Head height (from chin to crown), m.
pub const HEAD_HEIGHT_M: f64 = 0.24;
/// Head radius, m.
pub const HEAD_RADIUS_M: f64 = 0.09;
/// How far the head sits forward of the body's axis, toward the facing direction, m.
pub const HEAD_FORWARD_M: f64 = 0.1;
/// Waving hand: height of its centre above the crown, m.
pub const WAVE_ABOVE_CROWN_M: f64 = 0.1;
/// Waving hand: distance to the side of the body's axis at rest, m.
pub const WAVE_SIDE_M: f64 = 0.35;
/// Waving hand: swing amplitude sideways, m, and frequency, Hz.
pub const WAVE_SWING_M: f64 = 0.12;
/// Waving frequency, Hz.
pub const WAVE_HZ: f64 = 2.0;

/// Replaces `out` with the cylinders of `world`'s people at `t_s`: body, head and (while
/// waving) the raised hand (no allocation once `out` has the capacity).
pub fn person_cylinders(world: &World, t_s: f64, out: &mut Vec<Cylinder>) {
    out.clear();
    for (i, p) in world.people.iter().enumerate() {
        let [x, y] = p.position_at(t_s);
        let yaw = p.facing_at(t_s);
        let (c, s) = (yaw.cos(), yaw.sin());
        let body_h = (p.height_m - HEAD_HEIGHT_M).max(p.height_m * 0.5);
        out.push(Cylinder {
            base_m: [x, y, world.floor_z_m],
            radius_m: p.radius_m,
            height_m: body_h,
            rgb: PERSON_RGB[i % PERSON_RGB.len()],
        });
        let fwd = HEAD_FORWARD_M.min(p.radius_m);
        out.push(Cylinder {
            base_m: [x + c * fwd, y + s * fwd, world.floor_z_m + body_h],
            radius_m: HEAD_RADIUS_M,
            height_m: p.height_m - body_h,
            rgb: SKIN_RGB,
        });
        if p.waving_at(t_s) {
            // The right hand (to the right of the facing direction: yaw − 90°), swinging.
            let swing = WAVE_SWING_M * (2.0 * std::f64::consts::PI * WAVE_HZ * t_s).sin();
            let side = WAVE_SIDE_M + swing;
            out.push(Cylinder {
                base_m: [
                    x + s * side,
                    y - c * side,
                    world.floor_z_m + p.height_m + WAVE_ABOVE_CROWN_M
                        - super::hands::HAND_HEIGHT_M / 2.0,
                ],
                radius_m: super::hands::HAND_RADIUS_M,
                height_m: super::hands::HAND_HEIGHT_M,
                rgb: SKIN_RGB,
            });
        }
    }
}

/// The axis-aligned box around a `length × width` footprint centred at `[x, y]` with
/// heading `yaw` rad, `height` m tall on a floor at `z`.
pub fn footprint_box(x: f64, y: f64, yaw: f64, size_m: [f64; 3], z: f64, rgb: Rgb) -> Aabb {
    let (c, s) = (yaw.cos().abs(), yaw.sin().abs());
    let (hl, hw) = (size_m[0] / 2.0, size_m[1] / 2.0);
    let (ex, ey) = (hl * c + hw * s, hl * s + hw * c);
    Aabb {
        min_m: [x - ex, y - ey, z],
        max_m: [x + ex, y + ey, z + size_m[2]],
        rgb,
    }
}

/// Appends to `out` the boxes of `world`'s vehicles at `t_s` (the axis-aligned box around
/// each one's rotated footprint: exact for vehicles driving along x or y).
pub fn vehicle_boxes(world: &World, t_s: f64, out: &mut Vec<Aabb>) {
    for (i, v) in world.vehicles.iter().enumerate() {
        let [x, y] = v.position_at(t_s);
        out.push(footprint_box(
            x,
            y,
            v.heading_at(t_s),
            v.size_m,
            world.floor_z_m,
            VEHICLE_RGB[i % VEHICLE_RGB.len()],
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::scenario::Person;

    fn person(path: Vec<[f64; 2]>, facing_deg: Option<f64>) -> Person {
        Person {
            label: "p".into(),
            path_m: path,
            speed_mps: 1.0,
            start_s: 1.0,
            radius_m: 0.25,
            height_m: 1.75,
            hazard: false,
            facing_deg,
            wave_s: Some([2.0, 3.0]),
        }
    }

    #[test]
    fn the_head_sits_forward_toward_the_facing_direction() {
        // Walks +x from (0,0) to (2,0) between 1 s and 3 s, then faces +y (90°).
        let w = World {
            people: vec![person(vec![[0.0, 0.0], [2.0, 0.0]], Some(90.0))],
            ..World::default()
        };
        let mut out = Vec::new();
        person_cylinders(&w, 1.5, &mut out);
        assert_eq!(out.len(), 2, "not waving yet: body and head");
        assert!((out[0].base_m[0] - 0.5).abs() < 1e-12);
        // Walking +x: head 0.1 m ahead in x.
        assert!((out[1].base_m[0] - 0.6).abs() < 1e-12 && out[1].base_m[1].abs() < 1e-12);
        assert!((out[1].base_m[2] + out[1].height_m - 1.75).abs() < 1e-12);
        person_cylinders(&w, 2.5, &mut out);
        assert_eq!(out.len(), 3, "waving: a raised hand");
        assert!(out[2].base_m[2] > 1.75, "the waving hand is above the head");
        person_cylinders(&w, 4.0, &mut out);
        // Standing at (2,0) facing +y.
        assert!((out[1].base_m[0] - 2.0).abs() < 1e-12 && (out[1].base_m[1] - 0.1).abs() < 1e-12);
    }

    #[test]
    fn vehicle_footprints_turn_with_the_heading() {
        let b = footprint_box(0.0, 0.0, 0.0, [4.0, 2.0, 1.5], 0.0, [0.0; 3]);
        assert_eq!((b.min_m, b.max_m), ([-2.0, -1.0, 0.0], [2.0, 1.0, 1.5]));
        let b = footprint_box(
            1.0,
            0.0,
            std::f64::consts::FRAC_PI_2,
            [4.0, 2.0, 1.5],
            0.0,
            [0.0; 3],
        );
        assert!((b.min_m[0] - 0.0).abs() < 1e-12 && (b.max_m[1] - 2.0).abs() < 1e-12);
    }
}
