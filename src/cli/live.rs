//! `vista live [--connect ADDR] [--profile FILE] [--stay] [--speak DIR …]`: runs the runtime
//! on live input from the glasses' bridge or `vista device-sim`, in `ClockMode::Live`, and
//! writes the same profile JSON as `vista replay` plus a `link` section (connections, drops,
//! bad frames and per-stream link latency from capture to arrival).
//!
//! With `--speak DIR` the whole assistant runs on the live stream, with every option and
//! output of `replay --speak`. The calibration comes from the device's hello, rescaled to
//! the image sizes seen in the first half second (read ahead, then delivered in order).
//! Device time maps to host time through the live clock-offset estimate (`LiveClock`), so
//! scripted requests (`t_ns` on the device clock) fall due when the stream reaches them and
//! `session_clock.json` uses the offset estimated at the end of the run. Live input has no
//! point map and no MPS-derived streams (pose, eye gaze, hands): `--map SESSION` supplies
//! that session's semi-dense map and merges its MPS streams in by capture time (evaluation,
//! or a place mapped before); `--truth SESSION` scores the run against that session's
//! ground truth (and takes its `requests.jsonl` unless `--requests` is given). Link drops
//! and reconnects do not stop the assistant; a goodbye ends the run with everything written.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

use vista::aria::calib::{CalibSource, DeviceCalibration};
use vista::eval::SessionClock;
use vista::perception::load::load_points;
use vista::perception::{PerceptionInputs, SensorModels};
use vista::runtime::{ClockMode, RunReport, RuntimeConfig};
use vista::sample::StreamId;
use vista::source::live::overlay::{session_mps, MpsOverlay};
use vista::source::live::primed::{calibration_sizes, PrimeLimits, Primed};
use vista::source::live::protocol::Hello;
use vista::source::live::{LinkReport, LinkStats, LiveClock, LiveConfig, LiveSource, OffsetCell};
use vista::source::prefetch::PrefetchSource;
use vista::source::Source;

use super::speak::{SpeakArgs, SpeakInputs};

use super::replay::{build_profile, write_profile, ReplayProfile};

/// Arguments of `vista live`.
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// The device bridge or simulator, `host:port` or `unix:/path`.
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDR")]
    pub connect: String,
    /// Listen here and let the device connect (`vista device-sim --connect ADDR`) instead
    /// of connecting to it: a loopback `host:port` or `unix:/path`.
    #[arg(long, value_name = "ADDR", conflicts_with = "connect")]
    pub listen: Option<String>,
    /// Shared token, when the device requires one.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// After the device says goodbye, wait for the next connection instead of exiting.
    #[arg(long)]
    pub stay: bool,
    /// Plausibility window of the device clock, seconds: a capture time further than this
    /// from its arrival (or, in the runtime, ahead of the session clock) is left out as an
    /// outlier and counted; a run of them is a device-clock restart, which continues the
    /// session clock.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub max_clock_jump_s: f64,
    /// Seconds to keep trying to (re)connect before giving up.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub reconnect_s: f64,
    /// With `--speak`: the semi-dense map and MPS-derived streams (pose, eye gaze, hands)
    /// of this session folder, merged in by capture time (live input has none).
    #[arg(long, value_name = "SESSION")]
    pub map: Option<PathBuf>,
    /// With `--speak`: score the run against this session's ground truth (and take its
    /// `requests.jsonl` unless `--requests` is given).
    #[arg(long, value_name = "SESSION")]
    pub truth: Option<PathBuf>,
    /// The assistant (`--speak DIR` and its options).
    #[command(flatten)]
    pub speak: SpeakArgs,
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
pub fn run(mut args: LiveArgs) -> anyhow::Result<()> {
    let mut config = RuntimeConfig::new(ClockMode::Live);
    config.handle_ctrl_c = true;
    // From the start: a signal while waiting for the device (or after a goodbye with
    // `--stay`) stops the run in order, with every output written.
    vista::runtime::stop_on_interrupt(&config.stop);
    config.max_clock_jump_ns = secs_to_ns(args.max_clock_jump_s);
    if let Some(l) = args.listen.clone() {
        check_local(&l)?;
        // From here on `connect` names the address of the link, whichever side opened it.
        args.connect = l;
    }
    let mut live_config = LiveConfig::new(args.connect.clone());
    live_config.listen = args.listen.is_some();
    live_config.token = args.token.clone();
    live_config.stay = args.stay;
    live_config.max_clock_jump = Duration::from_nanos(config.max_clock_jump_ns.unsigned_abs());
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
    if args.speak.speak.is_none() && (args.map.is_some() || args.truth.is_some()) {
        anyhow::bail!("--map and --truth need --speak DIR");
    }
    // The assistant's models (language model, PP-OCR) load before the link is opened or
    // accepted, so the first seconds of the stream are not held up behind them.
    let pre = match &args.speak.speak {
        Some(_) => Some(super::speak::preload(&args.speak, true)?),
        None => None,
    };
    let mut source = LiveSource::new(live_config);
    let hello = source
        .connect()
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("connecting to {}", args.connect))?
        .clone();
    let stats = source.stats();
    match (args.speak.speak.clone(), pre) {
        (Some(dir), Some(pre)) => run_spoken(&args, &dir, source, &hello, stats, config, pre),
        _ => {
            let report = vista::runtime::run(Box::new(source), config, Vec::new())
                .context("live run failed")?;
            let profile = live_profile(&args, &report, &stats);
            print!("{}", render(&profile));
            if let Some(path) = &args.profile {
                write_profile(path, &profile)?;
            }
            if report.stop_reason.is_error() {
                anyhow::bail!("live run stopped: {:?}", report.stop_reason);
            }
            Ok(())
        }
    }
}

