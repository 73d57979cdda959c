//! Text to speech with eSpeak NG, owned by one dedicated thread.
//!
//! eSpeak NG is not thread-safe, so the library is driven from a single process-wide thread
//! (started by the first [`Tts::new`]); every [`Tts`] handle sends it requests over a channel
//! and receives the samples back in blocks as they are produced. The caller's `on_chunk`
//! runs on the caller's thread and may return [`Flow::Stop`] to interrupt the utterance: the
//! engine sees the flag at its next callback (eSpeak NG stops within ~0.15 ms).
//!
//! Where the library runs is chosen once per process, before the first handle: in a
//! supervised worker process ([`use_worker_process`]; `vista` does this, running itself as
//! `vista tts-worker`), so that a crash inside eSpeak NG costs one utterance and not the
//! run ([`process`], [`worker`], [`wire`]); or, by default for a library user, on the
//! thread itself, in this process.
//!
//! eSpeak NG carries waveform state (glottal phase, pitch flutter) from one utterance to the
//! next, so the same text can come out a few pitch periods longer or shorter (≤ 2 %)
//! depending on what was said before; the first utterance of a process matches the
//! `espeak-ng` tool exactly. Output is therefore deterministic for a given sequence of
//! utterances in a fresh process (which is what a replay is), not per utterance.
//!
//! The same thread also turns text into IPA phonemes ([`Tts::phonemes`]) for the Piper
//! voice ([`crate::speech::piper`]): eSpeak NG is initialised once per process, for both.

pub mod process;
pub mod wire;
pub mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use crossbeam_channel::{bounded, unbounded, Sender};

pub use process::{WorkerCommand, WorkerError, WorkerStats};

use super::espeak_ffi::{Engine, EspeakError};
use process::{Supervisor, SynthJob};
use worker::{select_voice, BUFFER_MS};

/// The slowest rate eSpeak NG supports, in words per minute.
pub const RATE_MIN_WPM: u32 = 80;
/// The fastest rate vista accepts, in words per minute (eSpeak NG speeds up beyond 450).
pub const RATE_MAX_WPM: u32 = 900;
/// Blocks in flight between the engine thread and the caller.
const CHUNKS_IN_FLIGHT: usize = 16;

/// Voice settings for one [`Tts`] handle.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VoiceParams {
    /// eSpeak NG voice name, e.g. `en-us`.
    pub voice: String,
    /// Speaking rate in words per minute ([`RATE_MIN_WPM`]..=[`RATE_MAX_WPM`]).
    pub rate_wpm: u32,
    /// Base pitch, 0–100 (50 is normal).
    pub pitch: u32,
    /// Volume, 0–200 (100 is normal).
    pub volume: u32,
    /// Add a sentence pause after each utterance (off by default: clauses follow each other
    /// with the pauses their punctuation implies).
    pub end_pause: bool,
}

impl Default for VoiceParams {
    fn default() -> Self {
        Self {
            voice: "en-us".to_string(),
            rate_wpm: 175,
            pitch: 50,
            volume: 100,
            end_pause: false,
        }
    }
}

/// What `on_chunk` wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep synthesising.
    Continue,
    /// Stop this utterance now.
    Stop,
}

/// What one call to [`Tts::synthesize`] delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SynthReport {
    /// Samples handed to `on_chunk`.
    pub samples: usize,
    /// True when `on_chunk` returned [`Flow::Stop`].
    pub stopped: bool,
}

