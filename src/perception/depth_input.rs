//! [`DepthInput`]: stereo depth from the SLAM pair as an input to perception. It pairs the
//! left and right SLAM frames, runs [`StereoDepth`] on them (inline for deterministic
//! lock-step runs, or on its own thread where only the newest pair waits, in real time),
//! and places each depth frame in the world with the device pose at its capture time,
//! interpolated between the `device-pose` samples around it (a frame waits for the pose
//! after it, however late the worker delivers it: the pose is always the pair's capture
//! pose, never the newest). World points then go to
//! [`super::Perception::on_depth_points`], where the corridor analysis sees people and
//! other things the static semi-dense map cannot hold.
//!
//! Without a pose (live input without a map) depth frames cannot be placed and are counted
//! as `unplaced`. Every frame offered is accounted: processed, dropped while the worker was
//! busy, failed (typed stereo error, logged once), or throttled.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use nalgebra::Isometry3;
use serde::Serialize;

use crate::sample::{ImageFrame, Payload, Sample, StreamId};
use crate::worker::Worker;

use super::stereo::{DepthFrame, StereoDepth, StereoPair, StereoPairer};

/// A pose farther than this from a depth frame's capture time does not place it, ns; two
/// poses around it farther apart than twice this are not interpolated.
pub const POSE_MATCH_NS: i64 = 60_000_000;
/// Poses kept for placing frames (the worker lags by at most a few frames), s of history.
pub const POSE_HISTORY_NS: i64 = 2_000_000_000;
/// Depth frames computed at most this often (device time), ns: 5 Hz by default.
pub const DEFAULT_PERIOD_NS: i64 = 200_000_000;
/// Finished frames waiting for the next tick (more are dropped and counted).
const RESULTS_CAP: usize = 8;

/// Counts of a [`DepthInput`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DepthInputStats {
    /// Left/right pairs formed.
    pub pairs: u64,
    /// Pairs skipped by the rate limit.
    pub throttled: u64,
    /// Pairs replaced by a newer one while the worker was busy.
    pub dropped_busy: u64,
    /// Depth frames computed.
    pub processed: u64,
    /// Pairs the stereo stage refused (bad image, size mismatch).
    pub failed: u64,
    /// Finished frames dropped because the results queue was full.
    pub dropped_results: u64,
    /// Frames placed in the world and handed to perception.
    pub placed: u64,
    /// Frames without a pose near their capture time.
    pub unplaced: u64,
    /// Of the placed frames, those placed with a pose interpolated between two around
    /// their capture time (the others: the nearest pose, within [`POSE_MATCH_NS`]).
    pub interpolated: u64,
    /// World points handed to perception.
    pub points: u64,
}

enum Mode {
    Inline(Box<StereoDepth>),
    Worker {
        tx: Sender<StereoPair<ImageFrame>>,
        /// A second handle on the worker's queue, to take out a stale pair.
        stale: Receiver<StereoPair<ImageFrame>>,
        /// The stereo thread (`None`: it could not start), joined on drop after the
        /// queue is closed.
        worker: Option<Worker>,
    },
}

/// Stereo depth feeding perception; see the module documentation.
pub struct DepthInput {
    mode: Mode,
    pairer: StereoPairer<ImageFrame>,
    results: Arc<Mutex<VecDeque<DepthFrame>>>,
    poses: VecDeque<(i64, Isometry3<f64>)>,
    waiting: VecDeque<DepthFrame>,
    newest_ns: Option<i64>,
    period_ns: i64,
    last_pair_ns: Option<i64>,
    stats: DepthInputStats,
    failed: Arc<Mutex<(u64, u64)>>,
    warned: bool,
    focal_baseline_px_m: f32,
}

impl std::fmt::Debug for DepthInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DepthInput")
            .field("stats", &self.stats())
            .finish()
    }
}

