//! Visual odometry from the two SLAM cameras (pure): where the device is, from how the
//! world's corners move between frames, with the orientation from the IMU.
//!
//! * [`image`]: float greyscale images and pyramids; [`corners`]: Shi–Tomasi corners on
//!   a grid; [`klt`]: pyramidal Lucas–Kanade tracking; [`stereo_match`]: a feature's
//!   disparity in the right image.
//! * [`translation`]: the position most tracked points agree with, orientation known.
//! * [`stereo_odometry`]: [`StereoOdometry`], the features' life from pair to pair.
//!
//! Written here rather than taken from OpenCV (`opencv` crate over `libopencv-dev`): the
//! parts needed are small (corner score, a 2×2 Lucas–Kanade, a 1-D window search, a 3×3
//! least squares), each tested against an exact answer, and OpenCV's C++ build and
//! bindings would add a system package and minutes of build to every fresh machine for
//! them. `imageproc` has corner scores but no optical flow.

pub mod corners;
pub mod image;
pub mod klt;
pub mod stereo_match;
pub mod stereo_odometry;
pub mod translation;

pub use stereo_odometry::{OdometryConfig, OdometryStats, Outcome, StereoOdometry};
