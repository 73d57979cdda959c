//! `vista ocr IMAGE [--gaze X Y] [--roi-px N] [--json]`: read text in a JPEG or PNG image
//! with the PP-OCRv4 pipeline, around a point or in the whole image.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use vista::ocr::{read_region, BgrImage, DetLimit, OcrConfig, OcrEngine, Region};

/// Arguments of `vista ocr`.
#[derive(Debug, clap::Args)]
pub struct OcrArgs {
    /// A JPEG or PNG image (upright).
    pub image: PathBuf,
    /// Read a square around this pixel first (e.g. the gaze point).
    #[arg(long, num_args = 2, value_names = ["X", "Y"])]
    pub gaze: Option<Vec<f32>>,
    /// Side of the square read around --gaze, pixels.
    #[arg(long, default_value_t = 640, value_name = "PX")]
    pub roi_px: u32,
    /// Detect at most at this size (longer side); default: RapidOCR's rule (shorter side at
    /// least 736).
    #[arg(long, value_name = "PX")]
    pub det_max_px: Option<u32>,
    /// ONNX Runtime threads per model.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Print one JSON object per line instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `vista ocr`.
pub fn run(args: OcrArgs) -> anyhow::Result<()> {
    let bytes =
        std::fs::read(&args.image).with_context(|| format!("reading {}", args.image.display()))?;
    let img = BgrImage::from_encoded(&bytes).with_context(|| args.image.display().to_string())?;
    let cfg = OcrConfig {
        threads: args.threads,
        det_limit: args.det_max_px.map_or(DetLimit::default(), DetLimit::Max),
        ..OcrConfig::default()
    };
    let t0 = Instant::now();
    let mut engine = OcrEngine::new(cfg)?;
    let load_s = t0.elapsed().as_secs_f64();
    let region = match args.gaze.as_deref() {
        Some([x, y]) => Region::Around {
            center_px: [*x, *y],
            size_px: args.roi_px,
        },
        _ => Region::Whole,
    };
    let t1 = Instant::now();
    let lines = read_region(&mut engine, &img, region)?;
    let read_ms = t1.elapsed().as_secs_f64() * 1e3;
    for l in &lines {
        if args.json {
            let v = serde_json::json!({
                "text": l.text,
                "confidence": l.confidence,
                "det_score": l.det_score,
                "box": l.quad,
            });
            println!("{v}");
        } else {
            let q = l.quad;
            println!(
                "{:>6.3}  ({:>5.0},{:>5.0})-({:>5.0},{:>5.0})  {}",
                l.confidence, q[0][0], q[0][1], q[2][0], q[2][1], l.text
            );
        }
    }
    log::info!(
        "{} line(s) in {}×{} ({region:?}): models loaded in {load_s:.2} s, read in {read_ms:.0} ms",
        lines.len(),
        img.width(),
        img.height()
    );
    Ok(())
}
