//! Which two SLAM cameras make the stereo pair for depth, chosen from the calibration: Gen1
//! has two, Gen2 four (two looking ahead, two to the sides). The pair that sees most of the
//! space ahead of the wearer with both cameras wins, among pairs whose baseline is wide
//! enough to triangulate; the camera on the wearer's left is the pair's left.

use nalgebra::{Point3, Vector3};

use super::camera::CameraCalibration;
use super::device::DeviceCalibration;
use crate::sample::StreamId;

/// The SLAM cameras' labels, Gen1 and Gen2.
pub const SLAM_LABELS: [&str; 6] = [
    "camera-slam-left",
    "camera-slam-right",
    "slam-front-left",
    "slam-front-right",
    "slam-side-left",
    "slam-side-right",
];

/// Shortest baseline that still triangulates at walking distances, m (Gen1's pair is 11 cm
/// apart, Gen2's front pair 13 cm).
pub const MIN_BASELINE_M: f64 = 0.05;
/// Distance of the sampled points ahead, m (where hazards are met).
pub const PROBE_DISTANCE_M: f64 = 3.0;
/// Half-widths of the sampled field ahead, degrees: horizontal, vertical (walking: the path
/// and what is beside it, from the feet to above the head).
pub const PROBE_HALF_FIELD_DEG: (f64, f64) = (50.0, 40.0);
/// Samples per axis of the field.
const PROBE_STEPS: usize = 21;

/// The chosen pair: labels, how much of the field ahead both see, and their baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct StereoPair {
    /// Label of the camera on the wearer's left.
    pub left: String,
    /// Label of the camera on the wearer's right.
    pub right: String,
    /// Share of the sampled field ahead that both cameras see, 0..1.
    pub overlap: f64,
    /// Distance between the two cameras, m.
    pub baseline_m: f64,
}

/// Whether a camera sees a device-frame point (inside its cone and valid image region).
fn sees(cam: &CameraCalibration, p: &Point3<f64>) -> bool {
    cam.project_device(p).is_some()
}

impl DeviceCalibration {
    /// The SLAM pair with the widest shared view ahead (ties: the wider baseline), among
    /// pairs at least [`MIN_BASELINE_M`] apart; `None` with fewer than two SLAM cameras.
    /// "Ahead" is the central pupil frame's forward axis, "left" its +x.
    pub fn stereo_pair(&self) -> Option<StereoPair> {
        let cams: Vec<&CameraCalibration> = self
            .cameras
            .iter()
            .filter(|c| SLAM_LABELS.contains(&c.label.as_str()))
            .collect();
        let t_device_cpf = self.t_device_cpf();
        let (hx, hy) = PROBE_HALF_FIELD_DEG;
        let mut probes = Vec::with_capacity(PROBE_STEPS * PROBE_STEPS);
        for i in 0..PROBE_STEPS {
            for j in 0..PROBE_STEPS {
                let f = |k: usize, half: f64| {
                    (half * (2.0 * k as f64 / (PROBE_STEPS - 1) as f64 - 1.0)).to_radians()
                };
                let (yaw, pitch) = (f(i, hx), f(j, hy));
                // CPF: x left, y up, z forward.
                let dir = Vector3::new(
                    yaw.sin() * pitch.cos(),
                    pitch.sin(),
                    yaw.cos() * pitch.cos(),
                );
                probes.push(t_device_cpf * Point3::from(dir * PROBE_DISTANCE_M));
            }
        }
        let left_of = |c: &CameraCalibration| {
            (t_device_cpf.inverse() * Point3::from(c.t_device_camera.translation.vector)).x
        };
        let mut best: Option<StereoPair> = None;
        for (a_i, a) in cams.iter().enumerate() {
            for b in cams.iter().skip(a_i + 1) {
                let baseline_m = (a.t_device_camera.translation.vector
                    - b.t_device_camera.translation.vector)
                    .norm();
                if baseline_m < MIN_BASELINE_M {
                    continue;
                }
                let both = probes.iter().filter(|p| sees(a, p) && sees(b, p)).count();
                let overlap = both as f64 / probes.len() as f64;
                let (l, r) = if left_of(a) >= left_of(b) {
                    (a, b)
                } else {
                    (b, a)
                };
                let better = match &best {
                    None => true,
                    Some(p) => {
                        overlap > p.overlap + 1e-12
                            || ((overlap - p.overlap).abs() <= 1e-12 && baseline_m > p.baseline_m)
                    }
                };
                if better {
                    best = Some(StereoPair {
                        left: l.label.clone(),
                        right: r.label.clone(),
                        overlap,
                        baseline_m,
                    });
                }
            }
        }
        best
    }

    /// The vista stream each of `labels` (a device's SLAM cameras) plays, on a device with
    /// more than the pair: the stereo pair's cameras are `camera-slam-left` and
    /// `camera-slam-right` (what depth and motion read), the others the side streams, the one
    /// further to the wearer's left `camera-slam-side-left`. Empty when the calibration
    /// names no pair or `labels` holds two cameras or fewer (Gen1: its two are the pair).
    pub fn slam_roles<'a>(&self, labels: &[&'a str]) -> Vec<(&'a str, StreamId)> {
        if labels.len() <= 2 {
            return Vec::new();
        }
        let Some(pair) = self.stereo_pair() else {
            return Vec::new();
        };
        let t_cpf_device = self.t_device_cpf().inverse();
        let x_left = |label: &str| {
            self.camera(label).map_or(0.0, |c| {
                (t_cpf_device * Point3::from(c.t_device_camera.translation.vector)).x
            })
        };
        let mut out = Vec::with_capacity(labels.len());
        let mut others: Vec<(&'a str, f64)> = Vec::new();
        for &label in labels {
            if label == pair.left {
                out.push((label, StreamId::CameraSlamLeft));
            } else if label == pair.right {
                out.push((label, StreamId::CameraSlamRight));
            } else {
                others.push((label, x_left(label)));
            }
        }
        others.sort_by(|a, b| b.1.total_cmp(&a.1));
        out.extend(
            others
                .iter()
                .zip([StreamId::CameraSlamSideLeft, StreamId::CameraSlamSideRight])
                .map(|((label, _), stream)| (*label, stream)),
        );
        out
    }
}
