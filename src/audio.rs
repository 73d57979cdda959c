//! Sound devices through `cpal`, for the speech device and the microphone alike: a stream
//! kept on a thread of its own (`cpal` streams need not be `Send`), alsa-lib's own
//! diagnostics kept off stderr there (vista reports a failure in one log line), and the
//! wait until a started stream's callback has really run.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Sender};

/// A `cpal` stream living on its own thread until [`StreamThread::close`] (or drop).
#[derive(Debug)]
pub struct StreamThread {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl StreamThread {
    /// Runs `start` on a new thread named `name`: it builds and plays the stream and returns
    /// it with what the caller keeps (`O`), or its error. The stream stays on that thread
    /// until closed. `fail` makes the caller's error when the thread cannot be spawned or
    /// exits without an answer.
    pub fn spawn<O, E>(
        name: &str,
        start: impl FnOnce() -> Result<(cpal::Stream, O), E> + Send + 'static,
        fail: impl Fn(String) -> E,
    ) -> Result<(Self, O), E>
    where
        O: Send + 'static,
        E: Send + 'static,
    {
        let (ready_tx, ready_rx) = bounded::<Result<O, E>>(1);
        let (stop_tx, stop_rx) = bounded::<()>(1);
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                quiet_alsa_on_this_thread();
                match start() {
                    Ok((stream, kept)) => {
                        if ready_tx.send(Ok(kept)).is_ok() {
                            let _ = stop_rx.recv();
                        }
                        drop(stream);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                }
            })
            .map_err(|e| fail(format!("cannot spawn the thread {name}: {e}")))?;
        let answer = ready_rx.recv();
        let mut me = Self {
            stop: Some(stop_tx),
            thread: Some(thread),
        };
        match answer {
            Ok(Ok(kept)) => Ok((me, kept)),
            Ok(Err(e)) => {
                me.close();
                Err(e)
            }
            Err(_) => {
                me.close();
                Err(fail(format!("the thread {name} exited")))
            }
        }
    }

    /// Stops the stream and joins its thread (again: nothing).
    pub fn close(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for StreamThread {
    fn drop(&mut self) {
        self.close();
    }
}

/// Waits until `callbacks` counts a callback: `false` when `failed` is set first or
/// `timeout` passes.
pub fn first_callback(callbacks: &AtomicU64, failed: &AtomicBool, timeout: Duration) -> bool {
    let t0 = Instant::now();
    while callbacks.load(Ordering::Acquire) == 0 {
        if failed.load(Ordering::Acquire) || t0.elapsed() > timeout {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    true
}

/// Keeps alsa-lib's own diagnostics (several lines on stderr when there is no sound card)
/// off stderr for the calling thread: vista reports the failure in one log line instead.
#[cfg(target_os = "linux")]
fn quiet_alsa_on_this_thread() {
    use std::ffi::{c_char, c_int, c_void};
    type Handler = unsafe extern "C" fn(
        *const c_char,
        c_int,
        *const c_char,
        c_int,
        *const c_char,
        *mut c_void,
    );
    #[link(name = "asound")]
    extern "C" {
        fn snd_lib_error_set_local(handler: Option<Handler>) -> Option<Handler>;
    }
    unsafe extern "C" fn ignore(
        _file: *const c_char,
        _line: c_int,
        _function: *const c_char,
        _err: c_int,
        _fmt: *const c_char,
        _args: *mut c_void,
    ) {
    }
    // SAFETY: installs a thread-local handler that reads none of its arguments.
    unsafe {
        snd_lib_error_set_local(Some(ignore));
    }
}

#[cfg(not(target_os = "linux"))]
fn quiet_alsa_on_this_thread() {}
