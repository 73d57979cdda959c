//! [`HazardEvent`]: perception's call that something needs an alert now.

use serde::{Deserialize, Serialize};

use super::environment::Thing;
use crate::time::{DeviceTime, HostTime};

/// A hazard that needs an alert: raised by perception when a [`Thing`] enters the alert
/// range in the walking corridor (or a drop-off / head-height obstacle appears ahead).
/// Perception raises it once per thing per approach; the alerter decides how to say it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HazardEvent {
    /// The thing, as perception sees it when raising the event.
    pub thing: Thing,
    /// Time to reach it at the current speed, seconds, when moving towards it.
    pub time_to_contact_s: Option<f32>,
    /// Capture time of the newest sample the decision rests on (photon time).
    pub evidence: DeviceTime,
    /// When perception raised it (host clock; virtual in as-fast-as-possible replay).
    pub raised: HostTime,
}
