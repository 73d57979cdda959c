//! Read-ahead for any [`Source`]: a thread of its own pulls samples (file reads,
//! decompression, record decoding) into a bounded queue, so the ingest thread that paces
//! delivery never waits on I/O when a sample falls due.
//!
//! Order is preserved exactly, so a prefetched replay delivers the same sequence as the
//! source itself.
//!
//! Wake-ups are what a paced thread pays for on a virtual machine, so the hand-off is
//! batched both ways. The reader thread fills a shared queue of `capacity` items and then
//! sleeps; the consuming side takes the *whole* queue at once (a swap under one short lock)
//! when its local batch runs dry, and only then wakes the reader thread, which refills in
//! one go. A crossbeam channel instead wakes a blocked sender on every receive, i.e. once
//! per sample. A live source whose reader thread is waiting on the network still hands over
//! each sample at once: the consumer is woken only when it is waiting for one. Memory stays
//! bounded: at most `capacity` items in the shared queue plus `capacity` in the consumer's
//! local batch. Dropping the `PrefetchSource` stops and joins the thread.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::sample::{Sample, StreamId};
use crate::source::{Source, SourceError};
use crate::worker::{Worker, WorkerError};

type Item = Option<Result<Sample, SourceError>>;

#[derive(Default)]
struct State {
    items: VecDeque<Item>,
    /// The reader thread is waiting for room.
    reader_waiting: bool,
    /// The consumer is waiting for an item.
    consumer_waiting: bool,
    /// The consumer is gone: the reader thread stops.
    closed: bool,
    /// The reader thread has returned (normally after queueing the end, or by a panic).
    reader_done: bool,
}

/// The queue between the reader thread and the consumer.
struct Queue {
    state: Mutex<State>,
    /// The reader thread waits here while the queue is full.
    room: Condvar,
    /// The consumer waits here while the queue is empty.
    ready: Condvar,
    capacity: usize,
}

impl Queue {
    // Only plain data is touched under the lock, so a poisoned lock is used as is.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reader side: queues `item`, waiting while the queue is full. False if the consumer
    /// is gone.
    fn put(&self, item: Item) -> bool {
        let mut g = self.lock();
        while g.items.len() >= self.capacity && !g.closed {
            g.reader_waiting = true;
            g = self.room.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        g.reader_waiting = false;
        if g.closed {
            return false;
        }
        g.items.push_back(item);
        let wake = std::mem::take(&mut g.consumer_waiting);
        drop(g);
        if wake {
            self.ready.notify_one();
        }
        true
    }

    /// Consumer side: swaps everything queued into `local` (which must be empty), waiting
    /// while nothing is queued. False if the reader thread has ended without queueing
    /// anything more.
    fn take_all(&self, local: &mut VecDeque<Item>) -> bool {
        let mut g = self.lock();
        while g.items.is_empty() {
            if g.reader_done {
                return false;
            }
            g.consumer_waiting = true;
            g = self.ready.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        std::mem::swap(&mut g.items, local);
        let wake = g.reader_waiting;
        drop(g);
        if wake {
            self.room.notify_one();
        }
        true
    }
}

/// Marks the reader thread as done when it returns or unwinds, and wakes the consumer.
struct DoneGuard(Arc<Queue>);

impl Drop for DoneGuard {
    fn drop(&mut self) {
        let mut g = self.0.lock();
        g.reader_done = true;
        drop(g);
        self.0.ready.notify_all();
    }
}

/// A [`Source`] that reads ahead of its consumer on a thread of its own.
pub struct PrefetchSource {
    queue: Arc<Queue>,
    /// The batch taken from the queue, handed out one item at a time.
    local: VecDeque<Item>,
    describe: String,
    streams: Vec<StreamId>,
    /// The inner source's [`Source::stream_origin`] of every stream, by index.
    origins: Vec<Option<String>>,
    done: bool,
    /// Batches taken from the shared queue (each is at most one wake-up of the reader).
    refills: u64,
    /// The reader thread, joined after `Drop` has closed the queue (fields drop last).
    thread: Worker,
}

impl std::fmt::Debug for PrefetchSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefetchSource")
            .field("source", &self.describe)
            .field("thread", &self.thread.name())
            .field("refills", &self.refills)
            .finish()
    }
}

impl PrefetchSource {
    /// Starts reading `inner` ahead, `capacity` samples at a time (at least 1; at most
    /// twice that are held, see the module docs).
    pub fn spawn(mut inner: Box<dyn Source>, capacity: usize) -> Result<Self, WorkerError> {
        let capacity = capacity.max(1);
        let describe = inner.describe();
        let streams = inner.streams();
        let origins = StreamId::ALL
            .iter()
            .map(|&s| inner.stream_origin(s))
            .collect();
        let queue = Arc::new(Queue {
            state: Mutex::new(State {
                items: VecDeque::with_capacity(capacity),
                ..State::default()
            }),
            room: Condvar::new(),
            ready: Condvar::new(),
            capacity,
        });
        let q = Arc::clone(&queue);
        let thread = Worker::spawn("vista-prefetch", move |_| {
            let _cpu = crate::profile::cpu::account(crate::profile::stages::PREFETCH);
            let guard = DoneGuard(q);
            loop {
                let item = inner.next_sample();
                let end = item.is_none();
                // `false`: the consumer is gone, stop reading.
                if !guard.0.put(item) || end {
                    return;
                }
            }
        })?;
        Ok(Self {
            queue,
            local: VecDeque::with_capacity(capacity),
            describe,
            streams,
            origins,
            done: false,
            refills: 0,
            thread,
        })
    }

