//! Knowing what things are (issue 21): an object detector on camera frames, its boxes typed
//! by [`crate::state::ObjectClass`]; [`resize`] makes the model's square input from a decoded frame;
//! [`detector`] runs SSD MobileNetV2 COCO (`models/detector/`, converted once from an npm
//! package, see its `PROVENANCE.md`) on ONNX Runtime and gives [`Detection`]s in the frame's
//! pixels; [`photos`] measures it against hand-labelled photographs.

pub mod detector;
pub mod photos;
pub mod resize;
pub mod seer;
pub mod still;

pub use crate::state::ObjectClass;
pub use detector::{
    DetectError, Detection, Detector, DetectorConfig, PixelBox, DEFAULT_MIN_SCORE, MAX_BOXES,
};
pub use seer::{DetectorSeer, SeerReport, SeerStats};
