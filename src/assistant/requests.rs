//! Where requests come from: a session's `requests.jsonl` (scripted, on the device clock),
//! standard input and a loopback TCP socket (typed live, one request per line, stamped on
//! arrival), and optional periodic scene updates (off by default). Live requests share one
//! bounded [`RequestQueue`]; what it refuses is counted. Bad lines are skipped and counted,
//! never fatal; every error names the file or peer and the line.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use serde::Deserialize;

use super::forms::Form;
use super::understand::{ask_for, understand, Ask};
use crate::jsonl::{self, JsonlError};
use crate::state::VoiceTiming;
use crate::stop::StopHandle;
use crate::time::{Clock, DeviceTime, HostTime};
use crate::worker::{Worker, WorkerError};

/// Longest request line accepted, bytes (longer lines are skipped and counted).
pub const MAX_LINE_BYTES: usize = 2048;
/// Most scripted requests read from one file (the rest are counted as skipped).
pub const MAX_SCRIPTED: usize = 10_000;
/// Most socket clients served at once: a new client takes the slot of the one idle the
/// longest (disconnected and counted), so idle connections cannot hold the socket.
pub const MAX_CLIENTS: usize = 4;
/// Most bytes read from a requests file: [`MAX_SCRIPTED`] lines of [`MAX_LINE_BYTES`] each
/// (about 20 MB). `--requests /dev/zero` reads this much, skips it as one overlong line and
/// says the rest was ignored, instead of reading until memory runs out.
pub const MAX_REQUESTS_FILE_BYTES: u64 = MAX_SCRIPTED as u64 * (MAX_LINE_BYTES as u64 + 1);
/// Live requests accepted per second, sustained, from every live source together. A person
/// asks every few seconds at most; 2 per second leaves room for typing ahead, while a client
/// flooding the socket cannot keep the answer thread busy with its lines.
pub const MAX_LIVE_REQUESTS_PER_S: f64 = 2.0;
/// Live requests accepted at once after a quiet spell (the bucket's depth).
pub const LIVE_REQUEST_BURST: f64 = 8.0;

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
    /// What it asks for, typed ([`ask_for`] of the form and the text).
    pub ask: Ask,
    /// When it was said and heard, for a request said aloud.
    pub voice: Option<VoiceTiming>,
}

impl Request {
    /// A request of `form` saying `text`, understood once here.
    pub fn new(index: Option<usize>, form: Form, text: String, t: RequestTime) -> Self {
        let ask = ask_for(form, &text);
        Self {
            index,
            form,
            text,
            t,
            ask,
            voice: None,
        }
    }

    /// The request as said aloud: its voice ended and was heard at `voice`.
    pub fn said(mut self, voice: VoiceTiming) -> Self {
        self.voice = Some(voice);
        self
    }

    /// The form the answer takes: a question that asks for guidance or a description is
    /// answered as one, within that form's budget ("How do I get to the exit?" asked as a
    /// question); otherwise the request's own form.
    pub fn response_form(&self) -> Form {
        match (self.form, self.ask.form()) {
            (Form::Question, f @ (Form::Goal | Form::Scene)) => f,
            (f, _) => f,
        }
    }
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
    let limits = jsonl::Limits {
        max_line_bytes: MAX_LINE_BYTES,
        max_lines: u64::MAX,
    };
    jsonl::parse_each::<Line>(path, text, limits, |line, parsed| {
        let bad = |message: String| RequestError::Line {
            path: path.to_path_buf(),
            line: line as usize,
            message,
        };
        let parsed = match parsed {
            Err(JsonlError::LineTooLong { max_bytes, .. }) => {
                out.skipped
                    .push(bad(format!("longer than {max_bytes} bytes")));
                return;
            }
            _ if out.requests.len() >= MAX_SCRIPTED => {
                out.skipped
                    .push(bad(format!("more than {MAX_SCRIPTED} requests")));
                return;
            }
            Err(JsonlError::Json { message, .. }) => {
                out.skipped.push(bad(message));
                return;
            }
            Err(e) => {
                out.skipped.push(bad(e.to_string()));
                return;
            }
            Ok(p) => p,
        };
        let Some(form) = Form::parse(&parsed.form).filter(|f| *f != Form::Ambient) else {
            out.skipped
                .push(bad(format!("unknown form {:?}", parsed.form)));
            return;
        };
        let text = clean_text(&parsed.text);
        if text.is_empty() {
            out.skipped.push(bad("empty text".to_string()));
            return;
        }
        out.requests.push(Request::new(
            Some(out.requests.len()),
            form,
            text,
            RequestTime::Device(DeviceTime(parsed.t_ns)),
        ));
    });
    out
}