/// Seconds to ns for a plausibility window: at least 1 ms, at most a day; not finite → 10 s.
pub(super) fn secs_to_ns(s: f64) -> i64 {
    if s.is_finite() {
        (s.clamp(0.001, 86_400.0) * 1e9) as i64
    } else {
        10_000_000_000
    }
}

/// `--listen` accepts a device on this machine only (a Unix socket, or a loopback address):
/// the live link carries no authentication of the device.
fn check_local(addr: &str) -> anyhow::Result<()> {
    if addr.starts_with(vista::source::live::link::UNIX_PREFIX) {
        return Ok(());
    }
    use std::net::ToSocketAddrs;
    let resolved: Vec<_> = addr
        .to_socket_addrs()
        .with_context(|| format!("--listen {addr}: not a host:port address"))?
        .collect();
    if resolved.is_empty() || resolved.iter().any(|a| !a.ip().is_loopback()) {
        anyhow::bail!("--listen {addr}: only loopback addresses or unix:/path are allowed");
    }
    Ok(())
}

fn live_profile(args: &LiveArgs, report: &RunReport, stats: &LinkStats) -> LiveProfile {
    LiveProfile {
        base: build_profile(
            PathBuf::from(&args.connect),
            "live",
            None,
            report,
            String::new(),
        ),
        link: stats.report(),
    }
}

/// Samples read off the link ahead of the runtime: ~1.5 s of every Gen1 stream (IMUs at
/// 1 kHz + 800 Hz dominate), enough to cover the assistant's set-up.
const LIVE_READ_AHEAD: usize = 4096;

/// `vista live --speak DIR`: reads the first moments ahead (origin, image sizes), sets the
/// assistant up on the live clock, runs, and writes everything `replay --speak` writes.
fn run_spoken(
    args: &LiveArgs,
    dir: &Path,
    source: LiveSource,
    hello: &Hello,
    stats: LinkStats,
    mut config: RuntimeConfig,
    pre: super::speak::Preloaded,
) -> anyhow::Result<()> {
    let offset = source.offset_cell();
    // The socket is read on its own thread from here on, so that setting the assistant up
    // (and any stall of the runtime) never holds the link: arrival stamps and link latency
    // stay true, and the device never blocks on a full socket buffer.
    let source = PrefetchSource::spawn(Box::new(source), LIVE_READ_AHEAD)
        .context("starting the live read thread")?;
    let primed = Primed::new(source, PrimeLimits::default());
    let first = primed
        .first_capture()
        .with_context(|| format!("{}: the device sent no sample", args.connect))?;
    let sizes = calibration_sizes(primed.image_sizes());
    let mut inputs = live_inputs(args, hello, &sizes)?;
    let source: Box<dyn Source> = match &args.map {
        Some(map) => {
            let mps = session_mps(map).with_context(|| format!("--map {}", map.display()))?;
            let overlay = MpsOverlay::new(primed, &mps)
                .with_context(|| format!("--map {}: reading its MPS streams", map.display()))?;
            Box::new(overlay)
        }
        None => Box::new(primed),
    };
    inputs.streams = source.streams();
    // Live glasses stream no trajectory: without --map the pose is derived from the IMU.
    inputs.derive_pose_if_missing();
    let clock: Arc<dyn vista::time::Clock> = Arc::new(LiveClock::new(offset.clone()));
    config.clock = Some((first, Arc::clone(&clock)));
    let (mut run, consumers) = super::speak::setup_with(
        &args.speak,
        dir,
        inputs,
        clock,
        first,
        1.0,
        Some(stats.clone()),
        pre,
    )?;
    let source: Box<dyn Source> = match run.derive_pose.clone() {
        Some(models) => Box::new(vista::perception::inertial_source::InertialPoseSource::new(
            source, models,
        )),
        None => source,
    };
    let report = vista::runtime::run(source, config, consumers).context("live run failed")?;
    run.set_session_clock(session_clock(first.ns(), &offset));
    let profile = live_profile(args, &report, &stats);
    print!("{}", render(&profile));
    if let Some(path) = &args.profile {
        write_profile(path, &profile)?;
    }
    super::speak::finish(run, &profile)?;
    if report.stop_reason.is_error() {
        anyhow::bail!("live run stopped: {:?}", report.stop_reason);
    }
    Ok(())
}