/// A text-to-speech failure.
#[derive(Debug, thiserror::Error)]
pub enum TtsError {
    /// The library reported an error.
    #[error(transparent)]
    Espeak(#[from] EspeakError),
    /// The engine could not be started earlier in this process.
    #[error("TTS engine unavailable: {0}")]
    Unavailable(String),
    /// The engine thread has gone.
    #[error("TTS engine thread has stopped")]
    EngineGone,
    /// The worker process failed this request (it is restarted for the next one).
    #[error(transparent)]
    Worker(#[from] WorkerError),
    /// The text is longer than one request may carry.
    #[error("TTS: a text of {len_bytes} bytes is longer than {max_bytes}")]
    TooLong {
        /// The text's length.
        len_bytes: usize,
        /// The most one request carries ([`wire::MAX_TEXT_BYTES`]).
        max_bytes: usize,
    },
    /// A voice setting is out of range.
    #[error("TTS: {parameter} = {value} is outside {min}..={max}")]
    OutOfRange {
        /// Which setting.
        parameter: &'static str,
        /// The rejected value.
        value: u32,
        /// Smallest accepted value.
        min: u32,
        /// Largest accepted value.
        max: u32,
    },
}

enum Msg {
    Chunk(Vec<i16>),
    Done(Result<(), TtsError>),
}

struct Request {
    text: String,
    params: VoiceParams,
    reply: Sender<Msg>,
    cancel: Arc<AtomicBool>,
}

/// Text to IPA phonemes in one voice, answered with one string per clause.
struct PhonemesRequest {
    text: String,
    voice: String,
    reply: Sender<Result<Vec<String>, TtsError>>,
}

/// What the engine thread is asked to do.
enum Job {
    Synth(Request),
    Phonemes(PhonemesRequest),
}

struct EngineThread {
    tx: Sender<Job>,
    sample_rate_hz: u32,
}

/// Where the engine runs, when set before the first handle.
static WORKER: OnceLock<WorkerCommand> = OnceLock::new();

/// Runs eSpeak NG in a supervised worker process started with `command` (see [`process`]).
/// Takes effect only before the first [`Tts::new`] of the process, and only once; returns
/// whether this call set it.
pub fn use_worker_process(command: WorkerCommand) -> bool {
    WORKER.set(command).is_ok() && !ENGINE_STARTED.load(Ordering::Acquire)
}

/// Worker processes started and crashed, and utterances lost, so far.
pub fn worker_stats() -> WorkerStats {
    process::stats()
}

/// Set once the engine thread has been started.
static ENGINE_STARTED: AtomicBool = AtomicBool::new(false);

fn engine() -> Result<&'static EngineThread, TtsError> {
    static ENGINE: OnceLock<Result<EngineThread, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            ENGINE_STARTED.store(true, Ordering::Release);
            start_engine(WORKER.get().cloned())
        })
        .as_ref()
        .map_err(|e| TtsError::Unavailable(e.clone()))
}

/// The engine as the thread drives it: the library in this process, or a worker process.
enum Backend {
    InProcess {
        engine: Engine,
        voice: Option<String>,
    },
    Worker(Supervisor),
}

impl Backend {
    /// Starts the backend on the calling thread; its sample rate.
    fn start(worker: Option<WorkerCommand>) -> Result<(Self, u32), String> {
        match worker {
            Some(cmd) => {
                let (sup, rate) = Supervisor::start(cmd).map_err(|e| e.to_string())?;
                Ok((Backend::Worker(sup), rate))
            }
            None => {
                let engine = Engine::init(BUFFER_MS).map_err(|e| e.to_string())?;
                let rate = engine.sample_rate_hz();
                Ok((
                    Backend::InProcess {
                        engine,
                        voice: None,
                    },
                    rate,
                ))
            }
        }
    }

    fn synth(&mut self, req: &Request) -> Result<(), TtsError> {
        match self {
            Backend::InProcess { engine, voice } => Ok(serve(engine, voice, req)?),
            Backend::Worker(sup) => {
                let cancel = Arc::clone(&req.cancel);
                let reply = req.reply.clone();
                let mut on_block = move |samples: Vec<i16>| {
                    !cancel.load(Ordering::Acquire) && reply.send(Msg::Chunk(samples)).is_ok()
                };
                let job = SynthJob {
                    command: wire::Command::Synth {
                        voice: req.params.voice.clone(),
                        rate_wpm: req.params.rate_wpm,
                        pitch: req.params.pitch,
                        volume: req.params.volume,
                        end_pause: req.params.end_pause,
                        text: req.text.clone(),
                    },
                    on_block: &mut on_block,
                };
                Ok(sup.synth(job)??)
            }
        }
    }

    fn phonemes(&mut self, req: &PhonemesRequest) -> Result<Vec<String>, TtsError> {
        match self {
            Backend::InProcess { engine, voice } => Ok(select_voice(engine, voice, &req.voice)
                .and_then(|()| engine.text_to_phonemes(&req.text))?),
            Backend::Worker(sup) => Ok(sup.phonemes(&req.voice, &req.text)??),
        }
    }
}

fn start_engine(worker: Option<WorkerCommand>) -> Result<EngineThread, String> {
    let (tx, rx) = unbounded::<Job>();
    let (ready_tx, ready_rx) = bounded::<Result<u32, String>>(1);
    std::thread::Builder::new()
        .name("vista-tts".into())
        .spawn(move || {
            let _cpu = crate::profile::cpu::account(crate::profile::stages::SPEECH_SYNTHESIS);
            let mut backend = match Backend::start(worker) {
                Ok((b, rate)) => {
                    let _ = ready_tx.send(Ok(rate));
                    b
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            for job in rx {
                match job {
                    Job::Synth(req) => {
                        let result = backend.synth(&req);
                        let _ = req.reply.send(Msg::Done(result));
                    }
                    Job::Phonemes(req) => {
                        let result = backend.phonemes(&req);
                        let _ = req.reply.send(result);
                    }
                }
            }
        })
        .map_err(|e| format!("cannot spawn the TTS thread: {e}"))?;
    let sample_rate_hz = ready_rx
        .recv()
        .map_err(|_| "the TTS thread exited during start-up".to_string())??;
    Ok(EngineThread { tx, sample_rate_hz })
}

fn serve(
    engine: &mut Engine,
    voice: &mut Option<String>,
    req: &Request,
) -> Result<(), EspeakError> {
    select_voice(engine, voice, &req.params.voice)?;
    engine.set_rate_wpm(req.params.rate_wpm as i32)?;
    engine.set_pitch(req.params.pitch as i32)?;
    engine.set_volume(req.params.volume as i32)?;
    let reply = req.reply.clone();
    let cancel = Arc::clone(&req.cancel);
    engine.synth(&req.text, req.params.end_pause, move |samples| {
        !cancel.load(Ordering::Acquire) && reply.send(Msg::Chunk(samples.to_vec())).is_ok()
    })
}

fn check(parameter: &'static str, value: u32, min: u32, max: u32) -> Result<(), TtsError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(TtsError::OutOfRange {
            parameter,
            value,
            min,
            max,
        })
    }
}

