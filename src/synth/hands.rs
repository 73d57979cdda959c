//! Hands of the wearer during `reach` actions (pure compute): the reaching hand's palm
//! moves from beside the hip toward the target (out, hold, back in equal thirds, C²
//! smootherstep), stopping at arm's length [`ARM_REACH_M`] from the shoulder; the wrist is
//! [`WRIST_TO_PALM_M`] behind the palm along the arm. Written as MPS
//! `wrist_and_palm_poses.csv` (v1 columns, device frame, confidence −1 for a hand not
//! tracked), one row per SLAM frame time. The cameras see the reaching hand as a small
//! skin-coloured cylinder at the palm ([`hand_cylinders`]). With an error model the
//! written keypoints carry a per-reach offset and per-sample noise
//! ([`super::mps_noise::HandError`]); the drawn hand is the true one.

use std::fmt::Write as _;

use nalgebra::{Point3, Vector3};

use super::mps_noise::{HandError, MpsErrorSpec};
use super::rng::SplitMix64;
use super::scenario::{Action, Hand};
use super::sensors::sample_times;
use super::trajectory::WearerPath;

/// Header of `wrist_and_palm_poses.csv` (MPS v1).
pub const WRIST_PALM_HEADER: &str = "tracking_timestamp_us,left_tracking_confidence,tx_left_wrist_device,ty_left_wrist_device,tz_left_wrist_device,tx_left_palm_device,ty_left_palm_device,tz_left_palm_device,right_tracking_confidence,tx_right_wrist_device,ty_right_wrist_device,tz_right_wrist_device,tx_right_palm_device,ty_right_palm_device,tz_right_palm_device";

/// Longest shoulder-to-palm distance, m.
pub const ARM_REACH_M: f64 = 0.65;
/// Wrist to palm centre, m.
pub const WRIST_TO_PALM_M: f64 = 0.08;
/// Shoulder below the eyes, m.
pub const SHOULDER_DROP_M: f64 = 0.25;
/// Shoulder beside the body's centre line, m.
pub const SHOULDER_HALF_WIDTH_M: f64 = 0.18;
/// Tracking confidence written for a tracked hand.
pub const CONFIDENCE: f64 = 0.95;

/// One reach of the script.
#[derive(Debug, Clone, PartialEq)]
pub struct Reach {
    /// What is reached for.
    pub label: String,
    /// Which hand.
    pub hand: Hand,
    /// Target, m (world).
    pub target_m: [f64; 3],
    /// Start, s.
    pub from_s: f64,
    /// End, s.
    pub to_s: f64,
}

/// The reaches of a path's script, in order.
pub fn reaches(path: &WearerPath) -> Vec<Reach> {
    path.actions()
        .filter_map(|(start, dur, a)| match a {
            Action::Reach {
                label,
                target_m,
                hand,
                ..
            } => Some(Reach {
                label: label.clone(),
                hand: *hand,
                target_m: *target_m,
                from_s: start,
                to_s: start + dur,
            }),
            _ => None,
        })
        .collect()
}

fn smootherstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * x * (x * (6.0 * x - 15.0) + 10.0)
}

/// World positions `(wrist, palm)` of the reaching hand at `t_s`, or `None` outside the
/// reach.
pub fn hand_world(path: &WearerPath, r: &Reach, t_s: f64) -> Option<(Vector3<f64>, Vector3<f64>)> {
    if !(r.from_s..=r.to_s).contains(&t_s) || r.to_s <= r.from_s {
        return None;
    }
    let x = (t_s - r.from_s) / (r.to_s - r.from_s);
    let out = if x < 1.0 / 3.0 {
        smootherstep(3.0 * x)
    } else if x < 2.0 / 3.0 {
        1.0
    } else {
        1.0 - smootherstep(3.0 * x - 2.0)
    };
    let head = path.head(t_s);
    let fwd = Vector3::new(head.yaw_rad.cos(), head.yaw_rad.sin(), 0.0);
    let left = Vector3::new(-fwd.y, fwd.x, 0.0);
    let side = match r.hand {
        Hand::Left => 1.0,
        Hand::Right => -1.0,
    };
    let shoulder = head.position_m - Vector3::z() * SHOULDER_DROP_M
        + left * (side * SHOULDER_HALF_WIDTH_M)
        - fwd * 0.05;
    let rest = shoulder + Vector3::new(0.0, 0.0, -0.55) + fwd * 0.2;
    let target = Vector3::new(r.target_m[0], r.target_m[1], r.target_m[2]);
    let to_target = target - shoulder;
    let reach = to_target.norm().min(ARM_REACH_M);
    let goal = shoulder + to_target.try_normalize(1e-9).unwrap_or(fwd) * reach;
    let palm = rest + (goal - rest) * out;
    let arm = (palm - shoulder).try_normalize(1e-9).unwrap_or(fwd);
    Some((palm - arm * WRIST_TO_PALM_M, palm))
}

