//! Eye gaze toward scripted targets (pure compute): yaw and pitch in the central pupil frame
//! (CPF, x left, y up, z forward) with the MPS convention `dir ∝ [tan yaw, tan pitch, 1]`,
//! and the vergence depth. Eyes cannot look behind: angles are clamped to ±[`MAX_EYE_RAD`].

use nalgebra::{Point3, Vector3};

use super::scenario::GazeTarget;
use super::trajectory::WearerPath;

/// Largest eye rotation, rad (≈ 45°).
pub const MAX_EYE_RAD: f64 = 0.785;

/// Gaze at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Gaze {
    /// Yaw in CPF, rad.
    pub yaw_rad: f64,
    /// Pitch in CPF, rad.
    pub pitch_rad: f64,
    /// Distance to the fixated point, m (`None` when no target is scripted).
    pub depth_m: Option<f64>,
    /// Label of the target, if any.
    pub target: Option<String>,
    /// Whether the target is within the eyes' range (not clamped).
    pub reachable: bool,
}

/// Yaw, pitch (CPF, rad) and distance of a point given in CPF coordinates.
pub fn yaw_pitch_of(p_cpf: &Vector3<f64>) -> (f64, f64, f64) {
    (p_cpf.x.atan2(p_cpf.z), p_cpf.y.atan2(p_cpf.z), p_cpf.norm())
}

/// The gaze at `t_s` toward the first target active then (straight ahead otherwise).
pub fn gaze_at(path: &WearerPath, targets: &[GazeTarget], t_s: f64) -> Gaze {
    let Some(tg) = targets.iter().find(|g| g.from_s <= t_s && t_s < g.to_s) else {
        return Gaze {
            yaw_rad: 0.0,
            pitch_rad: 0.0,
            depth_m: None,
            target: None,
            reachable: true,
        };
    };
    let p = Point3::new(tg.point_m[0], tg.point_m[1], tg.point_m[2]);
    let p_cpf = (path.t_world_cpf(t_s).inverse() * p).coords;
    let (yaw, pitch, depth) = yaw_pitch_of(&p_cpf);
    let reachable = p_cpf.z > 0.0 && yaw.abs() <= MAX_EYE_RAD && pitch.abs() <= MAX_EYE_RAD;
    Gaze {
        yaw_rad: yaw.clamp(-MAX_EYE_RAD, MAX_EYE_RAD),
        pitch_rad: pitch.clamp(-MAX_EYE_RAD, MAX_EYE_RAD),
        depth_m: Some(depth),
        target: Some(tg.label.clone()),
        reachable,
    }
}
