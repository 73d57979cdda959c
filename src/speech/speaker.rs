//! The speaker: a thread of its own that takes utterances from any thread without ever
//! blocking it, synthesises them with eSpeak NG (or a Piper voice,
//! [`SpeakerConfig::piper`], for everything or for answers only while eSpeak NG says the
//! alerts, [`PiperSays`]), lays them out on the session timeline
//! ([`crate::speech::schedule`]) into an [`AudioSink`], and writes the transcript.
//!
//! `say` never blocks: answers and ambient updates share a bounded budget of messages in
//! flight ([`SpeakerConfig::capacity`]; beyond it `say` returns [`SayError::Full`] and the
//! utterance is counted as dropped), while alerts always get through. Messages travel in one
//! FIFO channel, so utterances said from one thread are seen in order (deterministic output
//! on timeline sinks).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError, Sender};

use super::heard::HeardClauses;
use super::pan::Pan;
use super::piper::{PiperError, PiperScales, PiperVoice};
use super::queue::{Priority, QueueConfig, Utterance};
use super::schedule::{NowIndex, Output, Over, Scheduler};
use super::sink::{AudioSink, Pacing, SinkError};
use super::timeline::Timeline;
use super::transcript::{TranscriptEntry, TranscriptError, TranscriptWriter};
use super::tts::{Tts, TtsError, VoiceParams, RATE_MAX_WPM, RATE_MIN_WPM};
use crate::time::{Clock, HostTime};

/// Speaker settings.
#[derive(Clone, Debug)]
pub struct SpeakerConfig {
    /// Voice, rate, pitch, volume.
    pub voice: VoiceParams,
    /// Speak with this Piper voice instead of eSpeak NG (`None`: eSpeak NG). Of
    /// [`Self::voice`] it follows only the rate; the timeline runs at its sample rate. On a
    /// virtual clock it speaks without its noise scales, so that lock-step runs repeat.
    pub piper: Option<PiperFiles>,
    /// What the Piper voice says, when there is one.
    pub piper_says: PiperSays,
    /// Priority queue settings.
    pub queue: QueueConfig,
    /// Answers and ambient updates in flight to the speaker thread before `say` refuses more.
    pub capacity: usize,
    /// How far ahead of the clock a real-time sink is fed, in nanoseconds.
    pub lookahead_ns: i64,
    /// Session time of the first timeline sample (default: the clock's time at start).
    pub origin: Option<HostTime>,
    /// Where to write `transcript.jsonl`, if anywhere.
    pub transcript: Option<PathBuf>,
    /// Shown every transcript entry as it is written.
    pub transcript_tap: Option<crate::jsonl::LineTap<TranscriptEntry>>,
    /// Receives a [`FirstAudio`] event as each utterance's first samples enter the sink
    /// (for latency measurement).
    pub first_audio_events: Option<Sender<FirstAudio>>,
}

/// What a Piper voice says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PiperSays {
    /// Everything.
    #[default]
    Everything,
    /// Answers and scene updates; alerts stay with eSpeak NG, whose first audio comes
    /// sooner (its voice and Piper's must share a sample rate).
    Answers,
}

/// The voice answers are said in, as a wearer chooses it (alerts are always eSpeak NG's).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum AnswerVoice {
    /// eSpeak NG: formant synthesis, first audio within a few milliseconds.
    #[default]
    Espeak,
    /// The Piper neural voice (`en_US-joe-medium` from `models/fetch`): more natural, each
    /// clause synthesised before it starts.
    Piper,
}

/// The files of a Piper voice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PiperFiles {
    /// The ONNX model.
    pub model: PathBuf,
    /// Its `.onnx.json` configuration.
    pub config: PathBuf,
}

impl PiperFiles {
    /// The voice `models/fetch` provides (`en_US-joe-medium`).
    pub fn fetched() -> Self {
        Self {
            model: crate::infer::ModelFile::PiperVoice.path(),
            config: crate::infer::ModelFile::PiperVoiceConfig.path(),
        }
    }

    /// Whether both files are there.
    pub fn present(&self) -> bool {
        self.model.is_file() && self.config.is_file()
    }
}

/// An utterance's first samples have just been handed to the sink.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstAudio {
    /// The utterance's priority.
    pub priority: Priority,
    /// Its request id.
    pub request_id: u64,
    /// When it was decided (session clock).
    pub decided: HostTime,
    /// When the sink accepted its first samples (host clock).
    pub in_sink: HostTime,
}

