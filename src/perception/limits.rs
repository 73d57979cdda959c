//! What a session cannot do, in words (pure): the `limitations` of the state.

use super::points::PointMap;
use super::sensors::SensorModels;
use crate::sample::StreamId;

/// The limitations of a session with `models`, `points` and the streams `has` says it has.
pub fn limitations(
    models: &SensorModels,
    points: Option<&PointMap>,
    has: impl Fn(StreamId) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut say = |s: &str| out.push(s.to_string());
    if !models.calibrated {
        say("no calibration: sensor axes are assumed, so heading and gaze directions may be off");
    }
    if !has(StreamId::ImuRight) && !has(StreamId::ImuLeft) {
        say("no IMU: cannot tell walking from standing or count steps");
    }
    if !has(StreamId::Magnetometer) {
        say("no magnetometer: no compass heading");
    }
    if !has(StreamId::Barometer) && !has(StreamId::DevicePose) {
        say("no barometer or trajectory: cannot tell height changes");
    }
    if !has(StreamId::DevicePose) {
        say("no device pose: no position in the room, so no obstacle map");
    }
    match points {
        None => say("no semi-dense points: cannot see obstacles, drop-offs or free space"),
        Some(p) if p.is_empty() => {
            say("no semi-dense points: cannot see obstacles, drop-offs or free space")
        }
        Some(p) if !p.is_causal() => say(
            "semi-dense points without observation times: the whole map is used, including parts not seen yet",
        ),
        Some(_) => {}
    }
    if !has(StreamId::EyeGaze) {
        say("no eye gaze: cannot tell what you are looking at");
    }
    if !has(StreamId::CameraRgb) {
        say("no RGB camera: cannot read text");
    }
    out
}
