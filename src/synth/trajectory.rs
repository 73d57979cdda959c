//! Wearer kinematics (pure compute): the scripted body path (walk, climb, turn, stop, look
//! around) with natural head motion (vertical bob at step cadence, lateral sway at stride
//! cadence), evaluated at any time as the central pupil frame (CPF) pose in the world
//! (z up) and, through the calibration's `T_Device_CPF`, as the device pose.
//!
//! The walker's [`Gait`] (step length for a speed, so cadence, and the head's bob, sway and
//! their phase) is drawn per seed and scenario within human ranges ([`Gait::draw`], the
//! sources in `docs/synthetic.md`); [`Gait::NOMINAL`] is the fixed walker of earlier
//! sessions (0.7 m steps at every speed).
//!
//! Every profile is C² (smootherstep ramps), so accelerations and angular velocities derived
//! by central differences are continuous.

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};

use super::rng::SplitMix64;
use super::scenario::{Action, Wearer};

/// Step length of the nominal walker, m (one step = half a stride).
pub const STEP_LENGTH_M: f64 = 0.7;
/// Vertical head bob amplitude (peak to peak) of the nominal walker, m.
pub const BOB_M: f64 = 0.04;
/// Lateral head sway amplitude of the nominal walker, m.
pub const SWAY_M: f64 = 0.02;
/// Walk ratio (step length over cadence) of healthy adults, m per step/min: the centre of
/// the range [`Gait::draw`] draws from (Sekiya et al.; `docs/synthetic.md`).
pub const WALK_RATIO_M_PER_SPM: f64 = 0.0064;
/// Relative spread of the drawn walk ratio (uniform, ±).
pub const WALK_RATIO_SPREAD: f64 = 0.12;
/// Human step lengths, m: the drawn step length is kept within (Sato & Ishizu's pedestrians
/// 0.51–0.91 m at their own pace; shorter when walking slowly).
pub const STEP_LENGTH_RANGE_M: [f64; 2] = [0.3, 0.95];
/// Peak-to-peak vertical head bob per metre of step length (drawn uniformly within).
pub const BOB_PER_STEP_RANGE: [f64; 2] = [0.045, 0.075];
/// Lateral sway amplitude range, m (drawn uniformly within).
pub const SWAY_RANGE_M: [f64; 2] = [0.015, 0.03];

/// How long the walker's steps are at a given speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepRule {
    /// The same step at every speed, m.
    Fixed(f64),
    /// A constant walk ratio `r` (m per step/min): speed `v` = step × cadence gives the
    /// step `√(60·r·v)`, kept within [`STEP_LENGTH_RANGE_M`].
    WalkRatio(f64),
}

/// The walker's gait: step length rule and head motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gait {
    /// Step length for a speed.
    pub step: StepRule,
    /// Vertical bob, peak to peak, per metre of step length (`None`: a fixed [`Gait::bob_m`]).
    pub bob_per_step: Option<f64>,
    /// Vertical bob, peak to peak, m (used when `bob_per_step` is `None`).
    pub bob_m: f64,
    /// Lateral sway amplitude, m.
    pub sway_m: f64,
    /// Phase of the stride at the start of each walk, rad: 0 or π, which foot leads (the
    /// sway's side). The step's own phase starts at 0 (both feet down, the head at the
    /// bottom of its bob) whichever foot leads.
    pub phase_rad: f64,
    /// Scale of the head's small yaw, pitch and roll oscillations while walking (1 = nominal).
    pub head_wobble: f64,
}

impl Gait {
    /// The fixed walker of sessions before gait variation: 0.7 m steps at every speed, 4 cm
    /// bob, 2 cm sway, phase 0.
    pub const NOMINAL: Gait = Gait {
        step: StepRule::Fixed(STEP_LENGTH_M),
        bob_per_step: None,
        bob_m: BOB_M,
        sway_m: SWAY_M,
        phase_rad: 0.0,
        head_wobble: 1.0,
    };

