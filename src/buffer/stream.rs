//! One stream's bounded buffer: a hand-written ring of inline samples behind a short mutex,
//! with a running sequence number so that any number of readers can keep their own cursor.
//!
//! Sample number `k` (counting from 0, in push order) is held while
//! `produced − len ≤ k < produced`. Pushing into a full buffer evicts the oldest sample.
//! The lock is held only to move samples in (one, or a batch with [`StreamBuffer::push_batch`]),
//! or to clone a range of samples out into a caller-owned `Vec` (cheap: samples are stored
//! inline, IMU-sized ones are plain copies, image and audio bytes are reference counted),
//! never while a consumer works on them, so the producer waits at most for one such copy.
//!
//! The ring is a `Vec` that fills up to its capacity once and is then overwritten in
//! place from `head` (the oldest slot): no modulo per sample, no `Option` per slot, and the
//! occupancy never shrinks (readers copy, they never pop), so the high-water mark is the
//! length. The producer's state (the mutex and the ring) and the readers' lock-free
//! `published` counter sit on separate cache lines.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

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

/// What happened to a batch pushed with [`StreamBuffer::push_batch`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchOutcome {
    /// Samples accepted into the buffer.
    pub pushed: u64,
    /// Samples evicted to make room (older ones held before, or earlier ones of the same
    /// batch when it is longer than the capacity).
    pub evicted: u64,
    /// Samples refused because their capture time went backwards (counted by the buffer
    /// as `rejected`).
    pub rejected: u64,
    /// Samples of another stream, left out (not counted by the buffer: a caller's bug).
    pub wrong_stream: u64,
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

/// Aligns its content to its own 128-byte block (two cache lines, against the adjacent
/// line prefetcher), so the producer's and the readers' hot words do not share a line.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Padded<T>(T);

struct Ring {
    /// Filled up to `capacity` once, then overwritten in place.
    slots: Vec<Sample>,
    /// Once full: the slot of the oldest sample (the next one overwritten); 0 before.
    head: usize,
    capacity: usize,
    produced: u64,
    evicted: u64,
    rejected: u64,
    /// Capture time of the newest sample accepted (`i64::MIN` before the first).
    newest: DeviceTime,
}

impl Ring {
    /// The held samples, oldest first, as two slices.
    fn as_slices(&self) -> (&[Sample], &[Sample]) {
        let (newer, older) = self.slots.split_at(self.head.min(self.slots.len()));
        (older, newer)
    }

    /// Moves `sample` in; returns the evicted sample, if the ring was full.
    #[inline]
    fn put(&mut self, sample: Sample) -> Option<Sample> {
        self.produced += 1;
        if self.slots.len() < self.capacity {
            // Never reallocates: the capacity was reserved up front.
            self.slots.push(sample);
            return None;
        }
        let h = self.head;
        let next = if h + 1 >= self.capacity { 0 } else { h + 1 };
        self.head = next;
        self.evicted += 1;
        self.slots
            .get_mut(h)
            .map(|slot| std::mem::replace(slot, sample))
    }
}

impl Ring {
    /// The steady-state half of a batch push when it is cheap: if the ring is full, the
    /// batch fits in it, and every sample it evicts is plain (IMU, magnetometer, …: dropping
    /// one frees nothing, so it may be dropped under the lock), moves the batch straight
    /// over the oldest slots (one copy per sample instead of a swap back into `samples` and
    /// a drop after the lock) and returns true, leaving `samples` empty. Otherwise changes
    /// nothing and returns false. Counters are the caller's.
    fn overwrite_plain(&mut self, samples: &mut Vec<Sample>) -> bool {
        let (n, cap, h) = (samples.len(), self.capacity, self.head);
        if n == 0 || n > cap || self.slots.len() != cap {
            return false;
        }
        let end = h + n;
        let (first, wrapped) = if end <= cap {
            (h..end, 0)
        } else {
            (h..cap, end - cap)
        };
        let (Some(older), Some(newer)) = (self.slots.get(first.clone()), self.slots.get(..wrapped))
        else {
            return false;
        };
        if !older.iter().chain(newer).all(|s| s.payload.is_plain()) {
            return false;
        }
        let mut incoming = samples.drain(..);
        for (slot, s) in self.slots[first].iter_mut().zip(&mut incoming) {
            *slot = s;
        }
        for (slot, s) in self.slots[..wrapped].iter_mut().zip(&mut incoming) {
            *slot = s;
        }
        self.head = if end >= cap { end - cap } else { end };
        true
    }
}

