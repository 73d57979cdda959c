//! Error models of the synthetic MPS outputs (pure compute): what Meta's Machine Perception
//! Services would write for the simulated wearer, instead of the simulator's exact truth.
//! Magnitudes and the sources they rest on are in `docs/synthetic.md`; every draw comes from
//! a named [`SplitMix64`] sub-stream of the session seed, so a seed gives the same files.
//!
//! - Trajectory: a slowly varying position and yaw error (a second-order Gauss–Markov
//!   process: two first-order low-pass stages over white noise, stationary, so a closed loop
//!   that does not drift away) plus small white jitter ([`TrajectoryError`]); the
//!   semi-dense points carry the same slow error as the pose they were seen from
//!   ([`PoseError::map_point`]), as a jointly estimated map does.
//! - Eye gaze: a per-session bias plus per-sample noise on yaw and pitch, and the vergence
//!   depth disturbed through a vergence-angle error ([`GazeError`]).
//! - Semi-dense points: `inv_dist_std` drawn log-normally per point as in a real MPS map,
//!   the position displaced along its observing ray by an inverse-distance error of that
//!   size, and a small fraction of outliers whose error is several times what they report
//!   ([`MpsErrorSpec::point_inv_dist_std`], [`MpsErrorSpec::point_error_inv_m`]).
//! - Hands: a per-reach offset plus per-sample noise on wrist and palm ([`HandError`]).

use nalgebra::{Isometry3, UnitQuaternion, Vector3};

use super::rng::SplitMix64;

/// Magnitudes of every MPS error model.
#[derive(Debug, Clone, PartialEq)]
pub struct MpsErrorSpec {
    /// Stationary standard deviation of the slow horizontal position error, per axis, m.
    pub traj_slow_xy_m: f64,
    /// Stationary standard deviation of the slow vertical position error, m.
    pub traj_slow_z_m: f64,
    /// Stationary standard deviation of the slow yaw error, rad.
    pub traj_slow_yaw_rad: f64,
    /// Time constant of each of the two low-pass stages of the slow error, s.
    pub traj_slow_tau_s: f64,
    /// White position jitter, per axis, m.
    pub traj_white_m: f64,
    /// Rows at the start written with the lower quality score while tracking initialises, s.
    pub traj_init_s: f64,
    /// Quality score of the initialising rows (the real sample's first rows read 0.5).
    pub traj_init_quality: f32,
    /// Per-session gaze bias, per axis (yaw, pitch), standard deviation, rad.
    pub gaze_bias_rad: f64,
    /// Per-sample gaze noise, per axis, standard deviation, rad.
    pub gaze_noise_rad: f64,
    /// Half widths of the written confidence band (yaw, pitch), rad.
    pub gaze_band_rad: [f64; 2],
    /// Vergence-angle noise that disturbs the gaze depth, rad.
    pub gaze_vergence_rad: f64,
    /// Interpupillary distance used to turn vergence error into depth error, m.
    pub ipd_m: f64,
    /// Median of the per-point `inv_dist_std`, 1/m.
    pub point_inv_std_median: f64,
    /// Standard deviation of `ln(inv_dist_std)`.
    pub point_inv_std_log_sigma: f64,
    /// Bounds of the drawn `inv_dist_std`, 1/m.
    pub point_inv_std_range: [f64; 2],
    /// Fraction of points that are outliers.
    pub point_outlier_fraction: f64,
    /// An outlier's inverse-distance error, in multiples of its reported `inv_dist_std`
    /// (uniform magnitude within, either sign).
    pub point_outlier_sigmas: [f64; 2],
    /// Per-reach hand offset, per axis, standard deviation, m.
    pub hand_bias_m: f64,
    /// Per-sample hand keypoint noise, per axis, standard deviation, m.
    pub hand_noise_m: f64,
}

impl MpsErrorSpec {
    /// The magnitudes of the real products (sources and assumptions in `docs/synthetic.md`).
    pub const TYPICAL: MpsErrorSpec = MpsErrorSpec {
        traj_slow_xy_m: 0.02,
        traj_slow_z_m: 0.01,
        traj_slow_yaw_rad: 0.005,
        traj_slow_tau_s: 10.0,
        traj_white_m: 0.001,
        traj_init_s: 0.1,
        traj_init_quality: 0.5,
        gaze_bias_rad: 0.026,
        gaze_noise_rad: 0.017,
        gaze_band_rad: [0.0215, 0.0435],
        gaze_vergence_rad: 0.0087,
        ipd_m: 0.063,
        point_inv_std_median: 0.0026,
        point_inv_std_log_sigma: 1.3,
        point_inv_std_range: [1e-4, 0.2],
        point_outlier_fraction: 0.01,
        point_outlier_sigmas: [3.0, 10.0],
        hand_bias_m: 0.01,
        hand_noise_m: 0.008,
    };

