//! `vista stats SESSION... --out norm_stats.json`: per-channel mean and standard deviation
//! of the sensor window's channels over a training split (Welford, NaN-robust).

use std::path::PathBuf;

use anyhow::Context;

use vista::window::replay_windows::for_each_window;
use vista::window::{StatsAccumulator, WindowConfig};

/// Arguments of `vista stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Session folders or `.vrs` files of the training split.
    #[arg(required = true)]
    pub sessions: Vec<PathBuf>,
    /// Where to write the statistics (JSON, part of a model bundle).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Window length in seconds (64 bins; default 6.4).
    #[arg(long, default_value_t = 6.4, value_name = "SECONDS")]
    pub window_s: f64,
    /// Keep IMU, magnetometer and barometer raw (default: rectified with the recording's
    /// calibration; use the same choice for `vista window` and at run time).
    #[arg(long)]
    pub raw: bool,
}

/// Runs `vista stats`.
pub fn run(args: StatsArgs) -> anyhow::Result<()> {
    let config = WindowConfig::with_length_ns((args.window_s * 1e9).round() as i64)?;
    let mut acc = StatsAccumulator::new(config.bin_ns);
    for s in &args.sessions {
        let read = for_each_window(s, config, !args.raw, |w| acc.add_window(w))
            .with_context(|| format!("reading {}", s.display()))?;
        for msg in &read.skipped {
            log::warn!("{}: {msg}", s.display());
        }
        log::info!(
            "{}: {} samples, {} NaN values skipped",
            s.display(),
            read.samples,
            read.counters.nan_values
        );
    }
    let mut stats = acc.finish();
    stats.rectified = Some(!args.raw);
    let text = serde_json::to_string_pretty(&stats)?;
    std::fs::write(&args.out, text + "\n")
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "{} windows from {} session(s) -> {}",
        stats.windows,
        args.sessions.len(),
        args.out.display()
    );
    for (name, st) in &stats.streams {
        let used = st.count.iter().min().copied().unwrap_or(0);
        println!(
            "  {name:<11} {} channels, >= {used} values each",
            st.channels.len()
        );
    }
    Ok(())
}
