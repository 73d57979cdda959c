//! The device simulator: serves a [`Source`] (usually a replayed session) over the wire
//! protocol, one client at a time, at the session's own timing (or a rate, or as fast as
//! possible), with optional injected faults.
//!
//! Per connection: optional token check (an [`Frame::Auth`] first, when a token is set,
//! whole within [`AUTH_DEADLINE`]; failures in a row back off exponentially), a
//! [`Hello`], then sample frames paced by capture time, heartbeats while idle, and a
//! goodbye at the end of the source. Samples that fall in a dropped link's gap are lost, as
//! they would be on the glasses.

use std::io::Write;
use std::time::Duration;

use crate::sample::Sample;
use crate::source::Source;
use crate::stop::StopHandle;
use crate::time::{sleep_until, sleep_until_or_stop, DeviceTime, HostTime, ReplayClock};

use super::framed::{write_frame, FrameReader};
use super::link::{Deadline, Link, Listener};
use super::protocol::{encode_frame, Frame, Hello, Limits};

/// Faults to inject.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Faults {
    /// Extra delay added to every sample frame, ns.
    pub latency_ns: i64,
    /// Uniform extra delay in `[0, jitter_ns)` added to every sample frame (seeded).
    pub jitter_ns: i64,
    /// Close the link after this many sample frames on a connection (once), then skip
    /// `drop_gap_ns` of device time and wait for the client to reconnect.
    pub drop_after_frames: Option<u64>,
    /// Device time lost in a dropped link's gap, ns.
    pub drop_gap_ns: i64,
    /// After this many sample frames on a connection (once), send only the first half of the
    /// next frame and close the connection.
    pub truncate_after_frames: Option<u64>,
    /// Send sample frames in bursts of this many: each burst leaves when its last frame is
    /// due (the earlier ones arrive late, together), as over a congested link.
    pub burst_frames: Option<u64>,
    /// Seed of the jitter generator.
    pub seed: u64,
}

/// How the simulator serves.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Speed factor; `None` sends as fast as the client reads.
    pub rate: Option<f64>,
    /// What the hello says.
    pub hello: Hello,
    /// Required client token (must be set when listening beyond loopback).
    pub token: Option<String>,
    /// Heartbeat interval while idle, ns of host time.
    pub heartbeat_ns: i64,
    /// Faults to inject.
    pub faults: Faults,
    /// Limits for the (tiny) frames read from clients.
    pub limits: Limits,
}

/// What a simulator run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimReport {
    /// Connections served (authenticated).
    pub connections: u64,
    /// Connections refused (bad or missing token).
    pub refused: u64,
    /// Sample frames written in full.
    pub frames_sent: u64,
    /// Samples lost to a dropped link, a fault or an unencodable payload.
    pub samples_lost: u64,
    /// True when the source ended and a goodbye was sent.
    pub goodbye_sent: bool,
}

/// Errors that stop the simulator.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Accepting a connection failed.
    #[error("device-sim on {addr}: accept failed: {source}")]
    Accept {
        /// The listening address.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
    /// Connecting out to a host (`--connect`) failed for the whole retry time.
    #[error("device-sim: could not connect to {addr}: {source}")]
    Connect {
        /// The host's address.
        addr: String,
        /// The last error.
        source: std::io::Error,
    },
}

enum ConnEnd {
    SourceDone,
    Dropped,
    Stopped,
}

