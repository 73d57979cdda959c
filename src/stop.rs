//! Why and how a run stops: the stop handle, the process-wide interrupt flag (SIGINT, and
//! SIGTERM / SIGHUP through `ctrlc`'s `termination` feature), stop reasons.
//!
//! A signal sets the flag *and* stops every [`StopHandle`] registered with
//! [`stop_on_interrupt`], so code blocked outside the ingest loop (a live source waiting for
//! the next connection, a device simulator between frames) ends at once rather than at the
//! second signal.
//!
//! It depends on nothing else in the crate: the runtime, the live sources and the device
//! simulator all hold a [`StopHandle`], and the runtime re-exports this module's items.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Asks a run to stop in order (all threads finish their current step and are joined).
/// Cheap to clone; every clone stops the same run.
#[derive(Clone, Debug, Default)]
pub struct StopHandle(Arc<AtomicBool>);

impl StopHandle {
    /// A handle that has not been triggered.
    pub fn new() -> Self {
        Self::default()
    }
    /// Requests the stop.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Release);
    }
    /// True once [`StopHandle::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum StopReason {
    /// The source had no more samples.
    EndOfSource,
    /// A sample was captured after the configured end time.
    EndOfRange,
    /// [`StopHandle::stop`] was called.
    Stopped,
    /// Ctrl-C.
    Interrupted,
    /// The source failed and cannot continue; what it delivered before is in the report.
    SourceFailed {
        /// The source's error.
        message: String,
    },
    /// A consumer returned an error (or panicked).
    ConsumerFailed {
        /// The consumer's name.
        consumer: String,
        /// Its error.
        message: String,
    },
}

impl StopReason {
    /// True when the run ended because something failed.
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            StopReason::SourceFailed { .. } | StopReason::ConsumerFailed { .. }
        )
    }
}

static CTRL_C: OnceLock<Option<Arc<AtomicBool>>> = OnceLock::new();

/// Stop handles to trigger on a signal (weak: a finished run's handle is pruned).
static ON_INTERRUPT: Mutex<Vec<Weak<AtomicBool>>> = Mutex::new(Vec::new());

/// Installs the signal handler (see [`ctrl_c_flag`]) and registers `stop` to be stopped by
/// the next SIGINT / SIGTERM / SIGHUP. Returns false when no handler could be installed.
pub fn stop_on_interrupt(stop: &StopHandle) -> bool {
    if ctrl_c_flag_uncleared().is_none() {
        return false;
    }
    let mut g = ON_INTERRUPT.lock().unwrap_or_else(|e| e.into_inner());
    g.retain(|w| w.strong_count() > 0);
    g.push(Arc::downgrade(&stop.0));
    true
}

/// Runs on the `ctrlc` handler thread (not in signal context: locking is fine).
fn on_signal(flag: &AtomicBool) {
    let again = flag.swap(true, Ordering::AcqRel);
    let g = ON_INTERRUPT.lock().unwrap_or_else(|e| e.into_inner());
    for h in g.iter().filter_map(Weak::upgrade) {
        h.store(true, Ordering::Release);
    }
    drop(g);
    if again {
        log::warn!("second interrupt: exiting at once (status 130)");
        std::process::exit(130);
    }
    log::warn!("interrupted: stopping (outputs are being written; a second signal exits at once)");
}

/// Installs the process's signal handler once (later calls reuse it) and returns its flag,
/// cleared; `None` when the handler could not be installed (e.g. another one exists). The
/// handler catches SIGINT, SIGTERM and SIGHUP alike. The first signal sets the flag and
/// stops every handle registered with [`stop_on_interrupt`]; a second one, while the flag
/// is still set, exits the process with status 130.
pub fn ctrl_c_flag() -> Option<Arc<AtomicBool>> {
    let flag = ctrl_c_flag_uncleared()?;
    flag.store(false, Ordering::Release);
    Some(flag)
}

/// The flag without clearing it (installs the handler on first use).
fn ctrl_c_flag_uncleared() -> Option<Arc<AtomicBool>> {
    let flag = CTRL_C.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        let installed = ctrlc::set_handler(move || on_signal(&f));
        match installed {
            Ok(()) => Some(flag),
            Err(e) => {
                log::warn!("could not install the Ctrl-C handler: {e}");
                None
            }
        }
    });
    flag.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_handle_clones_share_state_and_reasons_serialise() {
        let a = StopHandle::new();
        let b = a.clone();
        assert!(!a.is_stopped());
        b.stop();
        assert!(a.is_stopped());
        let r = StopReason::ConsumerFailed {
            consumer: "ocr".into(),
            message: "model missing".into(),
        };
        assert!(r.is_error() && !StopReason::Interrupted.is_error());
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["reason"], "consumer-failed");
        assert_eq!(v["consumer"], "ocr");
        assert_eq!(
            serde_json::to_value(StopReason::EndOfSource).unwrap()["reason"],
            "end-of-source"
        );
    }
}
