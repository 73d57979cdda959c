//! `vista stats SESSION... --out norm_stats.json`: per-channel mean and standard deviation
//! of the sensor window's channels over a training split (Welford, NaN-robust).

use std::path::PathBuf;

use vista::window::split_stats::{split_stats, write_stats, SplitStatsOptions};

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
    let stats = split_stats(&SplitStatsOptions {
        sessions: args.sessions.clone(),
        window_s: args.window_s,
        rectify: !args.raw,
    })?;
    write_stats(&stats, &args.out)?;
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
