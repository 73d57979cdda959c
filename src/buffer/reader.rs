//! A consumer's view of the buffers: its own cursor per stream (which samples it has not
//! seen yet), time-window reads, and its own delivery counters.

use std::sync::Arc;

use crate::buffer::set::BufferSet;
use crate::sample::{Sample, StreamId};
use crate::time::DeviceTime;

/// What one consumer got from one stream.
///
/// Invariant, at any moment: `produced == delivered + dropped + pending`, where `produced`
/// is the stream's count of accepted samples ([`crate::buffer::StreamBufferStats::produced`]),
/// `delivered` the samples handed to this consumer by `drain_new`, `dropped` those evicted
/// before it read them, and `pending` those still held that it has not read yet. After a
/// final drain, `pending` is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConsumerStreamStats {
    /// Samples handed to the consumer by `drain_new`.
    pub delivered: u64,
    /// Samples evicted (overrun) before the consumer read them.
    pub dropped: u64,
    /// Samples held that the consumer has not read yet (at the time of the snapshot).
    pub pending: u64,
    /// The most unread samples seen at the start of one drain (how far behind it fell).
    pub max_lag: u64,
}

/// A consumer's handle on a [`BufferSet`]. Not shared: each consumer owns one. Its reads
/// reuse an internal scratch vector, so they allocate only until that vector has grown to
/// the largest batch or window read (steady state: no allocation).
#[derive(Debug)]
pub struct Reader {
    name: String,
    buffers: Arc<BufferSet>,
    cursors: [u64; StreamId::COUNT],
    stats: [ConsumerStreamStats; StreamId::COUNT],
    /// The streams this reader accounts for: those it declared, plus any it has drained.
    subscribed: [bool; StreamId::COUNT],
    newest_capture: Option<DeviceTime>,
    scratch: Vec<Sample>,
}

impl Reader {
    pub(crate) fn new(buffers: Arc<BufferSet>, name: String) -> Self {
        Self {
            name,
            buffers,
            cursors: [0; StreamId::COUNT],
            stats: [ConsumerStreamStats::default(); StreamId::COUNT],
            subscribed: [true; StreamId::COUNT],
            newest_capture: None,
            scratch: Vec::new(),
        }
    }

    /// The consumer's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Declares the streams this consumer reads (its subscription): only these appear in
    /// [`Reader::stats`], so a stream it never reads is not reported as dropped for it. A
    /// stream drained later with [`Reader::drain_new`] joins the subscription (what a reader
    /// drains is always accounted). A new reader subscribes to every stream.
    pub fn subscribe_only(&mut self, streams: impl IntoIterator<Item = StreamId>) {
        self.subscribed = [false; StreamId::COUNT];
        for s in streams {
            if let Some(f) = self.subscribed.get_mut(s.index()) {
                *f = true;
            }
        }
    }

    /// Whether `stream` is in this reader's subscription.
    pub fn is_subscribed(&self, stream: StreamId) -> bool {
        self.subscribed
            .get(stream.index())
            .copied()
            .unwrap_or(false)
    }

    /// The buffers this reader reads.
    pub fn buffers(&self) -> &Arc<BufferSet> {
        &self.buffers
    }

    /// Visits, in order, every sample of `stream` pushed since the last `drain_new` of this
    /// stream (samples evicted meanwhile are counted as dropped). Returns how many were
    /// visited. The buffer is not locked while `visit` runs.
    pub fn drain_new(&mut self, stream: StreamId, mut visit: impl FnMut(&Sample)) -> usize {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let n = self.drain_new_into(stream, &mut scratch);
        for s in &scratch {
            visit(s);
        }
        scratch.clear();
        self.scratch = scratch;
        n
    }

