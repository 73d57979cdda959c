//! Optional sensor rectification before aggregation: the device calibration's IMU,
//! magnetometer and barometer models (`crate::aria::calib`, checked against
//! projectaria_tools) applied to each sample's raw slots. Channels keep their sensor frames;
//! only bias, scale and misalignment are corrected.

use nalgebra::Vector3;

use crate::aria::calib::{
    BarometerCalibration, DeviceCalibration, ImuCalibration, MagnetometerCalibration,
};
use crate::sample::StreamId;
use crate::window::extract::RawSample;

/// The sensor models of one device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rectifiers {
    /// Right IMU (`imu-right`).
    pub imu_right: Option<ImuCalibration>,
    /// Left IMU (`imu-left`).
    pub imu_left: Option<ImuCalibration>,
    /// The magnetometer (the first in the calibration).
    pub magnetometer: Option<MagnetometerCalibration>,
    /// The barometer (the first in the calibration).
    pub barometer: Option<BarometerCalibration>,
}

impl Rectifiers {
    /// The models of `calib` (any of them may be missing; those samples stay raw).
    pub fn from_calibration(calib: &DeviceCalibration) -> Self {
        Self {
            imu_right: calib.imu("imu-right").cloned(),
            imu_left: calib.imu("imu-left").cloned(),
            magnetometer: calib.magnetometers.first().cloned(),
            barometer: calib.barometers.first().cloned(),
        }
    }

    /// Rectifies `raw` (slots as laid out by `extract` for `stream`) in place.
    pub fn apply(&self, stream: StreamId, raw: &mut RawSample) {
        match stream {
            StreamId::ImuRight | StreamId::ImuLeft => {
                let cal = if stream == StreamId::ImuRight {
                    &self.imu_right
                } else {
                    &self.imu_left
                };
                if let Some(c) = cal {
                    map3(raw, 0, |v| c.rectify_accel(v));
                    map3(raw, 3, |v| c.rectify_gyro(v));
                }
            }
            StreamId::Magnetometer => {
                if let Some(c) = &self.magnetometer {
                    map3(raw, 0, |v| c.rectify(v));
                }
            }
            StreamId::Barometer => {
                if let (Some(c), Some(p)) = (&self.barometer, raw.vals.get_mut(0)) {
                    *p = c.rectify(*p);
                }
            }
            _ => {}
        }
    }
}

/// Applies `f` to slots `first..first + 3` when all three are present.
fn map3(raw: &mut RawSample, first: usize, f: impl Fn(&Vector3<f64>) -> Vector3<f64>) {
    let bits = 0b111u16 << first;
    if raw.present & bits != bits {
        return;
    }
    let Some([x, y, z]) = raw.vals.get_mut(first..first + 3) else {
        return;
    };
    let r = f(&Vector3::new(*x, *y, *z));
    (*x, *y, *z) = (r.x, r.y, r.z);
}
