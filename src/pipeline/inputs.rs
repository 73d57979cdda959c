//! What a run offers the assistant, whatever its source (a replay or live input): the
//! streams, perception's sensor models and point map, the calibration for text directions,
//! the default requests and the ground truth; and which MPS inputs that makes it use.

use std::path::{Path, PathBuf};

use crate::aria::calib::DeviceCalibration;
use crate::aria::recorded_calib::{recorded_camera_sizes, recording_calibration};
use crate::eval::mode::RunInputs;
use crate::perception::inertial_source::InertialPoseSource;
use crate::perception::PerceptionInputs;
use crate::sample::StreamId;
use crate::source::replay::ReplaySource;
use crate::source::Source;

use super::PipelineError;

/// What a run offers the assistant.
#[derive(Debug)]
pub struct AssistantInputs {
    /// The streams the run may deliver.
    pub streams: Vec<StreamId>,
    /// Of them, those Machine Perception Services computed offline (not what the glasses
    /// stream: an Aria Gen2 recording's own pose, gaze and hands are not among them).
    pub from_mps: Vec<StreamId>,
    /// Perception's sensor models and point map.
    pub perception: PerceptionInputs,
    /// The device calibration at the streamed image sizes (for text directions), if known.
    pub calibration: Option<DeviceCalibration>,
    /// Without one: the nominal Gen1 calibration at the streamed sizes, for text directions
    /// only (never for depth or sensor axes).
    pub nominal_calibration: Option<DeviceCalibration>,
    /// The requests file used when the options name none.
    pub default_requests: Option<PathBuf>,
    /// A session folder with `ground_truth.json` to score against, if any.
    pub truth: Option<PathBuf>,
    /// What the run is, for the trace's title (a session path, a device address).
    pub label: String,
    /// The source has no `device-pose` stream: the run derives one from the IMU
    /// ([`InertialPoseSource`]; `streams` already lists it).
    pub derive_pose: bool,
}

impl AssistantInputs {
    /// The inputs of a replay of `session` read by `source`.
    pub fn from_replay(session: &Path, source: &ReplaySource) -> Result<Self, PipelineError> {
        let perception = PerceptionInputs::from_session(session).map_err(|source| {
            PipelineError::PerceptionInputs {
                path: session.to_path_buf(),
                source: Box::new(source),
            }
        })?;
        // A damaged calibration is left out (the nominal one serves text directions), as for
        // a recording that carries none.
        let calibration = match recording_calibration(source.recording()) {
            Ok(c) => c,
            Err(e) => {
                log::warn!(
                    "{}: calibration unreadable, left out ({e}); using the nominal one",
                    session.display()
                );
                None
            }
        };
        let nominal_calibration = match calibration {
            Some(_) => None,
            None => nominal_for(&recorded_camera_sizes(source.recording())),
        };
        let root = source.files().root.clone();
        let requests = root.join("requests.jsonl");
        let truth = root
            .join("ground_truth.json")
            .is_file()
            .then(|| root.clone());
        Ok(Self {
            from_mps: source
                .streams()
                .into_iter()
                .filter(|&s| s.is_derived() && source.stream_origin(s).is_none())
                .collect(),
            streams: source.streams(),
            perception,
            calibration,
            nominal_calibration,
            default_requests: requests.is_file().then_some(requests),
            truth,
            label: format!("session {}", root.display()),
            derive_pose: false,
        })
    }

    /// Leaves out the session's MPS point map (`--recorded-only`: what the glasses stream, as
    /// live): MPS computes it offline, and its points are in the MPS trajectory's world frame,
    /// not in the frame of a pose the glasses compute (Gen2) or one derived from the IMU.
    pub fn leave_out_mps_points(&mut self) {
        if self.perception.points.take().is_some() {
            self.perception.notes.push(
                "recorded streams only: the MPS semi-dense point map is not used".to_string(),
            );
        }
    }

    /// Marks the run to derive the device pose from the IMU when `streams` lack one (and
    /// have the IMU): the stream is listed and a note says so. A semi-dense point map (a
    /// replay of a session with MPS, recorded streams only) is then not used: its points are
    /// in the MPS trajectory's world frame, not in the derived pose's (which starts at the
    /// origin, facing +x, at height 0): the floor 1.6 m below the real eyes stood at eye
    /// height beside the derived head, an "obstacle at head height" that walked along.
    pub fn derive_pose_if_missing(&mut self) {
        if InertialPoseSource::needed(&self.streams) {
            self.derive_pose = true;
            self.streams.push(StreamId::DevicePose);
            self.perception.notes.push(
                "no device pose in the input: derived from the IMU (attitude held to gravity; \
                 it starts at the origin and its yaw drifts with the gyro)"
                    .to_string(),
            );
            if self.perception.points.take().is_some() {
                self.perception.notes.push(
                    "the semi-dense point map is in the MPS trajectory's frame, not the \
                     IMU-derived pose's: not used"
                        .to_string(),
                );
            }
        }
    }

    /// Which MPS inputs the run uses: a device pose it did not derive from the IMU, the
    /// semi-dense point map, eye gaze, hands.
    pub fn run_inputs(&self) -> RunInputs {
        let has = |s: StreamId| self.from_mps.contains(&s);
        let mut mps = Vec::new();
        if has(StreamId::DevicePose) && !self.derive_pose {
            mps.push(StreamId::DevicePose.name().to_string());
        }
        if self.perception.points.is_some() {
            mps.push(StreamId::SemidensePoints.name().to_string());
        }
        for s in [StreamId::EyeGaze, StreamId::HandTracking] {
            if has(s) {
                mps.push(s.name().to_string());
            }
        }
        RunInputs::new(mps, self.derive_pose)
    }
}

/// The nominal Gen1 calibration at the streamed camera sizes (`None`, logged, if a size
/// cannot be applied).
pub fn nominal_for(sizes: &[(String, u32, u32)]) -> Option<DeviceCalibration> {
    match crate::aria::nominal_calib::nominal_gen1(sizes) {
        Ok(c) => Some(c),
        Err(e) => {
            log::warn!("the nominal calibration does not fit these streams: {e}");
            None
        }
    }
}
