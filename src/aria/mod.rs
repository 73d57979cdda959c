//! Project Aria (Gen1) file formats, read and written natively: VRS recordings
//! ([`vrs`], typed into Aria streams by [`recording`]), device calibration ([`calib`]) and
//! Machine Perception Services outputs ([`mps`]).

pub mod calib;
pub mod mps;
pub mod nominal_calib;
pub mod recorded_calib;
pub mod recording;
pub mod vrs;
