//! A nominal Gen1 calibration for recordings and devices that carry none: the factory
//! calibration of one real Gen1 unit (`calibration/aria_gen1_1WM09380041283_factory.json`),
//! compiled in. Units differ by millimetres and fractions of a degree, far below a clock
//! hour (30°), so it places text in clock directions; it is never used where unit-precise
//! geometry matters (stereo depth, sensor axes).

use crate::aria::calib::{CalibError, CalibSource, DeviceCalibration};

/// The calibration file this is built from.
pub const NOMINAL_GEN1_JSON: &str =
    include_str!("../../calibration/aria_gen1_1WM09380041283_factory.json");

/// The nominal Gen1 calibration with the cameras of `sizes` (`(label, width, height)`, as
/// [`super::recorded_calib::recorded_camera_sizes`] gives them) rescaled to those sizes.
pub fn nominal_gen1(sizes: &[(String, u32, u32)]) -> Result<DeviceCalibration, CalibError> {
    let source = CalibSource::Named("the nominal Gen1 calibration".into());
    DeviceCalibration::from_json_str_with_source(NOMINAL_GEN1_JSON, source)?
        .with_recorded_sizes(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nominal_calibration_parses_and_rescales_the_rgb_camera() {
        let c = nominal_gen1(&[("camera-rgb".into(), 1408, 1408)]).unwrap();
        let rgb = c.camera("camera-rgb").unwrap();
        let centre = rgb.project(&nalgebra::Vector3::new(0.0, 0.0, 1.0)).unwrap();
        // The optical axis lands near the middle of the 1408² image, not the 2880² sensor.
        assert!((centre.x - 704.0).abs() < 40.0 && (centre.y - 704.0).abs() < 40.0);
    }

    #[test]
    fn the_nominal_calibration_places_text_in_clock_directions() {
        let c = nominal_gen1(&[("camera-rgb".into(), 1408, 1408)]).unwrap();
        let g = crate::ocr::bearing::RgbGeometry::from_device(&c, "camera-rgb").unwrap();
        // The recorded Gen1 RGB image is rotated 90° (its rows run down the wearer's view):
        // along x the view is swept vertically (straight ahead throughout), along y
        // horizontally, from the wearer's right (small y) to the left.
        let hour = |x: f32, y: f32| g.clock([x, y]).unwrap().get();
        assert_eq!(
            [hour(704.0, 704.0), hour(150.0, 704.0), hour(1250.0, 704.0)],
            [12, 12, 12]
        );
        assert!([1, 2].contains(&hour(704.0, 150.0)));
        assert!([10, 11].contains(&hour(704.0, 1250.0)));
    }

    #[test]
    fn an_unknown_camera_is_an_error() {
        assert!(nominal_gen1(&[("camera-xyz".into(), 10, 10)]).is_err());
    }
}
