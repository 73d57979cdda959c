//! Motion (pure): step cadence from the accelerometer magnitude (band-passed, peaks
//! counted), yaw rate about gravity from the gyro, and the classification into standing,
//! walking, turning and stairs with a short debounce.

use std::collections::VecDeque;

use nalgebra::Vector3;

use crate::state::MotionState;

/// Rate the IMU is reduced to before filtering, Hz.
pub const FEATURE_HZ: f64 = 100.0;
const BIN_NS: i64 = (1e9 / FEATURE_HZ) as i64;
/// A step peak must exceed this band-passed magnitude, m/s².
pub const STEP_PEAK_MPS2: f64 = 0.3;
/// Peaks closer than this are one step, ns.
pub const MIN_STEP_GAP_NS: i64 = 300_000_000;
/// Step intervals longer than this are pauses, ns.
pub const MAX_STEP_INTERVAL_NS: i64 = 1_300_000_000;
/// Step intervals between these fractions of the reference interval count as steady
/// walking in [`StepDetector::cadence_spm`] (a person's step-to-step variation is a few
/// per cent; a split interval is about half).
pub const STEADY_LO: f64 = 0.7;
/// See [`STEADY_LO`].
pub const STEADY_HI: f64 = 1.4;
/// Steps are counted over this window, ns.
pub const CADENCE_WINDOW_NS: i64 = 3_000_000_000;
/// Yaw rate above which the wearer is turning, deg/s.
pub const TURN_DPS: f32 = 30.0;
/// Horizontal speed above which the wearer is moving, m/s.
pub const MOVING_MPS: f32 = 0.25;
/// Vertical speed above which a walk is on stairs, m/s.
pub const STAIRS_MPS: f32 = 0.08;
/// A new state must hold this long before it is reported, ns.
pub const DEBOUNCE_NS: i64 = 150_000_000;

/// IMU features: gravity, step peaks, yaw rate.
#[derive(Clone, Debug)]
pub struct StepDetector {
    gravity: Option<Vector3<f64>>,
    bin_start_ns: i64,
    bin_sum_mag: f64,
    bin_sum_yaw: f64,
    bin_n: u32,
    slow_mean: Option<f64>,
    band: f64,
    prev: [f64; 2],
    last_peak_ns: i64,
    peaks: VecDeque<i64>,
    yaw_rate_dps: f64,
    newest_ns: i64,
}

impl Default for StepDetector {
    fn default() -> Self {
        Self::new()
    }
}

