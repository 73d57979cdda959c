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
//! Each stream's ring is a hand-written ring of inline samples (`stream.rs`) behind a
//! short mutex per push and per read: the lock is never held while a consumer works
//! (readers clone what they need into reused scratch storage; image and audio bytes are
//! reference counted). A source that delivers several samples at once pushes them with
//! one lock ([`StreamBuffer::push_batch`], [`BufferSet::push_batch`]); readers always take
//! every new sample of a stream in one locked copy, and account per batch.
//!
//! A lock-free single-producer multi-reader ring (a seqlock per slot over atomic words)
//! was built in session 3 and measured in `benches/ring_buffer.rs` against the same
//! baseline, the bare mutex ring without the reader layer (`mutex_cursors/K`): through
//! `Reader` it reached 0.55× the baseline with one reader and with three, where the mutex
//! design then reached 0.70× and 0.69× (release builds, load 8–11, two runs). Its per-slot
//! encode/decode cost more than the uncontended mutex it saved. Session 4 replaced the
//! `ringbuf` ring inside the mutex (whose index arithmetic divides by the capacity
//! several times per push) with a `Vec` filled once and then overwritten in place from a head index,
//! the producer's and the readers' words on separate cache lines. Plain samples (no image
//! or audio bytes) are then moved straight over evicted plain ones by a batch push and
//! copied out by a read with one `memcpy` per run, instead of a swap and a `clone` per
//! sample (1.7× fewer CPU-seconds per sample with one reader, 2.6× with three); the
//! figures are in docs/performance.md.
//!
//! Each reader accounts only for the streams it reads ([`Reader::subscribe_only`], set by
//! the runtime from [`crate::runtime::Consumer::wants`], plus any stream it drains), so a
//! stream a consumer never reads is not reported as dropped for it.

mod config;
mod reader;
mod set;
mod stats;
mod stream;

pub use config::{BufferConfig, MAX_CAPACITY};
pub use reader::{ConsumerStreamStats, Reader};
pub use set::BufferSet;
pub use stats::{AccountingError, BufferStats};
pub use stream::{BatchOutcome, PushOutcome, ReadSince, StreamBuffer, StreamBufferStats};

/// The name the task brief uses for a consumer's view of the buffers.
pub type ConsumerHandle = Reader;

#[cfg(test)]
mod tests;