/// Appends clones of `src` to `out` (whose capacity the caller has reserved). A run of
/// plain samples (no image or audio bytes, see [`crate::sample::Payload::is_plain`]) is
/// copied in one `memcpy` instead of one `clone` per sample.
#[inline]
fn extend_cloned(out: &mut Vec<Sample>, src: &[Sample]) {
    if !src.iter().all(|s| s.payload.is_plain()) {
        out.extend_from_slice(src);
        return;
    }
    out.reserve(src.len());
    let len = out.len();
    // SAFETY: `out` has room for `src.len()` more samples (reserved above), the two
    // buffers are distinct allocations (`out` is a caller-owned `Vec`, `src` borrows the
    // ring), and the new length covers only initialised samples. Every sample of `src` has
    // a plain payload, so it consists of `Copy` data only (asserted at compile time in
    // `sample.rs`): its bitwise copy is exactly its `clone()`, and the copies own nothing
    // that could be freed twice.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), out.as_mut_ptr().add(len), src.len());
        out.set_len(len + src.len());
    }
}

/// A bounded, drop-oldest buffer for one stream, shared by one producer and any number of
/// readers (see the module docs).
pub struct StreamBuffer {
    ring: Padded<Mutex<Ring>>,
    /// `Ring::produced`, published after each push so that readers with nothing new to
    /// read can skip the lock.
    published: Padded<AtomicU64>,
    stream: StreamId,
    capacity: usize,
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
            ring: Padded(Mutex::new(Ring {
                slots: Vec::with_capacity(capacity),
                head: 0,
                capacity,
                produced: 0,
                evicted: 0,
                rejected: 0,
                newest: DeviceTime(i64::MIN),
            })),
            published: Padded(AtomicU64::new(0)),
            stream,
            capacity,
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

    // A panic while the lock was held cannot leave `Ring` inconsistent in a way that
    // matters here (counters only), so a poisoned lock is used as is.
    fn lock(&self) -> MutexGuard<'_, Ring> {
        self.ring.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends `sample`, evicting the oldest sample when full. Never waits for a consumer
    /// (only, briefly, for a reader's copy in progress) and never allocates. A sample
    /// captured before the newest one held is refused (and counted), so the buffer stays in
    /// capture order.
    pub fn push(&self, sample: Sample) -> PushOutcome {
        let mut g = self.lock();
        if sample.capture < g.newest {
            g.rejected += 1;
            return PushOutcome {
                dropped: false,
                rejected: true,
            };
        }
        g.newest = sample.capture;
        let evicted = g.put(sample);
        self.published.0.store(g.produced, Ordering::Release);
        drop(g);
        let dropped = evicted.is_some();
        // The evicted sample (possibly the last owner of an image) is freed outside the lock.
        drop(evicted);
        PushOutcome {
            dropped,
            rejected: false,
        }
    }

