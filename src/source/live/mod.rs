//! Live input from Aria glasses (through `device/aria-bridge`) or `vista device-sim`: the wire
//! protocol and the live source.

pub mod protocol;
