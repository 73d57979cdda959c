//! The run's timeline for `trace.json`: every stage span (ingest, perception, OCR read, …)
//! and counter samples (queue depths, drops) over time, kept in bounded rings.
//!
//! The runtime's [`super::Profiler`] keeps histograms only; a command that writes a trace
//! installs one [`Timeline`] for the process ([`install`]) and every span the profiler
//! records is then also copied here ([`record_span`]; a relaxed atomic load when none is
//! installed). Memory is fixed at install: the rings are allocated once, and when one is
//! full the oldest entry is dropped and counted, so recording never allocates.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::span::Span;
use super::trace::TraceWriter;
use crate::time::HostTime;

/// Most series in one counter sample.
pub const MAX_SERIES: usize = 6;

/// One counter sample: up to [`MAX_SERIES`] named values of counter `name` at `at`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterSample {
    /// The counter (a track in the trace), e.g. `perception queue`.
    pub name: &'static str,
    /// When it was sampled (host clock).
    pub at: HostTime,
    /// `(series, value)`; unused slots have an empty name.
    pub values: [(&'static str, f64); MAX_SERIES],
}

impl CounterSample {
    /// A sample of `values` (beyond [`MAX_SERIES`] are ignored).
    pub fn new(name: &'static str, at: HostTime, values: &[(&'static str, f64)]) -> Self {
        let mut v = [("", 0.0); MAX_SERIES];
        for (slot, x) in v.iter_mut().zip(values) {
            *slot = *x;
        }
        Self {
            name,
            at,
            values: v,
        }
    }

    /// The used `(series, value)` pairs.
    pub fn series(&self) -> impl Iterator<Item = &(&'static str, f64)> {
        self.values.iter().filter(|(k, _)| !k.is_empty())
    }
}

/// What a timeline holds and dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TimelineStats {
    /// Spans held.
    pub spans: u64,
    /// Spans dropped (oldest first) because the ring was full.
    pub spans_dropped: u64,
    /// Counter samples held.
    pub counters: u64,
    /// Counter samples dropped because the ring was full.
    pub counters_dropped: u64,
}

/// Bounded rings of spans and counter samples.
#[derive(Debug)]
pub struct Timeline {
    spans: Mutex<VecDeque<Span>>,
    counters: Mutex<VecDeque<CounterSample>>,
    span_capacity: usize,
    counter_capacity: usize,
    spans_dropped: AtomicU64,
    counters_dropped: AtomicU64,
}

impl Timeline {
    /// Rings for `span_capacity` spans and `counter_capacity` counter samples (each at
    /// least 1), allocated now.
    pub fn new(span_capacity: usize, counter_capacity: usize) -> Self {
        let span_capacity = span_capacity.max(1);
        let counter_capacity = counter_capacity.max(1);
        Self {
            spans: Mutex::new(VecDeque::with_capacity(span_capacity)),
            counters: Mutex::new(VecDeque::with_capacity(counter_capacity)),
            span_capacity,
            counter_capacity,
            spans_dropped: AtomicU64::new(0),
            counters_dropped: AtomicU64::new(0),
        }
    }

    /// Adds a span (drops the oldest when full).
    pub fn span(&self, span: &Span) {
        let mut g = self.spans.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() >= self.span_capacity {
            g.pop_front();
            self.spans_dropped.fetch_add(1, Ordering::Relaxed);
        }
        g.push_back(*span);
    }

    /// Adds a counter sample (drops the oldest when full).
    pub fn counter(&self, sample: CounterSample) {
        let mut g = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() >= self.counter_capacity {
            g.pop_front();
            self.counters_dropped.fetch_add(1, Ordering::Relaxed);
        }
        g.push_back(sample);
    }

    /// A copy of the spans held, oldest first.
    pub fn spans(&self) -> Vec<Span> {
        let g = self.spans.lock().unwrap_or_else(|e| e.into_inner());
        g.iter().copied().collect()
    }

    /// A copy of the counter samples held, oldest first.
    pub fn counters(&self) -> Vec<CounterSample> {
        let g = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        g.iter().copied().collect()
    }

    /// Counts.
    pub fn stats(&self) -> TimelineStats {
        let spans = self.spans.lock().unwrap_or_else(|e| e.into_inner()).len() as u64;
        let counters = self
            .counters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len() as u64;
        TimelineStats {
            spans,
            spans_dropped: self.spans_dropped.load(Ordering::Relaxed),
            counters,
            counters_dropped: self.counters_dropped.load(Ordering::Relaxed),
        }
    }

