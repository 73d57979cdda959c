//! How surely a point is in the walking corridor, given that the walking direction is
//! known only to within [`DIRECTION_UNCERTAINTY_RAD`]: a point `along` metres ahead may lie
//! `along · tan(DIRECTION_UNCERTAINTY_RAD)` farther to either side of the true walking
//! line than of the estimated one. Near the wearer that is nothing; 4.5 m ahead it is 8 cm,
//! enough to bring the jamb beside a 1 m doorway the wearer walks through (0.5 m off the
//! line, 0.15 m outside the 0.35 m half-corridor) into the corridor on the strides where
//! the estimate swings towards it. Such a thing is in the corridor, but not surely: the
//! hazard gate alerts it from beyond the alert distance only when it is in the corridor
//! narrowed by that uncertainty ([`sure_half_width_m`]), and within the alert distance
//! (where the uncertainty is small) as usual.

use super::obstacles::Corridor;

/// How far the estimated walking direction may be from the true one, radians (1°): the
/// walking line from the head track swings about ±1° with the head's sway over a stride
/// on a straight synthetic walk (`distance_estimation`: −1°, 0°, +1° every half stride).
pub const DIRECTION_UNCERTAINTY_RAD: f32 = 1.0 * std::f32::consts::PI / 180.0;

/// The corridor's half-width `half_m` less the lateral uncertainty `along_m` ahead: a
/// point at most this far from the estimated walking line is in the corridor whichever
/// way the direction is off; 0 at most.
pub fn sure_half_width_m(half_m: f32, along_m: f32) -> f32 {
    (half_m - along_m.max(0.0) * DIRECTION_UNCERTAINTY_RAD.tan()).max(0.0)
}

/// Whether a point `along_m` ahead and `lat_m` to the side of the walking line lies surely
/// within the half-width `half_m`.
pub fn surely_within(half_m: f32, along_m: f32, lat_m: f32) -> bool {
    lat_m.abs() <= sure_half_width_m(half_m, along_m)
}

/// The corridor `c` narrowed to its sure half-width `along_m` ahead (for a wall: whether
/// the narrowed corridor still meets it there).
pub fn narrowed(c: &Corridor, along_m: f32) -> Corridor {
    Corridor {
        width_m: 2.0 * sure_half_width_m(c.width_m / 2.0, along_m),
        ..*c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_grows_with_distance() {
        // At the feet nothing is taken off; 4.5 m ahead 1° is 7.9 cm.
        assert!((sure_half_width_m(0.35, 0.0) - 0.35).abs() < 1e-6);
        assert!((sure_half_width_m(0.35, 4.5) - (0.35 - 0.0785)).abs() < 1e-3);
        assert_eq!(sure_half_width_m(0.35, 1e6), 0.0);
        // Behind is no farther than at the feet.
        assert!((sure_half_width_m(0.35, -2.0) - 0.35).abs() < 1e-6);
        // A jamb 0.34 m off the line 4.5 m ahead is in the corridor, not surely;
        // 3 m ahead 0.29 m off it is.
        assert!(!surely_within(0.35, 4.5, 0.34));
        assert!(surely_within(0.35, 3.0, -0.29));
        assert!(surely_within(0.35, 4.5, 0.0));
    }
}
