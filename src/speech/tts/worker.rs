//! The eSpeak NG worker: the child process vista runs its speech synthesis in (`vista
//! tts-worker`, started by [`super::process`]), so that a crash inside the C library ends
//! the worker, not the assistant.
//!
//! It reads [`Command`]s on standard input and writes [`Reply`]s on standard output (see
//! [`super::wire`]): `Ready` once the library is initialised, then one answer per request.
//! Samples flow under a window of [`ACK_WINDOW`] blocks: each block is acknowledged by the
//! parent, and a `false` acknowledgement stops the utterance at eSpeak NG's next callback.
//! A thread reads standard input into a bounded channel, so acknowledgements are taken
//! without blocking while the window has room. The worker ends, with success, when its
//! standard input closes (the parent has gone or let it go).

use std::cell::RefCell;
use std::io::{BufReader, BufWriter, Read, Write};
use std::rc::Rc;

use crossbeam_channel::{bounded, Receiver, TryRecvError};

use super::wire::{pump, read_command, write_reply, Command, Reply, WireError, WorkerCpu};
use crate::speech::espeak_ffi::{Engine, EspeakError};

/// Blocks of samples the worker may send before their acknowledgements come back.
pub const ACK_WINDOW: usize = 16;
/// eSpeak NG's callback block length, in milliseconds of audio.
pub const BUFFER_MS: u32 = 20;

type Link = Receiver<Result<Command, WireError>>;

/// Serves requests from `input` to `output` until `input` closes. Initialises eSpeak NG
/// first (once per process); an initialisation failure is reported as
/// [`Reply::InitFailed`] and ends the worker with success (the parent decides).
pub fn serve(
    input: impl Read + Send + 'static,
    output: impl Write + 'static,
) -> Result<(), WireError> {
    let out = Rc::new(RefCell::new(BufWriter::new(output)));
    let mut engine = match Engine::init(BUFFER_MS) {
        Ok(e) => e,
        Err(e) => {
            let code = match e {
                EspeakError::Init { code } => code,
                _ => -1,
            };
            return write_reply(&mut *out.borrow_mut(), &Reply::InitFailed { code });
        }
    };
    write_reply(
        &mut *out.borrow_mut(),
        &Reply::Ready {
            sample_rate_hz: engine.sample_rate_hz(),
        },
    )?;
    let (tx, link) = bounded::<Result<Command, WireError>>(ACK_WINDOW + 2);
    std::thread::Builder::new()
        .name("vista-tts-stdin".into())
        .spawn(move || pump(BufReader::new(input), read_command, &tx))?;
    let mut voice: Option<String> = None;
    loop {
        let cmd = match link.recv() {
            Ok(Ok(cmd)) => cmd,
            Ok(Err(WireError::Closed)) | Err(_) => return Ok(()),
            Ok(Err(e)) => return Err(e),
        };
        match cmd {
            Command::Synth {
                voice: wanted,
                rate_wpm,
                pitch,
                volume,
                end_pause,
                text,
            } => {
                let params = (rate_wpm, pitch, volume, end_pause);
                let result = synth(&mut engine, &mut voice, &wanted, params, &text, &out, &link)?;
                write_reply(
                    &mut *out.borrow_mut(),
                    &Reply::SynthDone {
                        result,
                        cpu: cpu_now(),
                    },
                )?;
            }
            Command::Phonemes {
                voice: wanted,
                text,
            } => {
                let result = select_voice(&mut engine, &mut voice, &wanted)
                    .and_then(|()| engine.text_to_phonemes(&text));
                write_reply(
                    &mut *out.borrow_mut(),
                    &Reply::PhonemesDone {
                        result,
                        cpu: cpu_now(),
                    },
                )?;
            }
            // An acknowledgement outside an utterance is out of order: the parent only
            // acknowledges blocks, and every block is acknowledged before `SynthDone`.
            Command::Ack { .. } => {
                return Err(WireError::Malformed {
                    what: "acknowledgement outside an utterance",
                })
            }
        }
    }
}

/// The worker's CPU time so far.
fn cpu_now() -> WorkerCpu {
    let (user_ns, system_ns, _) = crate::sys::process_usage().unwrap_or((0, 0, 0));
    WorkerCpu { user_ns, system_ns }
}

/// Selects `wanted` unless it is the voice already selected.
pub(super) fn select_voice(
    engine: &mut Engine,
    voice: &mut Option<String>,
    wanted: &str,
) -> Result<(), EspeakError> {
    if voice.as_deref() != Some(wanted) {
        *voice = None;
        engine.set_voice(wanted)?;
        *voice = Some(wanted.to_string());
    }
    Ok(())
}

/// The window's state during one utterance.
#[derive(Default)]
struct Window {
    /// Blocks sent and not yet acknowledged.
    outstanding: usize,
    /// The parent asked to stop.
    stopped: bool,
    /// The link failed (the worker ends after the utterance).
    broken: Option<WireError>,
}

impl Window {
    /// Takes the acknowledgements that have arrived, waiting for one while the window is
    /// full (or, with `all`, until none is outstanding).
    fn take_acks(&mut self, link: &Link, all: bool) {
        while self.broken.is_none() {
            let must_wait = if all {
                self.outstanding > 0
            } else {
                self.outstanding >= ACK_WINDOW
            };
            let next = if must_wait {
                link.recv().map_err(|_| WireError::Closed)
            } else {
                match link.try_recv() {
                    Ok(m) => Ok(m),
                    Err(TryRecvError::Empty) => return,
                    Err(TryRecvError::Disconnected) => Err(WireError::Closed),
                }
            };
            match next.and_then(|m| m) {
                Ok(Command::Ack { go_on }) if self.outstanding > 0 => {
                    self.outstanding -= 1;
                    self.stopped |= !go_on;
                }
                Ok(_) => {
                    self.broken = Some(WireError::Malformed {
                        what: "request during an utterance",
                    })
                }
                Err(e) => self.broken = Some(e),
            }
        }
    }
}

fn synth(
    engine: &mut Engine,
    voice: &mut Option<String>,
    wanted: &str,
    (rate_wpm, pitch, volume, end_pause): (u32, u32, u32, bool),
    text: &str,
    out: &Rc<RefCell<BufWriter<impl Write + 'static>>>,
    link: &Link,
) -> Result<Result<(), EspeakError>, WireError> {
    let set = select_voice(engine, voice, wanted)
        .and_then(|()| engine.set_rate_wpm(clamp_i32(rate_wpm)))
        .and_then(|()| engine.set_pitch(clamp_i32(pitch)))
        .and_then(|()| engine.set_volume(clamp_i32(volume)));
    if let Err(e) = set {
        return Ok(Err(e));
    }
    let window = Rc::new(RefCell::new(Window::default()));
    let result = {
        let (window, out, link) = (Rc::clone(&window), Rc::clone(out), link.clone());
        engine.synth(text, end_pause, move |samples| {
            let mut w = window.borrow_mut();
            if let Err(e) = write_reply(&mut *out.borrow_mut(), &Reply::Chunk(samples.to_vec())) {
                w.broken = Some(e);
                return false;
            }
            w.outstanding += 1;
            w.take_acks(&link, false);
            !w.stopped && w.broken.is_none()
        })
    };
    let mut w = window.borrow_mut();
    w.take_acks(link, true);
    match w.broken.take() {
        Some(e) => Err(e),
        None => Ok(result),
    }
}

fn clamp_i32(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}
