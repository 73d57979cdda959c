//! A bounded queue that never blocks its producers: when it is full, the oldest item is
//! dropped and counted, so a slow consumer (a file on a slow disk, a viewer far away) loses
//! history rather than holding up the run. One consumer pops, waiting while it is empty,
//! until the queue is closed and drained.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// A bounded drop-oldest queue (see the module documentation).
#[derive(Debug)]
pub struct DropOldest<T> {
    inner: Mutex<Inner<T>>,
    ready: Condvar,
    capacity: usize,
    pushed: AtomicU64,
    dropped: AtomicU64,
}

#[derive(Debug)]
struct Inner<T> {
    items: VecDeque<T>,
    closed: bool,
}

impl<T> DropOldest<T> {
    /// A queue holding at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            inner: Mutex::new(Inner {
                items: VecDeque::with_capacity(capacity.min(4096)),
                closed: false,
            }),
            ready: Condvar::new(),
            capacity,
            pushed: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Adds `item`; a full queue drops its oldest item first. After [`Self::close`] the item
    /// is dropped and counted. Never waits for the consumer.
    pub fn push(&self, item: T) {
        self.pushed.fetch_add(1, Ordering::Relaxed);
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.closed {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if g.items.len() >= self.capacity {
            g.items.pop_front();
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
        g.items.push_back(item);
        drop(g);
        self.ready.notify_one();
    }

    /// The oldest item, waiting up to `wait` for one; `None` when none came in time, or
    /// when the queue is closed and empty (see [`Self::is_done`]).
    pub fn pop(&self, wait: Duration) -> Option<T> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.items.is_empty() && !g.closed {
            g = self
                .ready
                .wait_timeout(g, wait)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        g.items.pop_front()
    }

    /// No more items will be accepted; the consumer drains what is left.
    pub fn close(&self) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.closed = true;
        drop(g);
        self.ready.notify_all();
    }

    /// Closed and empty: the consumer is done.
    pub fn is_done(&self) -> bool {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.closed && g.items.is_empty()
    }

    /// Items offered so far.
    pub fn pushed(&self) -> u64 {
        self.pushed.load(Ordering::Relaxed)
    }

    /// Items dropped so far (the oldest when full, and any offered after closing).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_drops_its_oldest_and_counts_it() {
        let q = DropOldest::new(3);
        for i in 0..5 {
            q.push(i);
        }
        assert_eq!((q.pushed(), q.dropped()), (5, 2));
        let got: Vec<i32> = std::iter::from_fn(|| q.pop(Duration::ZERO)).collect();
        assert_eq!(got, vec![2, 3, 4]);
    }

    #[test]
    fn a_closed_queue_is_drained_then_done_and_refuses_more() {
        let q = DropOldest::new(4);
        q.push("a");
        q.close();
        q.push("b");
        assert!(!q.is_done());
        assert_eq!(q.pop(Duration::from_secs(5)), Some("a"));
        assert!(q.is_done());
        assert_eq!(q.pop(Duration::from_secs(5)), None);
        assert_eq!(q.dropped(), 1);
    }

    #[test]
    fn a_waiting_consumer_wakes_for_an_item_from_another_thread() {
        let q = std::sync::Arc::new(DropOldest::new(2));
        let p = std::sync::Arc::clone(&q);
        let t = std::thread::spawn(move || p.push(7u8));
        let got = q.pop(Duration::from_secs(10));
        t.join().unwrap();
        // Either the push came first or the wait was woken by it.
        assert_eq!(got.or_else(|| q.pop(Duration::from_secs(10))), Some(7));
    }
}
