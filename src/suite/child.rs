//! One step of a cell as a child `vista` process: its output into a log file, a wall-clock
//! limit, and killed at once when the suite is stopped. A child that crashes ends its cell,
//! never the suite.

use std::ffi::OsString;
use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::error::SuiteError;
use crate::stop::StopHandle;

/// How often a running child is looked at.
const POLL: Duration = Duration::from_millis(50);

/// The log tail kept as a failed step's error.
const TAIL_LINES: usize = 6;

/// How a child ended.
#[derive(Clone, Debug, PartialEq)]
pub enum ChildEnd {
    /// It exited with status 0.
    Done,
    /// It failed: its status (or signal) and the end of its log.
    Failed(String),
    /// It ran past its limit and was killed.
    TimedOut,
    /// The suite was stopped and it was killed.
    Stopped,
}

/// A finished child.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildRun {
    /// How it ended.
    pub end: ChildEnd,
    /// Its wall time, s.
    pub wall_s: f64,
}

/// Runs `exe args…` with stdout and stderr into `log` (`RUST_LOG=warn` unless set).
pub fn run_child(
    exe: &Path,
    args: &[OsString],
    log: &Path,
    limit: Duration,
    stop: &StopHandle,
) -> Result<ChildRun, SuiteError> {
    let out = File::create(log).map_err(|e| SuiteError::io(log, e))?;
    let err = out.try_clone().map_err(|e| SuiteError::io(log, e))?;
    let mut cmd = Command::new(exe);
    cmd.args(args).stdin(Stdio::null()).stdout(out).stderr(err);
    if std::env::var_os("RUST_LOG").is_none() {
        cmd.env("RUST_LOG", "warn");
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|source| SuiteError::Spawn {
        path: exe.to_path_buf(),
        source,
    })?;
    let end = loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break ChildEnd::Done,
            Ok(Some(status)) => break ChildEnd::Failed(format!("{status}: {}", tail(log))),
            Ok(None) => {}
            Err(e) => break ChildEnd::Failed(format!("waiting for it: {e}")),
        }
        let over = start.elapsed() > limit;
        if over || stop.is_stopped() {
            // Already gone is fine: the next wait reaps it either way.
            let _ = child.kill();
            let _ = child.wait();
            break if over {
                ChildEnd::TimedOut
            } else {
                ChildEnd::Stopped
            };
        }
        std::thread::sleep(POLL);
    };
    Ok(ChildRun {
        end,
        wall_s: start.elapsed().as_secs_f64(),
    })
}

/// The last lines of a log, joined (what a failed step said last).
pub fn tail(log: &Path) -> String {
    let text = match std::fs::read(log) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => return format!("(no log {}: {e})", log.display()),
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(TAIL_LINES);
    lines[from..].join(" | ")
}
