//! State shared by the threads of one run, and the messages between them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::buffer::BufferSet;
use crate::profile::Profiler;
use crate::stop::{StopHandle, StopReason};
use crate::time::{Clock, HostTime};

/// What ingest tells a consumer thread.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wake {
    /// New samples were pushed (real-time modes; may be coalesced).
    New,
    /// Lock step: run now, with this `now`, then acknowledge.
    Round {
        /// The virtual present.
        now: HostTime,
    },
}

/// A consumer's answer to a lock-step round: `Err` carries its error message.
pub(crate) type Ack = Result<(), String>;

/// State shared by ingest and the consumer threads.
pub(crate) struct Shared {
    pub buffers: Arc<BufferSet>,
    pub profiler: Profiler,
    /// Set by ingest at the first sample.
    pub clock: OnceLock<Arc<dyn Clock>>,
    pub stop: StopHandle,
    pub ctrl_c: Option<Arc<AtomicBool>>,
    failed: AtomicBool,
    failure: Mutex<Option<StopReason>>,
}

impl Shared {
    pub fn new(buffers: Arc<BufferSet>, stop: StopHandle, ctrl_c: Option<Arc<AtomicBool>>) -> Self {
        Self {
            buffers,
            profiler: Profiler::new(),
            clock: OnceLock::new(),
            stop,
            ctrl_c,
            failed: AtomicBool::new(false),
            failure: Mutex::new(None),
        }
    }

    /// Records the first consumer failure (later ones are only logged).
    pub fn fail(&self, consumer: &str, message: String) {
        log::error!("consumer {consumer} failed: {message}");
        let mut g = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            *g = Some(StopReason::ConsumerFailed {
                consumer: consumer.to_string(),
                message,
            });
        }
        self.failed.store(true, Ordering::Release);
    }

    /// The reason to stop now, if any: a consumer failure, Ctrl-C, or the stop handle.
    pub fn stop_reason(&self) -> Option<StopReason> {
        if self.failed.load(Ordering::Acquire) {
            return self
                .failure
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
        }
        if self
            .ctrl_c
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Acquire))
        {
            return Some(StopReason::Interrupted);
        }
        if self.stop.is_stopped() {
            return Some(StopReason::Stopped);
        }
        None
    }
}

/// Interns a consumer name as a `&'static str` stage name. At most 256 distinct names are
/// kept (later ones share the name `consumer`), so memory stays bounded.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = g.iter().find(|n| **n == name) {
        return n;
    }
    if g.len() >= 256 {
        return "consumer";
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    g.push(leaked);
    leaked
}
