//! [`Worker`]: the library's one way to own a thread. A worker is a named thread that is
//! asked to stop through a [`StopHandle`] of its own (the closure gets a clone), is joined
//! on drop or by [`Worker::join`], and reports a panic in it as a typed [`WorkerError`]
//! instead of passing it on. What the thread computes is the closure's business: a stage
//! that ends when its channel closes or its mailbox says so ignores the handle, and its
//! owner signals it before the worker is dropped (fields drop after the owner's `Drop`).
//!
//! It depends on [`crate::stop`] only, so every module above (sources, runtime, perception,
//! text reading, the assistant) can own its threads the same way.

use std::thread::JoinHandle;

use crate::stop::StopHandle;

/// A worker thread that could not be started or did not end cleanly.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The operating system refused the thread.
    #[error("thread {name}: could not start: {source}")]
    Spawn {
        /// The thread's name.
        name: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The thread panicked.
    #[error("thread {name} panicked: {message}")]
    Panicked {
        /// The thread's name.
        name: String,
        /// The panic's message, when it was a string.
        message: String,
    },
}

/// A named thread, stopped through its [`StopHandle`] and joined on drop: see the module
/// documentation.
#[derive(Debug)]
pub struct Worker<T = ()> {
    name: String,
    stop: StopHandle,
    handle: Option<JoinHandle<T>>,
}

impl<T: Send + 'static> Worker<T> {
    /// Starts the thread `name` running `body`, which gets the worker's stop handle.
    pub fn spawn(
        name: &str,
        body: impl FnOnce(StopHandle) -> T + Send + 'static,
    ) -> Result<Self, WorkerError> {
        Self::spawn_with(name, StopHandle::new(), body)
    }

    /// [`Worker::spawn`] with a stop handle the caller already holds (a run's handle, so
    /// that stopping the run stops this thread too).
    pub fn spawn_with(
        name: &str,
        stop: StopHandle,
        body: impl FnOnce(StopHandle) -> T + Send + 'static,
    ) -> Result<Self, WorkerError> {
        let theirs = stop.clone();
        let handle = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || body(theirs))
            .map_err(|source| WorkerError::Spawn {
                name: name.to_string(),
                source,
            })?;
        Ok(Self {
            name: name.to_string(),
            stop,
            handle: Some(handle),
        })
    }
}

impl<T> Worker<T> {
    /// The thread's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The worker's stop handle (stopping it asks the thread to end).
    pub fn stop_handle(&self) -> &StopHandle {
        &self.stop
    }

    /// Asks the thread to end (it ends when it next looks at its handle).
    pub fn stop(&self) {
        self.stop.stop();
    }

    /// Whether the thread has ended.
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Lets the thread run on unjoined, to its end or the process's (a thread blocked in a
    /// read nothing can interrupt, such as standard input's); its stop handle, returned,
    /// still asks it to end.
    pub fn detach(mut self) -> StopHandle {
        self.handle = None;
        self.stop.clone()
    }

    /// Waits for the thread to end (without asking it to) and returns what it returned.
    pub fn join(mut self) -> Result<T, WorkerError> {
        match self.handle.take() {
            Some(h) => h.join().map_err(|payload| WorkerError::Panicked {
                name: self.name.clone(),
                message: panic_message(payload.as_ref()),
            }),
            // Only `join` and `drop` take the handle, and both consume the worker.
            None => Err(WorkerError::Panicked {
                name: self.name.clone(),
                message: "already joined".into(),
            }),
        }
    }
}

impl<T> Drop for Worker<T> {
    /// Stops the thread (through its handle: a handle shared with a run stops the run too)
    /// and joins it; a panic in it is logged. A detached worker is left alone.
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            self.stop.stop();
            if let Err(payload) = h.join() {
                log::error!(
                    "thread {} panicked: {}",
                    self.name,
                    panic_message(payload.as_ref())
                );
            }
        }
    }
}

/// A panic payload's message, when it is a string.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(not a string)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_returns_its_value_and_carries_its_name() {
        let w = Worker::spawn("test-value", |_| {
            std::thread::current().name().map(str::to_string)
        })
        .unwrap();
        assert_eq!(w.name(), "test-value");
        assert_eq!(w.join().unwrap().as_deref(), Some("test-value"));
    }

    #[test]
    fn a_panic_is_a_typed_error_naming_the_thread() {
        let w = Worker::spawn("test-panic", |_| -> u8 { panic!("boom") }).unwrap();
        match w.join() {
            Err(WorkerError::Panicked { name, message }) => {
                assert_eq!(name, "test-panic");
                assert_eq!(message, "boom");
            }
            other => panic!("expected a panic, got {other:?}"),
        }
    }

    #[test]
    fn dropping_a_worker_stops_it_through_its_handle_and_joins_it() {
        let (tx, rx) = std::sync::mpsc::channel();
        let w = Worker::spawn("test-stop", move |stop| {
            while !stop.is_stopped() {
                std::thread::yield_now();
            }
            let _ = tx.send("stopped");
        })
        .unwrap();
        drop(w);
        // Joined on drop: the thread has already sent before `drop` returned.
        assert_eq!(rx.try_recv(), Ok("stopped"));
    }

    #[test]
    fn a_detached_worker_runs_on_until_its_handle_stops_it() {
        let (tx, rx) = std::sync::mpsc::channel();
        let w = Worker::spawn("test-detach", move |stop| {
            while !stop.is_stopped() {
                std::thread::yield_now();
            }
            let _ = tx.send("stopped");
        })
        .unwrap();
        let stop = w.detach();
        // Dropping it (in `detach`) neither stopped nor joined the thread.
        assert!(rx.try_recv().is_err());
        stop.stop();
        assert_eq!(rx.recv(), Ok("stopped"));
    }

    #[test]
    fn a_shared_stop_handle_stops_the_worker() {
        let run = StopHandle::new();
        let w = Worker::spawn_with("test-shared", run.clone(), |stop| {
            while !stop.is_stopped() {
                std::thread::yield_now();
            }
            7
        })
        .unwrap();
        run.stop();
        assert_eq!(w.join().unwrap(), 7);
    }
}
