//! Text in one still image (`vista ocr`): a JPEG or PNG file read with the PP-OCRv4
//! pipeline, around a point (e.g. the gaze point) or in the whole image, with the time the
//! models took to load and the read took.

use std::path::PathBuf;
use std::time::Instant;

use crate::ocr::{
    read_region, BgrImage, DetLimit, OcrConfig, OcrEngine, OcrError, Region, TextLine,
};

/// What to read, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct StillTextOptions {
    /// A JPEG or PNG image (upright).
    pub image: PathBuf,
    /// Read a square around this pixel first; `None` reads the whole image.
    pub around_px: Option<[f32; 2]>,
    /// Side of the square read around `around_px`, pixels.
    pub roi_px: u32,
    /// Detect at most at this size (longer side); `None`: RapidOCR's rule.
    pub det_max_px: Option<u32>,
    /// ONNX Runtime threads per model.
    pub threads: usize,
}

/// What can go wrong reading a still image.
#[derive(Debug, thiserror::Error)]
pub enum StillTextError {
    /// The file could not be read.
    #[error("reading {path}", path = path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a decodable image.
    #[error("{path}", path = path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: OcrError,
    },
    /// The models could not be loaded or run.
    #[error(transparent)]
    Ocr(#[from] OcrError),
}

/// The lines read, and what it took.
#[derive(Clone, Debug)]
pub struct StillText {
    /// The lines, boxes in the image's pixels.
    pub lines: Vec<TextLine>,
    /// The image's size, pixels.
    pub width: u32,
    /// The image's size, pixels.
    pub height: u32,
    /// The part read.
    pub region: Region,
    /// Time to load the models, seconds.
    pub load_s: f64,
    /// Time to read, milliseconds.
    pub read_ms: f64,
}

/// Reads the text in `options.image`.
pub fn read_still(options: &StillTextOptions) -> Result<StillText, StillTextError> {
    let bytes = std::fs::read(&options.image).map_err(|source| StillTextError::Read {
        path: options.image.clone(),
        source,
    })?;
    let img = BgrImage::from_encoded(&bytes).map_err(|source| StillTextError::Decode {
        path: options.image.clone(),
        source,
    })?;
    let cfg = OcrConfig {
        threads: options.threads,
        det_limit: options
            .det_max_px
            .map_or(DetLimit::default(), DetLimit::Max),
        ..OcrConfig::default()
    };
    let t0 = Instant::now();
    let mut engine = OcrEngine::new(cfg)?;
    let load_s = t0.elapsed().as_secs_f64();
    let region = match options.around_px {
        Some(center_px) => Region::Around {
            center_px,
            size_px: options.roi_px,
        },
        None => Region::Whole,
    };
    let t1 = Instant::now();
    let lines = read_region(&mut engine, &img, region)?;
    let read_ms = t1.elapsed().as_secs_f64() * 1e3;
    Ok(StillText {
        lines,
        width: img.width(),
        height: img.height(),
        region,
        load_s,
        read_ms,
    })
}

/// One line as a JSON object: text, confidence, detection score and box.
pub fn line_json(l: &TextLine) -> serde_json::Value {
    serde_json::json!({
        "text": l.text,
        "confidence": l.confidence,
        "det_score": l.det_score,
        "box": l.quad,
    })
}