/// A small deterministic generator for jitter (SplitMix64).
fn next_rand(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Serves `source` on `listener` until the source ends (after a goodbye) or `stop` is set.
pub fn serve(
    listener: &Listener,
    mut source: Box<dyn Source>,
    config: &SimConfig,
    stop: &StopHandle,
) -> Result<SimReport, SimError> {
    let addr = listener.local_addr();
    let mut st = SimState::new(config);
    listener
        .set_nonblocking(true)
        .map_err(|source| SimError::Accept {
            addr: addr.clone(),
            source,
        })?;
    while !stop.is_stopped() {
        let (mut stream, peer) = match listener.accept() {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(source) => return Err(SimError::Accept { addr, source }),
        };
        if !authenticate(&mut stream, &peer, config) {
            st.report.refused += 1;
            drop(stream);
            // No guessing at speed: each failure in a row doubles the wait before the next
            // client is heard.
            st.failed_auth = st.failed_auth.saturating_add(1);
            sleep_or_stop(auth_backoff(st.failed_auth), stop);
            continue;
        }
        st.failed_auth = 0;
        st.report.connections += 1;
        log::info!("device-sim: client {peer} connected");
        match st.serve_one(stream, &mut *source, config, stop) {
            ConnEnd::SourceDone => break,
            ConnEnd::Dropped => log::info!("device-sim: link to {peer} dropped"),
            ConnEnd::Stopped => break,
        }
    }
    Ok(st.report)
}

/// Serves `source` by connecting out to a host that listens (`vista live --listen ADDR`),
/// reconnecting after a dropped link, until the source ends (after a goodbye) or `stop` is
/// set. Each (re)connection is retried for up to `retry_for`.
pub fn serve_to(
    addr: &str,
    mut source: Box<dyn Source>,
    config: &SimConfig,
    stop: &StopHandle,
    retry_for: Duration,
) -> Result<SimReport, SimError> {
    let mut st = SimState::new(config);
    while !stop.is_stopped() {
        let start = std::time::Instant::now();
        let mut stream = loop {
            match Link::connect(addr) {
                Ok(s) => break s,
                Err(source) if start.elapsed() >= retry_for || stop.is_stopped() => {
                    return Err(SimError::Connect {
                        addr: addr.to_string(),
                        source,
                    });
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        if !authenticate(&mut stream, addr, config) {
            st.report.refused += 1;
            drop(stream);
            st.failed_auth = st.failed_auth.saturating_add(1);
            sleep_or_stop(auth_backoff(st.failed_auth), stop);
            continue;
        }
        st.failed_auth = 0;
        st.report.connections += 1;
        log::info!("device-sim: connected to {addr}");
        match st.serve_one(stream, &mut *source, config, stop) {
            ConnEnd::SourceDone | ConnEnd::Stopped => break,
            ConnEnd::Dropped => log::info!("device-sim: link to {addr} dropped"),
        }
    }
    Ok(st.report)
}

fn authenticate(stream: &mut Link, peer: &str, config: &SimConfig) -> bool {
    let Some(token) = &config.token else {
        return true;
    };
    let limits = Limits {
        max_frame_bytes: 1024,
        ..config.limits
    };
    // One deadline for the whole exchange: a client trickling its token byte by byte
    // cannot hold the simulator (a per-read timeout would let it).
    let mut r = FrameReader::new(Deadline::new(stream, AUTH_DEADLINE), peer, limits);
    let ok = matches!(r.read_frame(), Ok(Frame::Auth { token: t }) if t == *token);
    if !ok {
        log::warn!("device-sim: refused {peer}: missing or wrong token");
    }
    let _ = stream.set_read_timeout(None);
    ok
}

/// The whole authentication (the token frame) must arrive within this.
pub const AUTH_DEADLINE: Duration = Duration::from_secs(2);
/// Back-off after the first failed authentication; it doubles with each failure in a row.
pub const AUTH_BACKOFF_BASE: Duration = Duration::from_millis(100);
/// The longest back-off after failed authentications.
pub const AUTH_BACKOFF_MAX: Duration = Duration::from_secs(5);

/// The back-off after `failures` failed authentications in a row (0: none).
pub fn auth_backoff(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let factor = 1u32 << (failures - 1).min(16);
    AUTH_BACKOFF_BASE
        .saturating_mul(factor)
        .min(AUTH_BACKOFF_MAX)
}

/// Sleeps `d`, waking early if `stop` is set.
fn sleep_or_stop(d: Duration, stop: &StopHandle) {
    let d_ns = i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    let _ = sleep_until_or_stop(HostTime::now().add_ns(d_ns), || stop.is_stopped());
}

struct SimState {
    report: SimReport,
    /// Failed authentications in a row (for the back-off).
    failed_auth: u32,
    pending: Option<Sample>,
    clock: Option<ReplayClock>,
    rng: u64,
    dropped_once: bool,
    truncated_once: bool,
    skip_until: Option<DeviceTime>,
    scratch: Vec<u8>,
    /// Encoded frames of the burst being held, and how many.
    burst: Vec<u8>,
    burst_len: u64,
}

impl SimState {
    fn new(config: &SimConfig) -> Self {
        Self {
            report: SimReport::default(),
            failed_auth: 0,
            pending: None,
            clock: None,
            rng: config.faults.seed,
            dropped_once: false,
            truncated_once: false,
            skip_until: None,
            scratch: Vec::new(),
            burst: Vec::new(),
            burst_len: 0,
        }
    }

    fn next(&mut self, source: &mut dyn Source) -> Option<Sample> {
        if let Some(s) = self.pending.take() {
            return Some(s);
        }
        loop {
            match source.next_sample()? {
                Ok(s) => {
                    if self.skip_until.is_some_and(|t| s.capture < t) {
                        self.report.samples_lost += 1;
                        continue;
                    }
                    self.skip_until = None;
                    return Some(s);
                }
                Err(e) if e.is_recoverable() => log::warn!("device-sim: {e}"),
                Err(e) => {
                    log::error!("device-sim: {e}");
                    return None;
                }
            }
        }
    }

    fn serve_one(
        &mut self,
        mut stream: Link,
        source: &mut dyn Source,
        config: &SimConfig,
        stop: &StopHandle,
    ) -> ConnEnd {
        if write_frame(
            &mut stream,
            &Frame::Hello(config.hello.clone()),
            &mut self.scratch,
        )
        .is_err()
        {
            return ConnEnd::Dropped;
        }
        // The clock restarts on every connection: the gap of a dropped link is not replayed.
        self.clock = None;
        self.report.samples_lost += self.burst_len;
        self.burst.clear();
        self.burst_len = 0;
        let mut sent_here = 0u64;
        loop {
            if stop.is_stopped() {
                return ConnEnd::Stopped;
            }
            let Some(sample) = self.next(source) else {
                if stream.write_all(&self.burst).is_ok() {
                    self.report.frames_sent += self.burst_len;
                } else {
                    self.report.samples_lost += self.burst_len;
                }
                self.burst.clear();
                self.burst_len = 0;
                let _ = write_frame(
                    &mut stream,
                    &Frame::Goodbye {
                        reason: "end of session".into(),
                    },
                    &mut self.scratch,
                );
                let _ = stream.flush();
                self.report.goodbye_sent = true;
                return ConnEnd::SourceDone;
            };
            let f = &config.faults;
            if f.drop_after_frames == Some(sent_here) && !self.dropped_once {
                self.dropped_once = true;
                self.skip_until = Some(sample.capture.add_ns(f.drop_gap_ns));
                self.report.samples_lost += 1;
                stream.shutdown();
                return ConnEnd::Dropped;
            }
            let burst = f.burst_frames.filter(|&n| n > 1);
            let holds = burst.is_some_and(|n| self.burst_len + 1 < n);
            if let Some(rate) = config.rate {
                let clock = self
                    .clock
                    .get_or_insert_with(|| ReplayClock::start(sample.capture, rate));
                // A frame held for a burst leaves with the burst's last frame.
                if !holds {
                    let mut due = crate::time::Clock::due(clock, sample.capture).0 + f.latency_ns;
                    if f.jitter_ns > 0 {
                        due += (next_rand(&mut self.rng) % f.jitter_ns as u64) as i64;
                    }
                    let at = (HostTime(due), sample.capture, rate);
                    if !self.wait_with_heartbeats(&mut stream, at, config, stop) {
                        self.pending = Some(sample);
                        return ConnEnd::Dropped;
                    }
                }
            }
            let frame = Frame::Sample {
                stream: sample.stream,
                capture: sample.capture,
                payload: sample.payload,
            };
            self.scratch.clear();
            if let Err(e) = encode_frame(&frame, &mut self.scratch) {
                log::debug!("device-sim: not sent: {e}");
                self.report.samples_lost += 1;
                continue;
            }
            if f.truncate_after_frames == Some(sent_here) && !self.truncated_once {
                self.truncated_once = true;
                let half = self.scratch.len() / 2;
                let _ = stream.write_all(self.scratch.get(..half).unwrap_or_default());
                let _ = stream.flush();
                stream.shutdown();
                self.report.samples_lost += 1;
                return ConnEnd::Dropped;
            }
            if burst.is_some() {
                self.burst.extend_from_slice(&self.scratch);
                self.burst_len += 1;
                sent_here += 1;
                if holds {
                    continue;
                }
                let n = std::mem::take(&mut self.burst_len);
                let ok = stream.write_all(&self.burst).is_ok();
                self.burst.clear();
                if !ok {
                    self.report.samples_lost += n;
                    return ConnEnd::Dropped;
                }
                self.report.frames_sent += n;
                continue;
            }
            if stream.write_all(&self.scratch).is_err() {
                self.report.samples_lost += 1;
                return ConnEnd::Dropped;
            }
            sent_here += 1;
            self.report.frames_sent += 1;
        }
    }

    /// Sleeps until `due` (when the sample captured at `capture` is sent, at `rate`), sending
    /// heartbeats stamped with the simulated device clock while idle. False when the link
    /// broke.
    fn wait_with_heartbeats(
        &mut self,
        stream: &mut Link,
        (due, capture, rate): (HostTime, DeviceTime, f64),
        config: &SimConfig,
        stop: &StopHandle,
    ) -> bool {
        let slice = config.heartbeat_ns.max(1_000_000);
        loop {
            let now = HostTime::now();
            if due.since(now) <= slice || stop.is_stopped() {
                sleep_until(due);
                return true;
            }
            sleep_until(HostTime(now.0 + slice));
            let ahead_ns = due.since(HostTime::now()) as f64 * rate;
            let frame = Frame::Heartbeat {
                device_now: capture.add_ns(-(ahead_ns.round() as i64)),
            };
            if write_frame(stream, &frame, &mut self.scratch).is_err() {
                return false;
            }
        }
    }
}