    /// A walker drawn for `seed` and scenario `name` (deterministic): walk ratio within
    /// ±[`WALK_RATIO_SPREAD`] of [`WALK_RATIO_M_PER_SPM`], bob per step length within
    /// [`BOB_PER_STEP_RANGE`], sway within [`SWAY_RANGE_M`], either foot leading, head
    /// wobble ×0.7–1.3.
    pub fn draw(seed: u64, name: &str) -> Gait {
        let mut r = SplitMix64::derive(seed, &format!("gait:{name}"));
        let mut within = |lo: f64, hi: f64| lo + (hi - lo) * r.uniform();
        let ratio = WALK_RATIO_M_PER_SPM * within(1.0 - WALK_RATIO_SPREAD, 1.0 + WALK_RATIO_SPREAD);
        let bob = within(BOB_PER_STEP_RANGE[0], BOB_PER_STEP_RANGE[1]);
        let sway = within(SWAY_RANGE_M[0], SWAY_RANGE_M[1]);
        let phase = if within(0.0, 1.0) < 0.5 {
            0.0
        } else {
            std::f64::consts::PI
        };
        let wobble = within(0.7, 1.3);
        Gait {
            step: StepRule::WalkRatio(ratio),
            bob_per_step: Some(bob),
            bob_m: BOB_M,
            sway_m: sway,
            phase_rad: phase,
            head_wobble: wobble,
        }
    }

    /// Step length at cruise speed `speed_mps`, m.
    pub fn step_length_m(&self, speed_mps: f64) -> f64 {
        match self.step {
            StepRule::Fixed(s) => s,
            StepRule::WalkRatio(r) => (60.0 * r * speed_mps.max(0.0))
                .sqrt()
                .clamp(STEP_LENGTH_RANGE_M[0], STEP_LENGTH_RANGE_M[1]),
        }
    }

    /// Cadence at cruise speed `speed_mps`, steps per minute.
    pub fn cadence_spm(&self, speed_mps: f64) -> f64 {
        60.0 * speed_mps / self.step_length_m(speed_mps)
    }

    /// Peak-to-peak vertical bob at cruise speed `speed_mps`, m.
    pub fn bob_at_m(&self, speed_mps: f64) -> f64 {
        self.bob_per_step
            .map_or(self.bob_m, |k| k * self.step_length_m(speed_mps))
    }
}
/// Ramp time to reach cruise speed, s.
pub const RAMP_S: f64 = 0.6;
/// Step for central differences, s.
pub const DIFF_STEP_S: f64 = 1e-3;

/// `6x⁵ − 15x⁴ + 10x³` on [0, 1] (clamped).
fn smootherstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * x * (x * (6.0 * x - 15.0) + 10.0)
}

/// `∫₀ˣ smootherstep` (clamped to [0, 1]; beyond 1 it grows linearly).
fn smootherstep_integral(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 0.5 + (x - 1.0);
    }
    x.powi(4) * (x * (x - 3.0) + 2.5)
}

/// Distance covered at `t` by a walk of `distance_m` at cruise `speed_mps` with smooth
/// ramps of [`RAMP_S`] at both ends; returns `(distance, duration)`.
fn walk_distance(t: f64, distance_m: f64, speed_mps: f64) -> (f64, f64) {
    let ramp = RAMP_S.min(distance_m / speed_mps);
    let dur = distance_m / speed_mps + ramp;
    if ramp <= 0.0 {
        return (0.0, dur);
    }
    let t = t.clamp(0.0, dur);
    // v(t) = V·S(t/r) rising, V in the middle, V·(1 − S(u)) falling, u = (t − dur + r)/r.
    let rising = speed_mps * ramp * smootherstep_integral(t / ramp);
    let lost = speed_mps * ramp * smootherstep_integral(((t - (dur - ramp)) / ramp).min(1.0));
    ((rising - lost).clamp(0.0, distance_m), dur)
}

