//! The perception consumer of a run, wrapped to sample queue depths and drops (perception's
//! queue, text reads, the assistant, the live link) into the trace's counter tracks, at
//! most every [`COUNTER_EVERY_NS`] of the clock, before each call.

use std::sync::{Arc, Mutex};

use crate::assistant::Assistant;
use crate::buffer::Reader;
use crate::ocr::text_reads::TextReadStats;
use crate::profile::timeline::{self, CounterSample};
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::StreamId;
use crate::source::live::LinkStats;
use crate::time::HostTime;

/// Counter tracks are sampled at most this often (host ns).
pub const COUNTER_EVERY_NS: i64 = 100_000_000;

/// The perception consumer, sampling the run's counters into the timeline.
pub(crate) struct Monitor {
    pub(crate) inner: Box<dyn Consumer>,
    pub(crate) last: Option<HostTime>,
    pub(crate) assistant: Arc<Mutex<Assistant>>,
    pub(crate) text: Option<Arc<TextReadStats>>,
    pub(crate) link: Option<LinkStats>,
}
impl Monitor {
    fn sample(&self, reader: &Reader, at: HostTime) {
        let (pending, dropped, max_lag) = reader
            .stats()
            .iter()
            .fold((0u64, 0u64, 0u64), |(p, d, m), (_, s)| {
                (p + s.pending, d + s.dropped, m.max(s.max_lag))
            });
        timeline::record_counter(CounterSample::new(
            "perception queue",
            at,
            &[
                ("pending", pending as f64),
                ("dropped", dropped as f64),
                ("max_lag", max_lag as f64),
            ],
        ));
        if let Some(t) = &self.text {
            let r = t.report();
            timeline::record_counter(CounterSample::new(
                "text reads",
                at,
                &[
                    ("reads", r.reads as f64),
                    ("skipped_throttle", r.skipped_throttle as f64),
                    ("skipped_busy", r.skipped_busy as f64),
                    ("results_dropped", r.results_dropped as f64),
                ],
            ));
        }
        if let Ok(a) = self.assistant.lock() {
            let c = a.counters();
            timeline::record_counter(CounterSample::new(
                "assistant",
                at,
                &[
                    ("alerts", c.alerts as f64),
                    ("alerts_suppressed", c.alerts_suppressed as f64),
                    ("answers", c.answers as f64),
                    ("dropped_requests", c.dropped_requests as f64),
                    ("cancelled", c.cancelled as f64),
                ],
            ));
        }
        if let Some(l) = &self.link {
            let r = l.report();
            timeline::record_counter(CounterSample::new(
                "link",
                at,
                &[
                    ("connections", r.connections as f64),
                    ("link_drops", r.link_drops as f64),
                    ("bad_frames", r.bad_frames as f64),
                ],
            ));
        }
    }
}

impl Consumer for Monitor {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn wants(&self, stream: StreamId) -> bool {
        self.inner.wants(stream)
    }
    fn on_samples(&mut self, reader: &mut Reader, now: HostTime) -> Result<(), ConsumerError> {
        if self.last.is_none_or(|l| now.since(l) >= COUNTER_EVERY_NS) {
            self.last = Some(now);
            self.sample(reader, now);
        }
        self.inner.on_samples(reader, now)
    }
    fn finish(&mut self) {
        self.inner.finish();
    }
}