impl DepthInput {
    /// Depth from `stereo`, computed inline (`background == false`: deterministic, for
    /// lock-step runs) or on its own thread (newest pair wins).
    pub fn new(stereo: StereoDepth, background: bool) -> Self {
        let g = &stereo.rectification().geometry;
        let focal_baseline_px_m = (g.focal_px * g.baseline_m) as f32;
        log::debug!(
            "stereo depth: rectified focal {:.1} px, baseline {:.4} m",
            g.focal_px,
            g.baseline_m
        );
        let results = Arc::new(Mutex::new(VecDeque::with_capacity(RESULTS_CAP)));
        let failed = Arc::new(Mutex::new((0u64, 0u64)));
        let mode = if background {
            let (tx, rx) = crossbeam_channel::bounded::<StereoPair<ImageFrame>>(1);
            let stale = rx.clone();
            let out = Arc::clone(&results);
            let fail = Arc::clone(&failed);
            let mut stereo = stereo;
            // The thread could not start (`None`): nothing runs, every pair is dropped.
            let worker = Worker::spawn("stereo-depth", move |_| {
                let _cpu = crate::profile::cpu::account(crate::profile::stages::STEREO);
                for pair in rx {
                    let r = stereo.process_frames(pair.capture_ns, &pair.left, &pair.right);
                    push_result(&out, &fail, r);
                }
            })
            .ok();
            Mode::Worker { tx, stale, worker }
        } else {
            Mode::Inline(Box::new(stereo))
        };
        Self {
            mode,
            pairer: StereoPairer::new(
                super::stereo::pairing::DEFAULT_MAX_SKEW_NS,
                super::stereo::pairing::DEFAULT_CAPACITY,
            ),
            results,
            poses: VecDeque::with_capacity(256),
            waiting: VecDeque::with_capacity(RESULTS_CAP),
            newest_ns: None,
            period_ns: DEFAULT_PERIOD_NS,
            last_pair_ns: None,
            stats: DepthInputStats::default(),
            failed,
            warned: false,
            focal_baseline_px_m,
        }
    }

    /// The stereo pair's rectified focal length, px, times its baseline, m: the scale of
    /// its depth error (δz = z²·δd / (f·B)).
    pub fn focal_baseline_px_m(&self) -> f32 {
        self.focal_baseline_px_m
    }

    /// Computes depth at most once per `period_ns` of device time (0: every pair).
    pub fn with_period_ns(mut self, period_ns: i64) -> Self {
        self.period_ns = period_ns.max(0);
        self
    }

    /// The streams this input reads.
    pub fn wants(stream: StreamId) -> bool {
        matches!(
            stream,
            StreamId::CameraSlamLeft | StreamId::CameraSlamRight | StreamId::DevicePose
        )
    }

    /// Folds in one sample: SLAM frames are paired and (rate permitting) sent to stereo;
    /// device poses are kept for placing the results.
    pub fn on_sample(&mut self, s: &Sample) {
        let t = s.capture.ns();
        self.newest_ns = Some(self.newest_ns.map_or(t, |n| n.max(t)));
        if let Payload::Pose(p) = &s.payload {
            self.push_pose(s.capture.ns(), p.t_world_device);
            return;
        }
        let Some(pair) = self.pairer.push_sample(s) else {
            return;
        };
        self.stats.pairs += 1;
        if let Some(last) = self.last_pair_ns {
            if pair.capture_ns.saturating_sub(last) < self.period_ns {
                self.stats.throttled += 1;
                return;
            }
        }
        self.last_pair_ns = Some(pair.capture_ns);
        match &mut self.mode {
            Mode::Inline(stereo) => {
                let r = stereo.process_frames(pair.capture_ns, &pair.left, &pair.right);
                push_result(&self.results, &self.failed, r);
            }
            Mode::Worker { tx, stale, worker } => {
                if worker.is_none() {
                    self.stats.dropped_busy += 1;
                    return;
                }
                match tx.try_send(pair) {
                    Ok(()) => {}
                    Err(TrySendError::Full(pair)) => {
                        // Newest wins: take the waiting pair out, put this one in.
                        if stale.try_recv().is_ok() {
                            self.stats.dropped_busy += 1;
                        }
                        if tx.try_send(pair).is_err() {
                            self.stats.dropped_busy += 1;
                        }
                    }
                    Err(TrySendError::Disconnected(_)) => self.stats.dropped_busy += 1,
                }
            }
        }
    }

    fn push_pose(&mut self, t_ns: i64, t_world_device: Isometry3<f64>) {
        keep_pose(&mut self.poses, t_ns, t_world_device);
    }

    /// The device pose at `t_ns`; see [`pose_at_time`].
    pub fn pose_at(&self, t_ns: i64) -> PoseAt {
        pose_at_time(&self.poses, t_ns)
    }

