//! Ring buffers: the recent past of every stream.
//!
//! One bounded buffer per stream ([`StreamBuffer`], inside a [`BufferSet`]), sized by
//! [`BufferConfig`] from the stream's nominal rate × a retention time (10 s of motion
//! sensors, 2 s of images by default). The producer (ingest) never waits for a consumer:
//! when a buffer is full its oldest sample is evicted. Each consumer reads through its own
//! [`Reader`]: new samples since its last read ([`Reader::drain_new`]) and time windows
//! `[t0, t1]` ([`Reader::read_window`]), into reused scratch storage, so steady-state reads
//! do not allocate. Each reader counts what it got and what it lost:
//! `produced == delivered + dropped + pending` per consumer and stream ([`BufferStats::check`]).
//!
//! # Fan-out design, chosen by benchmark
//!
//! (Filled in from `benches/ring_buffer.rs`.)

mod config;
mod reader;
mod set;
mod stats;
mod stream;

pub use config::{BufferConfig, MAX_CAPACITY};
pub use reader::{ConsumerStreamStats, Reader};
pub use set::BufferSet;
pub use stats::{AccountingError, BufferStats};
pub use stream::{PushOutcome, ReadSince, StreamBuffer, StreamBufferStats};

/// The name the task brief uses for a consumer's view of the buffers.
pub type ConsumerHandle = Reader;

#[cfg(test)]
mod tests;