impl StepDetector {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self {
            gravity: None,
            bin_start_ns: i64::MIN,
            bin_sum_mag: 0.0,
            bin_sum_yaw: 0.0,
            bin_n: 0,
            slow_mean: None,
            band: 0.0,
            prev: [0.0; 2],
            last_peak_ns: i64::MIN,
            peaks: VecDeque::with_capacity(32),
            yaw_rate_dps: 0.0,
            newest_ns: i64::MIN,
        }
    }

    /// Folds in one IMU sample: specific force (m/s²) and angular velocity (rad/s), device
    /// frame. Samples older than the newest are ignored.
    pub fn push(&mut self, t_ns: i64, accel: &Vector3<f64>, gyro: &Vector3<f64>) {
        if t_ns < self.newest_ns {
            return;
        }
        self.newest_ns = t_ns;
        let g = match self.gravity {
            None => *accel,
            // ~1 s low-pass at the IMU's rate (assumed ≥ 100 Hz; exact τ does not matter).
            Some(g) => g + (accel - g) * 0.002,
        };
        self.gravity = Some(g);
        let up = g.try_normalize(1e-6).unwrap_or_else(Vector3::z);
        if self.bin_start_ns == i64::MIN {
            self.bin_start_ns = t_ns;
        }
        if t_ns >= self.bin_start_ns.saturating_add(BIN_NS) && self.bin_n > 0 {
            let n = f64::from(self.bin_n);
            self.close_bin(self.bin_sum_mag / n, self.bin_sum_yaw / n);
            self.bin_start_ns = t_ns;
            self.bin_sum_mag = 0.0;
            self.bin_sum_yaw = 0.0;
            self.bin_n = 0;
        }
        self.bin_sum_mag += accel.norm();
        self.bin_sum_yaw += gyro.dot(&up);
        self.bin_n += 1;
    }

    fn close_bin(&mut self, mag: f64, yaw_radps: f64) {
        let dt = 1.0 / FEATURE_HZ;
        // High-pass: remove the ~1 s mean (gravity); low-pass at ~4 Hz.
        let slow = match self.slow_mean {
            None => mag,
            Some(m) => m + (mag - m) * (dt / (1.0 + dt)),
        };
        self.slow_mean = Some(slow);
        let tau_lp = 1.0 / (std::f64::consts::TAU * 4.0);
        self.band += (mag - slow - self.band) * (dt / (tau_lp + dt));
        let tau_yaw = 0.2;
        self.yaw_rate_dps += (yaw_radps.to_degrees() - self.yaw_rate_dps) * (dt / (tau_yaw + dt));
        // A peak at the previous bin: higher than both neighbours and the threshold.
        let [p2, p1] = self.prev;
        let t_prev = self.bin_start_ns.saturating_sub(BIN_NS);
        if p1 > STEP_PEAK_MPS2
            && p1 >= p2
            && p1 > self.band
            && t_prev.saturating_sub(self.last_peak_ns) >= MIN_STEP_GAP_NS
        {
            self.last_peak_ns = t_prev;
            if self.peaks.len() >= 32 {
                self.peaks.pop_front();
            }
            self.peaks.push_back(t_prev);
        }
        self.prev = [p1, self.band];
    }

    /// Steps per minute at `now_ns`, from the last (up to four) step intervals in the last
    /// [`CADENCE_WINDOW_NS`] that are shorter than [`MAX_STEP_INTERVAL_NS`], while the last
    /// step is no older than 1.5 intervals (+ 150 ms); `None` otherwise. Steady walking
    /// repeats its step interval closely, while a spurious peak (the push-off bump as a walk
    /// starts, a jolt) splits one interval in two: so the intervals are measured against a
    /// reference — their median when there are three or more, else the newest (a bout's
    /// first interval is the one a start disturbs) — and only those within
    /// [`STEADY_LO`]–[`STEADY_HI`] of it are averaged.
    pub fn cadence_spm(&self, now_ns: i64) -> Option<f32> {
        let from = now_ns.saturating_sub(CADENCE_WINDOW_NS);
        // Newest first.
        let mut intervals = [0i64; 4];
        let mut n = 0usize;
        let mut later: Option<i64> = None;
        for &t in self.peaks.iter().rev() {
            if t > now_ns {
                continue;
            }
            if t < from {
                break;
            }
            if let Some(l) = later {
                let d = l - t;
                if d > MAX_STEP_INTERVAL_NS {
                    break;
                }
                if let Some(slot) = intervals.get_mut(n) {
                    *slot = d;
                }
                n += 1;
                if n == intervals.len() {
                    break;
                }
            }
            later = Some(t);
        }
        let last = self.peaks.iter().rev().find(|&&t| t <= now_ns).copied()?;
        let got = intervals.get(..n).filter(|g| !g.is_empty())?;
        let reference = if got.len() >= 3 {
            let mut sorted = [0i64; 4];
            let sorted = sorted.get_mut(..got.len())?;
            sorted.copy_from_slice(got);
            sorted.sort_unstable();
            let k = sorted.len();
            (sorted.get((k - 1) / 2)? + sorted.get(k / 2)?) as f64 / 2.0
        } else {
            *got.first()? as f64
        };
        let (sum, count) = got
            .iter()
            .map(|&d| d as f64)
            .filter(|&d| (STEADY_LO * reference..=STEADY_HI * reference).contains(&d))
            .fold((0.0, 0u32), |(s, c), d| (s + d, c + 1));
        if count == 0 {
            return None;
        }
        let mean = sum / f64::from(count);
        if (now_ns.saturating_sub(last) as f64) > 1.5 * mean + 150e6 {
            return None;
        }
        Some((60e9 / mean) as f32)
    }

    /// Whether a step was detected within `within_ns` before `now_ns` (a step counts from
    /// the first one, before there is a cadence).
    pub fn stepped_within(&self, now_ns: i64, within_ns: i64) -> bool {
        self.peaks
            .iter()
            .rev()
            .any(|&t| t <= now_ns && now_ns.saturating_sub(t) <= within_ns)
    }

    /// Smoothed yaw rate about gravity, deg/s, counter-clockwise (to the left) positive.
    pub fn yaw_rate_dps(&self) -> Option<f32> {
        self.gravity.map(|_| self.yaw_rate_dps as f32)
    }

    /// Gravity's "up" direction in the device frame (the low-passed specific force).
    pub fn up_device(&self) -> Option<Vector3<f64>> {
        self.gravity.and_then(|g| g.try_normalize(1e-6))
    }

    /// Newest IMU time folded in, ns (`i64::MIN` before any).
    pub fn newest_ns(&self) -> i64 {
        self.newest_ns
    }
}

