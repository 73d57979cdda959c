//! Shared set-up of the tests that load the embedded language model (`llm`,
//! `llm_assistant`, `vlm`): one model test at a time, and the model file or a printed skip
//! (a failure under `CI=true`, where `scripts/setup.sh` has fetched it). Each test binary
//! includes it with `#[path = "common/lm.rs"] mod lm;`.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Mutex;

use vista::infer::ModelFile;

/// Model tests run one at a time: two threads each on a 2-core machine, with OpenMP waiting
/// actively, would otherwise starve each other.
static SERIAL: Mutex<()> = Mutex::new(());

/// Holds the model-test lock (a panicked test does not poison it for the others).
pub fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The fetched SmolLM2 GGUF; `None` (with a printed skip) when it is missing outside CI.
pub fn model_path() -> Option<PathBuf> {
    let p = ModelFile::SmolLm2.path();
    present_or_skip(
        p,
        "language model",
        "run models/fetch (scripts/setup.sh does)",
    )
}

/// `p` when it is a file; else `None` with a printed skip naming `what` and `fix`, or a
/// failure under `CI=true`, where the set-up provides it.
pub fn present_or_skip(p: PathBuf, what: &str, fix: &str) -> Option<PathBuf> {
    if p.is_file() {
        return Some(p);
    }
    let msg = format!("{what} {} is missing: {fix}", p.display());
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg}");
    }
    eprintln!("\n*** SKIPPED: {msg} ***\n");
    None
}