    /// A point's `inv_dist_std`, 1/m: log-normal around [`Self::point_inv_std_median`],
    /// clamped to [`Self::point_inv_std_range`].
    pub fn point_inv_dist_std(&self, rng: &mut SplitMix64) -> f64 {
        let [lo, hi] = self.point_inv_std_range;
        (self.point_inv_std_median * (self.point_inv_std_log_sigma * rng.normal()).exp())
            .clamp(lo, hi)
    }

    /// The inverse-distance error actually applied to a point reporting `inv_dist_std`,
    /// 1/m: a normal draw of that size, or for an outlier (probability
    /// [`Self::point_outlier_fraction`]) [`Self::point_outlier_sigmas`] times it. Returns
    /// `(error, outlier)`.
    pub fn point_error_inv_m(&self, inv_dist_std: f64, rng: &mut SplitMix64) -> (f64, bool) {
        // Every draw is always taken, so the stream does not depend on the branch.
        let u = rng.uniform();
        let z = rng.normal();
        let v = rng.uniform();
        if u <= self.point_outlier_fraction {
            let [lo, hi] = self.point_outlier_sigmas;
            let k = lo + (hi - lo) * v;
            (k * inv_dist_std * z.signum(), true)
        } else {
            (z * inv_dist_std, false)
        }
    }
}

/// Distance along a ray after an inverse-distance error `err_inv_m` on a point at
/// `dist_m`, m (kept finite and positive: an error that would put the point at or behind
/// the camera puts it at 100× the distance, as a far, low-parallax point).
pub fn disturbed_distance_m(dist_m: f64, err_inv_m: f64) -> f64 {
    let inv = 1.0 / dist_m.max(1e-6) + err_inv_m;
    if inv <= 1.0 / (100.0 * dist_m.max(1e-6)) {
        100.0 * dist_m
    } else {
        1.0 / inv
    }
}

/// A second-order Gauss–Markov process (one channel): `x1` a unit-variance AR(1) of
/// coefficient `a = exp(−dt/τ)` over white noise, `x2` its first-order low-pass with the
/// same `a`; the output `gain·x2` has the stationary standard deviation asked for and a
/// rate that exists (what the velocity columns add).
#[derive(Debug, Clone)]
struct SlowProcess {
    a: f64,
    gain: f64,
    x1: f64,
    x2: f64,
}

impl SlowProcess {
    /// Stationary standard deviation `sigma`, stage time constant `tau_s`, step `dt_s`; the
    /// state starts from the stationary law of each stage (their correlation left out: a
    /// transient of about one τ).
    fn new(sigma: f64, tau_s: f64, dt_s: f64, rng: &mut SplitMix64) -> Self {
        let a = (-dt_s / tau_s.max(dt_s)).exp();
        let sd_x2 = stationary_var_x2(a).sqrt();
        let gain = sigma / sd_x2.max(1e-12);
        let x1 = rng.normal();
        let x2 = rng.normal() * sd_x2;
        Self { a, gain, x1, x2 }
    }

    fn step(&mut self, rng: &mut SplitMix64) -> f64 {
        let b = (1.0 - self.a * self.a).sqrt();
        self.x2 = self.a * self.x2 + (1.0 - self.a) * self.x1;
        self.x1 = self.a * self.x1 + b * rng.normal();
        self.gain * self.x2
    }
}

/// Stationary variance of `x2' = a·x2 + (1−a)·x1` with `x1` a unit-variance AR(1) of
/// coefficient `a`: `x2 = (1−a)·Σₖ aᵏ·x1[n−1−k]`, so its variance is
/// `(1−a)²·Σₖⱼ a^(k+j+|k−j|) = (1−a)²·Σₘ (2m+1)·a^(2m) = (1−a)²·(1+a²)/(1−a²)²`.
fn stationary_var_x2(a: f64) -> f64 {
    (1.0 - a).powi(2) * (1.0 + a * a) / (1.0 - a * a).powi(2)
}

