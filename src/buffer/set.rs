//! The buffers of a session: one [`StreamBuffer`] per [`StreamId`], created up front.

use std::sync::Arc;

use crate::buffer::config::BufferConfig;
use crate::buffer::reader::Reader;
use crate::buffer::stream::{BatchOutcome, PushOutcome, StreamBuffer, StreamBufferStats};
use crate::sample::{Sample, StreamId};

/// One bounded, drop-oldest buffer per stream. Shared (`Arc`) between the ingest stage,
/// which pushes, and the consumers, which read through their own [`Reader`].
#[derive(Debug)]
pub struct BufferSet {
    config: BufferConfig,
    buffers: [StreamBuffer; StreamId::COUNT],
}

impl BufferSet {
    /// Buffers for every stream, sized by `config` (all storage is allocated here).
    pub fn new(config: BufferConfig) -> Self {
        Self::for_streams(config, &StreamId::ALL)
    }

    /// Buffers only for `streams`; the others get a single slot (cheap placeholders).
    pub fn for_streams(config: BufferConfig, streams: &[StreamId]) -> Self {
        let buffers = StreamId::ALL.map(|s| {
            let cap = if streams.contains(&s) {
                config.capacity_for(s)
            } else {
                1
            };
            StreamBuffer::new(s, cap)
        });
        Self { config, buffers }
    }

    /// The configuration the buffers were sized with.
    pub fn config(&self) -> &BufferConfig {
        &self.config
    }

    /// The buffer of `stream`.
    pub fn stream(&self, stream: StreamId) -> &StreamBuffer {
        // In bounds by construction: `index()` of an enum with `COUNT` variants.
        &self.buffers[stream.index()]
    }

    /// Pushes `sample` into its stream's buffer; never blocks on consumers, never allocates.
    pub fn push(&self, sample: Sample) -> PushOutcome {
        self.stream(sample.stream).push(sample)
    }

    /// Pushes a batch of samples of `stream` under one lock ([`StreamBuffer::push_batch`]):
    /// for a source that delivers several samples at once. `samples` is empty on return
    /// and keeps its allocation.
    pub fn push_batch(&self, stream: StreamId, samples: &mut Vec<Sample>) -> BatchOutcome {
        self.stream(stream).push_batch(samples)
    }

    /// A new consumer view named `name`, starting at the first sample ever pushed (samples
    /// already evicted count as dropped for it).
    pub fn reader(self: &Arc<Self>, name: impl Into<String>) -> Reader {
        Reader::new(Arc::clone(self), name.into())
    }

    /// Counters of every stream that has seen at least one sample, in stream order.
    pub fn stream_stats(&self) -> Vec<(StreamId, StreamBufferStats)> {
        self.buffers
            .iter()
            .map(|b| (b.stream(), b.stats()))
            .filter(|(_, s)| s.produced > 0 || s.rejected > 0)
            .collect()
    }
}
