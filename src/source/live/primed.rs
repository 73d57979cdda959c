//! [`Primed`]: the first moments of a live stream read ahead before the run starts, so the
//! caller knows the session's first capture time and the image size of every camera that
//! streams (the hello's factory calibration is for the full sensor; perception and text
//! reading need it at the streamed resolution). The samples read ahead are then delivered
//! first, in order; nothing is lost.

use std::collections::VecDeque;

use crate::aria::generation::Generation;
use crate::sample::{Payload, Sample, StreamId};
use crate::source::live::protocol::Hello;
use crate::source::{Source, SourceError};
use crate::time::DeviceTime;

/// How long to read ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrimeLimits {
    /// Stop once this much device time has been read (ns).
    pub window_ns: i64,
    /// Stop after this many samples whatever their span (bounds memory).
    pub max_samples: usize,
}

impl Default for PrimeLimits {
    fn default() -> Self {
        Self {
            window_ns: 500_000_000,
            max_samples: 4096,
        }
    }
}

/// The cameras whose size is worth waiting for.
const CAMERAS: [StreamId; 3] = [
    StreamId::CameraRgb,
    StreamId::CameraSlamLeft,
    StreamId::CameraSlamRight,
];

/// A source whose first samples were read ahead.
pub struct Primed<S> {
    head: VecDeque<Sample>,
    /// A fatal error met while reading ahead, delivered after the head.
    error: Option<SourceError>,
    inner: S,
    first: Option<DeviceTime>,
    sizes: Vec<(StreamId, u32, u32)>,
}

impl<S> std::fmt::Debug for Primed<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Primed")
            .field("head", &self.head.len())
            .field("first", &self.first)
            .field("sizes", &self.sizes)
            .finish()
    }
}

impl<S: Source> Primed<S> {
    /// Reads `inner` ahead until every camera among RGB and both SLAM cameras has shown a
    /// frame, or `limits` are reached, or the stream ends. Recoverable errors are kept in
    /// order; a fatal one ends the read-ahead and is delivered after the samples.
    pub fn new(mut inner: S, limits: PrimeLimits) -> Self {
        let mut head = VecDeque::new();
        let mut error = None;
        let mut first: Option<DeviceTime> = None;
        let mut sizes: Vec<(StreamId, u32, u32)> = Vec::new();
        while head.len() < limits.max_samples {
            match inner.next_sample() {
                None => break,
                Some(Err(e)) if e.is_recoverable() => {
                    log::warn!("live: {e}");
                }
                Some(Err(e)) => {
                    error = Some(e);
                    break;
                }
                Some(Ok(s)) => {
                    let t0 = *first.get_or_insert(s.capture);
                    if let Payload::Image(f) = &s.payload {
                        if !sizes.iter().any(|(id, _, _)| *id == s.stream) {
                            sizes.push((s.stream, f.width, f.height));
                        }
                    }
                    let span = s.capture.since(t0);
                    head.push_back(s);
                    let all = CAMERAS
                        .iter()
                        .all(|c| sizes.iter().any(|(id, _, _)| id == c));
                    if all || span >= limits.window_ns {
                        break;
                    }
                }
            }
        }
        Self {
            head,
            error,
            inner,
            first,
            sizes,
        }
    }

    /// Capture time of the first sample, if any arrived.
    pub fn first_capture(&self) -> Option<DeviceTime> {
        self.first
    }

    /// `(stream, width, height)` of every camera seen while reading ahead.
    pub fn image_sizes(&self) -> &[(StreamId, u32, u32)] {
        &self.sizes
    }

    /// Samples read ahead and not yet delivered.
    pub fn buffered(&self) -> usize {
        self.head.len()
    }

