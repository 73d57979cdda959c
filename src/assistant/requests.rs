//! Where requests come from: a session's `requests.jsonl` (scripted, on the device clock),
//! standard input and a loopback TCP socket (typed live, one request per line, stamped on
//! arrival), and optional periodic scene updates (off by default). Live requests share one
//! bounded [`RequestQueue`]; what it refuses is counted. Bad lines are skipped and counted,
//! never fatal; every error names the file or peer and the line.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use serde::Deserialize;

use super::forms::Form;
use crate::time::{Clock, DeviceTime, HostTime};

/// Longest request line accepted, bytes (longer lines are skipped and counted).
pub const MAX_LINE_BYTES: usize = 2048;
/// Most scripted requests read from one file (the rest are counted as skipped).
pub const MAX_SCRIPTED: usize = 10_000;
/// Most socket clients served at once (more are refused and counted).
pub const MAX_CLIENTS: usize = 4;

/// When a request was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestTime {
    /// Scripted: due once the state reaches this device time.
    Device(DeviceTime),
    /// Typed live: arrived at this host time; due at once.
    Arrival(HostTime),
}

/// One user request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Position in `requests.jsonl` (0-based), `None` for live or periodic requests.
    pub index: Option<usize>,
    /// The response form.
    pub form: Form,
    /// What the user said.
    pub text: String,
    /// When.
    pub t: RequestTime,
}

/// A request source failed.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// A file or stream could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file (or peer).
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// One line is not a valid request (skipped).
    #[error("{path}: line {line}: {message}")]
    Line {
        /// The file (or peer).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The socket address is not on the loopback interface.
    #[error("request socket {0}: only loopback addresses are allowed")]
    NotLoopback(SocketAddr),
}

/// The requests of a `requests.jsonl`, in file order, and the lines skipped.
#[derive(Debug, Default)]
pub struct Scripted {
    /// Valid requests, in file order (`index` = position among valid lines).
    pub requests: Vec<Request>,
    /// One error per skipped line.
    pub skipped: Vec<RequestError>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    t_ns: i64,
    form: String,
    text: String,
}

/// Parses `requests.jsonl` text; `path` names it in errors. Lines that are empty are
/// ignored; bad lines are skipped with an error each.
pub fn parse_requests_jsonl(path: &Path, text: &str) -> Scripted {
    let mut out = Scripted::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let bad = |message: String| RequestError::Line {
            path: path.to_path_buf(),
            line,
            message,
        };
        if raw.trim().is_empty() {
            continue;
        }
        if raw.len() > MAX_LINE_BYTES {
            out.skipped
                .push(bad(format!("longer than {MAX_LINE_BYTES} bytes")));
            continue;
        }
        if out.requests.len() >= MAX_SCRIPTED {
            out.skipped
                .push(bad(format!("more than {MAX_SCRIPTED} requests")));
            continue;
        }
        let parsed: Line = match serde_json::from_str(raw) {
            Ok(p) => p,
            Err(e) => {
                out.skipped.push(bad(e.to_string()));
                continue;
            }
        };
        let Some(form) = Form::parse(&parsed.form).filter(|f| *f != Form::Ambient) else {
            out.skipped
                .push(bad(format!("unknown form {:?}", parsed.form)));
            continue;
        };
        if parsed.text.trim().is_empty() {
            out.skipped.push(bad("empty text".to_string()));
            continue;
        }
        out.requests.push(Request {
            index: Some(out.requests.len()),
            form,
            text: parsed.text.trim().to_string(),
            t: RequestTime::Device(DeviceTime(parsed.t_ns)),
        });
    }
    out
}

