//! Live input from Aria glasses (through `device/aria-bridge`) or `vista device-sim`: the wire
//! protocol, framed I/O, the clock-offset estimator, the device simulator (`sim`; on a
//! recorded session: `sim_serve`) and the live source.

pub mod clock;
pub mod epoch;
pub mod framed;
pub mod link;
pub mod link_stats;
pub mod offset;
pub mod overlay;
pub mod primed;
pub mod protocol;
pub mod sim;
pub mod sim_serve;
pub mod source;
pub mod wire_streams;

pub use clock::{LiveClock, OffsetCell};
pub use link_stats::{LinkReport, LinkStats};
pub use source::{LiveConfig, LiveSource};
