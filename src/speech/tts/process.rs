//! The supervised eSpeak NG worker process, seen from vista: started on first use, fed one
//! request at a time, killed when its link fails or stalls, and started again.
//!
//! eSpeak NG 1.51 (Debian 12's) can crash on its own inputs: fuzzing found overflows in its
//! text handling (CVE-2023-49990 to 49994), and vista's own tests have seen a segmentation
//! fault inside `espeak_Synth` on odd Unicode. Sign text read by OCR and answers from a
//! language model reach it. In a worker process such a crash costs one utterance; the next
//! one is spoken by a fresh worker. An utterance that nothing of was delivered yet is tried
//! once more in the fresh worker (a crash that depends on what the library said before
//! does not repeat); one that crashes again is lost (counted, and the caller's error says
//! so). After [`MAX_CRASHES_IN_A_ROW`] crashes without a request served in between, the
//! engine is given up for the rest of the run, so a worker that cannot start is not
//! restarted forever.
//!
//! The worker runs in its own process group, so a Ctrl-C at the terminal reaches vista,
//! which ends the run in order, and not the worker under it; the worker ends when vista
//! closes its standard input (on exit, or when vista is killed).

use std::ffi::OsString;
use std::io::{BufReader, BufWriter};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, RecvTimeoutError};

use super::wire::{pump, read_reply, write_command, Command, Reply, WireError, WorkerCpu};
use super::worker::ACK_WINDOW;
use crate::speech::espeak_ffi::EspeakError;

/// How long a worker may take to start and initialise eSpeak NG.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a worker may go silent inside a request before it is taken for hung.
const STALL_TIMEOUT: Duration = Duration::from_secs(20);
/// Crashes without a request served in between after which the engine is given up.
pub const MAX_CRASHES_IN_A_ROW: u32 = 3;
/// The CPU stage the workers' CPU time is counted under.
const CPU_STAGE: &str = crate::profile::stages::SPEECH_SYNTHESIS;

/// How to start a worker: a program and its arguments (vista itself, `tts-worker`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// Workers started, crashed and utterances lost, over the process's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Worker processes started.
    pub started: u64,
    /// Workers that died, failed their link, stalled inside a request or failed to start.
    pub crashed: u64,
    /// Requests retried in a fresh worker after a crash.
    pub retried: u64,
    /// Requests lost to crashes (answered with an error).
    pub lost: u64,
}

static STARTED: AtomicU64 = AtomicU64::new(0);
static CRASHED: AtomicU64 = AtomicU64::new(0);
static RETRIED: AtomicU64 = AtomicU64::new(0);
static LOST: AtomicU64 = AtomicU64::new(0);

/// The counts so far.
pub fn stats() -> WorkerStats {
    WorkerStats {
        started: STARTED.load(Ordering::Relaxed),
        crashed: CRASHED.load(Ordering::Relaxed),
        retried: RETRIED.load(Ordering::Relaxed),
        lost: LOST.load(Ordering::Relaxed),
    }
}

/// Why a request to the worker did not complete.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The worker could not be started.
    #[error("cannot start the speech worker {program}: {source}")]
    Spawn {
        /// The executable.
        program: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// eSpeak NG could not be initialised in the worker.
    #[error("eSpeak NG: initialisation failed in the speech worker (code {code})")]
    Init {
        /// What `espeak_Initialize` returned.
        code: i32,
    },
    /// The worker died, broke its link or stalled.
    #[error("the speech worker {0}")]
    Crashed(String),
    /// Too many crashes in a row: the engine is off for the rest of the run.
    #[error("the speech worker crashed {0} times in a row; speech synthesis is off")]
    GivenUp(u32),
}

/// One running worker.
struct Worker {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    replies: Receiver<Result<Reply, WireError>>,
    sample_rate_hz: u32,
    /// Its CPU time as last reported.
    cpu: WorkerCpu,
}

impl Worker {
    fn start(cmd: &WorkerCommand) -> Result<Self, WorkerError> {
        let spawn_err = |source| WorkerError::Spawn {
            program: cmd.program.display().to_string(),
            source,
        };
        let mut child = Process::new(&cmd.program)
            .args(&cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .map_err(spawn_err)?;
        STARTED.fetch_add(1, Ordering::Relaxed);
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(spawn_err(std::io::Error::other("no pipes to the worker")));
        };
        let (tx, replies) = bounded(ACK_WINDOW + 2);
        let reader = std::thread::Builder::new()
            .name("vista-tts-link".into())
            .spawn(move || {
                let _cpu = crate::profile::cpu::account(CPU_STAGE);
                pump(BufReader::new(stdout), read_reply, &tx);
            });
        let mut worker = Self {
            child,
            stdin: BufWriter::new(stdin),
            replies,
            sample_rate_hz: 0,
            cpu: WorkerCpu::default(),
        };
        if let Err(e) = reader {
            return Err(worker.end(&format!("has no reader thread: {e}")));
        }
        match worker.replies.recv_timeout(START_TIMEOUT) {
            Ok(Ok(Reply::Ready { sample_rate_hz })) => {
                worker.sample_rate_hz = sample_rate_hz;
                Ok(worker)
            }
            Ok(Ok(Reply::InitFailed { code })) => {
                let _ = worker.end("could not initialise eSpeak NG");
                Err(WorkerError::Init { code })
            }
            Ok(Ok(_)) => Err(worker.end("answered before it was ready")),
            Ok(Err(e)) => Err(worker.end(&format!("failed while starting: {e}"))),
            Err(_) => Err(worker.end("did not start in time")),
        }
    }