/// Skin colour of the drawn hand.
pub const SKIN_RGB: super::render::Rgb = [0.86, 0.66, 0.52];
/// Radius of the drawn hand, m.
pub const HAND_RADIUS_M: f64 = 0.045;
/// Height of the drawn hand, m.
pub const HAND_HEIGHT_M: f64 = 0.11;

/// Appends to `out` the reaching hands at `t_s`, drawn as small upright skin-coloured
/// cylinders centred on the palm (so the cameras and the semi-dense map see them).
pub fn hand_cylinders(
    path: &WearerPath,
    reaches: &[Reach],
    t_s: f64,
    out: &mut Vec<super::render::Cylinder>,
) {
    for r in reaches {
        if let Some((_, palm)) = hand_world(path, r, t_s) {
            out.push(super::render::Cylinder {
                base_m: [palm.x, palm.y, palm.z - HAND_HEIGHT_M / 2.0],
                radius_m: HAND_RADIUS_M,
                height_m: HAND_HEIGHT_M,
                rgb: SKIN_RGB,
            });
        }
    }
}

/// The wearer's hands as a tracker reports them: each reach with a drawn offset and every
/// sample with noise ([`HandError`]), or exact without an error model.
pub struct TrackedHands<'a> {
    reaches: &'a [Reach],
    errors: Vec<HandError>,
    rng: Option<&'a mut SplitMix64>,
}

impl<'a> TrackedHands<'a> {
    /// The hands of `reaches`; with `error`, one offset per reach is drawn now and the
    /// samples' noise later, from its generator.
    pub fn new(reaches: &'a [Reach], error: Option<(&MpsErrorSpec, &'a mut SplitMix64)>) -> Self {
        match error {
            Some((spec, rng)) => Self {
                reaches,
                errors: reaches.iter().map(|_| HandError::new(spec, rng)).collect(),
                rng: Some(rng),
            },
            None => Self {
                reaches,
                errors: Vec::new(),
                rng: None,
            },
        }
    }

    /// Wrist and palm of the left and right hand at `t_s`, device frame, m (`None`: that
    /// hand is not reaching).
    pub fn device_at(
        &mut self,
        path: &WearerPath,
        t_s: f64,
    ) -> [Option<(Point3<f64>, Point3<f64>)>; 2] {
        let t_device_world = path.t_world_device(t_s).inverse();
        [Hand::Left, Hand::Right].map(|hand| {
            let (i, (w, p)) = self
                .reaches
                .iter()
                .enumerate()
                .filter(|(_, r)| r.hand == hand)
                .find_map(|(i, r)| hand_world(path, r, t_s).map(|wp| (i, wp)))?;
            let (w, p) = match (self.errors.get(i), self.rng.as_deref_mut()) {
                (Some(e), Some(rng)) => (e.disturb(&w, rng), e.disturb(&p, rng)),
                _ => (w, p),
            };
            Some((
                t_device_world * Point3::from(w),
                t_device_world * Point3::from(p),
            ))
        })
    }
}

/// `wrist_and_palm_poses.csv` at `rate_hz` from `t0_ns` over `duration_s`; with `error`,
/// keypoints as tracked (offset per reach, noise per sample), otherwise exact.
pub fn wrist_palm_csv(
    path: &WearerPath,
    reaches: &[Reach],
    t0_ns: i64,
    rate_hz: f64,
    duration_s: f64,
    error: Option<(&MpsErrorSpec, &mut SplitMix64)>,
) -> String {
    let mut out = String::with_capacity((duration_s * rate_hz) as usize * 160 + 400);
    out.push_str(WRIST_PALM_HEADER);
    out.push('\n');
    let mut hands = TrackedHands::new(reaches, error);
    for (t_ns, t_s) in sample_times(t0_ns, rate_hz, duration_s) {
        let _ = write!(out, "{}", t_ns / 1000);
        for side in hands.device_at(path, t_s) {
            match side {
                Some((w, p)) => {
                    let _ = write!(
                        out,
                        ",{CONFIDENCE},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6}",
                        w.x, w.y, w.z, p.x, p.y, p.z
                    );
                }
                None => out.push_str(",-1,0,0,0,0,0,0"),
            }
        }
        out.push('\n');
    }
    out
}