/// A request's text as the assistant takes it: control characters (NUL, escapes, line
/// breaks inside a JSON string) become spaces, and the ends are trimmed. A NUL reaching
/// llama.cpp's C strings failed the prompt, and a failed prompt turned the language model
/// off for the rest of the run.
pub fn clean_text(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cleaned.trim().to_string()
}

/// Reads and parses `requests.jsonl` (see [`parse_requests_jsonl`]); an unreadable file is
/// an error. At most [`MAX_REQUESTS_FILE_BYTES`] are read; a longer file's rest is ignored
/// and said so (one skipped line).
pub fn read_requests_jsonl(path: &Path) -> Result<Scripted, RequestError> {
    use std::io::Read;
    let io = |source| RequestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_REQUESTS_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let too_long = bytes.len() as u64 > MAX_REQUESTS_FILE_BYTES;
    bytes.truncate(MAX_REQUESTS_FILE_BYTES as usize);
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        // A cut at the size limit may split a character: keep what is whole.
        Err(e) if too_long => {
            let valid = e.utf8_error().valid_up_to();
            let mut b = e.into_bytes();
            b.truncate(valid);
            String::from_utf8(b).unwrap_or_default()
        }
        Err(e) => {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                e.utf8_error(),
            )))
        }
    };
    let mut s = parse_requests_jsonl(path, &text);
    if too_long {
        s.skipped.push(RequestError::Line {
            path: path.to_path_buf(),
            line: text.lines().count(),
            message: format!("file longer than {MAX_REQUESTS_FILE_BYTES} bytes; the rest ignored"),
        });
    }
    Ok(s)
}

/// A line typed live (or heard): `scene: …`, `goal: …`, `question: …`, or a bare request
/// whose form is what it asks for ("Take me to the exit" is a goal, "Describe the room" a
/// scene, anything else a question). `None` for a blank line. `scene:` alone asks "What is
/// around me?".
pub fn parse_live_line(line: &str) -> Option<(Form, String)> {
    let cleaned = clean_text(line);
    let line = cleaned.as_str();
    if line.is_empty() {
        return None;
    }
    if let Some(prefixed) = Form::split_prefix(line) {
        return prefixed;
    }
    Some((understand(line).form(), line.to_string()))
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
    /// Socket clients refused (not loopback, or no thread for them).
    pub refused_clients: AtomicU64,
    /// Requests refused because they came faster than [`MAX_LIVE_REQUESTS_PER_S`].
    pub rate_limited: AtomicU64,
    /// Socket clients disconnected to make room: the one idle the longest when a new
    /// client came with every slot taken.
    pub evicted_clients: AtomicU64,
}

/// A token bucket on the host's monotonic clock: [`MAX_LIVE_REQUESTS_PER_S`] sustained,
/// [`LIVE_REQUEST_BURST`] deep.
#[derive(Debug)]
struct RateBucket {
    tokens: f64,
    at: Option<std::time::Instant>,
}

