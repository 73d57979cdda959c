//! `vista device-sim SESSION [--rate R | --asap] [--listen ADDR]`: plays a recorded session
//! into a socket with the live wire protocol and the session's own timing, one client at a
//! time, optionally with injected faults. Listens on loopback only unless `--allow-remote`
//! and `--token` are both given.

use std::path::PathBuf;
use std::time::Duration;

use vista::runtime::StopHandle;
use vista::source::live::sim::{Faults, SimReport};
use vista::source::live::sim_serve::{serve_session, DeviceSimOptions, SimLink};

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

/// Runs `vista device-sim`.
pub fn run(args: DeviceSimArgs) -> anyhow::Result<()> {
    let link = match &args.connect {
        Some(addr) => SimLink::Connect {
            addr: addr.clone(),
            retry: Duration::from_secs_f64(if args.connect_retry_s.is_finite() {
                args.connect_retry_s.clamp(0.0, 86_400.0)
            } else {
                10.0
            }),
        },
        None => SimLink::Listen {
            addr: args.listen.clone(),
            allow_remote: args.allow_remote,
        },
    };
    let options = DeviceSimOptions {
        session: args.session.clone(),
        rate: (!args.asap).then_some(args.rate),
        link,
        token: args.token.clone(),
        serial: args.serial.clone(),
        faults: Faults {
            latency_ns: ms_to_ns(args.latency_ms),
            jitter_ns: ms_to_ns(args.jitter_ms),
            drop_after_frames: args.drop_after,
            drop_gap_ns: ms_to_ns(args.drop_gap_ms),
            truncate_after_frames: args.truncate_after,
            burst_frames: args.burst,
            seed: args.seed,
        },
    };
    let stop = StopHandle::new();
    let s2 = stop.clone();
    let _ = ctrlc::set_handler(move || s2.stop());
    let report = serve_session(&options, &stop)?;
    print_report(&report);
    Ok(())
}

fn print_report(report: &SimReport) {
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