    /// Appends every sample of `samples` in order under one lock (one lock and one
    /// publication per batch instead of per sample), with the same rules as
    /// [`StreamBuffer::push`]: drop-oldest, backward capture times refused and counted.
    /// Samples of another stream are left out (and reported). `samples` is left holding
    /// the evicted samples until it is cleared, after the lock is released (so the last
    /// owner of an image frees it outside the lock); it is empty on return and keeps its
    /// allocation, so a producer that reuses it does not allocate.
    pub fn push_batch(&self, samples: &mut Vec<Sample>) -> BatchOutcome {
        let mut out = BatchOutcome::default();
        let stream = self.stream;
        if samples.iter().any(|s| s.stream != stream) {
            let before = samples.len();
            samples.retain(|s| s.stream == stream);
            out.wrong_stream = (before - samples.len()) as u64;
        }
        let mut g = self.lock();
        // Capture order: refuse every sample earlier than the newest accepted before it.
        let mut newest = g.newest;
        if samples.windows(2).any(|w| w[1].capture < w[0].capture)
            || samples.first().is_some_and(|s| s.capture < newest)
        {
            let before = samples.len();
            samples.retain(|s| {
                let keep = s.capture >= newest;
                if keep {
                    newest = s.capture;
                }
                keep
            });
            out.rejected = (before - samples.len()) as u64;
            g.rejected += out.rejected;
        }
        if let Some(last) = samples.last() {
            g.newest = last.capture;
        }
        out.pushed = samples.len() as u64;
        // Fill the free slots by moving samples in, then overwrite the oldest in place,
        // swapping each evicted sample back into `samples`.
        let room = g.capacity - g.slots.len();
        let fill = room.min(samples.len());
        g.slots.extend(samples.drain(..fill));
        g.produced += fill as u64;
        let over = samples.len() as u64;
        let ring = &mut *g;
        if !ring.overwrite_plain(samples) {
            let cap = ring.capacity;
            let mut h = ring.head;
            for s in samples.iter_mut() {
                if let Some(slot) = ring.slots.get_mut(h) {
                    std::mem::swap(slot, s);
                }
                h = if h + 1 >= cap { 0 } else { h + 1 };
            }
            ring.head = h;
        }
        g.produced += over;
        g.evicted += over;
        out.evicted = over;
        self.published.0.store(g.produced, Ordering::Release);
        drop(g);
        samples.clear();
        out
    }

    /// Clones every sample numbered `cursor` or later onto the end of `out`, in order.
    /// Samples between `cursor` and the oldest one still held are reported as `missed`.
    pub fn read_since(&self, cursor: u64, out: &mut Vec<Sample>) -> ReadSince {
        // Fast path: nothing pushed since `cursor` (so nothing evicted either).
        if self.published.0.load(Ordering::Acquire) == cursor {
            return ReadSince {
                missed: 0,
                copied: 0,
                next: cursor,
            };
        }
        let g = self.lock();
        let len = g.slots.len();
        let oldest = g.produced - len as u64;
        let start = cursor.clamp(oldest, g.produced);
        let missed = start - cursor.min(start);
        let skip = (start - oldest) as usize; // ≤ len
        let (a, b) = g.as_slices();
        let copied = len - skip;
        out.reserve(copied);
        match a.get(skip..) {
            Some(rest) => {
                extend_cloned(out, rest);
                extend_cloned(out, b);
            }
            None => extend_cloned(out, b.get(skip - a.len()..).unwrap_or_default()),
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
        let g = self.lock();
        let (a, b) = g.as_slices();
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
        let g = self.lock();
        let (a, b) = g.as_slices();
        let first = a.first().or(b.first())?.capture;
        let last = b.last().or(a.last())?.capture;
        Some((first, last))
    }

    /// Samples accepted so far (the sequence number the next one will get).
    pub fn produced(&self) -> u64 {
        self.published.0.load(Ordering::Acquire)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> StreamBufferStats {
        let g = self.lock();
        StreamBufferStats {
            produced: g.produced,
            evicted: g.evicted,
            rejected: g.rejected,
            len: g.slots.len(),
            capacity: self.capacity,
            // Nothing ever leaves the ring but by eviction, so it never held more.
            high_water: g.slots.len(),
        }
    }
}
