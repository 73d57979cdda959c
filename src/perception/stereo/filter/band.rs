//! The height band and range filter (pure): stereo points are kept only where a person or
//! an obstacle the static map lacks can be — at least `min_range_m` (horizontally) from
//! the cameras (closer points are the wearer's own hands and body, or near-range
//! mismatches), above the floor by `min_height_m` (floor texture gives points at every
//! frame, and a noisy floor makes phantom steps) and at most `max_height_m` above it (the
//! ceiling and overhead fittings are nothing the wearer walks into).

/// The band's limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandConfig {
    /// Nearest horizontal distance from the cameras kept, m.
    pub min_range_m: f32,
    /// Lowest height above the floor kept, m.
    pub min_height_m: f32,
    /// Highest height above the floor kept, m.
    pub max_height_m: f32,
}

impl Default for BandConfig {
    fn default() -> Self {
        Self {
            min_range_m: 0.5,
            min_height_m: 0.25,
            max_height_m: 2.1,
        }
    }
}

/// Why a point left the band (or that it stayed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandVerdict {
    /// In the band.
    Kept,
    /// Closer than `min_range_m`.
    Near,
    /// At floor level.
    Floor,
    /// Above `max_height_m`.
    Ceiling,
    /// A non-finite coordinate.
    Invalid,
}

/// Where `p` (world, m) falls for cameras at `origin` (world, m) over a floor at
/// `floor_z_m`.
pub fn band_verdict(
    p: &[f32; 3],
    origin: &[f32; 3],
    floor_z_m: f32,
    cfg: &BandConfig,
) -> BandVerdict {
    if !p.iter().all(|v| v.is_finite()) {
        return BandVerdict::Invalid;
    }
    let (dx, dy) = (p[0] - origin[0], p[1] - origin[1]);
    let h = p[2] - floor_z_m;
    if dx * dx + dy * dy < cfg.min_range_m * cfg.min_range_m {
        BandVerdict::Near
    } else if h < cfg.min_height_m {
        BandVerdict::Floor
    } else if h > cfg.max_height_m {
        BandVerdict::Ceiling
    } else {
        BandVerdict::Kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_floor_ceiling_and_kept() {
        let cfg = BandConfig::default();
        let o = [10.0, 5.0, 1.6];
        let v = |p: [f32; 3]| band_verdict(&p, &o, 0.0, &cfg);
        // A hand 0.35 m ahead at chest height.
        assert_eq!(v([10.35, 5.0, 1.2]), BandVerdict::Near);
        // Floor texture 2 m ahead, with 5 cm of depth noise either way.
        assert_eq!(v([12.0, 5.0, 0.05]), BandVerdict::Floor);
        assert_eq!(v([12.0, 5.0, -0.05]), BandVerdict::Floor);
        // The ceiling.
        assert_eq!(v([12.0, 5.0, 2.6]), BandVerdict::Ceiling);
        // A person's torso 2 m ahead, and a head at 1.7 m.
        assert_eq!(v([12.0, 5.0, 1.0]), BandVerdict::Kept);
        assert_eq!(v([11.0, 4.0, 1.7]), BandVerdict::Kept);
        // The floor is where the caller says (a raised platform).
        assert_eq!(
            band_verdict(&[12.0, 5.0, 0.35], &o, 0.3, &cfg),
            BandVerdict::Floor
        );
        assert_eq!(v([f32::NAN, 5.0, 1.0]), BandVerdict::Invalid);
    }
}