    /// Finished depth frames placed in the world, oldest first. A frame whose capture
    /// time is past the newest pose waits (bounded) for the next one, so that its pose is
    /// interpolated; once the session's newest sample is [`POSE_MATCH_NS`] past it with
    /// no later pose, the nearest pose within [`POSE_MATCH_NS`] places it, or it counts
    /// as unplaced.
    pub fn poll(&mut self) -> Vec<PlacedDepth> {
        let frames: Vec<DepthFrame> = match self.results.lock() {
            Ok(mut q) => q.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        for f in frames {
            log::trace!("{}: stereo {:?}", f.capture_ns, f.stats);
            self.stats.processed += 1;
            if self.waiting.len() >= RESULTS_CAP {
                self.waiting.pop_front();
                self.stats.unplaced += 1;
            }
            self.waiting.push_back(f);
        }
        let mut out = Vec::with_capacity(self.waiting.len());
        while let Some(f) = self.waiting.front() {
            let placed = match self.pose_at(f.capture_ns) {
                PoseAt::Interpolated(p) => {
                    self.stats.interpolated += 1;
                    Some(p)
                }
                PoseAt::Nearest(p) => Some(p),
                PoseAt::Wait(p) => {
                    let given_up = self
                        .newest_ns
                        .is_some_and(|n| n.saturating_sub(f.capture_ns) > POSE_MATCH_NS);
                    if !given_up {
                        break;
                    }
                    p
                }
                PoseAt::Missing => None,
            };
            let Some(f) = self.waiting.pop_front() else {
                break;
            };
            match placed {
                Some(pose) => {
                    let w = f.to_world(&pose);
                    self.stats.placed += 1;
                    self.stats.points += w.len() as u64;
                    let o = pose.translation.vector;
                    out.push(PlacedDepth {
                        capture_ns: f.capture_ns,
                        origin_m: [o.x as f32, o.y as f32, o.z as f32],
                        points_world: w,
                    });
                }
                None => self.stats.unplaced += 1,
            }
        }
        if let Ok((failed, dropped)) = self.failed.lock().map(|g| *g) {
            if failed > self.stats.failed && !self.warned {
                log::warn!("stereo depth refused a SLAM pair (further refusals are counted)");
                self.warned = true;
            }
            self.stats.failed = failed;
            self.stats.dropped_results = dropped;
        }
        out
    }

    /// Counters so far.
    pub fn stats(&self) -> DepthInputStats {
        self.stats
    }
}

/// A depth frame placed in the world.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedDepth {
    /// Capture time of the pair, device ns.
    pub capture_ns: i64,
    /// Where the device (the cameras) was, world, m.
    pub origin_m: [f32; 3],
    /// The frame's points, world, m.
    pub points_world: Vec<[f32; 3]>,
}

/// The device pose at a time, as far as the poses so far tell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PoseAt {
    /// Interpolated between the poses just before and just after.
    Interpolated(Isometry3<f64>),
    /// No pose on one side, but one within [`POSE_MATCH_NS`] on the other, and none
    /// can come on the missing side (the time is before the first pose, or the poses
    /// around it are too far apart).
    Nearest(Isometry3<f64>),
    /// The time is after the newest pose: a later pose may still come. Carries the
    /// newest pose when it is within [`POSE_MATCH_NS`] (the fallback).
    Wait(Option<Isometry3<f64>>),
    /// No pose within [`POSE_MATCH_NS`].
    Missing,
}

/// Keeps `t_world_device` at `t_ns` in `poses` (capture order): an older pose than the
/// newest, or one not finite, is ignored; one pose per 5 ms (plenty to place a frame) over
/// [`POSE_HISTORY_NS`] (bounded at ~400 entries).
pub fn keep_pose(
    poses: &mut VecDeque<(i64, Isometry3<f64>)>,
    t_ns: i64,
    t_world_device: Isometry3<f64>,
) {
    if poses.back().is_some_and(|&(t, _)| t_ns < t)
        || !t_world_device
            .translation
            .vector
            .iter()
            .all(|v| v.is_finite())
    {
        return;
    }
    if poses
        .back()
        .is_some_and(|&(t, _)| t_ns.saturating_sub(t) < 5_000_000)
    {
        return;
    }
    poses.push_back((t_ns, t_world_device));
    while poses
        .front()
        .is_some_and(|&(t, _)| t_ns.saturating_sub(t) > POSE_HISTORY_NS)
    {
        poses.pop_front();
    }
}