/// Gait envelope in [0, 1]: current speed over cruise speed (zero when standing, C²).
fn gait_envelope(t: f64, distance_m: f64, speed_mps: f64) -> f64 {
    let ramp = RAMP_S.min(distance_m / speed_mps);
    if ramp <= 0.0 {
        return 0.0;
    }
    let dur = distance_m / speed_mps + ramp;
    smootherstep(t / ramp) * (1.0 - smootherstep((t - (dur - ramp)) / ramp))
}

#[derive(Debug, Clone)]
struct Segment {
    start_s: f64,
    dur_s: f64,
    pos: [f64; 3],
    heading_rad: f64,
    action: Action,
}

/// Head motion state at one instant, in the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadState {
    /// CPF origin, m.
    pub position_m: Vector3<f64>,
    /// Head yaw, rad from +x counter-clockwise.
    pub yaw_rad: f64,
    /// Head pitch, rad (positive = looking up).
    pub pitch_rad: f64,
    /// Head roll, rad.
    pub roll_rad: f64,
}

/// The scripted wearer, evaluable at any time.
#[derive(Debug, Clone)]
pub struct WearerPath {
    segments: Vec<Segment>,
    eye_height_m: f64,
    end_pos: [f64; 3],
    end_heading_rad: f64,
    t_device_cpf: Isometry3<f64>,
    gait: Gait,
    /// Script end, s.
    pub script_end_s: f64,
}

impl WearerPath {
    /// Builds the path of `wearer` on a floor at `floor_z_m`, with the calibration's
    /// `T_Device_CPF`, walking with [`Gait::NOMINAL`].
    pub fn new(wearer: &Wearer, floor_z_m: f64, t_device_cpf: Isometry3<f64>) -> Self {
        Self::with_gait(wearer, floor_z_m, t_device_cpf, Gait::NOMINAL)
    }

    /// As [`WearerPath::new`], walking with `gait`.
    pub fn with_gait(
        wearer: &Wearer,
        floor_z_m: f64,
        t_device_cpf: Isometry3<f64>,
        gait: Gait,
    ) -> Self {
        let mut t = 0.0;
        let mut pos = [wearer.start_m[0], wearer.start_m[1], floor_z_m];
        let mut heading = wearer.heading_deg.to_radians();
        let mut segments = Vec::new();
        let script = wearer
            .script
            .iter()
            .cycle()
            .take(wearer.script.len() * wearer.repeat as usize);
        for a in script {
            let dur = match a {
                Action::Walk {
                    distance_m,
                    speed_mps,
                } => walk_distance(0.0, *distance_m, *speed_mps).1,
                Action::Climb {
                    distance_m,
                    speed_mps,
                    ..
                } => walk_distance(0.0, *distance_m, *speed_mps).1,
                Action::Turn { duration_s, .. }
                | Action::Stop { duration_s }
                | Action::LookAround { duration_s, .. }
                | Action::Reach { duration_s, .. } => *duration_s,
            };
            segments.push(Segment {
                start_s: t,
                dur_s: dur,
                pos,
                heading_rad: heading,
                action: a.clone(),
            });
            match a {
                Action::Walk { distance_m, .. } => {
                    pos[0] += distance_m * heading.cos();
                    pos[1] += distance_m * heading.sin();
                }
                Action::Climb {
                    distance_m, rise_m, ..
                } => {
                    pos[0] += distance_m * heading.cos();
                    pos[1] += distance_m * heading.sin();
                    pos[2] += rise_m;
                }
                Action::Turn { angle_deg, .. } => heading += angle_deg.to_radians(),
                Action::Stop { .. } | Action::LookAround { .. } | Action::Reach { .. } => {}
            }
            t += dur;
        }
        Self {
            segments,
            eye_height_m: wearer.eye_height_m,
            end_pos: pos,
            end_heading_rad: heading,
            t_device_cpf,
            gait,
            script_end_s: t,
        }
    }

