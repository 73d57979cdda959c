//! `vista ocr IMAGE [--gaze X Y] [--roi-px N] [--json]`: read text in a JPEG or PNG image
//! with the PP-OCRv4 pipeline, around a point or in the whole image.

use std::path::PathBuf;

use vista::pipeline::still_text::{line_json, read_still, StillTextOptions};

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
    let read = read_still(&StillTextOptions {
        image: args.image,
        around_px: match args.gaze.as_deref() {
            Some([x, y]) => Some([*x, *y]),
            _ => None,
        },
        roi_px: args.roi_px,
        det_max_px: args.det_max_px,
        threads: args.threads,
    })?;
    for l in &read.lines {
        if args.json {
            println!("{}", line_json(l));
        } else {
            let q = l.quad;
            println!(
                "{:>6.3}  ({:>5.0},{:>5.0})-({:>5.0},{:>5.0})  {}",
                l.confidence, q[0][0], q[0][1], q[2][0], q[2][1], l.text
            );
        }
    }
    log::info!(
        "{} line(s) in {}×{} ({:?}): models loaded in {:.2} s, read in {:.0} ms",
        read.lines.len(),
        read.width,
        read.height,
        read.region,
        read.load_s,
        read.read_ms
    );
    Ok(())
}