/// Reads and parses `requests.jsonl` (see [`parse_requests_jsonl`]); an unreadable file is
/// an error.
pub fn read_requests_jsonl(path: &Path) -> Result<Scripted, RequestError> {
    let text = std::fs::read_to_string(path).map_err(|source| RequestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(parse_requests_jsonl(path, &text))
}

/// A line typed live: `scene: …`, `goal: …`, `question: …` or a bare question. `None` for a
/// blank line. `scene:` alone asks "What is around me?".
pub fn parse_live_line(line: &str) -> Option<(Form, String)> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let lower = line.to_ascii_lowercase();
    for (prefix, form) in [
        ("scene:", Form::Scene),
        ("goal:", Form::Goal),
        ("question:", Form::Question),
    ] {
        if lower.starts_with(prefix) {
            let rest = line.get(prefix.len()..).unwrap_or("").trim();
            return match (form, rest.is_empty()) {
                (Form::Scene, true) => Some((form, "What is around me?".to_string())),
                (_, true) => None,
                (_, false) => Some((form, rest.to_string())),
            };
        }
    }
    Some((Form::Question, line.to_string()))
}

/// Counts of what live sources received, refused and skipped.
#[derive(Debug, Default)]
pub struct RequestStats {
    /// Requests accepted into the queue.
    pub accepted: AtomicU64,
    /// Requests refused because the queue was full.
    pub dropped_full: AtomicU64,
    /// Lines skipped (too long, not text).
    pub skipped_lines: AtomicU64,
    /// Socket clients refused (too many at once).
    pub refused_clients: AtomicU64,
}

/// The bounded queue live requests share.
#[derive(Debug, Clone)]
pub struct RequestQueue {
    tx: Sender<Request>,
    rx: Receiver<Request>,
    stats: Arc<RequestStats>,
}

impl RequestQueue {
    /// A queue holding at most `capacity` requests (at least 1).
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = bounded(capacity.max(1));
        Self {
            tx,
            rx,
            stats: Arc::new(RequestStats::default()),
        }
    }

    /// Offers a request without blocking; a full queue drops it (counted). Returns whether
    /// it was accepted.
    pub fn offer(&self, r: Request) -> bool {
        match self.tx.try_send(r) {
            Ok(()) => {
                self.stats.accepted.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.stats.dropped_full.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Takes every waiting request, oldest first.
    pub fn drain(&self) -> Vec<Request> {
        self.rx.try_iter().collect()
    }

    /// Takes the oldest waiting request, waiting for one up to `timeout`.
    pub fn take_timeout(&self, timeout: std::time::Duration) -> Option<Request> {
        self.rx.recv_timeout(timeout).ok()
    }

    /// The counters.
    pub fn stats(&self) -> &RequestStats {
        &self.stats
    }
}

/// Reads one line of at most `max` bytes (without the newline). Returns `None` at the end,
/// `Some(None)` for a line that was too long (its bytes are consumed and discarded).
pub fn read_bounded_line<R: BufRead>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<Option<Option<String>>> {
    let mut buf = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(p) => (p, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk.get(..take).unwrap_or(&[]));
            }
        }
        reader.consume(if done { take + 1 } else { take });
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if too_long {
        return Ok(Some(None));
    }
    Ok(Some(String::from_utf8(buf).ok()))
}

