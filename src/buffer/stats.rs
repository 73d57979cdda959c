//! The buffer report of a session: per-stream counters and per-consumer delivery counters,
//! with a check of the accounting invariant.

use std::collections::BTreeMap;

use crate::buffer::reader::{ConsumerStreamStats, Reader};
use crate::buffer::set::BufferSet;
use crate::buffer::stream::StreamBufferStats;

/// A broken accounting invariant (a bug, never bad input).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("consumer {consumer:?}, stream {stream}: produced {produced} != delivered {delivered} + dropped {dropped} + pending {pending}")]
pub struct AccountingError {
    /// The consumer.
    pub consumer: String,
    /// The stream name.
    pub stream: String,
    /// Samples the stream accepted.
    pub produced: u64,
    /// Samples delivered to the consumer.
    pub delivered: u64,
    /// Samples the consumer lost to overrun.
    pub dropped: u64,
    /// Samples still waiting for the consumer.
    pub pending: u64,
}

/// Counters of all buffers and all consumers, keyed by stream name (e.g. `imu-right`) and
/// consumer name.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct BufferStats {
    /// Per stream: produced, evicted, rejected, length, capacity, high-water mark.
    pub streams: BTreeMap<String, StreamBufferStats>,
    /// Per consumer, per stream: delivered, dropped, pending, max lag.
    pub consumers: BTreeMap<String, BTreeMap<String, ConsumerStreamStats>>,
}

impl BufferStats {
    /// A snapshot of `set` and of the readers' counters (each reader under its name; a
    /// repeated name gets a `#n` suffix).
    pub fn collect<'a>(set: &BufferSet, readers: impl IntoIterator<Item = &'a Reader>) -> Self {
        let mut out = Self::from_set(set);
        for r in readers {
            out.add_consumer(r.name(), r.stats());
        }
        out
    }

    /// The per-stream counters of `set`, with no consumers yet.
    pub fn from_set(set: &BufferSet) -> Self {
        Self {
            streams: set
                .stream_stats()
                .into_iter()
                .map(|(s, st)| (s.name().to_string(), st))
                .collect(),
            consumers: BTreeMap::new(),
        }
    }

    /// Adds one consumer's counters (from [`Reader::stats`]).
    pub fn add_consumer(
        &mut self,
        name: &str,
        stats: Vec<(crate::sample::StreamId, ConsumerStreamStats)>,
    ) {
        let mut key = name.to_string();
        let mut n = 2;
        while self.consumers.contains_key(&key) {
            key = format!("{name}#{n}");
            n += 1;
        }
        let map = stats
            .into_iter()
            .map(|(s, st)| (s.name().to_string(), st))
            .collect();
        self.consumers.insert(key, map);
    }

    /// Checks `produced == delivered + dropped + pending` for every consumer and stream.
    pub fn check(&self) -> Result<(), AccountingError> {
        for (consumer, streams) in &self.consumers {
            for (stream, st) in streams {
                let produced = self.streams.get(stream).map_or(0, |s| s.produced);
                if st.delivered + st.dropped + st.pending != produced {
                    return Err(AccountingError {
                        consumer: consumer.clone(),
                        stream: stream.clone(),
                        produced,
                        delivered: st.delivered,
                        dropped: st.dropped,
                        pending: st.pending,
                    });
                }
            }
        }
        Ok(())
    }
}