    /// Kills and reaps the worker; the error names what happened and how it ended.
    fn end(mut self, what: &str) -> WorkerError {
        let _ = self.child.kill();
        let how = match self.child.wait() {
            Ok(status) => match (status.code(), status.signal()) {
                (_, Some(sig)) => format!(" (it ended on signal {sig})"),
                (Some(code), None) => format!(" (it exited with {code})"),
                _ => String::new(),
            },
            Err(_) => String::new(),
        };
        WorkerError::Crashed(format!("{what}{how}"))
    }

    fn send(&mut self, cmd: &Command) -> Result<(), String> {
        write_command(&mut self.stdin, cmd).map_err(|e| format!("did not take a request: {e}"))
    }

    fn next(&mut self, stall: Duration) -> Result<Reply, String> {
        match self.replies.recv_timeout(stall) {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(WireError::Closed)) | Err(RecvTimeoutError::Disconnected) => {
                Err("stopped answering".to_string())
            }
            Ok(Err(e)) => Err(format!("sent a bad frame: {e}")),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "went silent for {:.1} s inside a request",
                stall.as_secs_f64()
            )),
        }
    }

    /// Counts the CPU the worker used since it last reported.
    fn account(&mut self, cpu: WorkerCpu) {
        let user = cpu.user_ns.saturating_sub(self.cpu.user_ns).max(0);
        let system = cpu.system_ns.saturating_sub(self.cpu.system_ns).max(0);
        crate::profile::cpu::add_worker_process(CPU_STAGE, user, system);
        self.cpu = cpu;
    }
}

/// A synthesis request relayed to the worker.
pub struct SynthJob<'a> {
    /// The request as sent.
    pub command: Command,
    /// Called with each block; `false` stops the utterance (the worker is told at once).
    pub on_block: &'a mut dyn FnMut(Vec<i16>) -> bool,
}

/// Starts workers and relays requests to them, one at a time.
pub struct Supervisor {
    command: WorkerCommand,
    worker: Option<Worker>,
    crashes_in_a_row: u32,
    /// How long a worker may go silent inside a request.
    stall: Duration,
}

impl Supervisor {
    /// Starts the first worker; its sample rate is the engine's.
    pub fn start(command: WorkerCommand) -> Result<(Self, u32), WorkerError> {
        let worker = Worker::start(&command)?;
        let rate = worker.sample_rate_hz;
        Ok((
            Self {
                command,
                worker: Some(worker),
                crashes_in_a_row: 0,
                stall: STALL_TIMEOUT,
            },
            rate,
        ))
    }

