//! `vista detect IMAGE... [--min-score S] [--json]`: the things the object detector finds in
//! JPEG or PNG images; `vista detect --labels FILE`: its precision and recall per class on
//! photos labelled by hand (`tests/data/photos/labels.json`), as a Markdown table.

use std::path::PathBuf;

use anyhow::Context;
use vista::detect::photos::{total, ClassCount};
use vista::detect::still::{read_image, LabelledRun};
use vista::detect::{Detector, DetectorConfig, DEFAULT_MIN_SCORE};

/// Arguments of `vista detect`.
#[derive(Debug, clap::Args)]
pub struct DetectArgs {
    /// JPEG or PNG images.
    #[arg(required_unless_present = "labels")]
    pub images: Vec<PathBuf>,
    /// Measure on the photos of this labels file (photos beside it) instead.
    #[arg(long, value_name = "FILE", conflicts_with = "images")]
    pub labels: Option<PathBuf>,
    /// Boxes scoring below this are not reported.
    #[arg(long, default_value_t = DEFAULT_MIN_SCORE, value_name = "S")]
    pub min_score: f32,
    /// The detector model (default: the model cache's, from models/fetch).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// ONNX Runtime threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `vista detect`.
pub fn run(args: DetectArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        (0.0..=1.0).contains(&args.min_score),
        "--min-score {} is outside 0-1",
        args.min_score
    );
    let mut config = DetectorConfig {
        threads: args.threads,
        min_score: args.min_score,
        ..DetectorConfig::default()
    };
    if let Some(m) = args.model {
        config.model = m;
    }
    let mut detector = Detector::load(&config).context("loading the object detector")?;
    if let Some(labels) = args.labels {
        return measure(&mut detector, &labels, args.min_score);
    }
    for path in &args.images {
        let img = read_image(path)?;
        let t = std::time::Instant::now();
        let found = detector
            .detect(&img)
            .with_context(|| format!("detecting in {}", path.display()))?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        for d in &found {
            if args.json {
                let line = serde_json::json!({
                    "image": path.display().to_string(),
                    "class": d.class,
                    "score": d.score,
                    "box": d.box_px,
                });
                println!("{line}");
            } else {
                let b = d.box_px;
                println!(
                    "{}  {:<14} {:.2}  ({:.0},{:.0})-({:.0},{:.0})",
                    path.display(),
                    d.class.coco_name(),
                    d.score,
                    b.x0,
                    b.y0,
                    b.x1,
                    b.y1
                );
            }
        }
        log::info!(
            "{}: {} thing(s) in {}×{}, {ms:.0} ms",
            path.display(),
            found.len(),
            img.width,
            img.height
        );
    }
    Ok(())
}

fn ratio(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |r| format!("{:.0} %", r * 100.0))
}

fn measure(detector: &mut Detector, labels: &std::path::Path, min: f32) -> anyhow::Result<()> {
    let run = LabelledRun::run(detector, labels)?;
    let score = run.score(min);
    println!("| Class | Labelled | Found | Missed | False boxes | Recall | Precision |");
    println!("|---|---|---|---|---|---|---|");
    let row = |name: &str, c: &ClassCount| {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} |",
            c.found + c.missed,
            c.found,
            c.missed,
            c.false_boxes,
            ratio(c.recall()),
            ratio(c.precision())
        );
    };
    for (class, c) in &score {
        row(class.coco_name(), c);
    }
    row("**all**", &total(&score));
    println!();
    println!("| Score from | Found | Missed | False boxes | Recall | Precision |");
    println!("|---|---|---|---|---|---|");
    for s in [0.3f32, 0.4, 0.5, 0.6, 0.7] {
        let c = total(&run.score(s));
        println!(
            "| {s:.1} | {} | {} | {} | {} | {} |",
            c.found,
            c.missed,
            c.false_boxes,
            ratio(c.recall()),
            ratio(c.precision())
        );
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let wall = median(run.photos.iter().map(|p| p.detect_ms).collect());
    let cpu = median(run.photos.iter().filter_map(|p| p.cpu_ms).collect());
    if let (Some(wall), Some(cpu)) = (wall, cpu) {
        println!();
        println!(
            "{} photos at score {min:.1}; per photo (input and model, one thread): median {cpu:.1} ms of CPU, {wall:.1} ms wall",
            run.photos.len()
        );
    }
    Ok(())
}
