//! Frames embedded as they arrive: the camera's RGB frames are sampled (at most one per
//! `min_interval_ns` of capture time), decoded and encoded by the [`VisionEncoder`] ahead of
//! any request, and the newest embedding is shared ([`LatestImage`]) with the thread that
//! answers. A request over a frame already encoded costs no encoding (the encoder's
//! per-frame cache answers by capture time).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::error::LmError;
use super::vision::{to_rgb, ImageEmbedding, RgbImage, VisionEncoder};
use crate::aria::recording::decode_image;
use crate::sample::ImageFrame;

/// A frame's capture time (device ns) and its embedding.
pub type EmbeddedFrame = (i64, Arc<ImageEmbedding>);

/// The newest embedded frame, shared between the camera side and the answer side.
#[derive(Clone, Debug, Default)]
pub struct LatestImage {
    latest: Arc<Mutex<Option<EmbeddedFrame>>>,
    updates: Arc<AtomicU64>,
}

impl LatestImage {
    fn put(&self, capture_ns: i64, e: Arc<ImageEmbedding>) {
        if let Ok(mut l) = self.latest.lock() {
            *l = Some((capture_ns, e));
            self.updates.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The newest frame's capture time (device ns) and embedding, if any.
    pub fn get(&self) -> Option<EmbeddedFrame> {
        self.latest.lock().ok().and_then(|l| l.clone())
    }

    /// Frames stored so far.
    pub fn updates(&self) -> u64 {
        self.updates.load(Ordering::Relaxed)
    }
}

/// What the embedder has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmbedderStats {
    /// Frames embedded (or found in the encoder's cache).
    pub sampled: u64,
    /// Frames passed over (closer than the interval to the last sampled one).
    pub skipped: u64,
    /// Frames that could not be decoded or encoded (the previous embedding stays).
    pub failures: u64,
}

/// Samples and embeds camera frames.
#[derive(Debug)]
pub struct FrameEmbedder {
    enc: VisionEncoder,
    min_interval_ns: i64,
    last_ns: Option<i64>,
    latest: LatestImage,
    stats: EmbedderStats,
}

impl FrameEmbedder {
    /// Over `enc`, embedding at most one frame per `min_interval_ns` of capture time.
    pub fn new(enc: VisionEncoder, min_interval_ns: i64) -> Self {
        Self {
            enc,
            min_interval_ns: min_interval_ns.max(0),
            last_ns: None,
            latest: LatestImage::default(),
            stats: EmbedderStats::default(),
        }
    }

    /// The shared newest embedding.
    pub fn latest(&self) -> LatestImage {
        self.latest.clone()
    }

    /// The encoder (its cache counters).
    pub fn encoder(&self) -> &VisionEncoder {
        &self.enc
    }

    /// The encoder, to embed a frame a request names.
    pub fn encoder_mut(&mut self) -> &mut VisionEncoder {
        &mut self.enc
    }

    /// The counters.
    pub fn stats(&self) -> EmbedderStats {
        self.stats
    }

    /// Takes a frame captured at `capture_ns`: embeds it when it is due (returns `true`),
    /// else passes over it. A frame older than the last sampled one is passed over too.
    pub fn on_frame(&mut self, capture_ns: i64, frame: &ImageFrame) -> Result<bool, LmError> {
        if let Some(last) = self.last_ns {
            if capture_ns.saturating_sub(last) < self.min_interval_ns || capture_ns < last {
                self.stats.skipped += 1;
                return Ok(false);
            }
        }
        match self.embed(capture_ns, frame) {
            Ok(e) => {
                self.last_ns = Some(capture_ns);
                self.stats.sampled += 1;
                self.latest.put(capture_ns, e);
                Ok(true)
            }
            Err(e) => {
                self.stats.failures += 1;
                Err(e)
            }
        }
    }

    fn embed(
        &mut self,
        capture_ns: i64,
        frame: &ImageFrame,
    ) -> Result<Arc<ImageEmbedding>, LmError> {
        let img = decode_image(frame).map_err(|e| LmError::Image(e.to_string()))?;
        let rgb = to_rgb(img.channels, &img.pixels)?;
        self.enc.embed_frame(
            capture_ns,
            &RgbImage {
                width: img.width,
                height: img.height,
                pixels: &rgb,
            },
        )
    }
}
