//! The frames a judge is shown, as the paper's protocol shows them: eight frames of the RGB
//! camera sampled uniformly from the clip, at the camera's native resolution, as JPEG. A
//! run is judged causally: an item's clip is the session from its first RGB frame to the
//! moment the request was made (what the wearer's glasses had seen when the answer was
//! given). Frames stand upright: the RGB camera is mounted a quarter turn, so its frames
//! are turned clockwise, as projectaria_tools' viewers show them and as the detector and the
//! text reader see them. Of an H.265 stream (Gen2) only key frames are
//! candidates: a frame after a key frame decodes only with the frames before it.

use std::path::{Path, PathBuf};

use crate::aria::recording::orientation::Orientation;
use crate::aria::recording::{
    decode_image, AriaRecording, DecodedImage, RecordingError, StreamDecoders,
};
use crate::aria::vrs::RecordType;
use crate::sample::{ImageEncoding, ImageFrame, Payload, StreamId};

/// Frames shown per item.
pub const FRAMES_PER_ITEM: usize = 8;
/// JPEG quality of a frame that had to be encoded (turned, or not recorded as JPEG).
const JPEG_QUALITY: u8 = 90;

/// One frame for the judge.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeFrame {
    /// Capture time, device ns.
    pub capture_ns: i64,
    /// The image, JPEG.
    pub jpeg: Vec<u8>,
}

/// Why a session's frames cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum FramesError {
    /// The recording could not be opened or read.
    #[error("{}: {source}", path.display())]
    Recording {
        /// The recording.
        path: PathBuf,
        /// Why.
        #[source]
        source: Box<RecordingError>,
    },
    /// It has no RGB frame at or before the time asked.
    #[error("{}: no RGB camera frame at or before {at_ns} ns", path.display())]
    NoFrame {
        /// The recording.
        path: PathBuf,
        /// The time asked.
        at_ns: i64,
    },
    /// A frame could not be decoded or encoded.
    #[error("{}: RGB frame at {capture_ns} ns: {reason}", path.display())]
    Frame {
        /// The recording.
        path: PathBuf,
        /// Its capture time.
        capture_ns: i64,
        /// Why.
        reason: String,
    },
}

/// The RGB frames of one session a judge may be shown: their capture times and records,
/// listed once; a frame's record is read again only when it is picked.
#[derive(Debug)]
pub struct SessionFrames {
    path: PathBuf,
    recording: AriaRecording,
    /// Capture times of the candidate frames, ascending.
    times_ns: Vec<i64>,
    /// Each one's position in the recording's index.
    entries: Vec<usize>,
    orientation: Orientation,
}

impl SessionFrames {
    /// Opens the recording (a session folder's `recording.vrs`, or a `.vrs` file) and lists
    /// its RGB frames: their capture times and where their records are.
    pub fn open(session: &Path) -> Result<Self, FramesError> {
        let path = if session.is_dir() {
            session.join("recording.vrs")
        } else {
            session.to_path_buf()
        };
        let rec_err = |e: RecordingError| FramesError::Recording {
            path: path.clone(),
            source: Box::new(e),
        };
        let recording = AriaRecording::open(&path).map_err(rec_err)?;
        let mut frames = Vec::new();
        if let Some(rgb) = recording.vrs_stream(StreamId::CameraRgb) {
            let mut scratch = Vec::new();
            let mut blocks = Vec::new();
            let mut decoders = StreamDecoders::default();
            for (i, e) in recording.vrs().index().iter().enumerate() {
                if e.stream != rgb || e.record_type != RecordType::Data {
                    continue;
                }
                let (_, t, payload) = recording
                    .decode_entry(
                        StreamId::CameraRgb,
                        e,
                        &mut scratch,
                        &mut blocks,
                        &mut decoders,
                    )
                    .map_err(rec_err)?;
                if let Payload::Image(f) = payload {
                    if decodes_alone(&f) {
                        frames.push((t.ns(), i));
                    }
                }
            }
        }
        frames.sort_unstable();
        // As the detector and the text reader turn them.
        let orientation = Orientation::RotateCw90;
        Ok(Self {
            path,
            recording,
            times_ns: frames.iter().map(|f| f.0).collect(),
            entries: frames.iter().map(|f| f.1).collect(),
            orientation,
        })
    }

    /// [`FRAMES_PER_ITEM`] frames sampled uniformly from the first frame to `until_ns`
    /// (fewer when fewer were captured), oldest first. Only the picked records are read.
    pub fn until(&self, until_ns: i64) -> Result<Vec<JudgeFrame>, FramesError> {
        let n = self.times_ns.partition_point(|&t| t <= until_ns);
        if n == 0 {
            return Err(FramesError::NoFrame {
                path: self.path.clone(),
                at_ns: until_ns,
            });
        }
        let index = self.recording.vrs().index();
        let mut scratch = Vec::new();
        let mut blocks = Vec::new();
        let mut out = Vec::new();
        for k in pick_uniform(&self.times_ns[..n], FRAMES_PER_ITEM) {
            let capture_ns = self.times_ns[k];
            let frame_err = |reason: String| FramesError::Frame {
                path: self.path.clone(),
                capture_ns,
                reason,
            };
            let e = index
                .get(self.entries[k])
                .ok_or_else(|| frame_err("its record is gone from the index".into()))?;
            // Each picked frame decodes alone (a JPEG, or an H.265 key frame).
            let mut decoders = StreamDecoders::default();
            let (_, _, payload) = self
                .recording
                .decode_entry(
                    StreamId::CameraRgb,
                    e,
                    &mut scratch,
                    &mut blocks,
                    &mut decoders,
                )
                .map_err(|e| FramesError::Recording {
                    path: self.path.clone(),
                    source: Box::new(e),
                })?;
            let Payload::Image(frame) = payload else {
                return Err(frame_err("its record holds no image".into()));
            };
            out.push(JudgeFrame {
                capture_ns,
                jpeg: self.jpeg_of(&frame).map_err(frame_err)?,
            });
        }
        Ok(out)
    }

