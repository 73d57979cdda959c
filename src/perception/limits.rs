//! What a session cannot do, in words (pure): the `limitations` of the state.

use super::points::PointMap;
use super::sensors::SensorModels;
use crate::sample::StreamId;

/// The limitations of a session with `models`, `points` (the semi-dense map, or the live
/// map's newest snapshot) and the streams `has` says it has; `live_map`: a map is built live
/// from stereo depth (an empty one at the start is no limitation: it fills as the wearer
/// looks around); `depth_in_view`: without a map, stereo depth still sees what is in view
/// (obstacles and drop-offs are seen, but not remembered out of view).
pub fn limitations(
    models: &SensorModels,
    points: Option<&PointMap>,
    live_map: bool,
    depth_in_view: bool,
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
        _ if live_map => {}
        None if depth_in_view => say(IN_VIEW_ONLY),
        Some(p) if p.is_empty() && depth_in_view => say(IN_VIEW_ONLY),
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

/// Without a map, what stereo depth alone can and cannot do.
pub const IN_VIEW_ONLY: &str =
    "no map: obstacles and drop-offs are seen only while in the cameras' view, not remembered";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_map_is_no_missing_map() {
        let models = SensorModels::default();
        let all = |_: StreamId| true;
        let says_no_map = |v: &[String]| v.iter().any(|l| l.contains("cannot see obstacles"));
        assert!(says_no_map(&limitations(&models, None, false, false, all)));
        // Stereo depth builds the map: not said, even before its first points.
        assert!(!says_no_map(&limitations(&models, None, true, true, all)));
        assert!(!says_no_map(&limitations(
            &models,
            Some(&PointMap::default()),
            true,
            true,
            all
        )));
        // Stereo depth without a map sees what is in view: said as that, not as blindness.
        for points in [None, Some(&PointMap::default())] {
            let l = limitations(&models, points, false, true, all);
            assert!(!says_no_map(&l), "{l:?}");
            assert!(l.iter().any(|x| x == IN_VIEW_ONLY), "{l:?}");
        }
    }
}
