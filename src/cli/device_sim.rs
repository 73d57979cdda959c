//! `vista device-sim SESSION [--rate R | --asap] [--listen ADDR]`: plays a recorded session
//! into a socket with the live wire protocol and the session's own timing, one client at a
//! time, optionally with injected faults. Listens on loopback only unless `--allow-remote`
//! and `--token` are both given.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

use std::path::PathBuf;
use vista::source::live::link::{Listener, UNIX_PREFIX};

use anyhow::Context;

use vista::runtime::StopHandle;
use vista::source::live::protocol::{Hello, PROTOCOL_VERSION};
use vista::source::live::sim::{serve, serve_to, Faults, SimConfig};
use vista::source::replay::{ReplayOptions, ReplaySource};

/// Arguments of `vista device-sim`.
#[derive(Debug, clap::Args)]
pub struct DeviceSimArgs {
    /// A session folder (`recording.vrs`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// Speed factor (1 = the session's real timing).
    #[arg(long, default_value_t = 1.0, conflicts_with = "asap")]
    pub rate: f64,
    /// Send as fast as the client reads.
    #[arg(long)]
    pub asap: bool,
    /// Address to listen on: `host:port`, or `unix:/path` for a Unix-domain socket.
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDR")]
    pub listen: String,
    /// Connect out to a host listening there (`vista live --listen ADDR`) instead of
    /// listening: `host:port` or `unix:/path`; reconnects after a dropped link.
    #[arg(long, value_name = "ADDR", conflicts_with = "listen")]
    pub connect: Option<String>,
    /// With `--connect`: seconds to keep trying each (re)connection.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub connect_retry_s: f64,
    /// Allow a non-loopback listen address (requires --token).
    #[arg(long)]
    pub allow_remote: bool,
    /// Shared token a client must send first.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Device serial announced in the hello.
    #[arg(long, default_value = "SIM00000000000")]
    pub serial: String,
    /// Fault: extra latency added to every frame, ms.
    #[arg(long, default_value_t = 0.0, value_name = "MS")]
    pub latency_ms: f64,
    /// Fault: uniform random extra delay up to this, ms.
    #[arg(long, default_value_t = 0.0, value_name = "MS")]
    pub jitter_ms: f64,
    /// Fault: drop the link once after this many sample frames (the client reconnects).
    #[arg(long, value_name = "FRAMES")]
    pub drop_after: Option<u64>,
    /// Fault: device time lost in the dropped link's gap, ms.
    #[arg(long, default_value_t = 500.0, value_name = "MS")]
    pub drop_gap_ms: f64,
    /// Fault: send half a frame and close, once, after this many sample frames.
    #[arg(long, value_name = "FRAMES")]
    pub truncate_after: Option<u64>,
    /// Fault: send frames in bursts of this many (each burst leaves when its last is due).
    #[arg(long, value_name = "FRAMES")]
    pub burst: Option<u64>,
    /// Seed of the jitter generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn ms_to_ns(ms: f64) -> i64 {
    if ms.is_finite() && ms > 0.0 {
        (ms * 1e6).round() as i64
    } else {
        0
    }
}

/// Resolves `listen` and refuses non-loopback addresses without `--allow-remote --token`.
fn listen_addr(args: &DeviceSimArgs) -> anyhow::Result<SocketAddr> {
    let addr = args
        .listen
        .to_socket_addrs()
        .with_context(|| format!("resolving --listen {}", args.listen))?
        .next()
        .with_context(|| format!("--listen {} resolves to no address", args.listen))?;
    if !addr.ip().is_loopback() {
        if !args.allow_remote {
            anyhow::bail!(
                "--listen {addr} is not a loopback address; pass --allow-remote --token TOKEN to expose the device"
            );
        }
        if args.token.as_deref().is_none_or(str::is_empty) {
            anyhow::bail!("--allow-remote needs a non-empty --token");
        }
    }
    Ok(addr)
}

/// Binds `--listen`: a Unix-domain socket (local by nature), or a checked TCP address.
fn bind(args: &DeviceSimArgs) -> anyhow::Result<Listener> {
    #[cfg(unix)]
    if let Some(path) = args.listen.strip_prefix(UNIX_PREFIX) {
        let l = std::os::unix::net::UnixListener::bind(path)
            .with_context(|| format!("listening on {}", args.listen))?;
        return Ok(Listener::Unix(l));
    }
    let addr: SocketAddr = listen_addr(args)?;
    let l = TcpListener::bind(addr).with_context(|| format!("listening on {addr}"))?;
    Ok(Listener::Tcp(l))
}

/// Runs `vista device-sim`.
pub fn run(args: DeviceSimArgs) -> anyhow::Result<()> {
    let options = ReplayOptions {
        recorded_only: true,
        ..Default::default()
    };
    let source = ReplaySource::open(&args.session, options)
        .with_context(|| format!("opening session {}", args.session.display()))?;
    let calib_json = source
        .recording()
        .calib_json()
        .unwrap_or_default()
        .to_string();
    let config = SimConfig {
        rate: (!args.asap).then_some(args.rate),
        hello: Hello {
            version: PROTOCOL_VERSION,
            device_serial: args.serial.clone(),
            streaming_profile: "recording".into(),
            calib_json,
        },
        token: args.token.clone(),
        heartbeat_ns: 500_000_000,
        faults: Faults {
            latency_ns: ms_to_ns(args.latency_ms),
            jitter_ns: ms_to_ns(args.jitter_ms),
            drop_after_frames: args.drop_after,
            drop_gap_ns: ms_to_ns(args.drop_gap_ms),
            truncate_after_frames: args.truncate_after,
            burst_frames: args.burst,
            seed: args.seed,
        },
        limits: Default::default(),
    };
    let stop = StopHandle::new();
    let s2 = stop.clone();
    let _ = ctrlc::set_handler(move || s2.stop());
    if let Some(addr) = &args.connect {
        let retry = if args.connect_retry_s.is_finite() {
            args.connect_retry_s.clamp(0.0, 86_400.0)
        } else {
            10.0
        };
        log::info!("device-sim: serving {} to {addr}", args.session.display());
        let report = serve_to(
            addr,
            Box::new(source),
            &config,
            &stop,
            std::time::Duration::from_secs_f64(retry),
        )?;
        print_report(&report);
        return Ok(());
    }
    let listener = bind(&args)?;
    log::info!(
        "device-sim: serving {} on {}",
        args.session.display(),
        listener.local_addr()
    );
    let report = serve(&listener, Box::new(source), &config, &stop);
    #[cfg(unix)]
    if let Some(path) = args.listen.strip_prefix(UNIX_PREFIX) {
        let _ = std::fs::remove_file(path);
    }
    let report = report?;
    print_report(&report);
    Ok(())
}

fn print_report(report: &vista::source::live::sim::SimReport) {
    println!(
        "device-sim: {} connections ({} refused), {} frames sent, {} samples lost, goodbye {}",
        report.connections,
        report.refused,
        report.frames_sent,
        report.samples_lost,
        if report.goodbye_sent {
            "sent"
        } else {
            "not sent"
        }
    );
}