impl Default for SpeakerConfig {
    fn default() -> Self {
        Self {
            voice: VoiceParams::default(),
            piper: None,
            piper_says: PiperSays::default(),
            queue: QueueConfig::default(),
            capacity: 64,
            lookahead_ns: 30_000_000,
            origin: None,
            transcript: None,
            transcript_tap: None,
            first_audio_events: None,
        }
    }
}

/// Why `say` refused an utterance.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SayError {
    /// Too many answers / ambient updates in flight; this one is dropped (and counted).
    #[error("speaker queue full: utterance dropped")]
    Full,
    /// The speaker has stopped.
    #[error("speaker has stopped")]
    Closed,
}

/// A speaker failure.
#[derive(Debug, thiserror::Error)]
pub enum SpeakerError {
    /// The TTS engine failed to start.
    #[error(transparent)]
    Tts(#[from] TtsError),
    /// The Piper voice could not be loaded.
    #[error(transparent)]
    Piper(#[from] PiperError),
    /// The sink failed (the first error; later audio was discarded).
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// The transcript could not be written.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The speaker thread could not start or panicked.
    #[error("speaker thread: {0}")]
    Thread(String),
    /// A session folder could not be created.
    #[error("speech folder {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The sink and clock do not fit together.
    #[error("speaker: {0}")]
    Config(String),
}

/// What a speaker did, returned by [`Speaker::finish`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpeakerReport {
    /// The sink's name.
    pub sink: String,
    /// Utterances spoken to the end.
    pub spoken: u64,
    /// Utterances cut off mid-way.
    pub interrupted: u64,
    /// Utterances dropped unspoken (including refused by a full queue).
    pub dropped: u64,
    /// Utterances whose synthesis failed.
    pub failed: u64,
    /// Timeline samples covered (end of the last audio).
    pub timeline_samples: u64,
    /// Samples of speech handed to the sink.
    pub speech_samples: u64,
    /// Every transcript entry, in the order written.
    pub transcript: Vec<TranscriptEntry>,
}

/// Cut answers the speaker remembers (the assistant asks only about those in flight).
const CUT_ANSWERS_KEPT: usize = 16;

enum Msg {
    Say(Utterance),
    /// Answered once everything sent before it was handled ([`Speaker::sync`]).
    Sync(Sender<()>),
    /// The assistant withdrew the rest of an answer ([`Speaker::withdraw`]).
    Withdraw(u64),
    /// The wearer changed the speaking rate ([`Speaker::set_rate_wpm`]).
    SetRate(u32),
    Finish(Option<HostTime>),
}

/// Handle to the speaker thread. Call [`Speaker::finish`] to let it speak what is queued
/// and close the sink.
pub struct Speaker {
    tx: Sender<Msg>,
    /// One more than the newest answer request id whose audio reached the sink (0: none).
    heard_answer: Arc<AtomicU64>,
    /// The newest answers an alert cut ([`Speaker::answer_cut`]), at most
    /// [`CUT_ANSWERS_KEPT`].
    cut_answers: Arc<Mutex<VecDeque<u64>>>,
    /// The answer clauses heard whole ([`Speaker::heard_whole`]).
    heard_whole: Arc<Mutex<HeardClauses>>,
    /// Utterances handed to the speaker thread so far.
    said: AtomicU64,
    /// Utterances the speaker thread has placed (pushed to its scheduler) so far.
    placed: Arc<AtomicU64>,
    /// The timeline index just after the last audio handed to the sink.
    audible_end: Arc<AtomicU64>,
    in_flight: Arc<AtomicUsize>,
    refused: Arc<AtomicU64>,
    /// The speaking rate asked for last, words per minute.
    rate_wpm: AtomicU32,
    capacity: usize,
    sample_rate_hz: u32,
    timeline: Timeline,
    thread: Option<JoinHandle<Result<SpeakerReport, SpeakerError>>>,
}

impl std::fmt::Debug for Speaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Speaker")
            .field("timeline", &self.timeline)
            .finish()
    }
}

