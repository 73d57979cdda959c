//! RGB frames for the window: which frames (8 uniformly over the window, the paper's
//! protocol; or the most recent ones at a stride, for live use), decoded and resized once
//! and shared (`Arc`) by every consumer through a [`FrameCache`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::aria::recording::image::decode_image;
use crate::sample::{Payload, Sample};
use crate::window::error::WindowError;
use crate::window::resize::resize_bilinear;

/// Frames per window (the paper's eight frames).
pub const FRAMES: usize = 8;

/// Default side of the resized (square) frames, pixels: InternVL3's tile size (the
/// backbone's preprocessor resizes again as it needs).
pub const DEFAULT_FRAME_SIDE: u32 = 448;

/// Indices of `n` frames sampled uniformly over `[t0_ns, t1_ns]`: for each of `n` equal
/// segments, the frame nearest the segment's centre (the InternVL / TSN rule). `times_ns`
/// must be sorted. Only frames inside the interval are used; with fewer than `n` frames
/// inside, some are repeated; with none, the result is empty.
pub fn uniform_indices(times_ns: &[i64], t0_ns: i64, t1_ns: i64, n: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(n);
    uniform_indices_into(times_ns, t0_ns, t1_ns, n, &mut out);
    out
}

/// [`uniform_indices`] into a reused vector (no allocation once it has grown to `n`).
pub fn uniform_indices_into(
    times_ns: &[i64],
    t0_ns: i64,
    t1_ns: i64,
    n: usize,
    out: &mut Vec<usize>,
) {
    out.clear();
    let lo = times_ns.partition_point(|&t| t < t0_ns);
    let hi = times_ns.partition_point(|&t| t <= t1_ns);
    let Some(inside) = times_ns.get(lo..hi) else {
        return;
    };
    if inside.is_empty() {
        return;
    }
    let span = (t1_ns as i128 - t0_ns as i128).max(0);
    out.extend((0..n).map(|i| {
        let centre = (t0_ns as i128 + span * (2 * i as i128 + 1) / (2 * n as i128)) as i64;
        lo + nearest(inside, centre)
    }));
}

/// The index in sorted `times` of the value nearest `t` (the earlier one on a tie).
fn nearest(times: &[i64], t: i64) -> usize {
    let k = times.partition_point(|&x| x < t);
    if k == 0 {
        return 0;
    }
    if k >= times.len() {
        return times.len() - 1;
    }
    let (a, b) = (times.get(k - 1), times.get(k));
    match (a, b) {
        (Some(&a), Some(&b)) if (t as i128 - a as i128) <= (b as i128 - t as i128) => k - 1,
        _ => k,
    }
}

/// Indices of the causal variant: the newest frame at or before `t_end_ns` and every
/// `stride`-th frame before it, up to `n` frames, oldest first.
pub fn causal_indices(times_ns: &[i64], t_end_ns: i64, n: usize, stride: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(n);
    causal_indices_into(times_ns, t_end_ns, n, stride, &mut out);
    out
}

/// [`causal_indices`] into a reused vector (no allocation once it has grown to `n`).
pub fn causal_indices_into(
    times_ns: &[i64],
    t_end_ns: i64,
    n: usize,
    stride: usize,
    out: &mut Vec<usize>,
) {
    out.clear();
    let hi = times_ns.partition_point(|&t| t <= t_end_ns);
    let stride = stride.max(1);
    out.extend((0..n).map_while(|i| usize::try_from(hi as i64 - 1 - (i * stride) as i64).ok()));
    out.reverse();
}

/// Which frames a live window takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameSampling {
    /// 8 frames uniformly over the window (the paper's protocol).
    Uniform,
    /// The newest frame and every `stride`-th earlier one (live use).
    Causal {
        /// Frames between two picked frames.
        stride: usize,
    },
}

/// One decoded, resized RGB frame.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowFrame {
    /// Capture time, device ns.
    pub capture_ns: i64,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `height × width × 3` bytes, RGB, rows top to bottom.
    pub rgb: Vec<u8>,
}

/// Decodes and resizes each frame once; every consumer gets the same `Arc`. Holds at most
/// `capacity` frames (the oldest capture is evicted first).
#[derive(Debug)]
pub struct FrameCache {
    side: u32,
    capacity: usize,
    frames: VecDeque<Arc<WindowFrame>>,
    decoded: u64,
}

/// A cache shared between consumers.
pub type SharedFrameCache = Arc<Mutex<FrameCache>>;

impl FrameCache {
    /// A cache of up to `capacity` frames resized to `side × side`.
    pub fn new(side: u32, capacity: usize) -> Self {
        Self {
            side: side.max(1),
            capacity: capacity.max(1),
            frames: VecDeque::new(),
            decoded: 0,
        }
    }

    /// This cache behind a mutex, to share.
    pub fn shared(self) -> SharedFrameCache {
        Arc::new(Mutex::new(self))
    }

    /// Frames decoded so far (each at most once while cached).
    pub fn decoded(&self) -> u64 {
        self.decoded
    }

    /// The frame of `sample` (an image sample), decoded and resized on first use.
    pub fn get(&mut self, sample: &Sample) -> Result<Arc<WindowFrame>, WindowError> {
        let t = sample.capture.ns();
        let pos = self.frames.partition_point(|f| f.capture_ns < t);
        if let Some(f) = self.frames.get(pos).filter(|f| f.capture_ns == t) {
            return Ok(Arc::clone(f));
        }
        let Payload::Image(img) = &sample.payload else {
            return Err(WindowError::Frame {
                capture_ns: t,
                message: format!("{} sample is not an image", sample.stream),
            });
        };
        let d = decode_image(img).map_err(|e| WindowError::Frame {
            capture_ns: t,
            message: e.to_string(),
        })?;
        let rgb = resize_bilinear(
            &d.pixels, d.width, d.height, d.channels, self.side, self.side,
        )
        .map_err(|message| WindowError::Frame {
            capture_ns: t,
            message,
        })?;
        self.decoded += 1;
        let f = Arc::new(WindowFrame {
            capture_ns: t,
            width: self.side,
            height: self.side,
            rgb,
        });
        self.frames.insert(pos, Arc::clone(&f));
        while self.frames.len() > self.capacity {
            self.frames.pop_front();
        }
        Ok(f)
    }
}