    /// The frame upright, as JPEG.
    fn jpeg_of(&self, frame: &ImageFrame) -> Result<Vec<u8>, String> {
        if frame.encoding == ImageEncoding::Jpeg && self.orientation == Orientation::AsRecorded {
            return Ok(frame.data.to_vec());
        }
        let img = decode_image(frame).map_err(|e| e.to_string())?;
        let img = match self.orientation {
            Orientation::AsRecorded => img,
            Orientation::RotateCw90 => rotate_cw90(&img),
        };
        encode_jpeg(&img)
    }
}

/// Whether a frame decodes without the frames before it.
fn decodes_alone(f: &ImageFrame) -> bool {
    !matches!(f.encoding, ImageEncoding::Hevc { key_frame_index } if key_frame_index != 0)
}

/// `k` indices of `times` spread uniformly over its span (the frame nearest each of `k`
/// evenly spaced instants from the first to the last; each at most once), ascending; all of
/// them when there are no more than `k`.
pub fn pick_uniform(times: &[i64], k: usize) -> Vec<usize> {
    let n = times.len();
    if n <= k {
        return (0..n).collect();
    }
    if k == 0 {
        return Vec::new();
    }
    let (first, last) = (times[0], times[n - 1]);
    let mut out: Vec<usize> = Vec::with_capacity(k);
    for j in 0..k {
        let target = if k == 1 {
            last
        } else {
            first + ((last - first) as i128 * j as i128 / (k - 1) as i128) as i64
        };
        let i = times.partition_point(|&t| t < target);
        let nearest = if i == 0 {
            0
        } else if i >= n || target - times[i - 1] <= times[i] - target {
            i - 1
        } else {
            i
        };
        // Distinct and ascending: at least one after the previous, and room for the rest.
        let lo = out.last().map_or(0, |&p| p + 1);
        let hi = n - (k - j);
        out.push(nearest.clamp(lo, hi));
    }
    out
}

/// The image turned a quarter clockwise.
fn rotate_cw90(img: &DecodedImage) -> DecodedImage {
    let (w, h, c) = (
        img.width as usize,
        img.height as usize,
        img.channels as usize,
    );
    let mut pixels = vec![0u8; img.pixels.len()];
    // Upright (x', y') = (h − 1 − y, x): the upright image is h wide and w tall.
    for y in 0..h {
        for x in 0..w {
            let src = (y * w + x) * c;
            let dst = (x * h + (h - 1 - y)) * c;
            pixels[dst..dst + c].copy_from_slice(&img.pixels[src..src + c]);
        }
    }
    DecodedImage {
        width: img.height,
        height: img.width,
        channels: img.channels,
        pixels,
    }
}

fn encode_jpeg(img: &DecodedImage) -> Result<Vec<u8>, String> {
    let color = match img.channels {
        1 => jpeg_encoder::ColorType::Luma,
        3 => jpeg_encoder::ColorType::Rgb,
        c => return Err(format!("{c} channels")),
    };
    let (Ok(w), Ok(h)) = (u16::try_from(img.width), u16::try_from(img.height)) else {
        return Err(format!(
            "{}×{} is larger than JPEG allows",
            img.width, img.height
        ));
    };
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, JPEG_QUALITY)
        .encode(&img.pixels, w, h, color)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_of_many_spread_over_the_span_and_all_of_few() {
        let times: Vec<i64> = (0..100).map(|i| i * 100).collect();
        assert_eq!(pick_uniform(&times, 8), vec![0, 14, 28, 42, 57, 71, 85, 99]);
        assert_eq!(pick_uniform(&times[..5], 8), vec![0, 1, 2, 3, 4]);
        assert_eq!(pick_uniform(&times[..0], 8), Vec::<usize>::new());
        assert_eq!(pick_uniform(&times, 1), vec![99]);
        // Uneven times: by time, not by index (a burst of frames is not oversampled).
        let mut bursty: Vec<i64> = (0..50).collect();
        bursty.extend((1..=7).map(|k| k * 1000));
        let p = pick_uniform(&bursty, 8);
        assert_eq!(p[0], 0);
        assert_eq!(&p[1..], &[50, 51, 52, 53, 54, 55, 56]);
        // Always k distinct, ascending, in range.
        for n in 9..40 {
            let t: Vec<i64> = (0..n).map(|i| (i * i) as i64).collect();
            let p = pick_uniform(&t, 8);
            assert_eq!(p.len(), 8);
            assert!(p.windows(2).all(|w| w[0] < w[1]), "{n}: {p:?}");
            assert!(*p.last().unwrap() < n as usize);
        }
    }

    #[test]
    fn a_quarter_turn_clockwise() {
        // 3 wide, 2 tall: row 0 = a b c, row 1 = d e f → upright 2 wide, 3 tall: d a / e b / f c.
        let img = DecodedImage {
            width: 3,
            height: 2,
            channels: 1,
            pixels: vec![1, 2, 3, 4, 5, 6],
        };
        let r = rotate_cw90(&img);
        assert_eq!((r.width, r.height), (2, 3));
        assert_eq!(r.pixels, vec![4, 1, 5, 2, 6, 3]);
        // The same turn as the points' (orientation.rs).
        let o = Orientation::RotateCw90;
        let [ux, uy] = o.to_upright([2.0, 0.0], 2);
        assert_eq!(r.pixels[(uy as usize) * 2 + ux as usize], 3);
    }
}