impl Speaker {
    /// Starts the TTS engine and the speaker thread, writing to `sink` on `clock`'s timeline.
    pub fn start(
        config: SpeakerConfig,
        sink: Box<dyn AudioSink>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, SpeakerError> {
        if sink.pacing() == Pacing::RealTime && !clock.is_real_time() {
            return Err(SpeakerError::Config(format!(
                "the {} sink plays in real time but the session clock is virtual; \
                 use a WAV sink for virtual-time runs",
                sink.name()
            )));
        }
        let tts = Tts::new(config.voice.clone())?;
        let voice = match &config.piper {
            None => Voice::Espeak(tts),
            Some(files) => {
                let piper = PiperVoice::load(&files.model, &files.config)?;
                // On a virtual clock (lock step) without its noise: the same run gives the
                // same audio.
                let base = if clock.is_real_time() {
                    PiperScales::from_config(piper.config())
                } else {
                    PiperScales::deterministic()
                };
                let piper = PiperState {
                    scales: base,
                    base,
                    piper: Box::new(piper),
                };
                let mut voice = match config.piper_says {
                    PiperSays::Everything => Voice::Piper(piper),
                    PiperSays::Answers => {
                        let (espeak_hz, piper_hz) =
                            (tts.sample_rate_hz(), piper.piper.sample_rate_hz());
                        if espeak_hz != piper_hz {
                            return Err(SpeakerError::Config(format!(
                                "the Piper voice speaks at {piper_hz} Hz and eSpeak NG at \
                                 {espeak_hz} Hz: alerts and answers must share one timeline"
                            )));
                        }
                        Voice::PiperAnswers { espeak: tts, piper }
                    }
                };
                super::schedule::Synth::set_rate_wpm(&mut voice, config.voice.rate_wpm);
                voice
            }
        };
        let timeline = Timeline {
            origin: config.origin.unwrap_or_else(|| clock.now()),
            rate_hz: voice.sample_rate_hz(),
        };
        let transcript = match &config.transcript {
            Some(p) => Some(TranscriptWriter::create(p)?.with_tap(config.transcript_tap.clone())),
            None => None,
        };
        let (tx, rx) = unbounded();
        let heard_answer = Arc::new(AtomicU64::new(0));
        let cut_answers = Arc::new(Mutex::new(VecDeque::with_capacity(CUT_ANSWERS_KEPT)));
        let heard_whole = Arc::new(Mutex::new(HeardClauses::default()));
        let in_flight = Arc::new(AtomicUsize::new(0));
        let refused = Arc::new(AtomicU64::new(0));
        let placed = Arc::new(AtomicU64::new(0));
        let audible_end = Arc::new(AtomicU64::new(0));
        let scheduler = Scheduler::new(config.queue, timeline);
        let scheduler = if clock.is_real_time() {
            let c = Arc::clone(&clock);
            scheduler.with_now(NowIndex(Box::new(move || timeline.index_of(c.now()))))
        } else {
            scheduler
        };
        let worker = Worker {
            rx,
            placed: Arc::clone(&placed),
            in_flight: Arc::clone(&in_flight),
            refused: Arc::clone(&refused),
            voice: Some(voice),
            clock,
            lookahead: timeline.index_of(HostTime(timeline.origin.0 + config.lookahead_ns)),
            scheduler,
            out: SinkOutput {
                sink,
                audible_end: Arc::clone(&audible_end),
                heard_answer: Arc::clone(&heard_answer),
                cut_answers: Arc::clone(&cut_answers),
                heard_whole: Arc::clone(&heard_whole),
                events: config.first_audio_events.clone(),
                transcript,
                report: SpeakerReport::default(),
                error: None,
            },
        };
        let thread = std::thread::Builder::new()
            .name("vista-speaker".into())
            .spawn(move || worker.run())
            .map_err(|e| SpeakerError::Thread(e.to_string()))?;
        Ok(Self {
            tx,
            heard_answer,
            cut_answers,
            heard_whole,
            said: AtomicU64::new(0),
            placed,
            audible_end,
            in_flight,
            refused,
            rate_wpm: AtomicU32::new(config.voice.rate_wpm),
            capacity: config.capacity.max(1),
            sample_rate_hz: timeline.rate_hz,
            timeline,
            thread: Some(thread),
        })
    }

    /// The audio sample rate.
    pub fn sample_rate_hz(&self) -> u32 {
        self.sample_rate_hz
    }

    /// The session timeline the audio is laid out on.
    pub fn timeline(&self) -> Timeline {
        self.timeline
    }

    /// Until when this speaker's voice is audible, as a handle another thread can keep (the
    /// listener shuts the microphones while the glasses' own speakers play).
    pub fn audible(&self) -> Audible {
        Audible {
            end: Arc::clone(&self.audible_end),
            timeline: self.timeline,
        }
    }

    /// Hands an utterance to the speaker without blocking. Alerts always get through.
    pub fn say(&self, u: Utterance) -> Result<(), SayError> {
        if u.priority != Priority::Alert {
            let n = self.in_flight.fetch_add(1, Ordering::AcqRel);
            if n >= self.capacity {
                self.in_flight.fetch_sub(1, Ordering::AcqRel);
                self.refused.fetch_add(1, Ordering::Relaxed);
                return Err(SayError::Full);
            }
        }
        let alert = u.priority == Priority::Alert;
        self.tx
            .send(Msg::Say(u))
            .map(|()| {
                self.said.fetch_add(1, Ordering::AcqRel);
            })
            .map_err(|_| {
                if !alert {
                    self.in_flight.fetch_sub(1, Ordering::AcqRel);
                }
                SayError::Closed
            })
    }

    /// Speaks everything queued, pads a timeline sink to `session_end` (so the file spans
    /// the whole session), closes the sink and returns the report.
    pub fn finish(mut self, session_end: Option<HostTime>) -> Result<SpeakerReport, SpeakerError> {
        let _ = self.tx.send(Msg::Finish(session_end));
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| SpeakerError::Thread("the speaker thread panicked".into()))?,
            None => Err(SpeakerError::Thread("already finished".into())),
        }
    }
}