/// What the motion classification rests on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MotionInputs {
    /// Step cadence, when stepping.
    pub cadence_spm: Option<f32>,
    /// Horizontal speed, m/s (trajectory), when known.
    pub speed_mps: Option<f32>,
    /// Vertical speed, m/s, + up, when known.
    pub vertical_mps: Option<f32>,
    /// Yaw rate, deg/s, when known.
    pub yaw_rate_dps: Option<f32>,
}

/// The instantaneous state for `m` (`Unknown` when nothing is known).
pub fn classify(m: &MotionInputs) -> MotionState {
    if m.cadence_spm.is_none() && m.speed_mps.is_none() && m.yaw_rate_dps.is_none() {
        return MotionState::Unknown;
    }
    let moving = match m.speed_mps {
        Some(s) => s > MOVING_MPS,
        None => m.cadence_spm.is_some(),
    };
    let vz = m.vertical_mps.unwrap_or(0.0);
    if moving && vz > STAIRS_MPS {
        return MotionState::StairsUp;
    }
    if moving && vz < -STAIRS_MPS {
        return MotionState::StairsDown;
    }
    if m.yaw_rate_dps.is_some_and(|r| r.abs() > TURN_DPS) {
        return MotionState::Turning;
    }
    if moving {
        MotionState::Walking
    } else {
        MotionState::Standing
    }
}

/// Debounces the classification: a new state is reported once it has held
/// [`DEBOUNCE_NS`]; `since` is when it started.
#[derive(Clone, Debug)]
pub struct MotionDebounce {
    state: MotionState,
    since_ns: i64,
    candidate: MotionState,
    candidate_since_ns: i64,
}

impl Default for MotionDebounce {
    fn default() -> Self {
        Self {
            state: MotionState::Unknown,
            since_ns: 0,
            candidate: MotionState::Unknown,
            candidate_since_ns: 0,
        }
    }
}

