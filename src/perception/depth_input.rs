//! [`DepthInput`]: stereo depth from the SLAM pair as an input to perception. It pairs the
//! left and right SLAM frames, runs [`StereoDepth`] on them (inline for deterministic
//! lock-step runs, or on its own thread where only the newest pair waits, in real time),
//! and places each depth frame in the world with the device pose nearest its capture time
//! (from the `device-pose` samples it is shown). World points then go to
//! [`super::Perception::on_depth_points`], where the corridor analysis sees people and
//! other things the static semi-dense map cannot hold.
//!
//! Without a pose (live input without a map) depth frames cannot be placed and are counted
//! as `unplaced`. Every frame offered is accounted: processed, dropped while the worker was
//! busy, failed (typed stereo error, logged once), or throttled.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, TrySendError};
use nalgebra::Isometry3;
use serde::Serialize;

use crate::sample::{ImageFrame, Payload, Sample, StreamId};

use super::stereo::{DepthFrame, StereoDepth, StereoPair, StereoPairer};

/// A pose farther than this from a depth frame's capture time does not place it, ns.
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
    /// World points handed to perception.
    pub points: u64,
}

enum Mode {
    Inline(Box<StereoDepth>),
    Worker {
        tx: Sender<StereoPair<ImageFrame>>,
        /// A second handle on the worker's queue, to take out a stale pair.
        stale: Receiver<StereoPair<ImageFrame>>,
        handle: Option<JoinHandle<()>>,
    },
}

/// Stereo depth feeding perception; see the module documentation.
pub struct DepthInput {
    mode: Mode,
    pairer: StereoPairer<ImageFrame>,
    results: Arc<Mutex<VecDeque<DepthFrame>>>,
    poses: VecDeque<(i64, Isometry3<f64>)>,
    period_ns: i64,
    last_pair_ns: Option<i64>,
    stats: DepthInputStats,
    failed: Arc<Mutex<(u64, u64)>>,
    warned: bool,
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
        let results = Arc::new(Mutex::new(VecDeque::with_capacity(RESULTS_CAP)));
        let failed = Arc::new(Mutex::new((0u64, 0u64)));
        let mode = if background {
            let (tx, rx) = crossbeam_channel::bounded::<StereoPair<ImageFrame>>(1);
            let stale = rx.clone();
            let out = Arc::clone(&results);
            let fail = Arc::clone(&failed);
            let mut stereo = stereo;
            let handle = std::thread::Builder::new()
                .name("stereo-depth".into())
                .spawn(move || {
                    for pair in rx {
                        let r = stereo.process_frames(pair.capture_ns, &pair.left, &pair.right);
                        push_result(&out, &fail, r);
                    }
                })
                .ok();
            match handle {
                Some(h) => Mode::Worker {
                    tx,
                    stale,
                    handle: Some(h),
                },
                // The thread could not start: nothing runs, every pair is dropped.
                None => Mode::Worker {
                    tx,
                    stale,
                    handle: None,
                },
            }
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
            period_ns: DEFAULT_PERIOD_NS,
            last_pair_ns: None,
            stats: DepthInputStats::default(),
            failed,
            warned: false,
        }
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
            Mode::Worker { tx, stale, handle } => {
                if handle.is_none() {
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
        if self.poses.back().is_some_and(|&(t, _)| t_ns < t)
            || !t_world_device
                .translation
                .vector
                .iter()
                .all(|v| v.is_finite())
        {
            return;
        }
        // Keep one pose per 5 ms: plenty to place a frame, bounded at ~400 entries.
        if self
            .poses
            .back()
            .is_some_and(|&(t, _)| t_ns.saturating_sub(t) < 5_000_000)
        {
            return;
        }
        self.poses.push_back((t_ns, t_world_device));
        while self
            .poses
            .front()
            .is_some_and(|&(t, _)| t_ns.saturating_sub(t) > POSE_HISTORY_NS)
        {
            self.poses.pop_front();
        }
    }

    /// The pose nearest `t_ns` within [`POSE_MATCH_NS`].
    pub fn pose_at(&self, t_ns: i64) -> Option<Isometry3<f64>> {
        self.poses
            .iter()
            .filter(|(t, _)| (t - t_ns).abs() <= POSE_MATCH_NS)
            .min_by_key(|(t, _)| (t - t_ns).abs())
            .map(|&(_, p)| p)
    }

    /// Finished depth frames placed in the world: `(capture_ns, world points)`, oldest
    /// first. Frames that cannot be placed yet (no pose at or after their capture time)
    /// wait while the pose stream may still catch up, then count as unplaced.
    pub fn poll(&mut self) -> Vec<(i64, Vec<[f32; 3]>)> {
        let frames: Vec<DepthFrame> = match self.results.lock() {
            Ok(mut q) => q.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        let mut out = Vec::with_capacity(frames.len());
        for f in frames {
            self.stats.processed += 1;
            match self.pose_at(f.capture_ns) {
                Some(pose) => {
                    let w = f.to_world(&pose);
                    self.stats.placed += 1;
                    self.stats.points += w.len() as u64;
                    out.push((f.capture_ns, w));
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
        if let Mode::Worker { tx, handle, .. } = &mut self.mode {
            // Closing the queue ends the worker's loop.
            let (dead, _) = crossbeam_channel::bounded(0);
            drop(std::mem::replace(tx, dead));
            if let Some(h) = handle.take() {
                let _ = h.join();
            }
        }
    }
}
