//! Read-ahead for any [`Source`]: a thread of its own pulls samples (file reads,
//! decompression, record decoding) into a small bounded channel, so the ingest thread that
//! paces delivery never waits on I/O when a sample falls due.
//!
//! Order is preserved exactly, so a prefetched replay delivers the same sequence as the
//! source itself. The channel bounds memory (`capacity` samples ahead); when it is full the
//! reader thread waits, which is the right back-pressure for a file. Dropping the
//! `PrefetchSource` stops and joins the thread.

use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver};

use crate::sample::{Sample, StreamId};
use crate::source::{Source, SourceError};

type Item = Option<Result<Sample, SourceError>>;

/// A [`Source`] that reads ahead of its consumer on a thread of its own.
pub struct PrefetchSource {
    rx: Option<Receiver<Item>>,
    describe: String,
    streams: Vec<StreamId>,
    thread: Option<JoinHandle<()>>,
    done: bool,
}

impl std::fmt::Debug for PrefetchSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrefetchSource")
            .field("source", &self.describe)
            .finish()
    }
}

impl PrefetchSource {
    /// Starts reading `inner` ahead, at most `capacity` samples (at least 1).
    pub fn spawn(mut inner: Box<dyn Source>, capacity: usize) -> std::io::Result<Self> {
        let describe = inner.describe();
        let streams = inner.streams();
        let (tx, rx) = bounded::<Item>(capacity.max(1));
        let thread = std::thread::Builder::new()
            .name("vista-prefetch".into())
            .spawn(move || loop {
                let item = inner.next_sample();
                let end = item.is_none();
                // A closed channel means the consumer is gone: stop reading.
                if tx.send(item).is_err() || end {
                    return;
                }
            })?;
        Ok(Self {
            rx: Some(rx),
            describe,
            streams,
            thread: Some(thread),
            done: false,
        })
    }
}

impl Source for PrefetchSource {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn streams(&self) -> Vec<StreamId> {
        self.streams.clone()
    }

    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        if self.done {
            return None;
        }
        match self.rx.as_ref().map(Receiver::recv) {
            Some(Ok(Some(item))) => Some(item),
            Some(Ok(None)) => {
                self.done = true;
                None
            }
            // The reader thread ended without saying so: it panicked.
            Some(Err(_)) | None => {
                self.done = true;
                Some(Err(SourceError::Fatal(format!(
                    "{}: the read-ahead thread stopped",
                    self.describe
                ))))
            }
        }
    }
}

impl Drop for PrefetchSource {
    fn drop(&mut self) {
        // Closing the channel makes the reader's next send fail, so it returns.
        self.rx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
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
}