    /// The wrapped source.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

/// `(calibration label, width, height)` of the cameras in `sizes`, as
/// [`crate::aria::recorded_calib::recorded_camera_sizes`] gives them for a recording: each
/// camera under the label the hello announced (Gen1's names when it announced none). A
/// device that sends no separate right-eye stream (Gen1) holds both eyes side by side in the
/// eye-tracking frame.
pub fn calibration_sizes(sizes: &[(StreamId, u32, u32)], hello: &Hello) -> Vec<(String, u32, u32)> {
    let eyes_apart = hello.known_streams().contains(&StreamId::CameraEtRight);
    let mut out = Vec::new();
    for &(id, w, h) in sizes {
        if !id.is_camera() {
            continue;
        }
        if id == StreamId::CameraEt && !eyes_apart {
            out.push(("camera-et-left".to_string(), w / 2, h));
            out.push(("camera-et-right".to_string(), w / 2, h));
            continue;
        }
        let label = hello
            .label_of(id)
            .or_else(|| Generation::Gen1.sensor_label(id));
        if let Some(label) = label {
            out.push((label.to_string(), w, h));
        }
    }
    out
}

impl<S: Source> Source for Primed<S> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn streams(&self) -> Vec<StreamId> {
        self.inner.streams()
    }
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        if let Some(s) = self.head.pop_front() {
            return Some(Ok(s));
        }
        if let Some(e) = self.error.take() {
            return Some(Err(e));
        }
        self.inner.next_sample()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{ImageEncoding, ImageFrame, ImuSample};
    use crate::source::live::wire_streams::WireStream;
    use crate::source::VecSource;
    use crate::time::HostTime;

    fn sample(stream: StreamId, t: i64, payload: Payload) -> Sample {
        Sample {
            stream,
            capture: DeviceTime(t),
            arrival: HostTime(0),
            seq: 0,
            payload,
        }
    }

    #[test]
    fn reads_ahead_until_the_window_and_then_delivers_everything_in_order() {
        let mut v = Vec::new();
        for k in 0..1000i64 {
            v.push(sample(
                StreamId::ImuRight,
                k * 1_000_000,
                Payload::Imu(ImuSample::default()),
            ));
            if k == 100 {
                let f = ImageFrame {
                    width: 1408,
                    height: 1408,
                    encoding: ImageEncoding::Jpeg,
                    data: bytes::Bytes::new(),
                    frame_number: 0,
                    exposure_s: 0.0,
                    gain: 1.0,
                };
                v.push(sample(
                    StreamId::CameraRgb,
                    k * 1_000_000,
                    Payload::Image(f),
                ));
            }
        }
        let n = v.len();
        let mut p = Primed::new(
            VecSource::new(v),
            PrimeLimits {
                window_ns: 300_000_000,
                max_samples: 10_000,
            },
        );
        assert_eq!(p.first_capture(), Some(DeviceTime(0)));
        assert_eq!(p.image_sizes(), &[(StreamId::CameraRgb, 1408, 1408)]);
        // 0..=300 ms of IMU (301) plus the one frame: the read stops at the sample 300 ms in.
        assert_eq!(p.buffered(), 302);
        let mut times = Vec::new();
        while let Some(s) = p.next_sample() {
            times.push(s.unwrap().capture.ns());
        }
        assert_eq!(times.len(), n);
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        let gen1 = Hello::new("S", "p", "");
        assert_eq!(
            calibration_sizes(&[(StreamId::CameraEt, 640, 240)], &gen1),
            vec![
                ("camera-et-left".to_string(), 320, 240),
                ("camera-et-right".to_string(), 320, 240)
            ]
        );
        // Gen2: each eye its own stream, every camera under its announced label.
        let gen2 = Hello::new("S", "p", "").with_streams(
            [
                (StreamId::CameraEt, "camera-et-left"),
                (StreamId::CameraEtRight, "camera-et-right"),
                (StreamId::CameraSlamLeft, "slam-front-left"),
                (StreamId::ImuLeft, "imu-left"),
            ]
            .into_iter()
            .filter_map(|(s, l)| WireStream::new(s, l))
            .collect(),
        );
        assert_eq!(
            calibration_sizes(
                &[
                    (StreamId::CameraEt, 200, 200),
                    (StreamId::CameraEtRight, 200, 200),
                    (StreamId::CameraSlamLeft, 512, 512),
                    (StreamId::CameraRgb, 2016, 1512),
                ],
                &gen2
            ),
            vec![
                ("camera-et-left".to_string(), 200, 200),
                ("camera-et-right".to_string(), 200, 200),
                ("slam-front-left".to_string(), 512, 512),
                ("camera-rgb".to_string(), 2016, 1512),
            ]
        );
    }
}
