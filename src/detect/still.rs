//! Still photographs for the detector (`vista detect`): a JPEG or PNG file read with a size
//! cap and decoded under the still-image pixel budget, and a run over a labelled folder that
//! keeps every box, so precision and recall can be read at any score.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::detector::{DetectError, Detection, Detector};
use super::photos::{add_photo, Labels, PhotosError, Score};
use crate::aria::recording::image::{decode_image, DecodedImage};
use crate::runtime::thread_cpu_ns;
use crate::sample::ImageFrame;

/// Largest image file read (a 64-megapixel PNG fits).
pub const MAX_STILL_BYTES: u64 = 256 << 20;

/// What can go wrong detecting in still images.
#[derive(Debug, thiserror::Error)]
pub enum StillError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_STILL_BYTES`].
    #[error("{path} is larger than {MAX_STILL_BYTES} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The file is not an image that decodes.
    #[error("{path}: {reason}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// The decoder's reason.
        reason: String,
    },
    /// The labels file.
    #[error(transparent)]
    Labels(#[from] PhotosError),
    /// The detector.
    #[error("{path}: {source}")]
    Detect {
        /// The image.
        path: PathBuf,
        /// What the detector said.
        source: Box<DetectError>,
    },
}

/// Reads and decodes a JPEG or PNG file (PNG by its signature).
pub fn read_image(path: &Path) -> Result<DecodedImage, StillError> {
    let read_err = |source| StillError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_err)?;
    let mut bytes = Vec::new();
    file.take(MAX_STILL_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > MAX_STILL_BYTES {
        return Err(StillError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    let frame = ImageFrame::still(bytes);
    decode_image(&frame).map_err(|e| StillError::Decode {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// One labelled photo's run.
#[derive(Clone, Debug)]
pub struct PhotoRun {
    /// The file name in the labels.
    pub name: String,
    /// Every box the model gave, best first.
    pub boxes: Vec<Detection>,
    /// Time to detect (preparing the input and running the model), milliseconds.
    pub detect_ms: f64,
    /// The same on this thread's CPU clock (ONNX Runtime runs on it with one intra-op
    /// thread), milliseconds; `None` where the clock cannot be read.
    pub cpu_ms: Option<f64>,
}

/// The detector over every photo of a labels file (photos beside it).
#[derive(Clone, Debug)]
pub struct LabelledRun {
    /// The labels.
    pub labels: Labels,
    /// One run per photo, in the labels' order.
    pub photos: Vec<PhotoRun>,
}

impl LabelledRun {
    /// Runs `detector` on the photos `labels_path` lists.
    pub fn run(detector: &mut Detector, labels_path: &Path) -> Result<Self, StillError> {
        let labels = Labels::read(labels_path)?;
        let dir = labels_path.parent().unwrap_or(Path::new("."));
        let mut photos = Vec::with_capacity(labels.photos.len());
        for name in labels.photos.keys() {
            let path = dir.join(name);
            let img = read_image(&path)?;
            let t = Instant::now();
            let cpu0 = thread_cpu_ns();
            let boxes = detector.detect_all(&img).map_err(|e| StillError::Detect {
                path,
                source: Box::new(e),
            })?;
            photos.push(PhotoRun {
                name: name.clone(),
                boxes,
                detect_ms: t.elapsed().as_secs_f64() * 1e3,
                cpu_ms: match (cpu0, thread_cpu_ns()) {
                    (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / 1e6),
                    _ => None,
                },
            });
        }
        Ok(Self { labels, photos })
    }

    /// Per-class counts with boxes scoring at least `min_score`.
    pub fn score(&self, min_score: f32) -> Score {
        let mut score = Score::new();
        for p in &self.photos {
            let labels = self
                .labels
                .photos
                .get(&p.name)
                .map_or(&[][..], Vec::as_slice);
            add_photo(&mut score, labels, &p.boxes, min_score);
        }
        score
    }
}
