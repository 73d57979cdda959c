//! eSpeak NG's worker process dies the ways a crash inside the C library kills it (an
//! abort mid-utterance, a kill between utterances), and vista goes on
//! speaking: the utterance it was on is lost or tried again, a fresh worker takes the next.
//!
//! One test: the engine and its counters are process-wide.

use std::time::{Duration, Instant};

use vista::speech::tts::{use_worker_process, worker_stats, WorkerCommand, WorkerError};
use vista::speech::{Flow, Tts, TtsError, VoiceParams};

const LONG: &str = "The exit door is at one o'clock, about seven metres ahead, past the bench \
                    on your left and the pillar on your right; the corridor turns after it.";

/// The worker processes of this test process (children running `vista`).
fn workers() -> Vec<i32> {
    let me = std::process::id().to_string();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: the command name may hold spaces, so split after ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let ppid = rest.split_whitespace().nth(1);
        let state = rest.split_whitespace().next();
        if head.ends_with("(vista") && ppid == Some(me.as_str()) && state != Some("Z") {
            pids.push(pid);
        }
    }
    pids
}

fn the_worker() -> i32 {
    let w = workers();
    assert_eq!(w.len(), 1, "worker processes {w:?}");
    w[0]
}

fn signal(pid: i32, sig: i32) {
    // SAFETY: plain FFI call; `pid` is a child of this process that has not been reaped.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
}

#[test]
fn a_crashed_worker_costs_one_utterance_and_speech_goes_on() {
    assert!(use_worker_process(WorkerCommand {
        program: env!("CARGO_BIN_EXE_vista").into(),
        args: vec!["tts-worker".into()],
    }));
    let t = Tts::new(VoiceParams::default()).unwrap();
    let whole = t.synthesize_to_vec(LONG).unwrap().len();
    assert!(whole > 22_050 * 3, "{whole} samples");
    let first = the_worker();
    assert_eq!(worker_stats().started, 1);

    // An abort in the middle of an utterance (as glibc ends a process whose heap a library
    // corrupted; a SIGSEGV sent from outside is not one: Rust's own handler lets the first
    // pass): what was delivered stays delivered, the rest is lost, and the error says how
    // the worker ended.
    let mut got = 0;
    let crashed = t.synthesize(LONG, |s| {
        if got == 0 {
            signal(first, libc::SIGABRT);
        }
        got += s.len();
        Flow::Continue
    });
    match crashed {
        Err(TtsError::Worker(WorkerError::Crashed(what))) => {
            assert!(what.contains("signal 6"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    assert!(got > 0 && got < whole, "{got} of {whole}");
    let s = worker_stats();
    assert_eq!((s.crashed, s.lost, s.retried), (1, 1, 0), "{s:?}");

    // The next utterance is whole, from a new worker.
    let again = t.synthesize_to_vec("Stop, person.").unwrap();
    assert!(again.len() > 22_050 / 2, "{} samples", again.len());
    let second = the_worker();
    assert_ne!(second, first);
    assert_eq!(worker_stats().started, 2);

    // Killed while idle: the next request finds it gone and is tried again in a fresh
    // worker, and nothing is lost.
    signal(second, libc::SIGKILL);
    let t0 = Instant::now();
    let phonemes = t.phonemes("Stop, person.").unwrap();
    assert_eq!(phonemes.len(), 2, "{phonemes:?}");
    let retried = t.synthesize_to_vec(LONG).unwrap().len();
    assert!(
        (retried as f64 / whole as f64 - 1.0).abs() < 0.025,
        "{retried} vs {whole}"
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    let s = worker_stats();
    assert_eq!(
        (s.crashed, s.lost, s.retried, s.started),
        (2, 1, 1, 3),
        "{s:?}"
    );

    // A worker that pauses mid-utterance (stopped for 300 ms, well inside its stall
    // timeout) is waited for, not replaced: the utterance comes whole.
    let third = the_worker();
    let mut stopped = false;
    let resumed = t
        .synthesize(LONG, |_| {
            if !stopped {
                stopped = true;
                signal(third, libc::SIGSTOP);
                std::thread::sleep(Duration::from_millis(300));
                signal(third, libc::SIGCONT);
            }
            Flow::Continue
        })
        .unwrap();
    assert!(!resumed.stopped);
    assert!(
        (resumed.samples as f64 / whole as f64 - 1.0).abs() < 0.025,
        "{} vs {whole}",
        resumed.samples
    );
    assert_eq!(worker_stats().crashed, 2);
}