/// Feeds every line of `reader` into `queue` (stamped with `clock`'s time on arrival) until
/// the end or `stop`. Returns the number of requests offered.
pub fn pump_lines<R: BufRead>(
    mut reader: R,
    queue: &RequestQueue,
    clock: &dyn Clock,
    stop: &AtomicBool,
) -> u64 {
    let mut offered = 0;
    while !stop.load(Ordering::Relaxed) {
        match read_bounded_line(&mut reader, MAX_LINE_BYTES) {
            Ok(None) => break,
            Ok(Some(None)) => {
                queue.stats.skipped_lines.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Some(Some(line))) => {
                if let Some((form, text)) = parse_live_line(line.trim_end_matches('\r')) {
                    queue.offer(Request {
                        index: None,
                        form,
                        text,
                        t: RequestTime::Arrival(clock.now()),
                    });
                    offered += 1;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                log::warn!("requests: read failed: {e}");
                break;
            }
        }
    }
    offered
}

/// Reads requests from standard input on a thread of its own.
pub fn spawn_stdin(
    queue: RequestQueue,
    clock: Arc<dyn Clock>,
    stop: Arc<AtomicBool>,
) -> std::io::Result<JoinHandle<u64>> {
    std::thread::Builder::new()
        .name("vista-requests-stdin".into())
        .spawn(move || {
            let _cpu = crate::profile::cpu::account("requests");
            let stdin = std::io::stdin();
            pump_lines(stdin.lock(), &queue, clock.as_ref(), &stop)
        })
}

/// Serves requests on a loopback TCP socket: one request per line, at most
/// [`MAX_CLIENTS`] clients at once. Returns the bound address (port 0 picks one) and the
/// listener thread, which ends when `stop` is set.
pub fn spawn_socket(
    addr: SocketAddr,
    queue: RequestQueue,
    clock: Arc<dyn Clock>,
    stop: Arc<AtomicBool>,
) -> Result<(SocketAddr, JoinHandle<()>), RequestError> {
    if !addr.ip().is_loopback() {
        return Err(RequestError::NotLoopback(addr));
    }
    let io = |source| RequestError::Io {
        path: PathBuf::from(addr.to_string()),
        source,
    };
    let listener = TcpListener::bind(addr).map_err(io)?;
    let local = listener.local_addr().map_err(io)?;
    listener.set_nonblocking(true).map_err(io)?;
    let clients = Arc::new(AtomicUsize::new(0));
    let handle = std::thread::Builder::new()
        .name("vista-requests-socket".into())
        .spawn(move || {
            let _cpu = crate::profile::cpu::account("requests");
            while !stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, peer)) => {
                        if !peer.ip().is_loopback()
                            || clients.fetch_add(1, Ordering::AcqRel) >= MAX_CLIENTS
                        {
                            if peer.ip().is_loopback() {
                                clients.fetch_sub(1, Ordering::AcqRel);
                            }
                            queue.stats.refused_clients.fetch_add(1, Ordering::Relaxed);
                            continue;
                        }
                        let (q, c, s, n) = (
                            queue.clone(),
                            Arc::clone(&clock),
                            Arc::clone(&stop),
                            Arc::clone(&clients),
                        );
                        let spawned = std::thread::Builder::new()
                            .name("vista-requests-client".into())
                            .spawn(move || {
                                let _cpu = crate::profile::cpu::account("requests");
                                serve_client(stream, &q, c.as_ref(), &s);
                                n.fetch_sub(1, Ordering::AcqRel);
                            });
                        if spawned.is_err() {
                            clients.fetch_sub(1, Ordering::AcqRel);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => {
                        log::warn!("requests: socket {local}: {e}");
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
        })
        .map_err(io)?;
    Ok((local, handle))
}

fn serve_client(stream: TcpStream, queue: &RequestQueue, clock: &dyn Clock, stop: &AtomicBool) {
    // Blocking reads: the client thread ends when the client closes the connection (and
    // checks `stop` between lines).
    let _ = stream.set_nonblocking(false);
    pump_lines(BufReader::new(stream), queue, clock, stop);
}

/// Periodic scene updates on the device clock: due every `every_ns` once the first state
/// arrives. Off unless created.
#[derive(Clone, Debug)]
pub struct PeriodicScene {
    every_ns: i64,
    next: Option<DeviceTime>,
}

impl PeriodicScene {
    /// Updates every `every_ns` (at least 1 s).
    pub fn new(every_ns: i64) -> Self {
        Self {
            every_ns: every_ns.max(1_000_000_000),
            next: None,
        }
    }

    /// Whether an update is due at device time `at` (and schedules the next one). The first
    /// update is due one period after the first state.
    pub fn due(&mut self, at: DeviceTime) -> bool {
        match self.next {
            None => {
                self.next = Some(at.add_ns(self.every_ns));
                false
            }
            Some(n) if at >= n => {
                self.next = Some(at.add_ns(self.every_ns));
                true
            }
            Some(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn jsonl_skips_and_names_bad_lines() {
        let text = concat!(
            "{\"t_ns\": 2000, \"form\": \"goal\", \"text\": \"Take me to the exit door.\"}\n",
            "not json\n",
            "\n",
            "{\"t_ns\": 3000, \"form\": \"dance\", \"text\": \"x\"}\n",
            "{\"t_ns\": 4000, \"form\": \"question\", \"text\": \"Where is the door?\"}\n",
        );
        let s = parse_requests_jsonl(Path::new("r.jsonl"), text);
        assert_eq!(s.requests.len(), 2);
        assert_eq!(s.requests[1].index, Some(1));
        assert_eq!(s.requests[1].t, RequestTime::Device(DeviceTime(4000)));
        assert_eq!(s.skipped.len(), 2);
        let msgs: Vec<String> = s.skipped.iter().map(|e| e.to_string()).collect();
        assert!(msgs[0].starts_with("r.jsonl: line 2:"), "{}", msgs[0]);
        assert!(
            msgs[1].starts_with("r.jsonl: line 4: unknown form"),
            "{}",
            msgs[1]
        );
    }

    #[test]
    fn live_lines_take_prefixes() {
        assert_eq!(
            parse_live_line("goal: the exit"),
            Some((Form::Goal, "the exit".into()))
        );
        assert_eq!(
            parse_live_line("Scene:"),
            Some((Form::Scene, "What is around me?".into()))
        );
        assert_eq!(
            parse_live_line(" what does the sign say? "),
            Some((Form::Question, "what does the sign say?".into()))
        );
        assert_eq!(parse_live_line("   "), None);
        assert_eq!(parse_live_line("goal:"), None);
    }

    #[test]
    fn bounded_lines_skip_the_overlong() {
        let long = "x".repeat(50);
        let input = format!("short\n{long}\nlast");
        let mut r = Cursor::new(input.into_bytes());
        assert_eq!(
            read_bounded_line(&mut r, 10).unwrap(),
            Some(Some("short".into()))
        );
        assert_eq!(read_bounded_line(&mut r, 10).unwrap(), Some(None));
        assert_eq!(
            read_bounded_line(&mut r, 10).unwrap(),
            Some(Some("last".into()))
        );
        assert_eq!(read_bounded_line(&mut r, 10).unwrap(), None);
    }

    #[test]
    fn full_queue_drops_and_counts() {
        let q = RequestQueue::new(2);
        let clock = crate::time::VirtualClock::new(DeviceTime(0));
        let stop = AtomicBool::new(false);
        let n = pump_lines(
            Cursor::new(b"a?\nscene:\ngoal: door\nb?\n".to_vec()),
            &q,
            &clock,
            &stop,
        );
        assert_eq!(n, 4);
        assert_eq!(q.stats().dropped_full.load(Ordering::Relaxed), 2);
        let got = q.drain();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].form, Form::Scene);
    }

    #[test]
    fn periodic_scene_is_off_until_a_period_passes() {
        let mut p = PeriodicScene::new(5_000_000_000);
        assert!(!p.due(DeviceTime(0)));
        assert!(!p.due(DeviceTime(4_000_000_000)));
        assert!(p.due(DeviceTime(5_000_000_000)));
        assert!(!p.due(DeviceTime(6_000_000_000)));
    }

    #[test]
    fn socket_refuses_remote_addresses() {
        let q = RequestQueue::new(2);
        let r = spawn_socket(
            "0.0.0.0:0".parse().unwrap(),
            q,
            Arc::new(crate::time::WallClock),
            Arc::new(AtomicBool::new(false)),
        );
        assert!(matches!(r, Err(RequestError::NotLoopback(_))));
    }
}
