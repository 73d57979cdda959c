//! [`InertialPoseSource`]: a `device-pose` stream derived from the IMU for input that has
//! none (live glasses stream no MPS trajectory; a replay with `--recorded-only`), so that
//! what needs the wearer's pose — stereo depth placed around the wearer, the walking
//! corridor — works there too. Every sample of the inner source passes through unchanged;
//! after each `imu-right` sample the [`InertialPose`] estimator may add a pose (100 Hz) with
//! the IMU sample's capture and arrival times, so capture order holds. Derived poses carry
//! quality [`crate::perception::inertial_pose::INERTIAL_QUALITY`].

use crate::perception::inertial_pose::InertialPose;
use crate::perception::SensorModels;
use crate::sample::{Payload, Sample, StreamId};
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
}

/// The inner source plus a derived `device-pose` stream.
pub struct InertialPoseSource {
    inner: Box<dyn Source>,
    models: SensorModels,
    estimator: InertialPose,
    pending: Option<Sample>,
    seq: u64,
    stats: InertialStats,
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
        }
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
            if s.stream == StreamId::ImuRight {
                self.derive(s);
            }
        }
        next
    }
}