    /// Writes the timeline into `w` under process `pid`: one track per stage (named after
    /// it, in first-seen order), spans as complete events, counters as counter events.
    pub fn write_trace<W: std::io::Write>(&self, w: &mut TraceWriter<W>, pid: u32, title: &str) {
        w.process_name(pid, title);
        let mut stages: Vec<&'static str> = Vec::new();
        let spans = self.spans();
        for s in &spans {
            if !stages.contains(&s.stage) {
                stages.push(s.stage);
            }
        }
        for (i, name) in stages.iter().enumerate() {
            w.thread_name(pid, i as u32 + 1, name);
        }
        for s in &spans {
            let tid = stages.iter().position(|n| *n == s.stage).unwrap_or(0) as u32 + 1;
            w.span(s, pid, tid);
        }
        for c in self.counters() {
            let values: Vec<(&str, f64)> = c.series().map(|&(k, v)| (k, v)).collect();
            w.counter(c.name, pid, c.at.ns(), &values);
        }
    }
}

/// Whether a timeline is installed (checked before taking the lock).
static ACTIVE: AtomicBool = AtomicBool::new(false);

fn slot() -> &'static Mutex<Option<Arc<Timeline>>> {
    static SLOT: OnceLock<Mutex<Option<Arc<Timeline>>>> = OnceLock::new();
    SLOT.get_or_init(|| Mutex::new(None))
}

/// Makes `timeline` the process's timeline (replacing any other).
pub fn install(timeline: Arc<Timeline>) {
    *slot().lock().unwrap_or_else(|e| e.into_inner()) = Some(timeline);
    ACTIVE.store(true, Ordering::Release);
}

/// Removes the process's timeline, returning it.
pub fn uninstall() -> Option<Arc<Timeline>> {
    ACTIVE.store(false, Ordering::Release);
    slot().lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// The installed timeline, if any.
pub fn installed() -> Option<Arc<Timeline>> {
    if !ACTIVE.load(Ordering::Acquire) {
        return None;
    }
    slot().lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Copies `span` into the installed timeline, if any.
pub fn record_span(span: &Span) {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    let g = slot().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = g.as_ref() {
        t.span(span);
    }
}

/// Adds a counter sample to the installed timeline, if any.
pub fn record_counter(sample: CounterSample) {
    if !ACTIVE.load(Ordering::Relaxed) {
        return;
    }
    let g = slot().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = g.as_ref() {
        t.counter(sample);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::DeviceTime;

    fn span(stage: &'static str, start: i64, end: i64) -> Span {
        Span {
            stage,
            capture: DeviceTime(start),
            start: HostTime(start),
            end: HostTime(end),
        }
    }

    #[test]
    fn rings_keep_the_newest_and_count_the_rest() {
        let t = Timeline::new(3, 2);
        for i in 0..5 {
            t.span(&span("a", i, i + 1));
        }
        let kept: Vec<i64> = t.spans().iter().map(|s| s.start.ns()).collect();
        assert_eq!(kept, vec![2, 3, 4]);
        for i in 0..3 {
            t.counter(CounterSample::new("q", HostTime(i), &[("depth", i as f64)]));
        }
        let st = t.stats();
        assert_eq!(st.spans, 3);
        assert_eq!(st.spans_dropped, 2);
        assert_eq!(st.counters, 2);
        assert_eq!(st.counters_dropped, 1);
        assert_eq!(t.counters()[0].series().count(), 1);
    }

    #[test]
    fn written_trace_is_valid_json_with_one_track_per_stage() {
        let t = Timeline::new(16, 16);
        t.span(&span("ingest", 1_000, 2_000));
        t.span(&span("perception", 3_000, 7_000));
        t.span(&span("ingest", 8_000, 9_000));
        t.counter(CounterSample::new(
            "queue",
            HostTime(5_000),
            &[("depth", 3.0), ("dropped", 1.0)],
        ));
        let mut w = TraceWriter::new(Vec::new()).unwrap();
        t.write_trace(&mut w, 7, "run");
        let bytes = w.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        let x: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(x.len(), 3);
        // The perception span: 3 µs start, 4 µs long, on the second track.
        let p = x.iter().find(|e| e["name"] == "perception").unwrap();
        assert_eq!(p["ts"].as_f64(), Some(3.0));
        assert_eq!(p["dur"].as_f64(), Some(4.0));
        assert_eq!(p["tid"].as_u64(), Some(2));
        let c = ev.iter().find(|e| e["ph"] == "C").unwrap();
        assert_eq!(c["args"]["depth"].as_f64(), Some(3.0));
        assert_eq!(c["args"]["dropped"].as_f64(), Some(1.0));
    }
}
