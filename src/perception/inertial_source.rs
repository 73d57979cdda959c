//! [`InertialPoseSource`]: a `device-pose` stream derived from the IMU for input that has
//! none (live glasses stream no MPS trajectory; a replay with `--recorded-only`), so that
//! what needs the wearer's pose — stereo depth placed around the wearer, the walking
//! corridor — works there too. Every sample of the inner source passes through unchanged;
//! after each `imu-right` sample the [`InertialPose`] estimator may add a pose (100 Hz) with
//! the IMU sample's capture and arrival times, so capture order holds. Derived poses carry
//! quality [`crate::perception::inertial_pose::INERTIAL_QUALITY`].
//!
//! With a [`StereoOdometry`] ([`InertialPoseSource::with_odometry`]), SLAM pairs are
//! paired, decoded and tracked as they pass, and each position the odometry fixes moves
//! the estimate's position there ([`InertialPose::visual_fix`]): the poses after it carry
//! [`crate::perception::inertial_pose::VISUAL_QUALITY`]. The work is done inline, on the
//! thread that reads the source, so it is deterministic in lock step.

use crate::aria::recording::image::decode_image;
use crate::perception::inertial_pose::{AttitudeGains, InertialPose};
use crate::perception::odometry::{OdometryStats, Outcome, StereoOdometry};
use crate::perception::stereo::{StereoPair, StereoPairer};
use crate::perception::SensorModels;
use crate::sample::{ImageFrame, Payload, Sample, StreamId};
use crate::source::{Source, SourceError};

/// Counters of the derived stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InertialStats {
    /// IMU samples used.
    pub imu_used: u64,
    /// IMU samples without a valid, finite reading (skipped).
    pub imu_unusable: u64,
    /// Poses given.
    pub poses: u64,
    /// Of them, poses whose position followed visual fixes.
    pub visual_poses: u64,
    /// SLAM pairs that could not be decoded as greyscale images (skipped).
    pub pairs_undecodable: u64,
    /// The visual odometry's counters.
    pub odometry: OdometryStats,
}

/// What the derived pose is made from: the sensor models, and visual odometry where the
/// SLAM cameras and their calibration allow it.
#[derive(Clone, Debug)]
pub struct PoseDerivation {
    /// IMU extrinsics and the head's forward direction.
    pub models: SensorModels,
    /// The SLAM cameras' odometry.
    pub odometry: Option<StereoOdometry>,
}

struct Visual {
    pairer: StereoPairer<ImageFrame>,
    odometry: StereoOdometry,
}

/// The inner source plus a derived `device-pose` stream.
pub struct InertialPoseSource {
    inner: Box<dyn Source>,
    models: SensorModels,
    estimator: InertialPose,
    pending: Option<Sample>,
    seq: u64,
    stats: InertialStats,
    visual: Option<Visual>,
}

impl std::fmt::Debug for InertialPoseSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InertialPoseSource")
            .field("inner", &self.inner.describe())
            .field("stats", &self.stats)
            .finish()
    }
}

impl InertialPoseSource {
    /// Over `inner`, with the calibration's sensor models (IMU extrinsics and the head's
    /// forward direction).
    pub fn new(inner: Box<dyn Source>, models: SensorModels) -> Self {
        let estimator = InertialPose::new(models.forward_device());
        Self {
            inner,
            models,
            estimator,
            pending: None,
            seq: 0,
            stats: InertialStats::default(),
            visual: None,
        }
    }

    /// Over `inner`, as `derivation` says.
    pub fn derived(inner: Box<dyn Source>, derivation: PoseDerivation) -> Self {
        let s = Self::new(inner, derivation.models);
        match derivation.odometry {
            Some(o) => s.with_odometry(o),
            None => s,
        }
    }

    /// Positions from visual odometry on the SLAM pairs that pass (and the attitude gains
    /// measured with it, [`AttitudeGains::VISUAL`]).
    pub fn with_odometry(mut self, odometry: StereoOdometry) -> Self {
        self.estimator = self.estimator.with_gains(AttitudeGains::VISUAL);
        self.visual = Some(Visual {
            pairer: StereoPairer::default(),
            odometry,
        });
        self
    }

    /// One SLAM sample: paired, and a pair tracked.
    fn see(&mut self, s: &Sample) {
        let Some(v) = self.visual.as_mut() else {
            return;
        };
        let Some(pair) = v.pairer.push_sample(s) else {
            return;
        };
        let Some(r) = self.estimator.attitude() else {
            return;
        };
        let StereoPair {
            capture_ns,
            left,
            right,
            ..
        } = pair;
        let (Ok(l), Ok(rt)) = (decode_image(&left), decode_image(&right)) else {
            self.stats.pairs_undecodable += 1;
            return;
        };
        let size = v.odometry.source_size();
        if l.channels != 1
            || rt.channels != 1
            || (l.width, l.height) != size.0
            || (rt.width, rt.height) != size.1
        {
            self.stats.pairs_undecodable += 1;
            return;
        }
        let predicted = self.estimator.position_at(capture_ns);
        match v.odometry.track(&l.pixels, &rt.pixels, &r, &predicted) {
            Outcome::Fixed { t_world, .. } => self.estimator.visual_fix(capture_ns, t_world),
            Outcome::Lost { .. } => self.estimator.visual_lost(),
            Outcome::Started { .. } => {}
        }
        self.stats.odometry = v.odometry.stats();
    }

    /// Whether `streams` (a source's) lack a pose to derive one for, and have the IMU.
    pub fn needed(streams: &[StreamId]) -> bool {
        !streams.contains(&StreamId::DevicePose) && streams.contains(&StreamId::ImuRight)
    }

    /// The counters so far.
    pub fn stats(&self) -> InertialStats {
        self.stats
    }

    fn derive(&mut self, s: &Sample) {
        let Payload::Imu(imu) = &s.payload else {
            return;
        };
        let Some((a, w)) = self.models.imu_device(StreamId::ImuRight, imu) else {
            self.stats.imu_unusable += 1;
            return;
        };
        self.stats.imu_used += 1;
        if let Some(p) = self.estimator.push(s.capture.ns(), &a, &w) {
            self.stats.poses += 1;
            if self.estimator.visual_at(s.capture.ns()) {
                self.stats.visual_poses += 1;
            }
            self.seq += 1;
            self.pending = Some(Sample {
                stream: StreamId::DevicePose,
                capture: s.capture,
                arrival: s.arrival,
                seq: self.seq,
                payload: Payload::Pose(p),
            });
        }
    }
}

impl Source for InertialPoseSource {
    fn describe(&self) -> String {
        format!("{} + device pose from the IMU", self.inner.describe())
    }

    fn stream_origin(&self, stream: StreamId) -> Option<String> {
        self.inner.stream_origin(stream)
    }

    fn streams(&self) -> Vec<StreamId> {
        let mut s = self.inner.streams();
        if !s.contains(&StreamId::DevicePose) {
            s.push(StreamId::DevicePose);
        }
        s
    }

    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        if let Some(p) = self.pending.take() {
            return Some(Ok(p));
        }
        let next = self.inner.next_sample();
        if let Some(Ok(s)) = &next {
            match s.stream {
                StreamId::ImuRight => self.derive(s),
                StreamId::CameraSlamLeft | StreamId::CameraSlamRight => self.see(s),
                _ => {}
            }
        }
        next
    }
}
