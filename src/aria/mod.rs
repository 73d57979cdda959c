//! Project Aria file formats (Gen1 and Gen2, [`generation`]), read and written natively: VRS
//! recordings ([`vrs`], typed into Aria streams by [`recording`]), device calibration
//! ([`calib`]) and Machine Perception Services outputs ([`mps`]).

pub mod calib;
pub mod generation;
pub mod mps;
pub mod nominal_calib;
pub mod recorded_calib;
pub mod recording;
pub mod vrs;