fn check_text(text: &str) -> Result<(), TtsError> {
    if text.len() > wire::MAX_TEXT_BYTES {
        return Err(TtsError::TooLong {
            len_bytes: text.len(),
            max_bytes: wire::MAX_TEXT_BYTES,
        });
    }
    Ok(())
}

/// A handle to the process-wide eSpeak NG engine with its own voice settings. Cheap to
/// clone; handles on several threads are served one utterance at a time.
#[derive(Clone, Debug)]
pub struct Tts {
    tx: Sender<Job>,
    sample_rate_hz: u32,
    params: VoiceParams,
}

impl Tts {
    /// Starts the engine (first call only: ~10 ms) and checks `params`. The voice itself is
    /// checked at the first utterance.
    pub fn new(params: VoiceParams) -> Result<Self, TtsError> {
        check("rate_wpm", params.rate_wpm, RATE_MIN_WPM, RATE_MAX_WPM)?;
        check("pitch", params.pitch, 0, 100)?;
        check("volume", params.volume, 0, 200)?;
        let e = engine()?;
        Ok(Self {
            tx: e.tx.clone(),
            sample_rate_hz: e.sample_rate_hz,
            params,
        })
    }

    /// Output sample rate (mono, signed 16-bit).
    pub fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    /// The voice settings.
    pub fn params(&self) -> &VoiceParams {
        &self.params
    }

    /// Synthesises `text`, handing each block of samples to `on_chunk` as soon as it is
    /// produced; [`Flow::Stop`] interrupts the utterance. Blocks until the engine is done.
    pub fn synthesize(
        &self,
        text: &str,
        mut on_chunk: impl FnMut(&[i16]) -> Flow,
    ) -> Result<SynthReport, TtsError> {
        check_text(text)?;
        let (reply, replies) = bounded(CHUNKS_IN_FLIGHT);
        let cancel = Arc::new(AtomicBool::new(false));
        self.tx
            .send(Job::Synth(Request {
                text: text.to_string(),
                params: self.params.clone(),
                reply,
                cancel: Arc::clone(&cancel),
            }))
            .map_err(|_| TtsError::EngineGone)?;
        let mut report = SynthReport {
            samples: 0,
            stopped: false,
        };
        loop {
            match replies.recv() {
                Ok(Msg::Chunk(samples)) => {
                    if report.stopped {
                        continue;
                    }
                    report.samples += samples.len();
                    if on_chunk(&samples) == Flow::Stop {
                        report.stopped = true;
                        cancel.store(true, Ordering::Release);
                    }
                }
                Ok(Msg::Done(result)) => {
                    result?;
                    return Ok(report);
                }
                Err(_) => return Err(TtsError::EngineGone),
            }
        }
    }

    /// Synthesises `text` whole.
    pub fn synthesize_to_vec(&self, text: &str) -> Result<Vec<i16>, TtsError> {
        let mut out = Vec::new();
        self.synthesize(text, |s| {
            out.extend_from_slice(s);
            Flow::Continue
        })?;
        Ok(out)
    }

    /// The IPA phonemes of `text` in this handle's voice (eSpeak NG's `espeak_TextToPhonemes`,
    /// on the engine thread): one string per clause as eSpeak NG splits the text, words
    /// separated by spaces, stress marks kept, punctuation dropped. An empty or blank text
    /// gives no clauses.
    pub fn phonemes(&self, text: &str) -> Result<Vec<String>, TtsError> {
        check_text(text)?;
        let (reply, answer) = bounded(1);
        self.tx
            .send(Job::Phonemes(PhonemesRequest {
                text: text.to_string(),
                voice: self.params.voice.clone(),
                reply,
            }))
            .map_err(|_| TtsError::EngineGone)?;
        answer.recv().map_err(|_| TtsError::EngineGone)?
    }
}
