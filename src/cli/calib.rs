//! `vista calib`: prints a device calibration, or projects / unprojects points read from
//! stdin with one of its cameras.
//!
//! ```text
//! vista calib calib.json                          # readable summary (--json: JSON)
//! echo "0.1 0.2 1" | vista calib calib.json --project [--camera camera-rgb]   # -> "u v"
//! echo "700 700"   | vista calib calib.json --unproject                       # -> "x y z"
//! ```
//!
//! Output lines are `invalid` (or `null` with `--json`) for points behind the camera or
//! outside the valid image region. Blank lines and lines starting with `#` are skipped;
//! any other malformed line is an error naming its line number.

use std::io::Write;
use std::path::PathBuf;

use anyhow::bail;
use vista::aria::calib::point_lines::{project_lines, unproject_lines};
use vista::aria::calib::summary::{summary_json, write_summary};
use vista::source::calibration::{load_calibration, LoadedCalibration};

/// Arguments of `vista calib`.
#[derive(Debug, Clone, clap::Args)]
pub struct CalibArgs {
    /// Calibration JSON file (factory calibration or a recording's `calib_json`).
    pub path: PathBuf,
    /// Camera used by --project / --unproject.
    #[arg(long, default_value = "camera-rgb")]
    pub camera: String,
    /// Read `x y z` lines (metres, camera frame) from stdin, write `u v` pixels.
    #[arg(long, conflicts_with = "unproject")]
    pub project: bool,
    /// Read `u v` pixel lines from stdin, write unit rays `x y z` (camera frame).
    #[arg(long)]
    pub unproject: bool,
    /// Machine-readable output (a JSON summary, or one JSON value per line).
    #[arg(long)]
    pub json: bool,
}

/// Runs `vista calib` on a calibration JSON file, a `.vrs` recording or a session folder.
pub fn run(args: CalibArgs) -> anyhow::Result<()> {
    let LoadedCalibration { device, source } = load_calibration(&args.path)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.project || args.unproject {
        let Some(cam) = device.camera(&args.camera) else {
            bail!(
                "{source}: no camera {:?} (cameras: {})",
                args.camera,
                device.camera_labels().join(", ")
            );
        };
        let stdin = std::io::stdin();
        let input = stdin.lock();
        if args.project {
            project_lines(cam, input, &mut out, args.json)?;
        } else {
            unproject_lines(cam, input, &mut out, args.json)?;
        }
    } else if args.json {
        serde_json::to_writer_pretty(&mut out, &summary_json(&device))?;
        writeln!(out)?;
    } else {
        write_summary(&device, &source, &mut out)?;
    }
    out.flush()?;
    Ok(())
}
