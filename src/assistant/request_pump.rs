//! Real time: live requests answered the moment they are made, not at the next perception
//! state.
//!
//! The assistant otherwise sees requests only when perception hands it a state (every
//! 50 ms of device time), so a live request waited up to a tick — an eighth of the 400 ms
//! budget for question → first audio — before anything happened. A [`RequestPump`] thread
//! waits on the live queue (standard input, the socket) and has the assistant answer each
//! request from the newest state at once ([`Assistant::request_now`]); the perception path
//! still answers whatever the pump has not taken. Scripted requests (`requests.jsonl`) stay
//! with the states: each is answered from the first state at or after its device time, in
//! live runs, real-time replays and lock-step replays alike, so those runs answer alike.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::requests::RequestQueue;
use super::Assistant;
use crate::stop::StopHandle;
use crate::worker::{Worker, WorkerError};

/// The longest the pump waits between looks at its stop handle.
const STOP_POLL: Duration = Duration::from_millis(50);

/// The pump thread; stopped and joined on drop (or [`RequestPump::stop`]).
pub struct RequestPump {
    worker: Option<Worker>,
}

impl std::fmt::Debug for RequestPump {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestPump").finish_non_exhaustive()
    }
}

impl RequestPump {
    /// Starts pumping `assistant`'s live requests into it; `None` when it takes none.
    pub fn start(assistant: Arc<Mutex<Assistant>>) -> Result<Option<Self>, WorkerError> {
        let Some(queue) = assistant.lock().ok().and_then(|a| a.live_queue()) else {
            return Ok(None);
        };
        let worker = Worker::spawn("vista-requests", move |stop| {
            pump(&assistant, &queue, &stop)
        })?;
        Ok(Some(Self {
            worker: Some(worker),
        }))
    }

    /// Stops the thread and waits for it.
    pub fn stop(&mut self) {
        if let Some(w) = self.worker.take() {
            w.stop();
            if let Err(e) = w.join() {
                log::error!("assistant: {e}");
            }
        }
    }
}

impl Drop for RequestPump {
    fn drop(&mut self) {
        self.stop();
    }
}

fn pump(assistant: &Mutex<Assistant>, queue: &RequestQueue, stop: &StopHandle) {
    let _cpu = crate::profile::cpu::account(crate::profile::stages::REQUESTS);
    while !stop.is_stopped() {
        let Some(r) = queue.take_timeout(STOP_POLL) else {
            continue;
        };
        match assistant.lock() {
            Ok(mut a) => a.request_now(r),
            Err(_) => return,
        }
    }
}
