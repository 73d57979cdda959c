//! `vista window SESSION --at SECONDS [--json]`: the model's view of one moment: every
//! stream's 64-bin grid (shape, per-channel mean, masked bins) and the 8 frames' times;
//! `--json` prints the tensors themselves.

use std::path::PathBuf;

use vista::window::moment_report::{moment_report, MomentOptions};

/// Arguments of `vista window`.
#[derive(Debug, clap::Args)]
pub struct WindowArgs {
    /// A session folder (`recording.vrs`, optional `mps/`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// The window's end, seconds after the session's first sample.
    #[arg(long, value_name = "SECONDS")]
    pub at: f64,
    /// Print the tensors as JSON.
    #[arg(long)]
    pub json: bool,
    /// Normalise with these statistics (`vista stats`).
    #[arg(long, value_name = "FILE")]
    pub norm: Option<PathBuf>,
    /// Window length in seconds (64 bins; default 6.4).
    #[arg(long, default_value_t = 6.4, value_name = "SECONDS")]
    pub window_s: f64,
    /// Frame stride of the causal frame variant (frames).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub causal_stride: usize,
    /// Keep IMU, magnetometer and barometer raw (default: rectified with the recording's
    /// calibration).
    #[arg(long)]
    pub raw: bool,
}

/// Runs `vista window`.
pub fn run(args: WindowArgs) -> anyhow::Result<()> {
    let report = moment_report(&MomentOptions {
        session: args.session,
        at_s: args.at,
        norm: args.norm,
        window_s: args.window_s,
        causal_stride: args.causal_stride,
        rectify: !args.raw,
    })?;
    if args.json {
        println!("{}", report.to_json()?);
    } else {
        print!("{}", report.to_table());
    }
    Ok(())
}
