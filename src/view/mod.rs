//! Seeing what vista saw: a run as a Rerun recording (`--rerun FILE.rrd`, or
//! `--rerun-connect ADDR` for a running viewer). The run's stages hand typed
//! [`ViewItem`]s (camera frames still encoded, the pose, gaze, hands, perception's states and
//! hazards, decisions, every clause spoken, the point map, the ground truth) to a
//! [`ViewLog`]; a bounded queue that drops its oldest item when full (never blocking a
//! stage, drops counted) feeds one thread that logs them with Rerun's SDK on two timelines:
//! `device` (the device time an item rests on) and `processing` (the host time it was known
//! at). The SDK is the cargo feature `rerun`; without it the items, the queue and the
//! options exist, and asking for a recording is refused at the start with the reason.

pub mod consumer;
pub mod item;
pub mod queue;
#[cfg(feature = "rerun")]
mod writer;

use std::path::PathBuf;
use std::sync::Arc;
#[cfg(feature = "rerun")]
use std::time::Duration;

use serde::Serialize;

pub use consumer::ViewConsumer;
pub use item::{Stamp, TruthMark, ViewItem};
use queue::DropOldest;

use crate::worker::Worker;

/// Items waiting for the logging thread at most (a few seconds of a run's items at the
/// cameras' rates; images are shared, not copied, while they wait).
pub const VIEW_QUEUE_ITEMS: usize = 2_048;

/// Where a run's recording goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewTarget {
    /// An `.rrd` file (created at the start; an unwritable path fails the run there).
    File(PathBuf),
    /// A running viewer's address (`HOST:PORT`, or a `rerun+http://…/proxy` URL).
    Connect(String),
}

/// A recording could not be started.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// This build has no Rerun SDK.
    #[error("this build cannot write Rerun recordings: rebuild with `--features rerun`")]
    NotBuilt,
    /// The file or connection could not be opened.
    #[error("Rerun recording {target}: {reason}")]
    Open {
        /// The path or address.
        target: String,
        /// Why.
        reason: String,
    },
    /// The logging thread did not start.
    #[error("starting the Rerun logging thread: {0}")]
    Thread(String),
}

/// What the recording took and lost (`profile.json`'s `rerun`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ViewReport {
    /// Where it went.
    pub target: String,
    /// Items offered by the run.
    pub offered: u64,
    /// Items dropped because the logging thread fell behind (the oldest waiting), or offered
    /// after the end.
    pub dropped: u64,
    /// Items the SDK refused (logged once each kind).
    pub failed: u64,
    /// Items logged.
    pub logged: u64,
}

/// The run's handle for offering items: cheap to clone, never blocks.
#[derive(Clone, Debug)]
pub struct ViewLog {
    queue: Arc<DropOldest<ViewItem>>,
}

impl ViewLog {
    /// Offers `item`; when the queue is full, its oldest item is dropped and counted.
    pub fn send(&self, item: ViewItem) {
        self.queue.push(item);
    }
}

/// The logging thread, joined at [`ViewRecorder::finish`]; dropped unfinished (a run that
/// failed), it closes the queue and stops the thread, which flushes what it logged.
#[derive(Debug)]
pub struct ViewRecorder {
    queue: Arc<DropOldest<ViewItem>>,
    worker: Option<Worker<(u64, u64)>>,
    target: String,
}

impl ViewRecorder {
    /// Opens `target` and starts the logging thread.
    pub fn start(target: &ViewTarget) -> Result<(Self, ViewLog), ViewError> {
        let described = match target {
            ViewTarget::File(p) => p.display().to_string(),
            ViewTarget::Connect(a) => a.clone(),
        };
        let queue = Arc::new(DropOldest::new(VIEW_QUEUE_ITEMS));
        let worker = spawn_logger(target, Arc::clone(&queue))?;
        Ok((
            Self {
                queue: Arc::clone(&queue),
                worker: Some(worker),
                target: described,
            },
            ViewLog { queue },
        ))
    }

    /// Closes the queue, logs what is left, flushes, and says what was taken and lost.
    pub fn finish(mut self) -> ViewReport {
        self.queue.close();
        let joined = self.worker.take().map(Worker::join);
        let (logged, failed) = match joined {
            Some(Ok(n)) => n,
            Some(Err(e)) => {
                log::warn!("rerun: the logging thread failed: {e}");
                (0, 0)
            }
            None => (0, 0),
        };
        ViewReport {
            target: std::mem::take(&mut self.target),
            offered: self.queue.pushed(),
            dropped: self.queue.dropped(),
            failed,
            logged,
        }
    }
}

impl Drop for ViewRecorder {
    fn drop(&mut self) {
        // Nothing more is taken; the worker, dropped next, is stopped and joined.
        self.queue.close();
    }
}

/// How long the logging thread waits for an item before checking the queue again.
#[cfg(feature = "rerun")]
const POLL: Duration = Duration::from_millis(100);

#[cfg(feature = "rerun")]
fn spawn_logger(
    target: &ViewTarget,
    queue: Arc<DropOldest<ViewItem>>,
) -> Result<Worker<(u64, u64)>, ViewError> {
    let mut w = writer::RerunWriter::open(target, "vista")?;
    // Stopped (the recorder dropped without `finish`: a run that failed), it ends at once,
    // flushing what it has logged.
    Worker::spawn("vista-rerun", move |stop| {
        let (mut logged, mut failed) = (0u64, 0u64);
        let mut warned: Vec<&'static str> = Vec::new();
        loop {
            match queue.pop(POLL) {
                Some(item) => {
                    let kind = item.kind();
                    match w.write(item) {
                        Ok(()) => logged += 1,
                        Err(e) => {
                            failed += 1;
                            if !warned.contains(&kind) {
                                warned.push(kind);
                                log::warn!("rerun: a {kind} item was not logged: {e}");
                            }
                        }
                    }
                }
                None if queue.is_done() => break,
                None => {}
            }
            if stop.is_stopped() {
                break;
            }
        }
        w.finish();
        (logged, failed)
    })
    .map_err(|e| ViewError::Thread(e.to_string()))
}

#[cfg(not(feature = "rerun"))]
fn spawn_logger(
    _target: &ViewTarget,
    _queue: Arc<DropOldest<ViewItem>>,
) -> Result<Worker<(u64, u64)>, ViewError> {
    Err(ViewError::NotBuilt)
}