    /// The head (CPF) state at `t_s` seconds from the start.
    pub fn head(&self, t_s: f64) -> HeadState {
        let idx = self.segments.partition_point(|s| s.start_s <= t_s);
        let Some(seg) = idx.checked_sub(1).and_then(|i| self.segments.get(i)) else {
            let first = self.segments.first();
            let (pos, h) = first.map_or((self.end_pos, self.end_heading_rad), |s| {
                (s.pos, s.heading_rad)
            });
            return self.standing(pos, h);
        };
        let tau = t_s - seg.start_s;
        if tau > seg.dur_s {
            return self.standing(self.end_pos_after(seg), self.heading_after(seg));
        }
        let (c, s) = (seg.heading_rad.cos(), seg.heading_rad.sin());
        let walk = |dist: f64, speed: f64, rise: f64| {
            let (d, _) = walk_distance(tau, dist, speed);
            let frac = if dist > 0.0 { d / dist } else { 0.0 };
            let g = &self.gait;
            let phase = std::f64::consts::PI * d / g.step_length_m(speed) + g.phase_rad;
            // Bob goes with each step, sway with each stride; both vanish when standing.
            let env = gait_envelope(tau, dist, speed);
            let bob = -g.bob_at_m(speed) * 0.5 * (1.0 - (2.0 * phase).cos()) * env;
            let sway = g.sway_m * phase.sin() * env;
            let wobble = g.head_wobble * env;
            let z = seg.pos[2] + rise * smootherstep(frac) + self.eye_height_m + bob;
            let left = [-s, c];
            HeadState {
                position_m: Vector3::new(
                    seg.pos[0] + d * c + sway * left[0],
                    seg.pos[1] + d * s + sway * left[1],
                    z,
                ),
                yaw_rad: seg.heading_rad + 0.02 * phase.sin() * wobble,
                pitch_rad: -0.15 + 0.01 * (2.0 * phase).sin() * wobble,
                roll_rad: 0.015 * phase.sin() * wobble,
            }
        };
        match &seg.action {
            Action::Walk {
                distance_m,
                speed_mps,
            } => walk(*distance_m, *speed_mps, 0.0),
            Action::Climb {
                distance_m,
                rise_m,
                speed_mps,
            } => walk(*distance_m, *speed_mps, *rise_m),
            Action::Turn { angle_deg, .. } => {
                let mut st = self.standing(seg.pos, seg.heading_rad);
                st.yaw_rad += angle_deg.to_radians() * smootherstep(tau / seg.dur_s);
                st
            }
            Action::Stop { .. } | Action::Reach { .. } => self.standing(seg.pos, seg.heading_rad),
            Action::LookAround { amplitude_deg, .. } => {
                let mut st = self.standing(seg.pos, seg.heading_rad);
                let x = tau / seg.dur_s;
                let env = (std::f64::consts::PI * x).sin().powi(2);
                st.yaw_rad += amplitude_deg.to_radians() * env * (std::f64::consts::TAU * x).sin();
                st
            }
        }
    }

    fn end_pos_after(&self, seg: &Segment) -> [f64; 3] {
        let mut p = seg.pos;
        let (c, s) = (seg.heading_rad.cos(), seg.heading_rad.sin());
        match &seg.action {
            Action::Walk { distance_m, .. } => {
                p[0] += distance_m * c;
                p[1] += distance_m * s;
            }
            Action::Climb {
                distance_m, rise_m, ..
            } => {
                p[0] += distance_m * c;
                p[1] += distance_m * s;
                p[2] += rise_m;
            }
            _ => {}
        }
        p
    }

    fn heading_after(&self, seg: &Segment) -> f64 {
        match &seg.action {
            Action::Turn { angle_deg, .. } => seg.heading_rad + angle_deg.to_radians(),
            _ => seg.heading_rad,
        }
    }

