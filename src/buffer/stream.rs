//! One stream's bounded buffer: a hand-written single-producer, multi-reader ring with
//! true drop-oldest, read without locks.
//!
//! Sample number `k` (counting from 0, in push order) lives in slot `k mod capacity` and is
//! held while `produced − capacity ≤ k < produced`; pushing into a full buffer overwrites
//! the oldest slot. Each slot is a *seqlock*: a stamp word (`2k + 1` while sample `k` is
//! being written, `2k + 2` once it is complete) followed by the sample encoded as plain
//! 64-bit words ([`crate::buffer::codec`]), every one of them an atomic, so the ring has no
//! `unsafe` code and no data race in the Rust memory model. A reader copies the words and
//! keeps them only if the stamp read before and after is `2k + 2`; any other stamp means the
//! producer overwrote the slot meanwhile, and the sample counts as dropped for that reader.
//! The stamps are the standard seqlock protocol with fences (writer: odd stamp, release
//! fence, words, even stamp with release; reader: stamp with acquire, words, acquire fence,
//! stamp again).
//!
//! Heavy payloads (camera images, audio blocks: reference-counted bytes) cannot be copied
//! word by word; they sit beside the ring in one small mutex per slot, tagged with the
//! sample number, so a reader clones the `Bytes` handle only if the slot still holds the
//! sample it validated. Motion streams never touch these mutexes (the side table is
//! allocated at the first heavy push).
//!
//! Pushes are serialised by a one-word flag (the runtime has a single producer, so it is
//! never contended; a second producer would spin briefly rather than corrupt the ring).
//! Readers never block the producer and the producer never waits for a reader.

use std::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::buffer::codec::{self, WORDS};
use crate::sample::{Payload, Sample, StreamId};
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
    /// Samples between the reader's cursor and the oldest one still held, or overwritten
    /// while being read: they were evicted before the reader got to them.
    pub missed: u64,
    /// Samples copied out.
    pub copied: u64,
    /// The cursor to pass next time (the stream's `produced` when the read began).
    pub next: u64,
}

/// One ring slot: the seqlock stamp and the encoded sample. 128 bytes, cache-line aligned.
#[repr(align(64))]
#[derive(Default)]
struct Slot {
    stamp: AtomicU64,
    words: [AtomicU64; WORDS],
}

/// A heavy payload beside its slot, tagged with the sample number it belongs to.
#[derive(Default)]
struct HeavyCell {
    pos: u64,
    payload: Option<Payload>,
}

/// Releases the producer flag when dropped.
struct ProducerGuard<'a>(&'a AtomicBool);

impl Drop for ProducerGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// A bounded, drop-oldest buffer for one stream, written by one producer and read by any
/// number of readers without locks (see the module docs).
pub struct StreamBuffer {
    stream: StreamId,
    capacity: usize,
    slots: Box<[Slot]>,
    heavy: OnceLock<Box<[Mutex<HeavyCell>]>>,
    /// Samples accepted so far (published with release after each push).
    published: AtomicU64,
    rejected: AtomicU64,
    /// Producer state, only touched while `writing` is held.
    writing: AtomicBool,
    next_slot: AtomicUsize,
    newest_ns: AtomicI64,
}

impl std::fmt::Debug for StreamBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBuffer")
            .field("stream", &self.stream)
            .field("stats", &self.stats())
            .finish()
    }
}

fn stamp_done(k: u64) -> u64 {
    k.wrapping_mul(2).wrapping_add(2)
}

impl StreamBuffer {
    /// A buffer for `stream` holding up to `capacity` samples (at least 1). Allocates its
    /// ring here, once (128 bytes per slot).
    pub fn new(stream: StreamId, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            stream,
            capacity,
            slots: (0..capacity).map(|_| Slot::default()).collect(),
            heavy: OnceLock::new(),
            published: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            writing: AtomicBool::new(false),
            next_slot: AtomicUsize::new(0),
            newest_ns: AtomicI64::new(i64::MIN),
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

    fn lock_producer(&self) -> ProducerGuard<'_> {
        let mut spins = 0u32;
        while self
            .writing
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        ProducerGuard(&self.writing)
    }