impl Speaker {
    /// Returns once the speaker thread has handled every utterance said before: on a
    /// virtual clock (lock-step replay) the audio up to the newest utterance's decision time
    /// is then committed, so [`Self::answer_heard`] is exact and the same on every run.
    /// Returns at once if the speaker thread has stopped.
    pub fn sync(&self) {
        let (tx, rx) = crossbeam_channel::bounded(1);
        if self.tx.send(Msg::Sync(tx)).is_ok() {
            let _ = rx.recv();
        }
    }

    /// Utterances said so far (a mark for [`Self::has_placed`]).
    pub fn said_count(&self) -> u64 {
        self.said.load(Ordering::Acquire)
    }

    /// Whether the speaker thread has placed the first `count` utterances said (so what
    /// they cut is known to [`Self::answer_cut`]), without waiting for it.
    pub fn has_placed(&self, count: u64) -> bool {
        self.placed.load(Ordering::Acquire) >= count
    }

    /// Speaks from the next utterance on at `rate_wpm` words per minute (one out of the
    /// voice's range is logged and ignored by the speaker thread).
    pub fn set_rate_wpm(&self, rate_wpm: u32) {
        self.rate_wpm.store(rate_wpm, Ordering::Release);
        let _ = self.tx.send(Msg::SetRate(rate_wpm));
    }

    /// The speaking rate asked for last, words per minute.
    pub fn rate_wpm(&self) -> u32 {
        self.rate_wpm.load(Ordering::Acquire)
    }

    /// Stops answer `request_id` where it is: the clause playing is cut, the rest dropped
    /// (guidance an alert made stale, asked again from a newer state).
    pub fn withdraw(&self, request_id: u64) {
        let _ = self.tx.send(Msg::Withdraw(request_id));
    }

    /// Whether an alert cut answer `request_id` (stopped it while it played, or came before
    /// some of it was said), as far as the speaker thread has placed the alerts
    /// said so far (see [`Self::sync`]). Only the newest few cut answers are remembered.
    pub fn answer_cut(&self, request_id: u64) -> bool {
        self.cut_answers
            .lock()
            .is_ok_and(|c| c.contains(&request_id))
    }

    /// The clauses of answer `request_id` the wearer heard whole, in the order they played
    /// (for the newest [`crate::speech::heard::HEARD_KEPT`] answers).
    pub fn heard_whole(&self, request_id: u64) -> Vec<String> {
        self.heard_whole
            .lock()
            .map(|h| h.of(request_id))
            .unwrap_or_default()
    }