/// One row's trajectory error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseError {
    /// Slow position error (world), m.
    pub position_m: Vector3<f64>,
    /// White position jitter of this row (world), m.
    pub jitter_m: Vector3<f64>,
    /// Yaw error about world z, rad.
    pub yaw_rad: f64,
    /// Rate of the slow position error (world), m/s.
    pub velocity_mps: Vector3<f64>,
    /// Rate of the yaw error, rad/s.
    pub yaw_rate_radps: f64,
}

impl PoseError {
    /// The rotation of the yaw error (applied on the world side).
    pub fn rotation(&self) -> UnitQuaternion<f64> {
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), self.yaw_rad)
    }

    /// The estimate of a true device pose: rotated by the yaw error, moved by the slow
    /// error and the jitter.
    pub fn apply(&self, t_world_device: &Isometry3<f64>) -> Isometry3<f64> {
        let mut t = *t_world_device;
        t.rotation = self.rotation() * t.rotation;
        t.translation.vector += self.position_m + self.jitter_m;
        t
    }

    /// Where the map (estimated world frame) puts a true world point seen from a device at
    /// `device_m` (true, world) while this error held: the same slow error as the pose, so
    /// the device and what it sees stay consistent, as MPS estimates them jointly.
    pub fn map_point(&self, device_m: &Vector3<f64>, p_m: &Vector3<f64>) -> Vector3<f64> {
        device_m + self.position_m + self.rotation() * (p_m - device_m)
    }
}

/// The trajectory's error at every row of a session (rows at `rate_hz` from 0 s): a slow
/// position (x, y, z) and yaw error with its rate, and white position jitter.
#[derive(Debug, Clone)]
pub struct TrajectoryError {
    rate_hz: f64,
    rows: Vec<PoseError>,
}

impl TrajectoryError {
    /// Draws the error of `duration_s` of rows at `rate_hz`.
    pub fn new(spec: &MpsErrorSpec, rate_hz: f64, duration_s: f64, rng: &mut SplitMix64) -> Self {
        let rate_hz = rate_hz.max(1e-3);
        let dt = 1.0 / rate_hz;
        let tau = spec.traj_slow_tau_s;
        let mut slow = [
            SlowProcess::new(spec.traj_slow_xy_m, tau, dt, rng),
            SlowProcess::new(spec.traj_slow_xy_m, tau, dt, rng),
            SlowProcess::new(spec.traj_slow_z_m, tau, dt, rng),
            SlowProcess::new(spec.traj_slow_yaw_rad, tau, dt, rng),
        ];
        let n = (duration_s.max(0.0) * rate_hz).floor() as usize + 1;
        let mut rows: Vec<PoseError> = Vec::with_capacity(n);
        for _ in 0..n {
            let [x, y, z, yaw] = &mut slow;
            let p = Vector3::new(x.step(rng), y.step(rng), z.step(rng));
            let yaw = yaw.step(rng);
            let (v, w) = match rows.last() {
                Some(l) => ((p - l.position_m) * rate_hz, (yaw - l.yaw_rad) * rate_hz),
                None => (Vector3::zeros(), 0.0),
            };
            let jitter = Vector3::new(rng.normal(), rng.normal(), rng.normal()) * spec.traj_white_m;
            rows.push(PoseError {
                position_m: p,
                jitter_m: jitter,
                yaw_rad: yaw,
                velocity_mps: v,
                yaw_rate_radps: w,
            });
        }
        // The first row's rate is the second's (no row before it).
        if let Some(second) = rows.get(1).copied() {
            if let Some(first) = rows.first_mut() {
                first.velocity_mps = second.velocity_mps;
                first.yaw_rate_radps = second.yaw_rate_radps;
            }
        }
        Self { rate_hz, rows }
    }

    /// The error of the row nearest `t_s` (the last row beyond the end; `None` when empty).
    pub fn at(&self, t_s: f64) -> Option<&PoseError> {
        let i = (t_s.max(0.0) * self.rate_hz).round() as usize;
        self.rows.get(i.min(self.rows.len().saturating_sub(1)))
    }
}

/// The gaze error of one session: a fixed bias plus per-sample noise.
#[derive(Debug, Clone)]
pub struct GazeError {
    bias_rad: [f64; 2],
    noise_rad: f64,
    vergence_rad: f64,
    ipd_m: f64,
}

