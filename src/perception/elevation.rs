//! Elevation (pure): barometric altitude through the standard atmosphere, or the
//! trajectory's height, smoothed and kept at 10 Hz for the last [`HISTORY_NS`] so that the
//! change over the last 10 s and the vertical speed over the last second can be read.

use std::collections::VecDeque;

/// Sea-level standard pressure, Pa.
pub const SEA_LEVEL_PA: f64 = 101_325.0;
/// History kept, ns (a little over the 10 s the state reports).
pub const HISTORY_NS: i64 = 12_000_000_000;
/// Change reported over this span, ns.
pub const CHANGE_SPAN_NS: i64 = 10_000_000_000;
/// Vertical speed measured over this span, ns.
pub const SPEED_SPAN_NS: i64 = 1_000_000_000;
const KEEP_EVERY_NS: i64 = 100_000_000;
/// Smoothing time constant, s.
pub const SMOOTH_TAU_S: f64 = 0.3;

/// Altitude of the ICAO standard atmosphere for `pressure_pa`, m; `None` when the pressure
/// is not finite or not positive.
pub fn standard_altitude_m(pressure_pa: f64) -> Option<f64> {
    if !(pressure_pa.is_finite() && pressure_pa > 0.0) {
        return None;
    }
    Some((1.0 - (pressure_pa / SEA_LEVEL_PA).powf(1.0 / 5.255_88)) / 2.255_77e-5)
}

/// A smoothed height signal with a bounded 10 Hz history.
#[derive(Clone, Debug, Default)]
pub struct HeightHistory {
    smooth: Option<(i64, f64)>,
    kept: VecDeque<(i64, f64)>,
}

impl HeightHistory {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds in height `z_m` at `t_ns` (older-than-newest or non-finite samples are
    /// skipped).
    pub fn push(&mut self, t_ns: i64, z_m: f64) {
        if !z_m.is_finite() {
            return;
        }
        let z = match self.smooth {
            Some((t0, _)) if t_ns < t0 => return,
            Some((t0, s)) => {
                let dt = (t_ns - t0) as f64 * 1e-9;
                s + (z_m - s) * (1.0 - (-dt / SMOOTH_TAU_S).exp())
            }
            None => z_m,
        };
        self.smooth = Some((t_ns, z));
        let due = self
            .kept
            .back()
            .is_none_or(|&(t, _)| t_ns.saturating_sub(t) >= KEEP_EVERY_NS);
        if due {
            self.kept.push_back((t_ns, z));
            while self
                .kept
                .front()
                .is_some_and(|&(t, _)| t_ns.saturating_sub(t) > HISTORY_NS)
            {
                self.kept.pop_front();
            }
        }
    }

    /// The newest smoothed height and its time.
    pub fn latest(&self) -> Option<(i64, f64)> {
        self.smooth
    }

    /// The kept sample nearest to `t_ns` at or after it.
    fn at_or_after(&self, t_ns: i64) -> Option<(i64, f64)> {
        let i = self.kept.partition_point(|&(t, _)| t < t_ns);
        self.kept.get(i).copied()
    }

    /// Height change over the last `span_ns` at `now_ns` (over the history there is when
    /// it is shorter, but at least 1 s), m, + up.
    pub fn change_m(&self, now_ns: i64, span_ns: i64) -> Option<f32> {
        let (t1, z1) = self.smooth?;
        if now_ns.saturating_sub(t1) > 2_000_000_000 {
            return None;
        }
        let (t0, z0) = self.at_or_after(now_ns.saturating_sub(span_ns))?;
        (t1.saturating_sub(t0) >= 1_000_000_000).then_some((z1 - z0) as f32)
    }

    /// Vertical speed over the last [`SPEED_SPAN_NS`], m/s.
    pub fn speed_mps(&self, now_ns: i64) -> Option<f32> {
        let (t1, z1) = self.smooth?;
        if now_ns.saturating_sub(t1) > 2_000_000_000 {
            return None;
        }
        let (t0, z0) = self.at_or_after(t1.saturating_sub(SPEED_SPAN_NS))?;
        let dt = (t1 - t0) as f64 * 1e-9;
        (dt >= 0.5).then(|| ((z1 - z0) / dt) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_atmosphere_matches_the_table() {
        // ICAO table: 1000 m ↔ 89 874.6 Pa, 0 m ↔ 101 325 Pa.
        assert!(standard_altitude_m(101_325.0).unwrap().abs() < 1e-6);
        assert!((standard_altitude_m(89_874.6).unwrap() - 1000.0).abs() < 0.5);
        assert_eq!(standard_altitude_m(f64::NAN), None);
        assert_eq!(standard_altitude_m(-1.0), None);
    }

    #[test]
    fn climb_rate_and_change() {
        let mut h = HeightHistory::new();
        // Level for 5 s, then 0.2 m/s up for 3 s, then level: 0.6 m in all, at 50 Hz.
        for i in 0..=750 {
            let t = i as f64 * 0.02;
            let z = 30.0 + 0.2 * (t - 5.0).clamp(0.0, 3.0);
            h.push((t * 1e9) as i64, z);
        }
        let now = 15_000_000_000;
        let c = h.change_m(now, CHANGE_SPAN_NS).unwrap();
        assert!((c - 0.6).abs() < 0.01, "{c}");
        assert!(h.speed_mps(now).unwrap().abs() < 0.02);
        let mut h2 = HeightHistory::new();
        for i in 0..=350 {
            let t = i as f64 * 0.02;
            h2.push((t * 1e9) as i64, 0.2 * (t - 5.0).clamp(0.0, 3.0));
        }
        let v = h2.speed_mps(7_000_000_000).unwrap();
        assert!((v - 0.2).abs() < 0.03, "{v}");
        h2.push(8_000_000_000, f64::NAN);
        assert!(h2.latest().unwrap().1.is_finite());
    }
}