    /// Whether any audio of answer `request_id` (or of a newer answer: answers are spoken
    /// in request order, a newer one supersedes an older) has reached the sink: the wearer
    /// has begun to hear it.
    pub fn answer_heard(&self, request_id: u64) -> bool {
        self.heard_answer.load(Ordering::Acquire) > request_id
    }
}

impl Drop for Speaker {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.tx.send(Msg::Finish(None));
        }
    }
}

/// Until when a [`Speaker`]'s voice is audible: the end of the last audio it handed its
/// sink, on the host clock.
#[derive(Clone, Debug)]
pub struct Audible {
    end: Arc<AtomicU64>,
    timeline: Timeline,
}

impl Audible {
    /// The host time the last audio handed to the sink ends (`None`: nothing said yet).
    pub fn until(&self) -> Option<HostTime> {
        match self.end.load(Ordering::Acquire) {
            0 => None,
            end => Some(self.timeline.time_of(end)),
        }
    }
}

/// Sends the scheduler's output to the sink and the transcript.
struct SinkOutput {
    sink: Box<dyn AudioSink>,
    audible_end: Arc<AtomicU64>,
    heard_answer: Arc<AtomicU64>,
    cut_answers: Arc<Mutex<VecDeque<u64>>>,
    heard_whole: Arc<Mutex<HeardClauses>>,
    events: Option<Sender<FirstAudio>>,
    transcript: Option<TranscriptWriter>,
    report: SpeakerReport,
    error: Option<SpeakerError>,
}

impl Output for SinkOutput {
    fn audio(
        &mut self,
        start_index: u64,
        samples: &[i16],
        pan: Pan,
        first_of: Option<&Utterance>,
        over: Option<Over<'_>>,
    ) {
        self.report.speech_samples += samples.len() as u64;
        self.report.timeline_samples = start_index + samples.len() as u64;
        if self.error.is_some() {
            return;
        }
        let written = match over {
            Some(o) => self
                .sink
                .write_over(start_index, samples, pan, o.samples, o.pan),
            None => self.sink.write(start_index, samples, pan),
        };
        if let Err(e) = written {
            log::error!("speech: {e}; further audio is discarded");
            self.error = Some(e.into());
            return;
        }
        self.audible_end
            .fetch_max(start_index + samples.len() as u64, Ordering::AcqRel);
        if let Some(u) = first_of.filter(|u| u.priority == Priority::Answer) {
            self.heard_answer
                .fetch_max(u.request_id.saturating_add(1), Ordering::AcqRel);
        }
        if let Some(tx) = &self.events {
            for u in [first_of, over.and_then(|o| o.first_of)]
                .into_iter()
                .flatten()
            {
                let _ = tx.try_send(FirstAudio {
                    priority: u.priority,
                    request_id: u.request_id,
                    decided: u.decided,
                    in_sink: HostTime::now(),
                });
            }
        }
    }

    fn answer_cut(&mut self, request_id: u64) {
        if let Ok(mut c) = self.cut_answers.lock() {
            if !c.contains(&request_id) {
                if c.len() >= CUT_ANSWERS_KEPT {
                    c.pop_front();
                }
                c.push_back(request_id);
            }
        }
    }

    fn entry(&mut self, entry: TranscriptEntry) {
        let r = &mut self.report;
        if entry.error.is_some() {
            r.failed += 1;
        } else if entry.dropped.is_some() {
            r.dropped += 1;
        } else if entry.interrupted {
            r.interrupted += 1;
        } else {
            r.spoken += 1;
            if entry.priority == Priority::Answer && entry.first_audio_ns.is_some() {
                if let Ok(mut h) = self.heard_whole.lock() {
                    h.heard(entry.request_id, &entry.text);
                }
            }
        }
        if let Some(w) = self.transcript.as_mut() {
            if let Err(e) = w.write(&entry) {
                log::error!("speech: {e}");
                self.transcript = None;
                if self.error.is_none() {
                    self.error = Some(e.into());
                }
            }
        }
        self.report.transcript.push(entry);
    }
}

/// The rate at which a Piper voice speaks at its own length scale, words per minute (an
/// approximation: the rate a wearer asks for scales the voice's phoneme durations by
/// this over it).
const PIPER_NATURAL_WPM: u32 = 175;

/// A Piper voice: its default scales and those of the rate chosen last.
struct PiperState {
    piper: Box<PiperVoice>,
    base: PiperScales,
    scales: PiperScales,
}

