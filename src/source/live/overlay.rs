//! [`MpsOverlay`]: a live source with a session's MPS-derived streams (device pose, eye gaze,
//! hands) merged in by capture time.
//!
//! The glasses' live stream carries raw sensors only; MPS computes pose, gaze and hands
//! offline. To evaluate a live run against a replay of the same recording (or to run on a
//! place mapped earlier), `vista live --map SESSION` merges the session's MPS rows into the
//! live stream: a derived sample is delivered just before the first live sample captured
//! after it (so it is never early, and late by at most one live sample interval, ~1 ms with
//! the IMUs running). Derived samples after the last live sample are never delivered. This
//! is an evaluation aid: on real glasses without MPS, perception has no pose or gaze.

use std::path::Path;

use crate::aria::mps::{self, MpsFiles};
use crate::sample::{Sample, StreamId};
use crate::source::{Source, SourceError};
use crate::time::{DeviceTime, HostTime};

use crate::source::replay::mps_lanes;

/// One derived stream's samples, in capture order.
type RawLane = crate::source::replay::Lane;
type Lane = std::iter::Peekable<RawLane>;

/// A source with MPS-derived samples merged in by capture time.
pub struct MpsOverlay<S> {
    inner: S,
    lanes: Vec<Lane>,
    streams: Vec<StreamId>,
    pending: Option<Sample>,
    seq: [u64; StreamId::COUNT],
    /// Derived samples delivered.
    delivered: u64,
}

impl<S> std::fmt::Debug for MpsOverlay<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpsOverlay")
            .field("lanes", &self.lanes.len())
            .field("streams", &self.streams)
            .field("delivered", &self.delivered)
            .finish()
    }
}

impl<S: Source> MpsOverlay<S> {
    /// Overlays the MPS files of `files` (pose: closed loop, else open loop; eye gaze;
    /// wrist and palm) on `inner`. A file that cannot be opened is an error naming it.
    pub fn new(inner: S, files: &MpsFiles) -> Result<Self, mps::MpsError> {
        let lanes = mps_lanes(files)?;
        let mut streams = inner.streams();
        for (id, present) in [
            (
                StreamId::DevicePose,
                files.closed_loop.is_some() || files.open_loop.is_some(),
            ),
            (StreamId::EyeGaze, files.eye_gaze.is_some()),
            (StreamId::HandTracking, files.wrist_and_palm.is_some()),
        ] {
            if present && !streams.contains(&id) {
                streams.push(id);
            }
        }
        streams.sort();
        Ok(Self {
            inner,
            lanes: lanes.into_iter().map(Iterator::peekable).collect(),
            streams,
            pending: None,
            seq: [0; StreamId::COUNT],
            delivered: 0,
        })
    }

    /// Derived samples delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The lane whose next item is due before `before` (errors are due at once).
    fn due_lane(&mut self, before: DeviceTime) -> Option<usize> {
        let mut best: Option<(i64, usize)> = None;
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            match lane.peek() {
                Some(Err(_)) => return Some(i),
                Some(Ok(s)) if s.capture < before => {
                    let t = s.capture.ns();
                    if best.is_none_or(|(bt, _)| t < bt) {
                        best = Some((t, i));
                    }
                }
                _ => {}
            }
        }
        best.map(|(_, i)| i)
    }
}

impl<S: Source> Source for MpsOverlay<S> {
    fn describe(&self) -> String {
        format!("{} with MPS-derived streams", self.inner.describe())
    }

    fn streams(&self) -> Vec<StreamId> {
        self.streams.clone()
    }

    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        let live = match self.pending.take() {
            Some(s) => s,
            None => match self.inner.next_sample()? {
                Ok(s) => s,
                Err(e) => return Some(Err(e)),
            },
        };
        let Some(i) = self.due_lane(live.capture) else {
            return Some(Ok(live));
        };
        self.pending = Some(live);
        match self.lanes.get_mut(i).and_then(Iterator::next) {
            Some(Ok(mut s)) => {
                let k = s.stream.index();
                if let Some(n) = self.seq.get_mut(k) {
                    s.seq = *n;
                    *n += 1;
                }
                s.arrival = HostTime::now();
                self.delivered += 1;
                Some(Ok(s))
            }
            Some(Err(e)) => Some(Err(e)),
            None => self.next_sample(),
        }
    }
}

/// The MPS files of the session at `path` (a folder or a `.vrs` beside its `mps/`).
pub fn session_mps(path: &Path) -> Result<MpsFiles, crate::source::session_files::SessionError> {
    Ok(crate::source::session_files::SessionFiles::locate(path)?.mps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{ImuSample, Payload};
    use crate::source::VecSource;

    fn imu(t: i64) -> Sample {
        Sample {
            stream: StreamId::ImuRight,
            capture: DeviceTime(t),
            arrival: HostTime(0),
            seq: 0,
            payload: Payload::Imu(ImuSample::default()),
        }
    }

    #[test]
    fn derived_rows_arrive_before_the_next_later_live_sample_and_never_after_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let gaze = dir.path().join("general_eye_gaze.csv");
        // Gaze rows at 1500, 2500 and 9000 µs; live IMU samples at 1, 2, 3 and 4 ms.
        std::fs::write(
            &gaze,
            "tracking_timestamp_us,yaw_rads_cpf,pitch_rads_cpf,depth_m\n\
             1500,0.1,0.0,1.0\n2500,0.1,0.0,1.0\n9000,0.1,0.0,1.0\n",
        )
        .unwrap();
        let files = MpsFiles {
            eye_gaze: Some(gaze),
            ..MpsFiles::default()
        };
        let live = VecSource::new((1..=4).map(|ms| imu(ms * 1_000_000)).collect());
        let mut o = MpsOverlay::new(live, &files).unwrap();
        assert!(o.streams().contains(&StreamId::EyeGaze));
        let mut got = Vec::new();
        while let Some(r) = o.next_sample() {
            let s = r.unwrap();
            got.push((s.stream, s.capture.ns()));
        }
        let g = StreamId::EyeGaze;
        let i = StreamId::ImuRight;
        // Expected order written out by hand from the times above.
        assert_eq!(
            got,
            vec![
                (i, 1_000_000),
                (g, 1_500_000),
                (i, 2_000_000),
                (g, 2_500_000),
                (i, 3_000_000),
                (i, 4_000_000)
            ]
        );
        assert_eq!(o.delivered(), 2);
    }
}