    /// How many batches the consumer has taken from the read-ahead queue so far: an
    /// upper bound on the reader thread's wake-ups by the consumer.
    pub fn refills(&self) -> u64 {
        self.refills
    }
}

impl Source for PrefetchSource {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn streams(&self) -> Vec<StreamId> {
        self.streams.clone()
    }

    fn stream_origin(&self, stream: StreamId) -> Option<String> {
        self.origins.get(stream.index()).cloned().flatten()
    }

    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        if self.done {
            return None;
        }
        if self.local.is_empty() {
            if !self.queue.take_all(&mut self.local) {
                // The reader thread ended without queueing the end: it panicked.
                self.done = true;
                return Some(Err(SourceError::Fatal(format!(
                    "{}: the read-ahead thread stopped",
                    self.describe
                ))));
            }
            self.refills += 1;
        }
        match self.local.pop_front() {
            Some(Some(item)) => Some(item),
            // The end (`None` queued), or nothing: `take_all` never returns an empty batch.
            Some(None) | None => {
                self.done = true;
                None
            }
        }
    }
}

impl Drop for PrefetchSource {
    fn drop(&mut self) {
        // Closing the queue makes the reader's next `put` fail, so it returns.
        let mut g = self.queue.lock();
        g.closed = true;
        drop(g);
        self.queue.room.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{ImuSample, Payload};
    use crate::source::VecSource;
    use crate::time::{DeviceTime, HostTime};

    fn imu(i: i64) -> Sample {
        Sample {
            stream: StreamId::ImuRight,
            capture: DeviceTime(i * 1_000_000),
            arrival: HostTime(0),
            seq: i as u64,
            payload: Payload::Imu(ImuSample::default()),
        }
    }

    #[test]
    fn preserves_order_and_ends() {
        let samples: Vec<Sample> = (0..1000).map(imu).collect();
        let mut p = PrefetchSource::spawn(Box::new(VecSource::new(samples.clone())), 7).unwrap();
        let mut got = Vec::new();
        while let Some(r) = p.next_sample() {
            got.push(r.unwrap());
        }
        assert_eq!(got, samples);
        assert!(p.next_sample().is_none());
    }

    #[test]
    fn dropping_early_stops_the_reader() {
        let samples: Vec<Sample> = (0..10_000).map(imu).collect();
        let mut p = PrefetchSource::spawn(Box::new(VecSource::new(samples)), 4).unwrap();
        assert!(p.next_sample().is_some());
        drop(p); // must not hang
    }

    /// A source that hands out one sample per message on a channel, as a live link does.
    struct Trickle(crossbeam_channel::Receiver<Sample>);

    impl Source for Trickle {
        fn describe(&self) -> String {
            "trickle".into()
        }
        fn streams(&self) -> Vec<StreamId> {
            vec![StreamId::ImuRight]
        }
        fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
            self.0.recv().ok().map(Ok)
        }
    }

    #[test]
    fn a_trickling_source_is_handed_over_one_sample_at_a_time() {
        // Batching must not hold a sample back until a batch is full: each one sent is
        // received while the source is blocked waiting for the next.
        let (tx, rx) = crossbeam_channel::unbounded();
        let p = PrefetchSource::spawn(Box::new(Trickle(rx)), 64).unwrap();
        let (got_tx, got_rx) = crossbeam_channel::unbounded();
        let consumer = Worker::spawn("test-consumer", move |_| {
            let mut p = p;
            while let Some(Ok(s)) = p.next_sample() {
                if got_tx.send(s.seq).is_err() {
                    break;
                }
            }
        })
        .unwrap();
        for i in 0..5 {
            tx.send(imu(i)).unwrap();
            let got = got_rx.recv_timeout(std::time::Duration::from_secs(10));
            assert_eq!(got, Ok(i as u64));
        }
        drop(tx); // the source ends
        consumer.join().unwrap();
    }

    struct Panics(u64);

    impl Source for Panics {
        fn describe(&self) -> String {
            "panics".into()
        }
        fn streams(&self) -> Vec<StreamId> {
            vec![StreamId::ImuRight]
        }
        fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
            self.0 += 1;
            assert!(self.0 <= 3, "source failure");
            Some(Ok(imu(self.0 as i64)))
        }
    }

    #[test]
    fn a_reader_thread_that_dies_is_a_fatal_error_after_what_it_read() {
        let mut p = PrefetchSource::spawn(Box::new(Panics(0)), 2).unwrap();
        let mut ok = 0;
        let last = loop {
            match p.next_sample() {
                Some(Ok(_)) => ok += 1,
                other => break other,
            }
        };
        assert_eq!(ok, 3);
        assert!(matches!(last, Some(Err(SourceError::Fatal(_)))), "{last:?}");
        assert!(p.next_sample().is_none());
    }

    #[test]
    fn batches_are_taken_whole() {
        // A reader far ahead: after it has filled the queue, one refill takes all of it.
        let samples: Vec<Sample> = (0..100).map(imu).collect();
        let mut p = PrefetchSource::spawn(Box::new(VecSource::new(samples)), 10).unwrap();
        assert!(p.next_sample().is_some());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while p.queue.lock().items.len() < 10 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // The rest of the first batch, then the ten queued ones with a single refill.
        let refills = p.refills();
        for _ in 0..p.local.len() + 10 {
            assert!(p.next_sample().is_some());
        }
        assert_eq!(p.refills(), refills + 1);
    }
}
