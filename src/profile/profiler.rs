//! A thread-safe collector of [`Span`]s into per-stage histograms, with bounded memory.

use std::sync::Mutex;

use crate::profile::histogram::LatencyHistogram;
use crate::profile::span::Span;
use crate::time::HostTime;

/// At most this many distinct stage names are tracked; spans of further stages are counted
/// in [`Profiler::overflow`] only.
pub const MAX_STAGES: usize = 32;

/// Per-stage histograms.
#[derive(Clone, Debug, Default)]
pub struct StageStats {
    /// Duration of each span (`end − start`), ns.
    pub duration: LatencyHistogram,
    /// Capture-to-end latency (`end − due(capture)`), ns, for spans recorded with a due
    /// time (real-time clocks only).
    pub latency: LatencyHistogram,
}

#[derive(Debug, Default)]
struct Inner {
    stages: Vec<(&'static str, StageStats)>,
    overflow: u64,
}

/// Collects spans from any thread into per-stage histograms. Memory is bounded by
/// [`MAX_STAGES`]; each new stage allocates its histograms once, recording then never
/// allocates.
#[derive(Debug, Default)]
pub struct Profiler {
    inner: Mutex<Inner>,
}

impl Profiler {
    /// An empty profiler.
    pub fn new() -> Self {
        Self::default()
    }

    fn with_stage(&self, stage: &'static str, f: impl FnOnce(&mut StageStats)) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, st)) = g.stages.iter_mut().find(|(name, _)| *name == stage) {
            f(st);
        } else if g.stages.len() < MAX_STAGES {
            let mut st = StageStats::default();
            f(&mut st);
            g.stages.push((stage, st));
        } else {
            g.overflow += 1;
        }
    }

    /// Records the duration of `span` (and copies it into the installed
    /// [`super::timeline`], if any).
    pub fn record(&self, span: &Span) {
        super::timeline::record_span(span);
        let d = span.duration_ns();
        self.with_stage(span.stage, |st| st.duration.record_ns(d));
    }

    /// Records the duration of `span` and its capture-to-end latency, where `due` is the
    /// host time at which the sample captured at `span.capture` was due (from the clock).
    pub fn record_with_due(&self, span: &Span, due: HostTime) {
        super::timeline::record_span(span);
        let d = span.duration_ns();
        let l = span.end.since(due);
        self.with_stage(span.stage, |st| {
            st.duration.record_ns(d);
            st.latency.record_ns(l);
        });
    }

    /// Spans not recorded because [`MAX_STAGES`] stages were already tracked.
    pub fn overflow(&self) -> u64 {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .overflow
    }

    /// A copy of every stage's statistics, in first-seen order.
    pub fn snapshot(&self) -> Vec<(&'static str, StageStats)> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stages
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::DeviceTime;

    #[test]
    fn spans_land_in_their_stage_and_memory_is_bounded() {
        let p = Profiler::new();
        let span = |stage, start, end| Span {
            stage,
            capture: DeviceTime(0),
            start: HostTime(start),
            end: HostTime(end),
        };
        p.record(&span("a", 0, 1_000));
        p.record(&span("a", 0, 3_000));
        p.record_with_due(&span("b", 10_000, 12_000), HostTime(4_000));
        let snap = p.snapshot();
        assert_eq!(snap.len(), 2);
        assert_eq!(snap[0].0, "a");
        assert_eq!(snap[0].1.duration.count(), 2);
        assert_eq!(snap[0].1.duration.max_us(), 3.0);
        assert_eq!(snap[1].1.latency.max_us(), 8.0);

        const NAMES: [&str; 40] = [
            "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
            "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25",
            "s26", "s27", "s28", "s29", "s30", "s31", "s32", "s33", "s34", "s35", "s36", "s37",
            "s38", "s39",
        ];
        for n in NAMES {
            p.record(&span(n, 0, 1));
        }
        assert_eq!(p.snapshot().len(), MAX_STAGES);
        assert_eq!(p.overflow(), (2 + NAMES.len() - MAX_STAGES) as u64);
    }
}