impl MotionDebounce {
    /// Folds in the state seen at `t_ns`; returns the reported state and since when.
    pub fn update(&mut self, t_ns: i64, seen: MotionState) -> (MotionState, i64) {
        if seen == self.state {
            self.candidate = seen;
        } else if seen != self.candidate {
            self.candidate = seen;
            self.candidate_since_ns = t_ns;
        }
        let immediate = self.state == MotionState::Unknown;
        if self.candidate != self.state
            && (immediate || t_ns.saturating_sub(self.candidate_since_ns) >= DEBOUNCE_NS)
        {
            self.state = self.candidate;
            self.since_ns = if immediate {
                t_ns
            } else {
                self.candidate_since_ns
            };
        }
        (self.state, self.since_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walker whose vertical specific force oscillates at `f_hz` with `amp` m/s².
    fn feed(d: &mut StepDetector, from_s: f64, to_s: f64, f_hz: f64, amp: f64, yaw_dps: f64) {
        let n = ((to_s - from_s) * 1000.0) as i64;
        for i in 0..n {
            let t = from_s + i as f64 * 1e-3;
            let a = Vector3::new(
                0.0,
                0.0,
                9.81 + amp * (std::f64::consts::TAU * f_hz * t).sin(),
            );
            let w = Vector3::new(0.0, 0.0, yaw_dps.to_radians());
            d.push((t * 1e9) as i64, &a, &w);
        }
    }

    #[test]
    fn cadence_matches_the_step_frequency() {
        for f in [1.4, 1.8, 2.1] {
            let mut d = StepDetector::new();
            feed(&mut d, 0.0, 6.0, f, 2.0, 0.0);
            let c = d.cadence_spm(6_000_000_000).unwrap();
            assert!((c - (f * 60.0) as f32).abs() < 4.0, "{f} Hz: {c}");
        }
    }

    #[test]
    fn standing_has_no_cadence_and_yaw_rate_follows_the_gyro() {
        let mut d = StepDetector::new();
        feed(&mut d, 0.0, 3.0, 1.5, 0.05, 60.0);
        assert_eq!(d.cadence_spm(3_000_000_000), None);
        assert!((d.yaw_rate_dps().unwrap() - 60.0).abs() < 1.0);
        // Steps stop: after 1.5 s without a peak, no cadence.
        let mut d = StepDetector::new();
        feed(&mut d, 0.0, 4.0, 1.8, 2.0, 0.0);
        feed(&mut d, 4.0, 6.0, 1.8, 0.0, 0.0);
        assert_eq!(d.cadence_spm(6_000_000_000), None);
    }

    #[test]
    fn classification_rules() {
        let walk = MotionInputs {
            cadence_spm: Some(100.0),
            speed_mps: Some(1.0),
            vertical_mps: Some(0.0),
            yaw_rate_dps: Some(0.0),
        };
        assert_eq!(classify(&walk), MotionState::Walking);
        assert_eq!(
            classify(&MotionInputs {
                vertical_mps: Some(0.2),
                ..walk
            }),
            MotionState::StairsUp
        );
        assert_eq!(
            classify(&MotionInputs {
                vertical_mps: Some(-0.2),
                ..walk
            }),
            MotionState::StairsDown
        );
        assert_eq!(
            classify(&MotionInputs {
                speed_mps: Some(0.0),
                cadence_spm: None,
                yaw_rate_dps: Some(-50.0),
                ..walk
            }),
            MotionState::Turning
        );
        assert_eq!(
            classify(&MotionInputs {
                speed_mps: Some(0.05),
                ..walk
            }),
            MotionState::Standing
        );
        assert_eq!(classify(&MotionInputs::default()), MotionState::Unknown);
    }

    #[test]
    fn debounce_waits_and_dates_from_the_start() {
        let mut d = MotionDebounce::default();
        assert_eq!(
            d.update(0, MotionState::Standing),
            (MotionState::Standing, 0)
        );
        let ms = 1_000_000;
        assert_eq!(
            d.update(50 * ms, MotionState::Walking).0,
            MotionState::Standing
        );
        // A one-tick blip never shows.
        assert_eq!(
            d.update(100 * ms, MotionState::Standing).0,
            MotionState::Standing
        );
        d.update(150 * ms, MotionState::Walking);
        assert_eq!(
            d.update(250 * ms, MotionState::Walking).0,
            MotionState::Standing
        );
        assert_eq!(
            d.update(300 * ms, MotionState::Walking),
            (MotionState::Walking, 150 * ms)
        );
    }
}