    fn worker(&mut self) -> Result<&mut Worker, WorkerError> {
        if self.crashes_in_a_row >= MAX_CRASHES_IN_A_ROW {
            return Err(WorkerError::GivenUp(self.crashes_in_a_row));
        }
        if self.worker.is_none() {
            match Worker::start(&self.command) {
                Ok(w) => self.worker = Some(w),
                Err(e) => {
                    self.crashes_in_a_row += 1;
                    CRASHED.fetch_add(1, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        self.worker
            .as_mut()
            .ok_or_else(|| WorkerError::Crashed("is not running".into()))
    }

    /// Ends the worker after a failure of its link and counts the crash.
    fn crashed(&mut self, what: String) -> WorkerError {
        self.crashes_in_a_row += 1;
        CRASHED.fetch_add(1, Ordering::Relaxed);
        let err = match self.worker.take() {
            Some(w) => w.end(&what),
            None => WorkerError::Crashed(what),
        };
        log::warn!(
            "speech: {err}; a new worker takes over ({} crash(es) in a row)",
            self.crashes_in_a_row
        );
        err
    }

    /// Speaks one request; blocks are handed to `on_block` as they come.
    pub fn synth(&mut self, job: SynthJob<'_>) -> Result<Result<(), EspeakError>, WorkerError> {
        let mut delivered = false;
        let mut tries = 0;
        loop {
            tries += 1;
            match self.synth_once(&job.command, job.on_block, &mut delivered) {
                Ok(result) => {
                    self.crashes_in_a_row = 0;
                    return Ok(result);
                }
                Err(e @ (WorkerError::GivenUp(_) | WorkerError::Spawn { .. })) => {
                    LOST.fetch_add(1, Ordering::Relaxed);
                    return Err(e);
                }
                Err(e) => {
                    if delivered || tries > 1 {
                        LOST.fetch_add(1, Ordering::Relaxed);
                        return Err(e);
                    }
                    RETRIED.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    fn synth_once(
        &mut self,
        command: &Command,
        on_block: &mut dyn FnMut(Vec<i16>) -> bool,
        delivered: &mut bool,
    ) -> Result<Result<(), EspeakError>, WorkerError> {
        let stall = self.stall;
        let worker = self.worker()?;
        let outcome = (|| {
            worker.send(command)?;
            let mut go_on = true;
            loop {
                match worker.next(stall)? {
                    Reply::Chunk(samples) => {
                        if go_on {
                            *delivered = true;
                            go_on = on_block(samples);
                        }
                        worker.send(&Command::Ack { go_on })?;
                    }
                    Reply::SynthDone { result, cpu } => {
                        worker.account(cpu);
                        return Ok(result);
                    }
                    _ => return Err("answered out of turn".to_string()),
                }
            }
        })();
        outcome.map_err(|what| self.crashed(what))
    }

    /// The IPA phonemes of `text` in `voice`, one string per clause.
    pub fn phonemes(
        &mut self,
        voice: &str,
        text: &str,
    ) -> Result<Result<Vec<String>, EspeakError>, WorkerError> {
        let command = Command::Phonemes {
            voice: voice.to_string(),
            text: text.to_string(),
        };
        let mut tries = 0;
        loop {
            tries += 1;
            let stall = self.stall;
            let worker = self.worker()?;
            let outcome = (|| {
                worker.send(&command)?;
                match worker.next(stall)? {
                    Reply::PhonemesDone { result, cpu } => {
                        worker.account(cpu);
                        Ok(result)
                    }
                    _ => Err("answered out of turn".to_string()),
                }
            })();
            match outcome {
                Ok(result) => {
                    self.crashes_in_a_row = 0;
                    return Ok(result);
                }
                Err(what) => {
                    let e = self.crashed(what);
                    if tries > 1 {
                        LOST.fetch_add(1, Ordering::Relaxed);
                        return Err(e);
                    }
                    RETRIED.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        // Nothing is in flight between requests: end the worker and reap it.
        if let Some(mut w) = self.worker.take() {
            let _ = w.child.kill();
            let _ = w.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker that says it is ready (22 050 Hz) and then runs `then` in `sh`.
    fn fake(then: &str) -> WorkerCommand {
        WorkerCommand {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                format!(r"printf '\020\004\000\000\000\042\126\000\000'; {then}").into(),
            ],
        }
    }

    fn say(sup: &mut Supervisor) -> Result<Result<(), EspeakError>, WorkerError> {
        let mut on_block = |_: Vec<i16>| true;
        sup.synth(SynthJob {
            command: Command::Synth {
                voice: "en-us".into(),
                rate_wpm: 175,
                pitch: 50,
                volume: 100,
                end_pause: false,
                text: "Stop, person.".into(),
            },
            on_block: &mut on_block,
        })
    }

    #[test]
    fn a_worker_that_keeps_dying_is_given_up_after_a_bounded_number_of_starts() {
        let (mut sup, rate) = Supervisor::start(fake("exit 0")).unwrap();
        assert_eq!(rate, 22_050);
        // Dies at the request; tried again in a fresh worker, which dies too: lost.
        match say(&mut sup) {
            Err(WorkerError::Crashed(what)) => assert!(what.contains("exited with 0"), "{what}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(sup.crashes_in_a_row, 2);
        // The next request's worker dies too: the third crash in a row gives the engine up,
        // and nothing more is started.
        assert!(matches!(say(&mut sup), Err(WorkerError::GivenUp(3))));
        assert!(sup.worker.is_none());
        assert!(matches!(say(&mut sup), Err(WorkerError::GivenUp(3))));
        assert!(matches!(
            sup.phonemes("en-us", "hello"),
            Err(WorkerError::GivenUp(3))
        ));
    }

    #[test]
    fn a_silent_or_garbling_worker_is_replaced() {
        let (mut sup, _) = Supervisor::start(fake("sleep 30")).unwrap();
        sup.stall = Duration::from_millis(300);
        let t0 = std::time::Instant::now();
        match say(&mut sup) {
            Err(WorkerError::Crashed(what)) => {
                assert!(what.contains("went silent"), "{what}");
                assert!(what.contains("signal 9"), "{what}");
            }
            other => panic!("{other:?}"),
        }
        // Two tries, each given up after the stall timeout: not 30 s.
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        // A frame whose length is beyond every bound.
        let (mut sup, _) =
            Supervisor::start(fake(r"printf '\040\377\377\377\377'; sleep 30")).unwrap();
        match sup.phonemes("en-us", "hello") {
            Err(WorkerError::Crashed(what)) => assert!(what.contains("bad frame"), "{what}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_missing_program_or_a_failed_initialisation_is_a_typed_error() {
        let missing = WorkerCommand {
            program: "/nonexistent/vista".into(),
            args: vec![],
        };
        assert!(matches!(
            Supervisor::start(missing),
            Err(WorkerError::Spawn { .. })
        ));
        // InitFailed (tag 0x11) with code -1.
        let init_failed = WorkerCommand {
            program: "/bin/sh".into(),
            args: vec![
                "-c".into(),
                r"printf '\021\004\000\000\000\377\377\377\377'".into(),
            ],
        };
        assert!(matches!(
            Supervisor::start(init_failed),
            Err(WorkerError::Init { code: -1 })
        ));
    }
}