    fn heavy_cells(&self) -> &[Mutex<HeavyCell>] {
        self.heavy
            .get_or_init(|| (0..self.capacity).map(|_| Mutex::default()).collect())
    }

    /// Appends `sample`, evicting the oldest sample when full. Never waits for a reader and
    /// never allocates (except the heavy side table, once, at the first image or audio
    /// sample). A sample captured before the newest one held is refused (and counted), so
    /// the buffer stays in capture order.
    pub fn push(&self, sample: Sample) -> PushOutcome {
        let guard = self.lock_producer();
        let k = self.published.load(Ordering::Relaxed);
        let capture_ns = sample.capture.ns();
        if k > 0 && capture_ns < self.newest_ns.load(Ordering::Relaxed) {
            self.rejected.fetch_add(1, Ordering::Relaxed);
            return PushOutcome {
                dropped: false,
                rejected: true,
            };
        }
        self.newest_ns.store(capture_ns, Ordering::Relaxed);
        let mut w = [0u64; WORDS];
        let (n, heavy) = codec::split(sample, &mut w);
        let i = self.next_slot.load(Ordering::Relaxed);
        let Some(slot) = self.slots.get(i) else {
            // Unreachable: `next_slot < capacity == slots.len()` by construction.
            self.next_slot.store(0, Ordering::Relaxed);
            return PushOutcome::default();
        };
        slot.stamp
            .store(stamp_done(k).wrapping_sub(1), Ordering::Relaxed);
        fence(Ordering::Release);
        let cells = if heavy.is_some() {
            Some(self.heavy_cells())
        } else {
            self.heavy.get().map(|c| &**c)
        };
        let old = match cells.and_then(|c| c.get(i)) {
            Some(cell) => {
                let mut c = cell.lock().unwrap_or_else(|e| e.into_inner());
                c.pos = k;
                std::mem::replace(&mut c.payload, heavy)
            }
            None => None,
        };
        for (dst, &src) in slot.words.iter().zip(&w).take(n) {
            dst.store(src, Ordering::Relaxed);
        }
        slot.stamp.store(stamp_done(k), Ordering::Release);
        let next = i + 1;
        self.next_slot.store(
            if next == self.capacity { 0 } else { next },
            Ordering::Relaxed,
        );
        self.published.store(k + 1, Ordering::Release);
        drop(guard);
        // An evicted image (possibly its last owner) is freed outside the producer flag.
        drop(old);
        PushOutcome {
            dropped: k >= self.capacity as u64,
            rejected: false,
        }
    }

    /// Sample `k` from slot `i` (`i == k mod capacity`), or `None` if the producer has
    /// overwritten it (or not written it yet).
    fn read_at(&self, k: u64, i: usize) -> Option<Sample> {
        let slot = self.slots.get(i)?;
        let want = stamp_done(k);
        if slot.stamp.load(Ordering::Acquire) != want {
            return None;
        }
        let mut w = [0u64; WORDS];
        w[3] = slot.words[3].load(Ordering::Relaxed);
        let n = codec::words_for_tag(w[3]);
        for (dst, src) in w.iter_mut().zip(&slot.words).take(n) {
            *dst = src.load(Ordering::Relaxed);
        }
        fence(Ordering::Acquire);
        if slot.stamp.load(Ordering::Relaxed) != want {
            return None;
        }
        let heavy = if codec::is_heavy(&w) {
            let cell = self.heavy.get()?.get(i)?;
            let c = cell.lock().unwrap_or_else(|e| e.into_inner());
            if c.pos != k {
                return None;
            }
            c.payload.clone()
        } else {
            None
        };
        codec::join(&w, heavy)
    }

    /// The capture time of sample `k`, or `None` if it is no longer held.
    fn capture_at(&self, k: u64) -> Option<DeviceTime> {
        let i = usize::try_from(k % self.capacity as u64).ok()?;
        let slot = self.slots.get(i)?;
        let want = stamp_done(k);
        if slot.stamp.load(Ordering::Acquire) != want {
            return None;
        }
        let c = slot.words[1].load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        (slot.stamp.load(Ordering::Relaxed) == want).then_some(DeviceTime(c as i64))
    }

