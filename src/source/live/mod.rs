//! Live input from Aria glasses (through `device/aria-bridge`) or `vista device-sim`: the wire
//! protocol, framed I/O, the clock-offset estimator, the device simulator and the live source.

pub mod framed;
pub mod offset;
pub mod protocol;
