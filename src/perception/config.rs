//! [`PerceptionConfig`]: the tunable numbers of perception, with their units.

/// Shortest tick, ns (50 ms).
pub const MIN_TICK_NS: i64 = 50_000_000;
/// Longest tick, ns (100 ms).
pub const MAX_TICK_NS: i64 = 100_000_000;

/// Perception's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PerceptionConfig {
    /// Tick period in device time, ns (clamped to 50–100 ms by [`Self::tick_ns`]).
    pub tick_ns: i64,
    /// Width of the walking corridor, m (body 0.5 m and 0.1 m each side, as the ground
    /// truth's `synth::truth::truth_hazards`).
    pub corridor_width_m: f32,
    /// How far ahead perception looks, m.
    pub range_m: f32,
    /// Alert when an in-path thing being approached is this close, m (the least alert
    /// distance; faster, the time to contact below brings it earlier)...
    pub alert_distance_m: f32,
    /// ... or when the time to contact at the current speed is this short, s (the alert
    /// distance scaled by speed)...
    pub alert_ttc_s: f32,
    /// ... but never farther than this, m.
    pub max_alert_distance_m: f32,
    /// An alerted thing re-arms once it is this much farther than the alert distance, m...
    pub rearm_margin_m: f32,
    /// ... or out of the path (or unseen) for this long, ns.
    pub rearm_after_ns: i64,
    /// A track not seen for this long is forgotten, ns.
    pub forget_after_ns: i64,
    /// Texts older than this are dropped from the state, ns.
    pub text_max_age_ns: i64,
    /// At most this many texts are kept (oldest dropped, counted).
    pub max_texts: usize,
    /// At most this many things are reported per tick (nearest first).
    pub max_things: usize,
    /// Eye height above the floor assumed when the floor is not seen, m.
    pub eye_height_m: f32,
}

impl Default for PerceptionConfig {
    fn default() -> Self {
        Self {
            tick_ns: MIN_TICK_NS,
            corridor_width_m: 0.7,
            range_m: 5.0,
            alert_distance_m: 3.0,
            alert_ttc_s: 4.5,
            max_alert_distance_m: 4.5,
            rearm_margin_m: 1.5,
            rearm_after_ns: 3_000_000_000,
            forget_after_ns: 3_000_000_000,
            text_max_age_ns: 10_000_000_000,
            max_texts: 16,
            max_things: 16,
            eye_height_m: 1.6,
        }
    }
}

impl PerceptionConfig {
    /// The tick period, clamped to 50–100 ms.
    pub fn tick_ns(&self) -> i64 {
        self.tick_ns.clamp(MIN_TICK_NS, MAX_TICK_NS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_is_clamped() {
        let mut c = PerceptionConfig::default();
        assert_eq!(c.tick_ns(), 50_000_000);
        c.tick_ns = 1;
        assert_eq!(c.tick_ns(), 50_000_000);
        c.tick_ns = 1_000_000_000;
        assert_eq!(c.tick_ns(), 100_000_000);
        c.tick_ns = 80_000_000;
        assert_eq!(c.tick_ns(), 80_000_000);
    }
}