impl GazeError {
    /// Draws the session's bias.
    pub fn new(spec: &MpsErrorSpec, rng: &mut SplitMix64) -> Self {
        Self {
            bias_rad: [
                rng.normal() * spec.gaze_bias_rad,
                rng.normal() * spec.gaze_bias_rad,
            ],
            noise_rad: spec.gaze_noise_rad,
            vergence_rad: spec.gaze_vergence_rad,
            ipd_m: spec.ipd_m,
        }
    }

    /// The session's bias (yaw, pitch), rad.
    pub fn bias_rad(&self) -> [f64; 2] {
        self.bias_rad
    }

    /// The estimate of one sample: `(yaw, pitch, depth)` from the true ones.
    pub fn disturb(
        &self,
        yaw_rad: f64,
        pitch_rad: f64,
        depth_m: Option<f64>,
        rng: &mut SplitMix64,
    ) -> (f64, f64, Option<f64>) {
        let (ny, np, nv) = (rng.normal(), rng.normal(), rng.normal());
        let yaw = yaw_rad + self.bias_rad[0] + ny * self.noise_rad;
        let pitch = pitch_rad + self.bias_rad[1] + np * self.noise_rad;
        // Vergence angle ≈ IPD / depth; its error moves the depth (more when far).
        let depth = depth_m.map(|d| {
            let verg = self.ipd_m / d.max(0.05) + nv * self.vergence_rad;
            if verg <= self.ipd_m / 20.0 {
                20.0
            } else {
                (self.ipd_m / verg).clamp(0.1, 20.0)
            }
        });
        (yaw, pitch, depth)
    }
}

/// The hand error of one reach: a fixed offset plus per-sample noise, per keypoint.
#[derive(Debug, Clone)]
pub struct HandError {
    bias_m: Vector3<f64>,
    noise_m: f64,
}

impl HandError {
    /// Draws one reach's offset.
    pub fn new(spec: &MpsErrorSpec, rng: &mut SplitMix64) -> Self {
        Self {
            bias_m: Vector3::new(rng.normal(), rng.normal(), rng.normal()) * spec.hand_bias_m,
            noise_m: spec.hand_noise_m,
        }
    }

