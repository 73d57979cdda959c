//! The device simulator on a recorded session (`vista device-sim`): opens the session,
//! announces its calibration in the hello, and serves it with the live wire protocol and
//! its own timing, listening (loopback only unless remote access is allowed with a token)
//! or connecting out.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use crate::source::live::link::{Listener, UNIX_PREFIX};
use crate::source::live::protocol::{Hello, Limits};
use crate::source::live::sim::{serve, serve_to, Faults, SimConfig, SimError, SimReport};
use crate::source::live::wire_streams::WireStream;
use crate::source::replay::{ReplayError, ReplayOptions, ReplaySource};
use crate::source::Source;
use crate::stop::StopHandle;

/// Where the simulator serves.
#[derive(Clone, Debug, PartialEq)]
pub enum SimLink {
    /// Listen on `host:port`, or `unix:/path` for a Unix-domain socket.
    Listen {
        /// The address.
        addr: String,
        /// Allow a non-loopback address (requires a token).
        allow_remote: bool,
    },
    /// Connect out to a host listening there (`host:port` or `unix:/path`), reconnecting
    /// after a dropped link.
    Connect {
        /// The address.
        addr: String,
        /// How long to keep trying each (re)connection.
        retry: Duration,
    },
}

/// What the simulator serves, where, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceSimOptions {
    /// A session folder (`recording.vrs`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// Speed factor (1 = the session's real timing); `None` sends as fast as the client
    /// reads.
    pub rate: Option<f64>,
    /// Where it serves.
    pub link: SimLink,
    /// Shared token a client must send first.
    pub token: Option<String>,
    /// Device serial announced in the hello.
    pub serial: String,
    /// Injected faults.
    pub faults: Faults,
}

/// What can go wrong serving a session.
#[derive(Debug, thiserror::Error)]
pub enum DeviceSimError {
    /// The session could not be opened.
    #[error("opening session {path}", path = path.display())]
    Open {
        /// The session.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: ReplayError,
    },
    /// The listen address does not resolve.
    #[error("resolving --listen {addr}")]
    Resolve {
        /// The address.
        addr: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The listen address resolves to nothing.
    #[error("--listen {addr} resolves to no address")]
    NoAddress {
        /// The address.
        addr: String,
    },
    /// A non-loopback address without remote access allowed.
    #[error(
        "--listen {addr} is not a loopback address; pass --allow-remote --token TOKEN to expose the device"
    )]
    NotLoopback {
        /// The resolved address.
        addr: SocketAddr,
    },
    /// Remote access without a token.
    #[error("--allow-remote needs a non-empty --token")]
    NoToken,
    /// The address could not be bound.
    #[error("listening on {addr}")]
    Bind {
        /// The address.
        addr: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Serving failed.
    #[error(transparent)]
    Serve(#[from] SimError),
}

/// Resolves `addr` and refuses non-loopback addresses unless `allow_remote` is set and a
/// non-empty `token` is given.
fn listen_addr(
    addr: &str,
    allow_remote: bool,
    token: Option<&str>,
) -> Result<SocketAddr, DeviceSimError> {
    let resolved = addr
        .to_socket_addrs()
        .map_err(|source| DeviceSimError::Resolve {
            addr: addr.to_string(),
            source,
        })?
        .next()
        .ok_or_else(|| DeviceSimError::NoAddress {
            addr: addr.to_string(),
        })?;
    if !resolved.ip().is_loopback() {
        if !allow_remote {
            return Err(DeviceSimError::NotLoopback { addr: resolved });
        }
        if token.is_none_or(str::is_empty) {
            return Err(DeviceSimError::NoToken);
        }
    }
    Ok(resolved)
}

/// Binds `addr`: a Unix-domain socket (local by nature), or a checked TCP address.
fn bind(addr: &str, allow_remote: bool, token: Option<&str>) -> Result<Listener, DeviceSimError> {
    #[cfg(unix)]
    if let Some(path) = addr.strip_prefix(UNIX_PREFIX) {
        let l = std::os::unix::net::UnixListener::bind(path).map_err(|source| {
            DeviceSimError::Bind {
                addr: addr.to_string(),
                source,
            }
        })?;
        return Ok(Listener::Unix(l));
    }
    let resolved = listen_addr(addr, allow_remote, token)?;
    let l = TcpListener::bind(resolved).map_err(|source| DeviceSimError::Bind {
        addr: resolved.to_string(),
        source,
    })?;
    Ok(Listener::Tcp(l))
}

/// Serves `options.session` until the session ends, the client says goodbye or `stop` is
/// stopped; a Unix-domain socket's file is removed afterwards.
pub fn serve_session(
    options: &DeviceSimOptions,
    stop: &StopHandle,
) -> Result<SimReport, DeviceSimError> {
    let replay = ReplayOptions {
        recorded_only: true,
        ..Default::default()
    };
    let source =
        ReplaySource::open(&options.session, replay).map_err(|source| DeviceSimError::Open {
            path: options.session.clone(),
            source,
        })?;
    let calib_json = source
        .recording()
        .calib_json()
        .unwrap_or_default()
        .to_string();
    // What the recording holds, under the device's names (a camera's calibration label).
    let streams = source
        .streams()
        .into_iter()
        .filter_map(|s| WireStream::new(s, source.recording().sensor_label(s).unwrap_or(s.name())))
        .collect();
    let config = SimConfig {
        rate: options.rate,
        hello: Hello::new(options.serial.clone(), "recording", calib_json).with_streams(streams),
        token: options.token.clone(),
        heartbeat_ns: 500_000_000,
        faults: options.faults.clone(),
        limits: Limits::default(),
    };
    match &options.link {
        SimLink::Connect { addr, retry } => {
            log::info!(
                "device-sim: serving {} to {addr}",
                options.session.display()
            );
            Ok(serve_to(addr, Box::new(source), &config, stop, *retry)?)
        }
        SimLink::Listen { addr, allow_remote } => {
            let listener = bind(addr, *allow_remote, options.token.as_deref())?;
            log::info!(
                "device-sim: serving {} on {}",
                options.session.display(),
                listener.local_addr()
            );
            let report = serve(&listener, Box::new(source), &config, stop);
            #[cfg(unix)]
            if let Some(path) = addr.strip_prefix(UNIX_PREFIX) {
                let _ = std::fs::remove_file(path);
            }
            Ok(report?)
        }
    }
}