    fn standing(&self, pos: [f64; 3], heading: f64) -> HeadState {
        HeadState {
            position_m: Vector3::new(pos[0], pos[1], pos[2] + self.eye_height_m),
            yaw_rad: heading,
            pitch_rad: -0.15,
            roll_rad: 0.0,
        }
    }

    /// `T_world_cpf` at `t_s`: CPF axes x left, y up, z forward.
    pub fn t_world_cpf(&self, t_s: f64) -> Isometry3<f64> {
        let h = self.head(t_s);
        // At yaw 0 the CPF looks along +x with +y (world) on its left and z up.
        let r0 = Matrix3::new(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
        let r = Rotation3::from_axis_angle(&Vector3::z_axis(), h.yaw_rad)
            * Rotation3::from_matrix_unchecked(r0)
            * Rotation3::from_axis_angle(&Vector3::x_axis(), -h.pitch_rad)
            * Rotation3::from_axis_angle(&Vector3::z_axis(), h.roll_rad);
        Isometry3::from_parts(
            Translation3::from(h.position_m),
            UnitQuaternion::from_rotation_matrix(&r),
        )
    }

    /// `T_world_device` at `t_s`.
    pub fn t_world_device(&self, t_s: f64) -> Isometry3<f64> {
        self.t_world_cpf(t_s) * self.t_device_cpf.inverse()
    }

    /// Every scripted action with its start and duration, s, in order (repeats unrolled).
    pub fn actions(&self) -> impl Iterator<Item = (f64, f64, &Action)> + '_ {
        self.segments
            .iter()
            .map(|s| (s.start_s, s.dur_s, &s.action))
    }

    /// The walker's gait.
    pub fn gait(&self) -> &Gait {
        &self.gait
    }

    /// `T_Device_CPF` used by this path.
    pub fn t_device_cpf(&self) -> &Isometry3<f64> {
        &self.t_device_cpf
    }

    /// Position, velocity and acceleration (world, m, m/s, m/s²) of the point fixed at
    /// `p_device` in the device frame, by central differences.
    pub fn point_kinematics(&self, t_s: f64, p_device: &Vector3<f64>) -> [Vector3<f64>; 3] {
        let h = DIFF_STEP_S;
        let at = |t: f64| (self.t_world_device(t) * nalgebra::Point3::from(*p_device)).coords;
        let (a, b, c) = (at(t_s - h), at(t_s), at(t_s + h));
        [b, (c - a) / (2.0 * h), (c - 2.0 * b + a) / (h * h)]
    }