/// The session clock of a live run: device time `origin_ns` maps to host time through the
/// offset estimated at the end (host = device + offset); without one, host = device.
fn session_clock(origin_ns: i64, offset: &OffsetCell) -> SessionClock {
    let o = offset.get().unwrap_or(0);
    SessionClock {
        origin_device_ns: origin_ns,
        origin_host_ns: origin_ns.saturating_add(o),
        rate: 1.0,
    }
}

/// What the assistant gets from live input: the hello's calibration at the streamed image
/// sizes, the `--map` session's points, the `--truth` session's requests and ground truth.
fn live_inputs(
    args: &LiveArgs,
    hello: &Hello,
    sizes: &[(String, u32, u32)],
) -> anyhow::Result<SpeakInputs> {
    let mut notes = Vec::new();
    let calibration = if hello.calib_json.is_empty() {
        None
    } else {
        let src = CalibSource::Named(format!(
            "calibration in the hello of {} on {}",
            hello.device_serial, args.connect
        ));
        // The live source refused a calibration that does not parse; one that does not fit
        // the streamed image sizes is refused here, for this run's geometry only.
        match DeviceCalibration::from_json_str_with_source(&hello.calib_json, src)
            .and_then(|c| c.with_recorded_sizes(sizes))
        {
            Ok(c) => Some(c),
            Err(e) => {
                log::warn!("{e}; going on without it");
                notes.push(format!("the hello's calibration was refused: {e}"));
                None
            }
        }
    };
    let models = match &calibration {
        Some(c) => SensorModels::from_calibration(c),
        None => {
            notes.push(format!(
                "{}: the hello carries no calibration: sensor axes assumed",
                args.connect
            ));
            SensorModels::default()
        }
    };
    let points = match &args.map {
        Some(map) => {
            let mps = session_mps(map).with_context(|| format!("--map {}", map.display()))?;
            load_points(&mps, &mut notes)
                .with_context(|| format!("--map {}: reading its points", map.display()))?
                .map(Arc::new)
        }
        None => {
            notes.push(
                "live input has no point map or MPS streams (pose, eye gaze, hands): pass \
                 --map SESSION for a mapped place"
                    .to_string(),
            );
            None
        }
    };
    let (default_requests, truth) = match &args.truth {
        Some(t) => {
            let files = vista::source::session::SessionFiles::locate(t)
                .with_context(|| format!("--truth {}", t.display()))?;
            let root = files.root;
            if !root.join("ground_truth.json").is_file() {
                anyhow::bail!("--truth {}: no ground_truth.json", root.display());
            }
            let r = root.join("requests.jsonl");
            (r.is_file().then_some(r), Some(root))
        }
        None => (None, None),
    };
    Ok(SpeakInputs {
        streams: StreamId::ALL
            .iter()
            .copied()
            .filter(|s| !s.is_derived())
            .collect(),
        perception: PerceptionInputs {
            models,
            points,
            notes,
        },
        nominal_calibration: calibration
            .is_none()
            .then(|| super::speak::nominal_for(sizes))
            .flatten(),
        calibration,
        default_requests,
        truth,
        label: format!("live {} on {}", hello.device_serial, args.connect),
        derive_pose: false,
    })
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