impl PiperState {
    fn synth(&mut self, text: &str) -> Result<Vec<i16>, String> {
        self.piper
            .synthesize(text, self.scales)
            .map_err(|e| e.to_string())
    }

    fn set_rate_wpm(&mut self, rate_wpm: u32) {
        if (RATE_MIN_WPM..=RATE_MAX_WPM).contains(&rate_wpm) {
            self.scales = self
                .base
                .with_length_factor(PIPER_NATURAL_WPM as f32 / rate_wpm as f32);
        } else {
            log::warn!(
                "speech: rate {rate_wpm} words a minute refused: outside \
                 {RATE_MIN_WPM}..={RATE_MAX_WPM}"
            );
        }
    }
}

/// eSpeak NG at `rate_wpm`, or as it was when that rate is refused.
fn espeak_at(tts: &mut Tts, rate_wpm: u32) {
    let params = VoiceParams {
        rate_wpm,
        ..tts.params().clone()
    };
    match Tts::new(params) {
        Ok(t) => *tts = t,
        Err(e) => log::warn!("speech: rate {rate_wpm} words a minute refused: {e}"),
    }
}

/// The speaker thread's voice, at the rate the wearer chose last.
enum Voice {
    /// eSpeak NG.
    Espeak(Tts),
    /// A Piper voice.
    Piper(PiperState),
    /// Answers and scene updates by a Piper voice, alerts by eSpeak NG.
    PiperAnswers { espeak: Tts, piper: PiperState },
}

impl Voice {
    fn sample_rate_hz(&self) -> u32 {
        match self {
            Voice::Espeak(tts) | Voice::PiperAnswers { espeak: tts, .. } => tts.sample_rate_hz(),
            Voice::Piper(p) => p.piper.sample_rate_hz(),
        }
    }
}

impl super::schedule::Synth for Voice {
    fn synth(&mut self, text: &str) -> Result<Vec<i16>, String> {
        match self {
            Voice::Espeak(tts) => tts.synthesize_to_vec(text).map_err(|e| e.to_string()),
            Voice::Piper(p) | Voice::PiperAnswers { piper: p, .. } => p.synth(text),
        }
    }

    fn synth_at(&mut self, priority: Priority, text: &str) -> Result<Vec<i16>, String> {
        match self {
            Voice::PiperAnswers { espeak, .. } if priority == Priority::Alert => {
                espeak.synthesize_to_vec(text).map_err(|e| e.to_string())
            }
            _ => self.synth(text),
        }
    }

    fn set_rate_wpm(&mut self, rate_wpm: u32) {
        match self {
            Voice::Espeak(tts) => espeak_at(tts, rate_wpm),
            Voice::Piper(p) => p.set_rate_wpm(rate_wpm),
            Voice::PiperAnswers { espeak, piper } => {
                espeak_at(espeak, rate_wpm);
                piper.set_rate_wpm(rate_wpm);
            }
        }
    }
}

struct Worker {
    rx: Receiver<Msg>,
    placed: Arc<AtomicU64>,
    in_flight: Arc<AtomicUsize>,
    refused: Arc<AtomicU64>,
    /// The voice, until the thread takes it.
    voice: Option<Voice>,
    clock: Arc<dyn Clock>,
    lookahead: u64,
    scheduler: Scheduler,
    out: SinkOutput,
}

impl Worker {
    fn run(mut self) -> Result<SpeakerReport, SpeakerError> {
        let _cpu = crate::profile::cpu::account(crate::profile::stages::SPEECH);
        let Some(mut synth) = self.voice.take() else {
            return Err(SpeakerError::Thread("the speaker has no voice".into()));
        };
        let session_end = match self.out.sink.pacing() {
            Pacing::Timeline => self.run_timeline(&mut synth),
            Pacing::RealTime => self.run_real_time(&mut synth),
        };
        let tl = self.scheduler.timeline();
        let end = session_end.map(|t| tl.index_of(t));
        let finished = self.out.sink.finish(end);
        self.out.report.sink = self.out.sink.name().to_string();
        let refused = self.refused.load(Ordering::Relaxed);
        self.out.report.dropped += refused;
        if let Some(e) = self.out.error.take() {
            return Err(e);
        }
        finished?;
        Ok(self.out.report)
    }