impl RateBucket {
    fn take(&mut self) -> bool {
        let now = std::time::Instant::now();
        let dt = self.at.map_or(0.0, |t| now.duration_since(t).as_secs_f64());
        self.at = Some(now);
        self.tokens = (self.tokens + dt * MAX_LIVE_REQUESTS_PER_S).min(LIVE_REQUEST_BURST);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The bounded queue live requests share.
#[derive(Debug, Clone)]
pub struct RequestQueue {
    tx: Sender<Request>,
    rx: Receiver<Request>,
    stats: Arc<RequestStats>,
    bucket: Arc<std::sync::Mutex<RateBucket>>,
}

impl RequestQueue {
    /// A queue holding at most `capacity` requests (at least 1).
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = bounded(capacity.max(1));
        Self {
            tx,
            rx,
            stats: Arc::new(RequestStats::default()),
            bucket: Arc::new(std::sync::Mutex::new(RateBucket {
                tokens: LIVE_REQUEST_BURST,
                at: None,
            })),
        }
    }

    /// Whether one more live line may be taken now ([`MAX_LIVE_REQUESTS_PER_S`] over every
    /// live source together); a refusal is counted.
    pub fn admit(&self) -> bool {
        let ok = self.bucket.lock().map(|mut b| b.take()).unwrap_or(false);
        if !ok {
            self.stats.rate_limited.fetch_add(1, Ordering::Relaxed);
        }
        ok
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
    read_bounded_line_until(reader, max, &StopHandle::new())
}

/// [`read_bounded_line`] that gives up (`None`) once `stop` is set, even inside an endless
/// line (`/dev/zero` on standard input never ends one).
fn read_bounded_line_until<R: BufRead>(
    reader: &mut R,
    max: usize,
    stop: &StopHandle,
) -> std::io::Result<Option<Option<String>>> {
    let mut buf = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        if stop.is_stopped() {
            return Ok(None);
        }
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
    stop: &StopHandle,
) -> u64 {
    let mut offered = 0;
    while !stop.is_stopped() {
        match read_bounded_line_until(&mut reader, MAX_LINE_BYTES, stop) {
            Ok(None) => break,
            Ok(Some(None)) => {
                queue.stats.skipped_lines.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Some(Some(line))) => {
                let parsed = parse_live_line(line.trim_end_matches('\r'));
                if let Some((form, text)) = parsed.filter(|_| queue.admit()) {
                    queue.offer(Request::new(
                        None,
                        form,
                        text,
                        RequestTime::Arrival(clock.now()),
                    ));
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

/// Reads requests from standard input on a thread of its own, until the end of input or
/// `stop` (checked between lines and inside one). The worker returns the requests offered;
/// a read blocked on standard input cannot be interrupted, so an owner that must not wait
/// for the next line [`Worker::detach`]es it.
pub fn spawn_stdin(
    queue: RequestQueue,
    clock: Arc<dyn Clock>,
    stop: StopHandle,
) -> Result<Worker<u64>, WorkerError> {
    Worker::spawn_with("vista-requests-stdin", stop, move |stop| {
        let _cpu = crate::profile::cpu::account(crate::profile::stages::REQUESTS);
        let stdin = std::io::stdin();
        pump_lines(stdin.lock(), &queue, clock.as_ref(), &stop)
    })
}

/// Serves requests on a loopback TCP socket: one request per line, at most
/// [`MAX_CLIENTS`] clients at once; a client arriving with every slot taken disconnects the
/// one idle the longest (counted in [`RequestStats::evicted_clients`]). Returns the bound
/// address (port 0 picks one) and the listener, which ends when `stop` is set or the
/// worker is dropped (disconnecting its clients and joining their threads).
pub fn spawn_socket(
    addr: SocketAddr,
    queue: RequestQueue,
    clock: Arc<dyn Clock>,
    stop: StopHandle,
) -> Result<(SocketAddr, Worker), RequestError> {
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
    let worker = Worker::spawn_with("vista-requests-socket", stop, move |stop| {
        let _cpu = crate::profile::cpu::account(crate::profile::stages::REQUESTS);
        let mut slots: Vec<ClientSlot> = Vec::with_capacity(MAX_CLIENTS);
        while !stop.is_stopped() {
            match listener.accept() {
                Ok((stream, peer)) => {
                    if !peer.ip().is_loopback() {
                        queue.stats.refused_clients.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    slots.retain(|c| !c.worker.is_finished());
                    if slots.len() >= MAX_CLIENTS {
                        evict_idlest(&mut slots, &queue.stats, local);
                    }
                    match start_client(stream, &queue, &clock) {
                        Some(slot) => slots.push(slot),
                        None => {
                            queue.stats.refused_clients.fetch_add(1, Ordering::Relaxed);
                        }
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
        // Clients blocked on a read end with the run (their threads are joined as the
        // slots drop).
        for c in &slots {
            let _ = c.stream.shutdown(std::net::Shutdown::Both);
        }
    })
    .map_err(|e| RequestError::Io {
        path: PathBuf::from(addr.to_string()),
        source: std::io::Error::other(e),
    })?;
    Ok((local, worker))
}

/// One served socket client, as the listener thread sees it.
struct ClientSlot {
    /// A handle on the connection, to disconnect it.
    stream: TcpStream,
    /// Host time (ns) the client last sent anything (or connected).
    last_ns: Arc<AtomicI64>,
    /// Its thread (joined when the slot drops, after the connection is shut down).
    worker: Worker,
}

/// Starts a client's thread; `None` when the stream or the thread could not be set up.
fn start_client(
    stream: TcpStream,
    queue: &RequestQueue,
    clock: &Arc<dyn Clock>,
) -> Option<ClientSlot> {
    let handle = stream.try_clone().ok()?;
    let last_ns = Arc::new(AtomicI64::new(HostTime::now().ns()));
    let (q, c, l) = (queue.clone(), Arc::clone(clock), Arc::clone(&last_ns));
    // Its own stop handle: evicting it (or the listener ending) shuts the connection down
    // and drops the slot, which stops and joins it.
    let worker = Worker::spawn("vista-requests-client", move |stop| {
        let _cpu = crate::profile::cpu::account(crate::profile::stages::REQUESTS);
        serve_client(stream, &q, c.as_ref(), &stop, l);
    })
    .ok()?;
    Some(ClientSlot {
        stream: handle,
        last_ns,
        worker,
    })
}

/// Disconnects the client idle the longest (its thread then ends) and counts it.
fn evict_idlest(slots: &mut Vec<ClientSlot>, stats: &RequestStats, local: SocketAddr) {
    let Some(i) = slots
        .iter()
        .enumerate()
        .min_by_key(|(_, c)| c.last_ns.load(Ordering::Acquire))
        .map(|(i, _)| i)
    else {
        return;
    };
    let c = slots.swap_remove(i);
    let idle_s = HostTime::now().since(HostTime(c.last_ns.load(Ordering::Acquire))) as f64 * 1e-9;
    log::warn!(
        "requests: socket {local}: {MAX_CLIENTS} clients connected; disconnected the one idle \
         for {idle_s:.1} s to serve a new one"
    );
    let _ = c.stream.shutdown(std::net::Shutdown::Both);
    stats.evicted_clients.fetch_add(1, Ordering::Relaxed);
}

/// A reader that notes the host time of every read that returns data.
struct Touch<R> {
    inner: R,
    last_ns: Arc<AtomicI64>,
}

impl<R: std::io::Read> std::io::Read for Touch<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.last_ns.store(HostTime::now().ns(), Ordering::Release);
        }
        Ok(n)
    }
}

fn serve_client(
    stream: TcpStream,
    queue: &RequestQueue,
    clock: &dyn Clock,
    stop: &StopHandle,
    last_ns: Arc<AtomicI64>,
) {
    // Blocking reads: the client thread ends when the client closes the connection, or is
    // disconnected (evicted, or the run ends), and checks `stop` between lines.
    let _ = stream.set_nonblocking(false);
    let reader = Touch {
        inner: stream,
        last_ns,
    };
    pump_lines(BufReader::new(reader), queue, clock, stop);
}

/// Periodic scene updates on the device clock: due every `every_ns` once the first state
/// arrives, and spoken only while the wearer is still (a walker needs to hear the street: an
/// update due while walking waits for the next stop). Off unless created.
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

    /// Whether an update is due at device time `at` with the wearer `still` (and schedules
    /// the next one, a period after this). The first update is due one period after the
    /// first state; one due while the wearer moves is given at the first still moment.
    pub fn due(&mut self, at: DeviceTime, still: bool) -> bool {
        match self.next {
            None => {
                self.next = Some(at.add_ns(self.every_ns));
                false
            }
            Some(n) if at >= n && still => {
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
        assert_eq!(
            parse_live_line("Take me to the exit."),
            Some((Form::Goal, "Take me to the exit.".into()))
        );
        assert_eq!(
            parse_live_line("Describe the room"),
            Some((Form::Scene, "Describe the room".into()))
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
        let stop = StopHandle::new();
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
    fn control_characters_never_reach_the_request_text() {
        assert_eq!(
            parse_live_line("where\0 is\u{1b}[2J the door?"),
            Some((Form::Question, "where  is [2J the door?".into()))
        );
        assert_eq!(parse_live_line("\0\0"), None);
        let s = parse_requests_jsonl(
            Path::new("r.jsonl"),
            "{\"t_ns\": 1, \"form\": \"question\", \"text\": \"a\\u0000b?\"}\n",
        );
        assert_eq!(s.requests[0].text, "a b?");
    }

    #[test]
    fn a_requests_file_without_end_is_read_up_to_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("zeros.jsonl");
        // Like /dev/zero, but finite: one line longer than the file budget.
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(MAX_REQUESTS_FILE_BYTES + 4096).unwrap();
        let s = read_requests_jsonl(&p).unwrap();
        assert!(s.requests.is_empty());
        let msgs: Vec<String> = s.skipped.iter().map(|e| e.to_string()).collect();
        assert!(
            msgs.iter().any(|m| m.contains("the rest ignored")),
            "{msgs:?}"
        );
    }

    #[test]
    fn live_lines_beyond_the_rate_are_refused_and_counted() {
        let q = RequestQueue::new(1000);
        let clock = crate::time::VirtualClock::new(DeviceTime(0));
        let stop = StopHandle::new();
        let lines = "where is the door?\n".repeat(200);
        pump_lines(Cursor::new(lines.into_bytes()), &q, &clock, &stop);
        let accepted = q.stats().accepted.load(Ordering::Relaxed);
        let limited = q.stats().rate_limited.load(Ordering::Relaxed);
        assert_eq!(accepted + limited, 200);
        // The burst, plus whatever the bucket refilled while the lines were read.
        assert!(accepted >= LIVE_REQUEST_BURST as u64, "{accepted}");
        assert!(limited >= 150, "{limited}");
    }

    #[test]
    fn an_endless_line_stops_with_the_run() {
        let q = RequestQueue::new(4);
        let clock = crate::time::VirtualClock::new(DeviceTime(0));
        let stop = StopHandle::new();
        /// Zeros without end; after 1000 reads it sets `stop`, as a run ending would.
        struct Zeros(StopHandle, usize);
        impl std::io::Read for Zeros {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.1 += 1;
                if self.1 == 1000 {
                    self.0.stop();
                }
                buf.fill(0);
                Ok(buf.len())
            }
        }
        // Without the stop check inside a line this never returns.
        let zeros = std::io::BufReader::new(Zeros(stop.clone(), 0));
        assert_eq!(pump_lines(zeros, &q, &clock, &stop), 0);
        assert_eq!(q.stats().skipped_lines.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn periodic_scene_is_off_until_a_period_passes() {
        let mut p = PeriodicScene::new(5_000_000_000);
        assert!(!p.due(DeviceTime(0), true));
        assert!(!p.due(DeviceTime(4_000_000_000), true));
        assert!(p.due(DeviceTime(5_000_000_000), true));
        assert!(!p.due(DeviceTime(6_000_000_000), true));
    }

    #[test]
    fn periodic_scene_waits_while_the_wearer_moves() {
        let s = |t: i64| DeviceTime(t * 1_000_000_000);
        let mut p = PeriodicScene::new(5_000_000_000);
        assert!(!p.due(s(0), true));
        // Due at 5 s, but walking until 8 s: given at 8 s, the next a period later.
        assert!(!p.due(s(5), false));
        assert!(!p.due(s(7), false));
        assert!(p.due(s(8), true));
        assert!(!p.due(s(12), true));
        assert!(p.due(s(13), true));
    }

    /// Four idle clients hold every slot: a fifth is served, and the one idle the longest is
    /// disconnected and counted (the fifth was silently reset).
    #[test]
    fn a_new_socket_client_takes_the_slot_of_the_idlest() {
        use std::io::{Read, Write};
        let q = RequestQueue::new(8);
        let stop = StopHandle::new();
        let (addr, handle) = spawn_socket(
            "127.0.0.1:0".parse().unwrap(),
            q.clone(),
            Arc::new(crate::time::WallClock),
            stop.clone(),
        )
        .unwrap();
        let mut idle = Vec::new();
        for _ in 0..MAX_CLIENTS {
            idle.push(TcpStream::connect(addr).unwrap());
            // Accepted in this order (the listener polls every 20 ms).
            std::thread::sleep(Duration::from_millis(60));
        }
        let mut fresh = TcpStream::connect(addr).unwrap();
        fresh.write_all(b"what is ahead?\n").unwrap();
        let got = q.take_timeout(Duration::from_secs(5));
        assert!(got.is_some(), "the fifth client was not served");
        assert_eq!(q.stats().evicted_clients.load(Ordering::Relaxed), 1);
        // The first (idle the longest) was disconnected: its read ends.
        let oldest = &mut idle[0];
        oldest
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut buf = [0u8; 8];
        match oldest.read(&mut buf) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            other => panic!("the idlest client is still connected: {other:?}"),
        }
        stop.stop();
        handle.join().unwrap();
    }

    #[test]
    fn socket_refuses_remote_addresses() {
        let q = RequestQueue::new(2);
        let r = spawn_socket(
            "0.0.0.0:0".parse().unwrap(),
            q,
            Arc::new(crate::time::WallClock),
            StopHandle::new(),
        );
        assert!(matches!(r, Err(RequestError::NotLoopback(_))));
    }
}