    /// A keypoint `p` as tracked.
    pub fn disturb(&self, p: &Vector3<f64>, rng: &mut SplitMix64) -> Vector3<f64> {
        p + self.bias_m + Vector3::new(rng.normal(), rng.normal(), rng.normal()) * self.noise_m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_std(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n;
        (m, v.sqrt())
    }

    #[test]
    fn the_second_order_variance_matches_a_simulation() {
        let a: f64 = 0.9;
        let mut r = SplitMix64::new(1);
        let (mut x1, mut x2) = (0.0, 0.0);
        let b = (1.0 - a * a).sqrt();
        let mut xs = Vec::new();
        for i in 0..400_000 {
            x2 = a * x2 + (1.0 - a) * x1;
            x1 = a * x1 + b * r.normal();
            if i > 1000 {
                xs.push(x2);
            }
        }
        let (_, s) = mean_std(&xs);
        let want = stationary_var_x2(a).sqrt();
        assert!((s - want).abs() < 0.05 * want, "{s} vs {want}");
    }

    /// Over many independent sessions the slow error has the stated spread; it is slow
    /// (neighbouring rows almost equal) and its rate is what the velocity columns add.
    #[test]
    fn the_trajectory_error_has_the_stated_spread_and_is_slow() {
        let spec = MpsErrorSpec::TYPICAL;
        let mut xs = Vec::new();
        let mut yaws = Vec::new();
        for seed in 0..300 {
            let mut r = SplitMix64::new(seed);
            let e = TrajectoryError::new(&spec, 100.0, 20.0, &mut r);
            for i in 1..2000 {
                let (a, b) = (
                    e.at((i - 1) as f64 * 0.01).unwrap(),
                    e.at(i as f64 * 0.01).unwrap(),
                );
                // Slow: 10 ms apart the slow part moves by far less than its spread, and
                // by what its rate says.
                assert!((b.yaw_rad - a.yaw_rad).abs() < 0.05 * spec.traj_slow_yaw_rad);
                let step = (b.position_m - a.position_m) - b.velocity_mps * 0.01;
                assert!(step.norm() < 1e-12);
            }
            let last = e.at(20.0).unwrap();
            xs.push(last.position_m.x + last.jitter_m.x);
            yaws.push(last.yaw_rad);
        }
        let (m, s) = mean_std(&xs);
        // Zero noise gives s = 0, ten times the noise s ≈ 0.2: both fail.
        assert!(m.abs() < 0.006, "{m}");
        assert!((0.014..0.027).contains(&s), "{s}");
        let (_, sy) = mean_std(&yaws);
        assert!((0.0035..0.0068).contains(&sy), "{sy}");
    }

    #[test]
    fn the_gaze_error_has_the_stated_bias_and_noise() {
        let spec = MpsErrorSpec::TYPICAL;
        let mut biases = Vec::new();
        let mut within = Vec::new();
        for seed in 0..400 {
            let mut r = SplitMix64::new(seed);
            let g = GazeError::new(&spec, &mut r);
            biases.push(g.bias_rad()[0]);
            let ys: Vec<f64> = (0..50)
                .map(|_| g.disturb(0.1, 0.0, Some(2.0), &mut r).0 - 0.1)
                .collect();
            let (m, s) = mean_std(&ys);
            assert!((m - g.bias_rad()[0]).abs() < 0.5 * spec.gaze_noise_rad);
            within.push(s);
        }
        let (bm, bs) = mean_std(&biases);
        assert!(bm.abs() < 0.005, "{bm}");
        assert!((0.021..0.031).contains(&bs), "{bs}");
        let (ws, _) = mean_std(&within);
        assert!((0.014..0.020).contains(&ws), "{ws}");
    }

    #[test]
    fn gaze_depth_error_grows_with_distance() {
        let spec = MpsErrorSpec::TYPICAL;
        let mut r = SplitMix64::new(3);
        let g = GazeError::new(&spec, &mut r);
        let spread = |d: f64, r: &mut SplitMix64| {
            let xs: Vec<f64> = (0..4000)
                .map(|_| g.disturb(0.0, 0.0, Some(d), r).2.unwrap() - d)
                .collect();
            mean_std(&xs).1
        };
        let (near, far) = (spread(0.5, &mut r), spread(2.0, &mut r));
        // σ_d ≈ d²·σ_v/IPD: 0.035 m at 0.5 m, 0.55 m at 2 m.
        assert!((0.02..0.05).contains(&near), "{near}");
        assert!(far > 8.0 * near, "{near} {far}");
    }

    /// The applied inverse-distance errors have the reported size (z-scores of unit spread
    /// once outliers are left out), about 1 % are outliers, and the reported sizes follow
    /// the log-normal law.
    #[test]
    fn point_errors_match_their_reported_uncertainty() {
        let spec = MpsErrorSpec::TYPICAL;
        let mut r = SplitMix64::new(11);
        let mut z = Vec::new();
        let mut logs = Vec::new();
        let mut outliers = 0;
        let n = 100_000;
        for _ in 0..n {
            let s = spec.point_inv_dist_std(&mut r);
            logs.push(s.ln());
            let (e, out) = spec.point_error_inv_m(s, &mut r);
            if out {
                outliers += 1;
                assert!(e.abs() >= 3.0 * s * 0.999, "{e} {s}");
            } else {
                z.push(e / s);
            }
        }
        let (zm, zs) = mean_std(&z);
        assert!(zm.abs() < 0.02 && (zs - 1.0).abs() < 0.02, "{zm} {zs}");
        let frac = outliers as f64 / n as f64;
        assert!((0.007..0.013).contains(&frac), "{frac}");
        let (lm, ls) = mean_std(&logs);
        assert!((lm - spec.point_inv_std_median.ln()).abs() < 0.05, "{lm}");
        assert!((ls - 1.3).abs() < 0.08, "{ls}");
    }

    #[test]
    fn disturbed_distance_stays_positive_and_moves_far_points_more() {
        assert!((disturbed_distance_m(2.0, 0.0) - 2.0).abs() < 1e-12);
        assert!(disturbed_distance_m(2.0, -1.0) > 0.0);
        let near = (disturbed_distance_m(1.0, 0.003) - 1.0).abs();
        let far = (disturbed_distance_m(6.0, 0.003) - 6.0).abs();
        assert!(far > 30.0 * near, "{near} {far}");
    }

    #[test]
    fn hand_noise_has_the_stated_size() {
        let spec = MpsErrorSpec::TYPICAL;
        let mut r = SplitMix64::new(5);
        let h = HandError::new(&spec, &mut r);
        let xs: Vec<f64> = (0..20_000)
            .map(|_| h.disturb(&Vector3::zeros(), &mut r).x)
            .collect();
        let (_, s) = mean_std(&xs);
        assert!((0.0072..0.0088).contains(&s), "{s}");
    }
}
