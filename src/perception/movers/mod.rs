//! Movers: things moving on the ground, seen by one camera at a time — the SLAM cameras
//! see far to each side, where the stereo pair (±41° ahead, 8 m) does not, and a car
//! coming from the side at 8 m/s covers 24 m in the 3 s that matter. While the head stays
//! put, frames are compared with earlier ones with the head's rotation taken out
//! ([`change`]), moving regions found ([`blobs`]), placed where they touch the floor
//! ([`place`]) and tracked ([`track`]); a track moving faster than anyone walks, along a
//! line, as tall and wide as a car, is a vehicle. [`input`] is the runtime side.

pub mod blobs;
pub mod change;
pub mod coarse;
pub mod input;
pub mod place;
pub mod track;

pub use input::{MoverConfig, MoverError, MoverInput, MoverStats};
pub use place::Sighting;
pub use track::{MoverFit, MoverTrack, MoverTracker, TrackConfig};
