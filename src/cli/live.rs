//! `vista live [--connect ADDR] [--profile FILE] [--stay]`: runs the runtime on live input
//! from the glasses' bridge or `vista device-sim`, in `ClockMode::Live`, and writes the same
//! profile JSON as `vista replay` plus a `link` section (connections, drops, bad frames and
//! per-stream link latency from capture to arrival).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

use vista::runtime::{ClockMode, RuntimeConfig};
use vista::source::live::{LinkReport, LiveConfig, LiveSource};

use super::replay::{build_profile, write_profile, ReplayProfile};

/// Arguments of `vista live`.
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// The device bridge or simulator, `host:port`.
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDR")]
    pub connect: String,
    /// Shared token, when the device requires one.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// After the device says goodbye, wait for the next connection instead of exiting.
    #[arg(long)]
    pub stay: bool,
    /// Seconds to keep trying to (re)connect before giving up.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub reconnect_s: f64,
}

/// The JSON written by `--profile`: replay's fields, plus the link.
#[derive(Debug, Serialize)]
pub struct LiveProfile {
    /// The same fields as `vista replay --profile`.
    #[serde(flatten)]
    pub base: ReplayProfile,
    /// What the link did.
    pub link: LinkReport,
}

/// Runs `vista live`.
pub fn run(args: LiveArgs) -> anyhow::Result<()> {
    let mut config = RuntimeConfig::new(ClockMode::Live);
    config.handle_ctrl_c = true;
    let mut live_config = LiveConfig::new(args.connect.clone());
    live_config.token = args.token.clone();
    live_config.stay = args.stay;
    live_config.stop = Some(config.stop.clone());
    live_config.reconnect_for = if args.stay {
        Duration::MAX
    } else {
        let s = if args.reconnect_s.is_finite() {
            args.reconnect_s.clamp(0.0, 86_400.0)
        } else {
            10.0
        };
        Duration::from_secs_f64(s)
    };
    let mut source = LiveSource::new(live_config);
    source
        .connect()
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("connecting to {}", args.connect))?;
    let stats = source.stats();
    let report =
        vista::runtime::run(Box::new(source), config, Vec::new()).context("live run failed")?;
    let profile = LiveProfile {
        base: build_profile(
            PathBuf::from(&args.connect),
            "live",
            None,
            &report,
            String::new(),
        ),
        link: stats.report(),
    };
    print!("{}", render(&profile));
    if let Some(path) = &args.profile {
        write_profile(path, &profile)?;
    }
    if report.stop_reason.is_error() {
        anyhow::bail!("live run stopped: {:?}", report.stop_reason);
    }
    Ok(())
}

/// The terminal report of a live run: replay's per-stream table plus the link.
fn render(p: &LiveProfile) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<18} {:>10} {:>8} {:>9} {:>12} {:>12} {:>12}",
        "stream", "delivered", "dropped", "rate Hz", "link p50", "link p99", "link max"
    );
    for (name, s) in &p.base.streams {
        let l = p.link.latency.get(name).cloned().unwrap_or_default();
        let _ = writeln!(
            t,
            "{:<18} {:>10} {:>8} {:>9.1} {:>10.0}µs {:>10.0}µs {:>10.0}µs",
            name, s.delivered, s.dropped, s.rate_hz, l.p50_us, l.p99_us, l.max_us
        );
    }
    let _ = writeln!(
        t,
        "live from {} ({}): {:.3} s of device time in {:.3} s wall; {} connections, {} link drops, {} bad frames; stop: {}",
        p.base.session.display(),
        p.link.device_serial,
        p.base.device_time_s,
        p.base.wall_time_s,
        p.link.connections,
        p.link.link_drops,
        p.link.bad_frames,
        p.base.stop_reason
    );
    t
}
