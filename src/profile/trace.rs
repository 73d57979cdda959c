//! A streaming writer of the Chrome / Perfetto Trace Event Format (`{"traceEvents":[…]}`):
//! complete events (`ph:"X"`, one per stage span, on a thread/track), instant events
//! (`ph:"i"`, alerts and requests), counter events (`ph:"C"`, queue depths, drops) and
//! track names (`ph:"M"`). Timestamps and durations are microseconds (fractional, so
//! nanoseconds survive).
//!
//! Memory is bounded: each event is serialised straight to the output as it comes. The
//! closing `]}` is written by [`TraceWriter::finish`], or on drop when a run stops early
//! (error, early return, panic unwinding), so the file is valid JSON either way. After the
//! first write error the writer stops writing and counts what it could not write; `finish`
//! returns that error.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use super::span::Span;

/// Scope of an instant event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstantScope {
    /// Drawn on its thread/track.
    Thread,
    /// Drawn across the process.
    Process,
    /// Drawn across the whole trace.
    Global,
}

impl InstantScope {
    fn code(self) -> &'static str {
        match self {
            Self::Thread => "t",
            Self::Process => "p",
            Self::Global => "g",
        }
    }
}

/// Event arguments: any JSON, or the capture time of a span (no allocation).
#[derive(Serialize)]
#[serde(untagged)]
enum Args<'a> {
    Json(&'a Value),
    Capture { capture_ns: i64 },
}

#[derive(Serialize)]
struct Event<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    cat: &'a str,
    ph: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Args<'a>>,
}

/// Nanoseconds to trace microseconds.
pub fn ns_to_us(ns: i64) -> f64 {
    ns as f64 / 1e3
}

/// Writes a trace as it goes; see the module documentation.
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: Option<W>,
    events: u64,
    lost: u64,
    error: Option<io::Error>,
}

impl<W: Write> TraceWriter<W> {
    /// Starts a trace on `out` (writes the opening of the document).
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(b"{\"displayTimeUnit\":\"ms\",\"traceEvents\":[")?;
        Ok(Self {
            out: Some(out),
            events: 0,
            lost: 0,
            error: None,
        })
    }

    /// Events written.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Events not written because of an earlier write error.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    fn write(&mut self, e: &Event<'_>) {
        let (Some(out), None) = (self.out.as_mut(), self.error.as_ref()) else {
            self.lost += 1;
            return;
        };
        let sep: &[u8] = if self.events == 0 { b"\n" } else { b",\n" };
        let r = out
            .write_all(sep)
            .and_then(|()| serde_json::to_writer(&mut *out, e).map_err(io::Error::from));
        match r {
            Ok(()) => self.events += 1,
            Err(err) => {
                self.lost += 1;
                self.error = Some(err);
            }
        }
    }

    /// Names process `pid` (a group of tracks).
    pub fn process_name(&mut self, pid: u32, name: &str) {
        let args = serde_json::json!({ "name": name });
        self.write(&Event {
            name: "process_name",
            cat: "",
            ph: "M",
            ts: None,
            dur: None,
            pid,
            tid: None,
            s: None,
            args: Some(Args::Json(&args)),
        });
    }

    /// Names track `tid` of process `pid`.
    pub fn thread_name(&mut self, pid: u32, tid: u32, name: &str) {
        let args = serde_json::json!({ "name": name });
        self.write(&Event {
            name: "thread_name",
            cat: "",
            ph: "M",
            ts: None,
            dur: None,
            pid,
            tid: Some(tid),
            s: None,
            args: Some(Args::Json(&args)),
        });
    }

    /// A complete event: `name` ran on track (`pid`, `tid`) from `start_ns` for `dur_ns`
    /// (negative durations are written as 0).
    #[allow(clippy::too_many_arguments)]
    pub fn complete(
        &mut self,
        name: &str,
        cat: &str,
        pid: u32,
        tid: u32,
        start_ns: i64,
        dur_ns: i64,
        args: Option<&Value>,
    ) {
        self.write(&Event {
            name,
            cat,
            ph: "X",
            ts: Some(ns_to_us(start_ns)),
            dur: Some(ns_to_us(dur_ns.max(0))),
            pid,
            tid: Some(tid),
            s: None,
            args: args.map(Args::Json),
        });
    }

    /// A stage [`Span`] as a complete event (host times), with its capture time in `args`.
    pub fn span(&mut self, span: &Span, pid: u32, tid: u32) {
        self.write(&Event {
            name: span.stage,
            cat: "stage",
            ph: "X",
            ts: Some(ns_to_us(span.start.0)),
            dur: Some(ns_to_us(span.duration_ns().max(0))),
            pid,
            tid: Some(tid),
            s: None,
            args: Some(Args::Capture {
                capture_ns: span.capture.ns(),
            }),
        });
    }

    /// An instant event at `at_ns`.
    #[allow(clippy::too_many_arguments)]
    pub fn instant(
        &mut self,
        name: &str,
        cat: &str,
        pid: u32,
        tid: u32,
        at_ns: i64,
        scope: InstantScope,
        args: Option<&Value>,
    ) {
        self.write(&Event {
            name,
            cat,
            ph: "i",
            ts: Some(ns_to_us(at_ns)),
            dur: None,
            pid,
            tid: Some(tid),
            s: Some(scope.code()),
            args: args.map(Args::Json),
        });
    }

    /// A counter event: each `(series, value)` of counter `name` at `at_ns` (e.g. a queue's
    /// `depth` and `dropped`).
    pub fn counter(&mut self, name: &str, pid: u32, at_ns: i64, values: &[(&str, f64)]) {
        let map: serde_json::Map<String, Value> = values
            .iter()
            .map(|(k, v)| {
                let v = serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number);
                (k.to_string(), v)
            })
            .collect();
        let args = Value::Object(map);
        self.write(&Event {
            name,
            cat: "counter",
            ph: "C",
            ts: Some(ns_to_us(at_ns)),
            dur: None,
            pid,
            tid: None,
            s: None,
            args: Some(Args::Json(&args)),
        });
    }

    fn close(&mut self) -> io::Result<Option<W>> {
        let Some(mut out) = self.out.take() else {
            return Ok(None);
        };
        out.write_all(b"\n]}\n")?;
        out.flush()?;
        Ok(Some(out))
    }

    /// Closes the document and returns the output, or the first write error.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            let _ = self.close();
            return Err(e);
        }
        self.close()?
            .ok_or_else(|| io::Error::other("trace already closed"))
    }
}

impl<W: Write> Drop for TraceWriter<W> {
    fn drop(&mut self) {
        if let Err(e) = self.close() {
            log::warn!("trace: could not close the document: {e}");
        }
    }
}