/// The pose at `t_ns` from `poses` (capture order): translation interpolated linearly and
/// rotation spherically between the poses around it (pure).
pub fn pose_at_time(poses: &VecDeque<(i64, Isometry3<f64>)>, t_ns: i64) -> PoseAt {
    let i = poses.partition_point(|&(t, _)| t < t_ns);
    let near = |&(t, p): &(i64, Isometry3<f64>)| {
        (t.abs_diff(t_ns) <= POSE_MATCH_NS.unsigned_abs()).then_some(p)
    };
    match (i.checked_sub(1).and_then(|j| poses.get(j)), poses.get(i)) {
        (_, Some(&(t1, p1))) if t1 == t_ns => PoseAt::Interpolated(p1),
        (Some(a), Some(b)) => {
            let (t0, t1) = (a.0, b.0);
            if t1 - t0 <= 2 * POSE_MATCH_NS {
                let s = (t_ns - t0) as f64 / (t1 - t0) as f64;
                PoseAt::Interpolated(a.1.lerp_slerp(&b.1, s))
            } else {
                let nearest = if t_ns - t0 <= t1 - t_ns { a } else { b };
                near(nearest).map_or(PoseAt::Missing, PoseAt::Nearest)
            }
        }
        (Some(a), None) => PoseAt::Wait(near(a)),
        (None, Some(b)) => near(b).map_or(PoseAt::Missing, PoseAt::Nearest),
        (None, None) => PoseAt::Wait(None),
    }
}

fn push_result(
    out: &Mutex<VecDeque<DepthFrame>>,
    failed: &Mutex<(u64, u64)>,
    r: Result<DepthFrame, super::stereo::StereoError>,
) {
    match r {
        Ok(frame) => {
            let mut full = false;
            if let Ok(mut q) = out.lock() {
                if q.len() >= RESULTS_CAP {
                    q.pop_front();
                    full = true;
                }
                q.push_back(frame);
            }
            if full {
                if let Ok(mut g) = failed.lock() {
                    g.1 += 1;
                }
            }
        }
        Err(e) => {
            log::debug!("stereo depth: {e}");
            if let Ok(mut g) = failed.lock() {
                g.0 += 1;
            }
        }
    }
}

impl Drop for DepthInput {
    fn drop(&mut self) {
        if let Mode::Worker { tx, worker, .. } = &mut self.mode {
            // Closing the queue ends the worker's loop; then it is joined.
            let (dead, _) = crossbeam_channel::bounded(0);
            drop(std::mem::replace(tx, dead));
            drop(worker.take());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion, Vector3};

    fn pose(x: f64, yaw_deg: f64) -> Isometry3<f64> {
        Isometry3::from_parts(
            Translation3::new(x, 0.0, 1.6),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw_deg.to_radians()),
        )
    }

    #[test]
    fn pose_is_interpolated_at_the_capture_time_not_the_newest() {
        let ms = 1_000_000i64;
        let poses: VecDeque<(i64, Isometry3<f64>)> = [
            (0, pose(0.0, 0.0)),
            (10 * ms, pose(0.1, 10.0)),
            (20 * ms, pose(0.2, 20.0)),
        ]
        .into_iter()
        .collect();
        // Between two poses: translation and yaw a quarter of the way.
        let PoseAt::Interpolated(p) = pose_at_time(&poses, 12_500_000) else {
            panic!("interpolated expected");
        };
        assert!((p.translation.x - 0.125).abs() < 1e-9);
        let yaw = p.rotation.euler_angles().2.to_degrees();
        assert!((yaw - 12.5).abs() < 1e-6, "{yaw}");
        // Exactly on a pose.
        assert_eq!(
            pose_at_time(&poses, 10 * ms),
            PoseAt::Interpolated(pose(0.1, 10.0))
        );
        // After the newest: wait (with the newest as the fallback while within reach).
        assert_eq!(
            pose_at_time(&poses, 30 * ms),
            PoseAt::Wait(Some(pose(0.2, 20.0)))
        );
        assert_eq!(pose_at_time(&poses, 100 * ms), PoseAt::Wait(None));
        // Before the first: the nearest within reach, else none.
        assert_eq!(
            pose_at_time(&poses, -5 * ms),
            PoseAt::Nearest(pose(0.0, 0.0))
        );
        assert_eq!(pose_at_time(&poses, -100 * ms), PoseAt::Missing);
        // A gap too long to interpolate over: the nearest side, if near enough.
        let gap: VecDeque<(i64, Isometry3<f64>)> =
            [(0, pose(0.0, 0.0)), (500 * ms, pose(1.0, 0.0))]
                .into_iter()
                .collect();
        assert_eq!(pose_at_time(&gap, 20 * ms), PoseAt::Nearest(pose(0.0, 0.0)));
        assert_eq!(pose_at_time(&gap, 250 * ms), PoseAt::Missing);
        assert_eq!(pose_at_time(&VecDeque::new(), 0), PoseAt::Wait(None));
    }
}
