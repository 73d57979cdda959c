//! Stereo depth from the two SLAM cameras (classical, no neural network): live on the
//! glasses there is no MPS map, and even in replay the map has no people in it, so depth
//! in front of the wearer comes from the two overlapping SLAM fisheyes.
//!
//! * [`rectify`]: a virtual rectified pinhole pair from the session's calibration, with
//!   [`remap`] tables built once and a validity mask where either fisheye has no pixel.
//! * [`census`] and [`matcher`]: census block matching with texture, cost, uniqueness and
//!   left–right tests and subpixel refinement.
//! * [`triangulate`]: disparities → 3-D points in the device frame.
//! * [`pairing`]: left/right frames paired by capture time, bounded, drops counted.
//! * [`filter`]: which world points of a depth frame perception sees (band, static-map,
//!   temporal-consistency filters).
//! * [`stage`]: [`StereoDepth`], decode + rectify + match + triangulate for one pair →
//!   [`DepthFrame`].

pub mod census;
pub mod error;
pub mod filter;
pub mod matcher;
pub mod pairing;
pub mod rectify;
pub mod remap;
pub mod stage;
pub mod triangulate;

pub use error::StereoError;
pub use filter::{DepthFilter, DepthFilterConfig, DepthFilterStats};
pub use matcher::{MatchConfig, MatchStats, Matcher};
pub use pairing::{PairingStats, StereoPair, StereoPairer};
pub use rectify::{Rectification, RectifyConfig, Side, StereoGeometry};
pub use stage::{DepthFrame, DepthStats, GreyView, StereoConfig, StereoDepth};
