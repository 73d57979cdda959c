//! One stream's bounded buffer: a `ringbuf` ring (the single-threaded `LocalRb`, since a
//! mutex already serialises access) with a running sequence number, so that any number of
//! readers can keep their own cursor.
//!
//! Sample number `k` (counting from 0, in push order) is held while
//! `produced − len ≤ k < produced`. Pushing into a full buffer evicts the oldest sample.
//! The lock is held only to move one sample in, or to clone a range of samples out into a
//! caller-owned `Vec` (cheap: image and audio bytes are reference counted), never while a
//! consumer works on them, so the producer waits at most for one such copy.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use ringbuf::storage::Heap;
use ringbuf::traits::{Consumer as _, Observer as _, RingBuffer as _};
use ringbuf::LocalRb;

use crate::sample::{Sample, StreamId};
use crate::time::DeviceTime;

/// What happened to a pushed sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PushOutcome {
    /// The buffer was full and its oldest sample was evicted to make room.
    pub dropped: bool,
    /// The sample was refused because its capture time is earlier than the newest one
    /// already pushed to this stream (buffers stay in capture order).
    pub rejected: bool,
}

/// A snapshot of one stream buffer's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StreamBufferStats {
    /// Samples accepted into the buffer since it was created.
    pub produced: u64,
    /// Samples evicted because the buffer was full (drop-oldest).
    pub evicted: u64,
    /// Samples refused because their capture time went backwards.
    pub rejected: u64,
    /// Samples held now.
    pub len: usize,
    /// Capacity in samples.
    pub capacity: usize,
    /// The most samples ever held at once.
    pub high_water: usize,
}

/// Where a [`StreamBuffer::read_since`] call left a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadSince {
    /// Samples between the reader's cursor and the oldest one still held: they were
    /// evicted before the reader got to them.
    pub missed: u64,
    /// Samples copied out.
    pub copied: u64,
    /// The cursor to pass next time (equals the stream's `produced`).
    pub next: u64,
}

struct Inner {
    rb: LocalRb<Heap<Sample>>,
    produced: u64,
    evicted: u64,
    rejected: u64,
    high_water: usize,
    newest: Option<DeviceTime>,
}

/// A bounded, drop-oldest buffer for one stream, shared by one producer and any number of
/// readers (see the module docs).
pub struct StreamBuffer {
    stream: StreamId,
    capacity: usize,
    inner: Mutex<Inner>,
    /// `Inner::produced`, published after each push so that readers with nothing new to
    /// read can skip the lock.
    published: AtomicU64,
}

impl std::fmt::Debug for StreamBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBuffer")
            .field("stream", &self.stream)
            .field("stats", &self.stats())
            .finish()
    }
}

impl StreamBuffer {
    /// A buffer for `stream` holding up to `capacity` samples (at least 1). Allocates all
    /// its storage here, once.
    pub fn new(stream: StreamId, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            stream,
            capacity,
            inner: Mutex::new(Inner {
                rb: LocalRb::new(capacity),
                produced: 0,
                evicted: 0,
                rejected: 0,
                high_water: 0,
                newest: None,
            }),
            published: AtomicU64::new(0),
        }
    }

    /// The stream this buffer holds.
    pub fn stream(&self) -> StreamId {
        self.stream
    }

    /// Capacity in samples.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    // A panic while the lock was held cannot leave `Inner` inconsistent in a way that
    // matters here (counters only), so a poisoned lock is used as is.
    fn read(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn write(&self) -> MutexGuard<'_, Inner> {
        self.read()
    }

    /// Appends `sample`, evicting the oldest sample when full. Never waits for a consumer
    /// (only, briefly, for a reader's copy in progress) and never allocates. A sample
    /// captured before the newest one held is refused (and counted), so the buffer stays in
    /// capture order.
    pub fn push(&self, sample: Sample) -> PushOutcome {
        let mut g = self.write();
        if g.newest.is_some_and(|n| sample.capture < n) {
            g.rejected += 1;
            return PushOutcome {
                dropped: false,
                rejected: true,
            };
        }
        g.newest = Some(sample.capture);
        let evicted = g.rb.push_overwrite(sample);
        g.produced += 1;
        self.published.store(g.produced, Ordering::Release);
        let dropped = evicted.is_some();
        if dropped {
            g.evicted += 1;
        } else {
            // Only a push that did not evict can raise the occupancy.
            let len = g.rb.occupied_len();
            if len > g.high_water {
                g.high_water = len;
            }
        }
        drop(g);
        // The evicted sample (possibly the last owner of an image) is freed outside the lock.
        drop(evicted);
        PushOutcome {
            dropped,
            rejected: false,
        }
    }

    /// Clones every sample numbered `cursor` or later onto the end of `out`, in order.
    /// Samples between `cursor` and the oldest one still held are reported as `missed`.
    pub fn read_since(&self, cursor: u64, out: &mut Vec<Sample>) -> ReadSince {
        // Fast path: nothing pushed since `cursor` (so nothing evicted either).
        if self.published.load(Ordering::Acquire) == cursor {
            return ReadSince {
                missed: 0,
                copied: 0,
                next: cursor,
            };
        }
        let g = self.read();
        let len = g.rb.occupied_len();
        let oldest = g.produced.saturating_sub(len as u64);
        let start = cursor.clamp(oldest, g.produced);
        let missed = start - cursor.min(start);
        let skip = usize::try_from(start - oldest).unwrap_or(len);
        let (a, b) = g.rb.as_slices();
        let copied = len.saturating_sub(skip);
        out.reserve(copied);
        match a.get(skip..) {
            Some(rest) => {
                out.extend_from_slice(rest);
                out.extend_from_slice(b);
            }
            None => out.extend_from_slice(b.get(skip - a.len()..).unwrap_or_default()),
        }
        ReadSince {
            missed,
            copied: copied as u64,
            next: g.produced,
        }
    }

    /// Clones every held sample with `t0 ≤ capture ≤ t1` onto the end of `out`, in capture
    /// order; returns how many. Uses binary search: cost grows with the window, not the
    /// buffer.
    pub fn read_window(&self, t0: DeviceTime, t1: DeviceTime, out: &mut Vec<Sample>) -> usize {
        if t1 < t0 {
            return 0;
        }
        let g = self.read();
        let (a, b) = g.rb.as_slices();
        let before = out.len();
        for part in [a, b] {
            let lo = part.partition_point(|s| s.capture < t0);
            let hi = part.partition_point(|s| s.capture <= t1);
            if let Some(range) = part.get(lo..hi) {
                out.extend_from_slice(range);
            }
        }
        out.len() - before
    }

    /// The capture times of the oldest and newest samples held, if any.
    pub fn time_range(&self) -> Option<(DeviceTime, DeviceTime)> {
        let g = self.read();
        let first = g.rb.first()?.capture;
        let last = g.rb.last()?.capture;
        Some((first, last))
    }

    /// Samples accepted so far (the sequence number the next one will get).
    pub fn produced(&self) -> u64 {
        self.published.load(Ordering::Acquire)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> StreamBufferStats {
        let g = self.read();
        StreamBufferStats {
            produced: g.produced,
            evicted: g.evicted,
            rejected: g.rejected,
            len: g.rb.occupied_len(),
            capacity: self.capacity,
            high_water: g.high_water,
        }
    }
}
