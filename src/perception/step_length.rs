//! Step length from cadence (pure), for pedestrian dead reckoning without a trajectory: a
//! walker's step length and cadence keep a nearly constant ratio over ordinary speeds (the
//! *walk ratio*), so the cadence the IMU measures gives the step length. The ratio is the
//! population figure reported for healthy adults ([`WALK_RATIO_M_PER_SPM`], sources in
//! `docs/synthetic.md`), not anything of the simulator's walker; one person's ratio differs
//! by about ±10 %, and distances scale with that error.

/// Walk ratio of healthy adults: step length (m) over cadence (steps/min), ≈ 0.0064
/// (Sekiya et al., test–retest study of the walk ratio in young adults; Murakami & Otaka
/// 2017 find it constant above about 62 m/min and rising when slower).
pub const WALK_RATIO_M_PER_SPM: f64 = 0.0064;
/// Step lengths outside this range are not human walking and are clamped, m.
pub const STEP_LENGTH_RANGE_M: [f64; 2] = [0.3, 0.95];

/// Step length at `cadence_spm` steps per minute, m.
pub fn step_length_m(cadence_spm: f64) -> f64 {
    (WALK_RATIO_M_PER_SPM * cadence_spm.max(0.0))
        .clamp(STEP_LENGTH_RANGE_M[0], STEP_LENGTH_RANGE_M[1])
}

/// Walking speed at `cadence_spm` steps per minute, m/s.
pub fn speed_mps(cadence_spm: f64) -> f64 {
    step_length_m(cadence_spm) * cadence_spm.max(0.0) / 60.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_lengthen_with_cadence_within_human_range() {
        // An ordinary pace: ~105 steps/min, ~0.67 m steps, ~1.2 m/s.
        assert!((step_length_m(105.0) - 0.672).abs() < 1e-9);
        assert!((speed_mps(105.0) - 1.176).abs() < 1e-3);
        assert!(step_length_m(120.0) > step_length_m(90.0));
        assert_eq!(step_length_m(10.0), STEP_LENGTH_RANGE_M[0]);
        assert_eq!(step_length_m(400.0), STEP_LENGTH_RANGE_M[1]);
        assert_eq!(speed_mps(-5.0), 0.0);
    }
}
