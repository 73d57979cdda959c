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
//! Several consumers (perception, frame encoder, window builder) read the same stream.
//! One buffer per stream with a cursor per reader (rather than one ring per consumer) was
//! chosen first by benchmark (`benches/ring_buffer.rs`): the producer writes each sample
//! once, every reader can read time windows over the whole retention, drop-oldest is
//! exact, and there is one copy of the retained data. An SPSC ring (`ringbuf`) cannot give
//! these semantics: its producer cannot evict the oldest sample (only the consumer pops),
//! so per-consumer SPSC rings drop the newest, or need a lock anyway.
//!
//! The first version guarded each stream's `ringbuf` ring with a mutex: a short lock per
//! push and per read (22.9 M IMU samples/s with one reader, 15.9 M/s with three). The ring
//! is now hand-written ([`StreamBuffer`], see `stream.rs`): one producer, any number of
//! readers, no lock on either side. Each slot is a seqlock whose stamp says which sample
//! it holds; the sample is stored as atomic 64-bit words (`codec.rs`), so there is no
//! `unsafe` code; a reader that finds a slot overwritten counts that sample as dropped for
//! itself. Images and audio (reference-counted bytes) sit beside the ring, one small
//! mutex per slot that motion streams never touch. Both designs run side by side in
//! `benches/ring_buffer.rs` (`mutex_cursors/K` and `shared_cursors/K`); the figures are in
//! the README's *Performance* table.
//!
//! Each reader accounts only for the streams it reads ([`Reader::subscribe_only`], set by
//! the runtime from [`crate::runtime::Consumer::wants`], plus any stream it drains), so a
//! stream a consumer never reads is not reported as dropped for it.

mod codec;
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