    /// Like [`Reader::drain_new`], but appends the new samples of `stream` to the
    /// caller-owned `out` (allocates only if `out` must grow). Returns how many.
    pub fn drain_new_into(&mut self, stream: StreamId, out: &mut Vec<Sample>) -> usize {
        let i = stream.index();
        let cursor = self.cursors[i];
        let before = out.len();
        self.subscribed[i] = true;
        let r = self.buffers.stream(stream).read_since(cursor, out);
        let st = &mut self.stats[i];
        st.dropped += r.missed;
        st.delivered += r.copied;
        st.max_lag = st.max_lag.max(r.next.saturating_sub(cursor));
        self.cursors[i] = r.next;
        if let Some(last) = out.get(before..).and_then(|new| new.last()) {
            self.saw(last.capture);
        }
        r.copied as usize
    }

    /// [`Reader::drain_new`] for every stream, in [`StreamId::ALL`] order. Returns how many
    /// samples were visited.
    pub fn drain_all_new(&mut self, mut visit: impl FnMut(&Sample)) -> usize {
        StreamId::ALL
            .iter()
            .map(|&s| self.drain_new(s, &mut visit))
            .sum()
    }

    /// Visits, in capture order, every sample of `stream` still held with
    /// `t0 ≤ capture ≤ t1`. Does not move the new-sample cursor. Returns how many.
    pub fn read_window(
        &mut self,
        stream: StreamId,
        t0: DeviceTime,
        t1: DeviceTime,
        mut visit: impl FnMut(&Sample),
    ) -> usize {
        self.scratch.clear();
        let n = self
            .buffers
            .stream(stream)
            .read_window(t0, t1, &mut self.scratch);
        if let Some(last) = self.scratch.last() {
            self.saw(last.capture);
        }
        for s in &self.scratch {
            visit(s);
        }
        self.scratch.clear();
        n
    }

    /// Replaces the contents of `out` with every sample of `stream` still held with
    /// `t0 ≤ capture ≤ t1`, in capture order (allocates only if `out` must grow).
    pub fn read_window_into(
        &mut self,
        stream: StreamId,
        t0: DeviceTime,
        t1: DeviceTime,
        out: &mut Vec<Sample>,
    ) -> usize {
        out.clear();
        let n = self.buffers.stream(stream).read_window(t0, t1, out);
        if let Some(last) = out.last() {
            self.saw(last.capture);
        }
        n
    }

    fn saw(&mut self, capture: DeviceTime) {
        self.newest_capture = Some(self.newest_capture.map_or(capture, |n| n.max(capture)));
    }

    /// Samples of `stream` pushed but not yet drained by this reader (including any that
    /// were evicted meanwhile).
    pub fn unread(&self, stream: StreamId) -> u64 {
        self.buffers
            .stream(stream)
            .produced()
            .saturating_sub(self.cursors[stream.index()])
    }

    /// The capture time of the newest sample this reader has drained or read in a window,
    /// if any: what an event built from what it read depends on (the runtime stamps it on
    /// the consumer's spans).
    pub fn newest_capture(&self) -> Option<DeviceTime> {
        self.newest_capture
    }

    /// This reader's counters for `stream` (with `pending` as of now).
    pub fn stream_stats(&self, stream: StreamId) -> ConsumerStreamStats {
        let i = stream.index();
        let b = self.buffers.stream(stream).stats();
        let oldest = b.produced.saturating_sub(b.len as u64);
        let mut st = self.stats[i];
        st.pending = b.produced.saturating_sub(self.cursors[i].max(oldest));
        // Samples evicted since our last read are not yet in `dropped`; count them here so
        // the invariant holds at any moment.
        st.dropped += oldest.saturating_sub(self.cursors[i]);
        st
    }

    /// Counters for every subscribed stream that has produced at least one sample, in
    /// stream order.
    pub fn stats(&self) -> Vec<(StreamId, ConsumerStreamStats)> {
        StreamId::ALL
            .iter()
            .filter(|&&s| self.is_subscribed(s) && self.buffers.stream(s).produced() > 0)
            .map(|&s| (s, self.stream_stats(s)))
            .collect()
    }
}