    fn slot_of(&self, k: u64) -> usize {
        // `k mod capacity < capacity`, which fits a usize.
        (k % self.capacity as u64) as usize
    }

    /// Copies every sample in `from..to` still held onto `out`, stopping early (without
    /// copying it) at the first sample for which `stop` is true. Returns (copied, missed).
    fn copy_range(
        &self,
        from: u64,
        to: u64,
        out: &mut Vec<Sample>,
        stop: impl Fn(&Sample) -> bool,
    ) -> (u64, u64) {
        let (mut copied, mut missed) = (0, 0);
        let mut i = self.slot_of(from);
        for k in from..to {
            match self.read_at(k, i) {
                Some(s) if stop(&s) => break,
                Some(s) => {
                    out.push(s);
                    copied += 1;
                }
                None => missed += 1,
            }
            i += 1;
            if i == self.capacity {
                i = 0;
            }
        }
        (copied, missed)
    }

    /// Clones every sample numbered `cursor` or later onto the end of `out`, in order.
    /// Samples between `cursor` and the oldest one still held, and any overwritten while
    /// being read, are reported as `missed`.
    pub fn read_since(&self, cursor: u64, out: &mut Vec<Sample>) -> ReadSince {
        let p = self.published.load(Ordering::Acquire);
        if p <= cursor {
            return ReadSince {
                missed: 0,
                copied: 0,
                next: p.max(cursor),
            };
        }
        let start = cursor.max(p.saturating_sub(self.capacity as u64));
        out.reserve(usize::try_from(p - start).unwrap_or(0));
        let (copied, lost) = self.copy_range(start, p, out, |_| false);
        ReadSince {
            missed: start - cursor + lost,
            copied,
            next: p,
        }
    }

    /// Clones every held sample with `t0 ≤ capture ≤ t1` onto the end of `out`, in capture
    /// order; returns how many. Uses binary search: cost grows with the window, not the
    /// buffer.
    pub fn read_window(&self, t0: DeviceTime, t1: DeviceTime, out: &mut Vec<Sample>) -> usize {
        if t1 < t0 {
            return 0;
        }
        let p = self.published.load(Ordering::Acquire);
        // First sample with capture ≥ t0; a sample overwritten meanwhile is older than every
        // held one, so it counts as before t0.
        let (mut lo, mut hi) = (p.saturating_sub(self.capacity as u64), p);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.capture_at(mid) {
                Some(c) if c >= t0 => hi = mid,
                _ => lo = mid + 1,
            }
        }
        let (copied, _) = self.copy_range(lo, p, out, |s| s.capture > t1);
        copied as usize
    }

    /// The capture times of the oldest and newest samples held, if any.
    pub fn time_range(&self) -> Option<(DeviceTime, DeviceTime)> {
        // Retries only if the producer laps the whole ring during the call.
        for _ in 0..16 {
            let p = self.published.load(Ordering::Acquire);
            if p == 0 {
                return None;
            }
            let oldest = p.saturating_sub(self.capacity as u64);
            let first = (oldest..p).find_map(|k| self.capture_at(k));
            if let (Some(first), Some(last)) = (first, self.capture_at(p - 1)) {
                return Some((first, last));
            }
        }
        None
    }

    /// Samples accepted so far (the sequence number the next one will get).
    pub fn produced(&self) -> u64 {
        self.published.load(Ordering::Acquire)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> StreamBufferStats {
        let produced = self.produced();
        let len = usize::try_from(produced)
            .unwrap_or(usize::MAX)
            .min(self.capacity);
        StreamBufferStats {
            produced,
            evicted: produced - len as u64,
            rejected: self.rejected.load(Ordering::Relaxed),
            len,
            capacity: self.capacity,
            // Nothing is ever removed except by eviction, so the buffer never shrinks.
            high_water: len,
        }
    }
}