    fn received(&self, u: &Utterance) {
        if u.priority != Priority::Alert {
            self.in_flight.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Places each utterance at its decision time. On a real-time clock (a replay or live
    /// run written to a WAV file) the audio is also committed as the clock passes it, so
    /// what has been "heard" ([`Speaker::answer_heard`]) is known when it happens, not at the
    /// next utterance; on a virtual clock only the utterances' own times move it (lock-step
    /// output stays deterministic). Either way each utterance lands at the same place.
    fn run_timeline(&mut self, synth: &mut dyn super::schedule::Synth) -> Option<HostTime> {
        let tl = self.scheduler.timeline();
        let real_time = self.clock.is_real_time();
        let tick = Duration::from_millis(20);
        let mut end = None;
        loop {
            let msg = if real_time && !self.scheduler.is_idle() {
                match self.rx.recv_timeout(tick) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            } else {
                match self.rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => break,
                }
            };
            match msg {
                Some(Msg::Say(u)) => {
                    self.received(&u);
                    self.scheduler
                        .advance(tl.index_of(u.decided), 0, synth, &mut self.out);
                    self.scheduler.push(u, &mut self.out);
                    self.placed.fetch_add(1, Ordering::AcqRel);
                }
                Some(Msg::Sync(done)) => {
                    let _ = done.send(());
                }
                Some(Msg::Withdraw(id)) => self.scheduler.withdraw(id, &mut self.out),
                Some(Msg::SetRate(wpm)) => synth.set_rate_wpm(wpm),
                Some(Msg::Finish(e)) => {
                    end = e;
                    break;
                }
                None => {
                    let now = tl.index_of(self.clock.now());
                    self.scheduler.advance(now, 0, synth, &mut self.out);
                }
            }
        }
        self.scheduler.drain(synth, &mut self.out);
        end
    }

    /// How long the real-time loop may wait for a message: a tick, or less when an
    /// utterance is about to start (its synthesis ended beyond the lookahead, so the last
    /// advance could not start it) before the next tick would; never under 0.2 ms.
    fn wake_within(&self, tick: Duration) -> Duration {
        let Some(start) = self.scheduler.pending_start() else {
            return tick;
        };
        let tl = self.scheduler.timeline();
        let due = tl.time_of(start.saturating_sub(self.lookahead));
        let wait = self.clock.host_duration(due.since(self.clock.now()));
        tick.min(wait.max(Duration::from_micros(200)))
    }

    /// Feeds the sink just ahead of the clock, waking at once for new utterances.
    fn run_real_time(&mut self, synth: &mut dyn super::schedule::Synth) -> Option<HostTime> {
        let tl = self.scheduler.timeline();
        let tick = self
            .clock
            .host_duration((tl.time_of(self.lookahead).since(tl.origin) / 3).max(1_000_000));
        let mut finishing: Option<Option<HostTime>> = None;
        loop {
            let msg = if finishing.is_some() {
                None
            } else if self.scheduler.is_idle() {
                match self.rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => {
                        finishing = Some(None);
                        None
                    }
                }
            } else {
                match self.rx.recv_timeout(self.wake_within(tick)) {
                    Ok(m) => Some(m),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => {
                        finishing = Some(None);
                        None
                    }
                }
            };
            let mut next = msg;
            while let Some(m) = next.take() {
                match m {
                    Msg::Say(u) => {
                        self.received(&u);
                        self.scheduler.push(u, &mut self.out);
                        self.placed.fetch_add(1, Ordering::AcqRel);
                    }
                    Msg::Sync(done) => {
                        let _ = done.send(());
                    }
                    Msg::Withdraw(id) => self.scheduler.withdraw(id, &mut self.out),
                    Msg::SetRate(wpm) => synth.set_rate_wpm(wpm),
                    Msg::Finish(e) => finishing = Some(e),
                }
                if finishing.is_none() {
                    next = self.rx.try_recv().ok();
                }
            }
            let now = tl.index_of(self.clock.now());
            self.scheduler
                .advance(now + self.lookahead, now, synth, &mut self.out);
            if let Some(end) = finishing {
                if self.scheduler.is_idle() {
                    // Let the last audio play out before closing.
                    let last = tl.time_of(self.scheduler.frontier());
                    self.clock.wait_until(last);
                    return end;
                }
                std::thread::sleep(tick);
            }
        }
    }
}
