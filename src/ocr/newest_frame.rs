//! [`NewestFrameWorker`]: the one thread that reads text off the caller's thread, for
//! [`super::reader::OcrReader`] and [`super::text_reads::ProfiledReader`] alike. A one-slot
//! mailbox holds the newest frame offered (a frame waiting when another arrives is replaced,
//! and the caller counts it); a whole-frame read asked for has a slot of its own, is read
//! before the waiting frame and is never replaced by one (a newer ask takes over the asks of
//! one not yet started). Facts go back through a bounded channel (what does not fit is
//! dropped and reported to the [`FrameWork`]); whole-frame reads are counted as finished
//! after their facts are in the channel, so a poll after the count sees them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::sample::Sample;
use crate::state::TextFact;
use crate::worker::{Worker, WorkerError};

/// One frame to read.
#[derive(Clone, Debug)]
pub struct FrameJob {
    /// The frame.
    pub frame: Sample,
    /// The gaze point in the recorded frame, pixels.
    pub gaze_px: Option<[f32; 2]>,
    /// Read all of the frame.
    pub whole: bool,
    /// The whole-frame read asks this read answers (0 for a frame offered; more than 1
    /// when it replaced older asks not yet started).
    pub asks: u64,
}

/// What the worker thread does with a frame.
pub trait FrameWork: Send + 'static {
    /// Reads `job`, handing facts to `send` as they are read.
    fn read(&mut self, job: &FrameJob, send: &mut dyn FnMut(Vec<TextFact>));
    /// One frame's facts did not fit in the results channel and were dropped.
    fn result_dropped(&self);
}

#[derive(Default)]
struct Slot {
    /// The newest frame not yet taken.
    job: Option<FrameJob>,
    /// A whole-frame read asked for and not yet taken (read first).
    whole: Option<FrameJob>,
    /// The worker is reading a frame.
    busy: bool,
    /// The owner is being dropped.
    stop: bool,
}

#[derive(Default)]
struct Mailbox {
    slot: Mutex<Slot>,
    ready: Condvar,
}

impl Mailbox {
    /// The slot; a poisoned lock still holds plain data, so it is used as it is.
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A newest-frame-wins reading thread: see the module documentation.
pub struct NewestFrameWorker {
    mailbox: Arc<Mailbox>,
    rx: Receiver<Vec<TextFact>>,
    /// Declared last: dropped (stopped and joined) after `Drop` has signalled the mailbox.
    thread: Worker,
}

impl std::fmt::Debug for NewestFrameWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewestFrameWorker")
            .field("thread", &self.thread.name())
            .finish_non_exhaustive()
    }
}

impl NewestFrameWorker {
    /// Starts the thread `ocr` running `work`, with `capacity` frames' worth of results
    /// held for [`NewestFrameWorker::poll`]; each finished whole-frame read adds its asks
    /// to `whole_done`.
    pub fn spawn(
        work: impl FrameWork,
        capacity: usize,
        whole_done: Arc<AtomicU64>,
    ) -> Result<Self, WorkerError> {
        let mailbox = Arc::new(Mailbox::default());
        let (tx, rx) = crossbeam_channel::bounded(capacity.max(1));
        let mb = Arc::clone(&mailbox);
        let thread = Worker::spawn(super::text_reads::CPU_STAGE, move |_| {
            run(work, &mb, &tx, &whole_done)
        })?;
        Ok(Self {
            mailbox,
            rx,
            thread,
        })
    }

    /// Offers a frame; returns whether it replaced one still waiting.
    pub fn offer(&self, job: FrameJob) -> bool {
        let mut g = self.mailbox.lock();
        let replaced = g.job.replace(job).is_some();
        self.mailbox.ready.notify_all();
        replaced
    }

    /// Asks for a whole-frame read of `frame` (answering one ask, and those of an older
    /// ask not yet started).
    pub fn ask_whole(&self, frame: &Sample, gaze_px: Option<[f32; 2]>) {
        let mut g = self.mailbox.lock();
        let asks = 1 + g.whole.take().map_or(0, |old| old.asks);
        g.whole = Some(FrameJob {
            frame: frame.clone(),
            gaze_px,
            whole: true,
            asks,
        });
        self.mailbox.ready.notify_all();
    }

    /// The facts read so far and not yet polled.
    pub fn poll(&self) -> Vec<TextFact> {
        self.rx.try_iter().flatten().collect()
    }

    /// Waits until nothing waits and the thread is idle, or until `timeout` passes;
    /// returns whether it went idle.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut g = self.mailbox.lock();
        while g.job.is_some() || g.whole.is_some() || g.busy {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            match self.mailbox.ready.wait_timeout(g, deadline - now) {
                Ok((ng, _)) => g = ng,
                Err(_) => return false,
            }
        }
        true
    }
}

/// The thread: take the whole-frame read, else the newest frame; read it; send the facts.
fn run(
    mut work: impl FrameWork,
    mailbox: &Mailbox,
    tx: &Sender<Vec<TextFact>>,
    whole_done: &AtomicU64,
) {
    let _cpu = crate::profile::cpu::account(super::text_reads::CPU_STAGE);
    loop {
        let job = {
            let mut g = mailbox.lock();
            g.busy = false;
            mailbox.ready.notify_all();
            loop {
                if g.stop {
                    return;
                }
                if let Some(job) = g.whole.take().or_else(|| g.job.take()) {
                    g.busy = true;
                    break job;
                }
                match mailbox.ready.wait(g) {
                    Ok(ng) => g = ng,
                    Err(_) => return,
                }
            }
        };
        let mut gone = false;
        let mut dropped = 0u64;
        work.read(&job, &mut |facts| {
            if gone {
                return;
            }
            match tx.try_send(facts) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => dropped += 1,
                Err(TrySendError::Disconnected(_)) => gone = true,
            }
        });
        for _ in 0..dropped {
            work.result_dropped();
        }
        if gone {
            return;
        }
        // After its facts are in the channel: a poll after this count sees them.
        whole_done.fetch_add(job.asks, Ordering::Release);
    }
}

impl Drop for NewestFrameWorker {
    fn drop(&mut self) {
        // A frame still waiting is not read (the run is over); `thread` is joined next.
        let mut g = self.mailbox.lock();
        g.stop = true;
        self.mailbox.ready.notify_all();
    }
}
