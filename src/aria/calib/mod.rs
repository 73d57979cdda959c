//! Aria device calibration: camera models and camera calibrations (project / unproject with
//! projectaria_tools' validity rules, Aria rescaling), IMU / magnetometer / barometer /
//! microphone intrinsics, the central pupil frame, the SLAM cameras that make the stereo
//! pair (`stereo_pair`), and parsing of the calibration JSON
//! (VRS `calib_json` tag, factory JSON files); a calibration in words and JSON (`summary`) and
//! points through a camera line by line (`point_lines`).
//!
//! Conventions follow projectaria_tools: quaternions in JSON are `[w,[x,y,z]]` (Hamilton),
//! `T_Device_Camera` maps camera-frame points into the device frame, and pixel centres are at
//! integer coordinates (the image spans `[-0.5, W-0.5]`).

mod barometer;
mod camera;
mod cpf;
mod device;
mod error;
mod fisheye624;
mod imu;
mod json;
mod kannala_brandt;
mod linear;
mod magnetometer;
mod model;
mod newton;
mod parse;
pub mod point_lines;
mod rectification;
mod rescale;
mod spherical;
mod stereo_pair;
pub mod summary;

pub use barometer::{BarometerCalibration, MicrophoneCalibration};
pub use camera::CameraCalibration;
pub use cpf::{cad_t_cpf_sensor, t_device_cpf, CadVariant};
pub use device::DeviceCalibration;
pub use error::{CalibError, CalibSource, FieldProblem};
pub use fisheye624::Fisheye624;
pub use imu::ImuCalibration;
pub use kannala_brandt::KannalaBrandtK3;
pub use linear::Linear;
pub use magnetometer::MagnetometerCalibration;
pub use model::CameraModel;
pub use rectification::LinearRectification;
pub use spherical::Spherical;
pub use stereo_pair::{StereoPair, MIN_BASELINE_M, SLAM_LABELS};
