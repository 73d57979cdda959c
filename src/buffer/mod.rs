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
//! Two ways to give several consumers (perception, frame encoder, window builder) the same
//! stream were compared in `benches/ring_buffer.rs` (push a batch of 64 IMU `Sample`s,
//! then every consumer takes all new ones; single thread). Nanoseconds per pushed sample:
//! median of the criterion medians of five runs, with their range:
//!
//! | design | 1 consumer | 3 consumers |
//! |---|---|---|
//! | raw `ringbuf` SPSC, no fan-out (baseline) | 41 (31–53) | – |
//! | one SPSC `ringbuf` per consumer, sample cloned into each | 57 (39–75) | 186 (107–230) |
//! | one `Mutex<HeapRb>` per consumer, `push_overwrite` | 67 (46–90) | 205 (136–301) |
//! | **one buffer per stream, per-reader cursors (this module)** | **52 (40–67)** | **78 (50–107)** |
//!
//! Reading a 200 ms IMU window (201 samples) out of a full 10 s buffer: 13 (9–16) ns per
//! sample, about 2.6 µs per window. Measured with `cargo bench --bench ring_buffer` (run
//! with `nice -n -10`, `--warm-up-time 1 --measurement-time 4`) on the shared 2-vCPU
//! development VM while other engineers' builds kept the load average at 3–8, so absolute
//! numbers are pessimistic and noisy; the ranking was the same in every run.
//!
//! **Choice: one buffer per stream with per-reader cursors.** Reasons:
//! * it is the fastest with several consumers (the producer writes each sample once; the
//!   per-consumer designs write it K times and keep K copies of the retention in memory);
//! * it has the semantics we need: the producer drops the *oldest* sample when full. A
//!   lock-free SPSC producer cannot evict (only the consumer can pop), so per-consumer
//!   SPSC rings would drop the newest, or need a lock anyway;
//! * windows `[t0, t1]` over the whole retention are available to every reader (binary
//!   search over the ring's two slices), not only to a consumer that kept its own history;
//! * accounting is exact and cheap: a sequence number per stream and a cursor per reader
//!   give `delivered`, `dropped` (overrun) and `pending` without per-sample bookkeeping.
//!
//! The cost is a short mutex per push and per read. The lock is never held while a
//! consumer works: readers clone the samples they need into reused scratch storage
//! (cheap: image and audio bytes are reference counted) and visit them after unlocking, so
//! the producer waits at most for one such copy.

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