    /// Angular velocity of the device in the device frame, rad/s (central difference of the
    /// rotation).
    pub fn angular_velocity_device(&self, t_s: f64) -> Vector3<f64> {
        let h = DIFF_STEP_S;
        let r0 = self.t_world_device(t_s - h).rotation;
        let r1 = self.t_world_device(t_s + h).rotation;
        (r0.inverse() * r1).scaled_axis() / (2.0 * h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_profile_covers_the_distance_smoothly() {
        let (d, dur) = walk_distance(1e9, 5.0, 1.25);
        assert!((d - 5.0).abs() < 1e-12);
        assert!((dur - (4.0 + RAMP_S)).abs() < 1e-12);
        // Cruise speed in the middle, zero speed at both ends.
        let v = |t: f64| {
            (walk_distance(t + 1e-4, 5.0, 1.25).0 - walk_distance(t - 1e-4, 5.0, 1.25).0) / 2e-4
        };
        assert!((v(dur / 2.0) - 1.25).abs() < 1e-6);
        assert!(v(1e-4).abs() < 1e-3 && v(dur - 1e-4).abs() < 1e-3);
        // Monotone.
        let mut last = 0.0;
        for i in 0..=1000 {
            let d = walk_distance(dur * i as f64 / 1000.0, 5.0, 1.25).0;
            assert!(d >= last - 1e-12);
            last = d;
        }
    }

    /// Drawn walkers stay within human ranges at the scenarios' speeds, differ across seeds
    /// and scenarios, and the same seed draws the same walker.
    #[test]
    fn drawn_gaits_are_human_varied_and_deterministic() {
        let mut ratios = Vec::new();
        for seed in 0..200u64 {
            let g = Gait::draw(seed, "find_exit");
            assert_eq!(g, Gait::draw(seed, "find_exit"));
            let StepRule::WalkRatio(r) = g.step else {
                panic!("{g:?}");
            };
            ratios.push(r);
            // Ordinary pace: steps 0.55–0.75 m at 95–115 steps/min (Sato & Ishizu's
            // pedestrians: 0.51–0.91 m, 95–160 steps/min).
            let (sl, cad) = (g.step_length_m(1.1), g.cadence_spm(1.1));
            assert!(
                (0.55..0.75).contains(&sl) && (85.0..125.0).contains(&cad),
                "{sl} {cad}"
            );
            for v in [0.35, 0.5, 0.8, 1.0, 1.2] {
                let sl = g.step_length_m(v);
                assert!((0.3..=0.95).contains(&sl), "{v}: {sl}");
                assert!((45.0..140.0).contains(&g.cadence_spm(v)), "{v}");
                // Vertical head bob 1.5–6 cm peak to peak.
                assert!(
                    (0.015..0.06).contains(&g.bob_at_m(v)),
                    "{v}: {}",
                    g.bob_at_m(v)
                );
            }
            assert!((SWAY_RANGE_M[0]..=SWAY_RANGE_M[1]).contains(&g.sway_m));
        }
        let n = ratios.len() as f64;
        let mean = ratios.iter().sum::<f64>() / n;
        let sd = (ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!((mean / WALK_RATIO_M_PER_SPM - 1.0).abs() < 0.03, "{mean}");
        // Uniform ±12 %: sd ≈ 0.069 of the mean.
        assert!((0.05..0.09).contains(&(sd / mean)), "{sd}");
        assert_ne!(Gait::draw(1, "find_exit"), Gait::draw(1, "street_crossing"));
    }

    /// The path walks with its gait: successive lowest points of the head bob are one step
    /// apart, and the bob has the gait's height.
    #[test]
    fn the_path_steps_and_bobs_as_its_gait_says() {
        let wearer: Wearer = serde_json::from_str(
            r#"{"start_m": [0, 0], "heading_deg": 0,
                "script": [{"do": "walk", "distance_m": 20, "speed_mps": 1.0}]}"#,
        )
        .unwrap();
        for seed in [3u64, 4, 5] {
            let g = Gait::draw(seed, "test");
            let path = WearerPath::with_gait(&wearer, 0.0, Isometry3::identity(), g);
            let (mut minima, mut zs) = (Vec::new(), Vec::new());
            let mut prev = [f64::NAN; 2];
            let mut t = 3.0;
            while t < 17.0 {
                let h = path.head(t);
                let z = h.position_m.z;
                if prev[1] < prev[0] && prev[1] <= z {
                    minima.push(path.head(t - 0.002).position_m.x);
                }
                prev = [prev[1], z];
                zs.push(z);
                t += 0.002;
            }
            let steps: Vec<f64> = minima.windows(2).map(|w| w[1] - w[0]).collect();
            let mean = steps.iter().sum::<f64>() / steps.len() as f64;
            let want = g.step_length_m(1.0);
            assert!((mean - want).abs() < 0.01, "{seed}: {mean} vs {want}");
            let bob = zs.iter().copied().fold(f64::MIN, f64::max)
                - zs.iter().copied().fold(f64::MAX, f64::min);
            assert!((bob - g.bob_at_m(1.0)).abs() < 0.002, "{bob}");
        }
    }
}
