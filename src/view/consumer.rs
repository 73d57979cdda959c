//! [`ViewConsumer`]: a runtime consumer that hands the glasses' own streams to the
//! recording as they arrive — camera frames (RGB and the SLAM pair, still encoded), the
//! device pose, eye gaze and hands — stamped with their capture and arrival times. It only
//! offers items to the [`super::ViewLog`], so it never waits on the logging thread.

use crate::buffer::Reader;
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::{ImageEncoding, Payload, Sample, StreamId};
use crate::time::HostTime;

use super::item::{Stamp, ViewItem};
use super::ViewLog;

/// The streams shown.
const SHOWN: [StreamId; 6] = [
    StreamId::CameraRgb,
    StreamId::CameraSlamLeft,
    StreamId::CameraSlamRight,
    StreamId::DevicePose,
    StreamId::EyeGaze,
    StreamId::HandTracking,
];

/// Device poses offered at most this often (a trajectory may hold 1,000 a second), ns.
const POSE_EVERY_NS: i64 = 33_000_000;
/// Frames that must be decoded and encoded again for the recording (Gen2's H.265, raw
/// pixels) are offered at most this often per camera, ns: the logging thread's encoding
/// stays small beside the run, and never crowds out the other items in its queue.
const RECODED_EVERY_NS: i64 = 500_000_000;

/// Offers the glasses' streams to the recording (see the module documentation).
#[derive(Debug)]
pub struct ViewConsumer {
    log: ViewLog,
    batch: Vec<Sample>,
    last_pose_ns: Option<i64>,
    last_recoded_ns: [Option<i64>; StreamId::COUNT],
}

impl ViewConsumer {
    /// A consumer offering to `log`.
    pub fn new(log: ViewLog) -> Self {
        Self {
            log,
            batch: Vec::new(),
            last_pose_ns: None,
            last_recoded_ns: [None; StreamId::COUNT],
        }
    }

    fn offer(&mut self, s: &Sample) {
        let stamp = Stamp {
            device_ns: s.capture.ns(),
            host_ns: s.arrival.ns(),
        };
        let item = match &s.payload {
            Payload::Image(frame) => {
                if !matches!(frame.encoding, ImageEncoding::Jpeg | ImageEncoding::Png) {
                    let ns = s.capture.ns();
                    let last = &mut self.last_recoded_ns[s.stream.index()];
                    if matches!(*last, Some(l) if (0..RECODED_EVERY_NS).contains(&(ns - l))) {
                        return;
                    }
                    *last = Some(ns);
                }
                ViewItem::Image {
                    stamp,
                    stream: s.stream,
                    frame: frame.clone(),
                }
            }
            Payload::Pose(p) => {
                let ns = s.capture.ns();
                if matches!(self.last_pose_ns, Some(last) if (0..POSE_EVERY_NS).contains(&(ns - last)))
                {
                    return;
                }
                self.last_pose_ns = Some(ns);
                ViewItem::Pose {
                    stamp,
                    world_from_device: p.t_world_device,
                    quality: p.quality,
                }
            }
            Payload::EyeGaze(g) => ViewItem::Gaze {
                stamp,
                yaw_pitch_rad: [g.yaw_rad, g.pitch_rad],
                depth_m: g.depth_m,
            },
            Payload::Hands(h) => ViewItem::Hands { stamp, hands: *h },
            _ => return,
        };
        self.log.send(item);
    }
}

impl Consumer for ViewConsumer {
    fn name(&self) -> &str {
        "rerun"
    }

    fn wants(&self, stream: StreamId) -> bool {
        SHOWN.contains(&stream)
    }

    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        for stream in SHOWN {
            let mut batch = std::mem::take(&mut self.batch);
            batch.clear();
            reader.drain_new_into(stream, &mut batch);
            for s in &batch {
                self.offer(s);
            }
            self.batch = batch;
        }
        Ok(())
    }
}
