//! The [`Assistant`]: perception's sink. A hazard event becomes an alert at once (no model on
//! that path); each state snapshot is kept, and the requests that are due are answered from
//! it — synchronously inside `on_state` on a virtual clock (lock-step replay, deterministic),
//! or on an answer thread behind a bounded queue in real time. There, a newer request
//! supersedes the older ones not yet answered (barge-in: the one being generated is cut,
//! those still waiting are dropped and counted), as the speech queue cuts an older answer's
//! audio; a hazard alert *withdraws* the answers of which nothing was heard yet (waiting,
//! or being generated but still silent), which are answered again from the next state,
//! after the alert, while the one the wearer has begun to hear goes on after the alert from
//! the clause it cut — an alert never swallows a question, nor restarts an answer.
//! Guidance (which way, whether the way is clear, the scene) asked while an alert is said
//! or waits to be is decided once the alerts have been said, from the state then.
//! A request that needs text the state does not hold is held while the whole newest frame
//! is read ([`super::text_wait`]; bounded, never on the alert path). Generated text passes
//! the safety [`Guard`] sentence by sentence before it is spoken; every decision goes to
//! `decisions.jsonl`. A generator that fails is
//! reported once and replaced by templates for the rest of the run.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};

use super::alerts::{Alerter, AlerterConfig};
use super::answer::{
    write_decision, Engine, Job, SharedDecisions, DONE, QUEUED, SPEAKING, STARTED, WITHDRAWN,
};
use super::control::{self, Control};
use super::counters::{bump, Counters};
use super::decisions::{DecisionError, DecisionWriter};
use super::forms::Form;
use super::guard::{Guard, GuardConfig};
use super::requests::{PeriodicScene, Request, RequestQueue, RequestTime};
use super::text_wait::{needs_text, Ended, TextWaits, DEFAULT_WAIT_NS};
use super::understand::similar::SimilarAsks;
use super::understand::Ask;
use super::verbosity::{SharedVerbosity, Verbosity};
use crate::speech::chunker::ChunkerConfig;
use crate::speech::speaker::SpeakerError;
use crate::speech::{Speaker, SpeakerReport, Utterance};
use crate::state::{
    Decision, DecisionHazard, DecisionKind, EnvironmentState, Generator, HazardEvent, MotionState,
    PerceptionSink, ReadOutcome, ReadRequests, TextReadWait, Thing, VoiceTiming,
};
use crate::time::{Clock, DeviceTime, HostTime};
use crate::worker::Worker;

pub use super::counters::AssistantCounters;

/// How answers are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssistantMode {
    /// Inside `on_state`, synchronously (virtual clock, deterministic).
    LockStep,
    /// On an answer thread behind a bounded queue, cancellable.
    RealTime,
}

/// Assistant settings.
#[derive(Clone, Debug)]
pub struct AssistantConfig {
    /// Where `decisions.jsonl` goes.
    pub out_dir: PathBuf,
    /// Lock-step or real time.
    pub mode: AssistantMode,
    /// Alert dedup and rate limit.
    pub alerter: AlerterConfig,
    /// Guard tolerances.
    pub guard: GuardConfig,
    /// Clause chunking of answers.
    pub chunker: ChunkerConfig,
    /// Answers waiting for the answer thread (real time).
    pub answer_queue: usize,
    /// Scripted requests not yet due, at most (more are dropped and counted).
    pub max_pending: usize,
    /// Periodic scene updates every this many ns of device time (off when `None`).
    pub ambient_every_ns: Option<i64>,
    /// How long an answer waits for a whole-frame text read, ns of the session clock
    /// (processing time in real time, virtual time in lock step).
    pub text_read_wait_ns: i64,
    /// How much is said.
    pub verbosity: Verbosity,
    /// Shown every decision as it is written.
    pub decision_tap: Option<crate::jsonl::LineTap<crate::state::Decision>>,
}

impl AssistantConfig {
    /// Defaults writing into `out_dir`, in `mode`.
    pub fn new(out_dir: &Path, mode: AssistantMode) -> Self {
        Self {
            out_dir: out_dir.to_path_buf(),
            mode,
            alerter: AlerterConfig::default(),
            guard: GuardConfig::default(),
            chunker: ChunkerConfig::default(),
            answer_queue: 4,
            max_pending: 1024,
            ambient_every_ns: None,
            text_read_wait_ns: DEFAULT_WAIT_NS,
            verbosity: Verbosity::default(),
            decision_tap: None,
        }
    }
}

/// The assistant failed.
#[derive(Debug, thiserror::Error)]
pub enum AssistantError {
    /// `decisions.jsonl` could not be written.
    #[error(transparent)]
    Decision(#[from] DecisionError),
    /// The speaker failed.
    #[error(transparent)]
    Speaker(#[from] SpeakerError),
    /// The requests could not be read.
    #[error(transparent)]
    Requests(#[from] super::requests::RequestError),
    /// The answer thread could not start or panicked.
    #[error("assistant answer thread: {0}")]
    Thread(String),
    /// The output folder could not be created.
    #[error("{path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

enum Answering {
    Inline(Box<Engine>),
    Thread {
        tx: Option<Sender<Job>>,
        /// Ends when `tx` is gone (declared after it: dropped, so joined, after it).
        worker: Option<Worker>,
    },
}

/// The assistant. See the module documentation.
pub struct Assistant {
    config: AssistantConfig,
    clock: Arc<dyn Clock>,
    speaker: Option<Arc<Speaker>>,
    alerter: Alerter,
    decisions: SharedDecisions,
    counters: Arc<Counters>,
    scripted: VecDeque<Request>,
    live: Option<RequestQueue>,
    periodic: Option<PeriodicScene>,
    /// How much is said now (the wearer may change it by voice).
    verbosity: SharedVerbosity,
    state: Option<Arc<EnvironmentState>>,
    next_id: u64,
    in_flight: VecDeque<InFlight>,
    /// Requests taken back from the answer queue by an alert, answered at the next state
    /// (with their text wait, when they had one).
    retry: VecDeque<(Request, Option<TextReadWait>)>,
    /// Guidance asked again after an alert cut it, with the clauses the wearer heard whole
    /// of its earlier answers: the new answer goes on from there ([`Self::ask_again`]).
    resume_after: VecDeque<(Request, Vec<String>)>,
    /// Guidance asked while an alert was being said or waited to be: answered once the
    /// alerts have been said, from the state then ([`Self::dispatch`]). At most one: a
    /// newer request supersedes it.
    after_alerts: Option<(Request, Option<TextReadWait>)>,
    /// Guidance partly heard when an alert came: asked again if the alert cut it
    /// ([`Self::settle_cuts`]); with the speaker's count of utterances said once the alert
    /// was, and when the alert came.
    cut_checks: Vec<(InFlight, u64, HostTime)>,
    /// How often each recent request was asked again after a cut (at most
    /// [`MAX_CUT_REPEATS`] times; the newest [`CUT_REPEATS_KEPT`] requests).
    cut_repeats: VecDeque<(Request, u8)>,
    /// Whole-frame text reads on request (with a text reader only).
    read_requests: Option<Arc<ReadRequests>>,
    /// Types by likeness what no rule types ([`super::understand::similar`]).
    likeness: Option<Arc<SimilarAsks>>,
    /// Requests waiting for a whole-frame read.
    text_waits: TextWaits,
    answering: Answering,
    /// `finish` ran: requests polled from now on are dropped.
    finished: bool,
    speaker_report: Option<SpeakerReport>,
    generator_name: String,
    lm_failure: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Assistant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Assistant")
            .field("mode", &self.config.mode)
            .field("counters", &self.counters.snapshot())
            .finish()
    }
}

/// How often guidance cut part-way by alerts is asked again, at most: a third cut in a row
/// ends it (the wearer can ask again).
const MAX_CUT_REPEATS: u8 = 2;
/// What the wearer hears when they spoke and nothing sure was heard.
pub const NOT_CAUGHT: &str = "Sorry, I didn't catch that.";
/// What the assistant says when called by its wake phrase alone: it is listening.
pub const CALLED: &str = "Yes?";
/// Requests whose repeats are counted (the newest).
const CUT_REPEATS_KEPT: usize = 8;
/// How long a real-time check of whether an alert cut an answer waits for the speaker
/// thread to place the alert, ns (then the answer counts as not cut).
const CUT_CHECK_LIMIT_NS: i64 = 2_000_000_000;

/// A job handed to the answer thread, as the assistant still sees it.
struct InFlight {
    cancel: Arc<AtomicBool>,
    phase: Arc<AtomicU8>,
    request_id: u64,
    request: Request,
    text_read: Option<TextReadWait>,
    /// Clauses of earlier answers to this request heard whole, which it left out.
    heard_before: Vec<String>,
}

impl InFlight {
    /// Takes the job back from the answer thread: `true` when nothing of it was heard yet
    /// (not started, generating but silent so far, or handed to the speaker but still
    /// waiting for its first audio — `heard` says whether any reached the sink: the thread
    /// discards it, the speaker's queue drops what it holds of it, and it is answered
    /// again); otherwise it is cancelled mid-speech (what it said stays said) and `false`.
    fn take_back(&self, heard: bool) -> bool {
        let withdrawn = self
            .phase
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |p| {
                let handed = p == SPEAKING || p == DONE;
                (p == QUEUED || p == STARTED || (handed && !heard)).then_some(WITHDRAWN)
            })
            .is_ok();
        // Either way its generation stops.
        self.cancel.store(true, Ordering::Release);
        withdrawn
    }
}

/// What a fixed reply answers: the request (its index and words, when there is one), when
/// it was said aloud, and who replies.
struct Reply<'a> {
    request_index: Option<usize>,
    request: Option<(String, String)>,
    voice: Option<VoiceTiming>,
    ask: Option<String>,
    generator: &'a str,
}

/// Whether `request` asks for guidance an alert makes stale: which way to go (a goal),
/// whether the way on is clear (a question about what is ahead), or what is around (a scene
/// description says whether the path is clear). Other questions (what a sign says, where a
/// thing is, whether this is the goal) are descriptions that stay true past an alert.
fn guides(request: &Request) -> bool {
    match request.form {
        Form::Goal | Form::Scene => true,
        Form::Question => matches!(request.ask, Ask::Ahead | Ask::Goal(_) | Ask::Scene),
        Form::Ambient => false,
    }
}

fn answer_thread(mut engine: Engine, rx: Receiver<Job>) {
    let _cpu = crate::profile::cpu::account(crate::profile::stages::ANSWERS);
    for job in rx.iter() {
        let took = job
            .phase
            .compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire);
        if took.is_err() {
            // Withdrawn by an alert: the assistant answers it again.
            continue;
        }
        if job.cancel.load(Ordering::Acquire) {
            bump(&engine.counters.cancelled);
            continue;
        }
        engine.answer(&job);
    }
}

impl Assistant {
    /// Starts an assistant speaking through `speaker`, generating with `generator` (`None`:
    /// templates only), writing `decisions.jsonl` into `config.out_dir`.
    pub fn new(
        config: AssistantConfig,
        speaker: Speaker,
        generator: Option<Box<dyn Generator>>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, AssistantError> {
        std::fs::create_dir_all(&config.out_dir).map_err(|source| AssistantError::Io {
            path: config.out_dir.clone(),
            source,
        })?;
        let decisions = Arc::new(Mutex::new(
            DecisionWriter::create(&config.out_dir.join("decisions.jsonl"))?
                .with_tap(config.decision_tap.clone()),
        ));
        let speaker = Arc::new(speaker);
        let counters = Arc::new(Counters::default());
        let lm_failure = Arc::new(Mutex::new(None));
        let generator_name = generator
            .as_ref()
            .map(|g| g.name().to_string())
            .unwrap_or_else(|| "template".into());
        let verbosity = SharedVerbosity::new(config.verbosity);
        let engine = Engine {
            generator,
            failed: false,
            guard: Guard::new(config.guard),
            chunker: config.chunker,
            speaker: Arc::clone(&speaker),
            decisions: Arc::clone(&decisions),
            counters: Arc::clone(&counters),
            clock: Arc::clone(&clock),
            lm_failure: Arc::clone(&lm_failure),
            verbosity: verbosity.clone(),
        };
        let answering = match config.mode {
            AssistantMode::LockStep => Answering::Inline(Box::new(engine)),
            AssistantMode::RealTime => {
                let (tx, rx) = bounded(config.answer_queue.max(1));
                let worker = Worker::spawn("vista-answer", move |_| answer_thread(engine, rx))
                    .map_err(|e| AssistantError::Thread(e.to_string()))?;
                Answering::Thread {
                    tx: Some(tx),
                    worker: Some(worker),
                }
            }
        };
        Ok(Self {
            periodic: config.ambient_every_ns.map(PeriodicScene::new),
            verbosity,
            text_waits: TextWaits::new(config.text_read_wait_ns, config.max_pending),
            read_requests: None,
            likeness: None,
            alerter: Alerter::new(config.alerter),
            config,
            clock,
            speaker: Some(speaker),
            decisions,
            counters,
            scripted: VecDeque::new(),
            live: None,
            state: None,
            next_id: 1,
            in_flight: VecDeque::new(),
            cut_checks: Vec::new(),
            cut_repeats: VecDeque::new(),
            retry: VecDeque::new(),
            resume_after: VecDeque::new(),
            after_alerts: None,
            answering,
            finished: false,
            speaker_report: None,
            generator_name,
            lm_failure,
        })
    }

    /// Adds scripted requests (`requests.jsonl`), answered once the state reaches their
    /// time. Beyond [`AssistantConfig::max_pending`] they are dropped and counted.
    pub fn with_scripted(mut self, requests: Vec<Request>) -> Self {
        let mut v: Vec<Request> = requests;
        v.sort_by_key(|r| match r.t {
            RequestTime::Device(t) => t.ns(),
            RequestTime::Arrival(_) => i64::MIN,
        });
        for r in v {
            if self.scripted.len() >= self.config.max_pending {
                bump(&self.counters.dropped_requests);
            } else {
                self.scripted.push_back(r);
            }
        }
        self
    }

    /// Takes live requests from `queue` (answered at the next state).
    pub fn with_live(mut self, queue: RequestQueue) -> Self {
        self.live = Some(queue);
        self
    }

    /// Asks `requests` for whole-frame text reads (perception serves them) when a request
    /// needs text the state does not hold, and holds such requests until it is read (see
    /// [`super::text_wait`]). Without it nothing waits.
    pub fn set_read_requests(&mut self, requests: Arc<ReadRequests>) {
        self.read_requests = Some(requests);
    }

    /// Questions no rule types are typed by likeness to labelled examples with
    /// `likeness`; without it they stay open (the language model's, or refused).
    pub fn set_likeness(&mut self, likeness: Arc<SimilarAsks>) {
        self.likeness = Some(likeness);
    }

    /// The generator's name as configured (`template` when none).
    pub fn generator_name(&self) -> &str {
        &self.generator_name
    }

    /// The warning given when the language model failed mid-run (templates answered from
    /// then on), if it did: one per run, for the run's notes.
    pub fn lm_failure(&self) -> Option<String> {
        self.lm_failure.lock().ok().and_then(|n| n.clone())
    }

    /// The live request queue, if the assistant takes live requests (for a
    /// [`super::request_pump::RequestPump`]).
    pub fn live_queue(&self) -> Option<RequestQueue> {
        self.live.clone()
    }

    /// Answers `request` (taken from the live queue by a
    /// [`super::request_pump::RequestPump`]) at once from the newest state, instead of at
    /// the next one (or at the first state when there is none yet).
    pub fn request_now(&mut self, request: Request) {
        if self.finished {
            bump(&self.counters.dropped_requests);
            return;
        }
        match self.state.clone() {
            Some(state) => {
                let now = self.clock.now();
                // Waits past their limit end first (whether a read was served is known
                // only with the state that holds it, in `on_state`).
                self.end_waits(&state, now, None);
                self.route(request, None, true, &state, now);
            }
            None if self.retry.len() < self.config.max_pending => {
                self.retry.push_back((request, None))
            }
            None => bump(&self.counters.dropped_requests),
        }
    }

    /// Counters so far (live-queue drops included).
    pub fn counters(&self) -> AssistantCounters {
        let mut c = self.counters.snapshot();
        if let Some(q) = &self.live {
            c.dropped_requests += q.stats().dropped_full.load(Ordering::Relaxed);
            c.dropped_requests += q.stats().rate_limited.load(Ordering::Relaxed);
        }
        c
    }

    /// Until when the assistant's voice is audible (`None` without a speaker).
    pub fn audible(&self) -> Option<crate::speech::Audible> {
        self.speaker.as_ref().map(|s| s.audible())
    }

    /// The wearer spoke but nothing sure was heard (`guess`: what the recogniser made of
    /// it, `capture`: the end of the voice): says so, so they know to say it again, instead
    /// of answering a request made up from a guess.
    pub fn not_caught(
        &mut self,
        guess: &str,
        capture: DeviceTime,
        voice: VoiceTiming,
        now: HostTime,
    ) {
        let request = Some(("not_caught".to_string(), guess.to_string()));
        let reply = Reply {
            request_index: None,
            request,
            voice: Some(voice),
            ask: None,
            generator: "listen",
        };
        self.reply(NOT_CAUGHT.to_string(), reply, capture, now);
    }

    /// The wearer called the assistant by its wake phrase alone (`heard`): it says it is
    /// listening.
    pub fn called(&mut self, heard: &str, capture: DeviceTime, voice: VoiceTiming, now: HostTime) {
        let reply = Reply {
            request_index: None,
            request: Some(("called".to_string(), heard.to_string())),
            voice: Some(voice),
            ask: None,
            generator: "listen",
        };
        self.reply(CALLED.to_string(), reply, capture, now);
    }

    /// Says a fixed reply (a setting's acknowledgement, "not caught", "Yes?") at ambient
    /// priority and writes its decision; `request_index` and `request`: what it answers.
    fn reply(&mut self, text: String, what: Reply<'_>, capture: DeviceTime, now: HostTime) {
        let Reply {
            request_index,
            request,
            voice,
            ask,
            generator,
        } = what;
        let request_id = self.next_id;
        self.next_id += 1;
        if let Some(s) = &self.speaker {
            let _ = s.say(Utterance {
                text: text.clone(),
                priority: crate::speech::Priority::Ambient,
                request_id,
                capture,
                decided: now,
                earcon: None,
                cue: None,
                pan: crate::speech::Pan::CENTRE,
                urgent: false,
            });
        }
        bump(&self.counters.answers);
        write_decision(
            &self.decisions,
            &Decision {
                kind: DecisionKind::Answer,
                request_id,
                request_index,
                request,
                text,
                hazard: None,
                more_hazards: Vec::new(),
                capture_ns: capture.ns(),
                decided_ns: now.ns(),
                state_at_ns: capture.ns(),
                generator: generator.into(),
                guard: crate::state::GuardAction::Passed,
                first_token_ns: None,
                lm: None,
                text_read: None,
                voice,
                ask,
            },
        );
    }

    /// The speaker's report, once [`PerceptionSink::finish`] has run.
    pub fn speaker_report(&self) -> Option<&SpeakerReport> {
        self.speaker_report.as_ref()
    }

    /// `decisions.jsonl`.
    pub fn decisions_path(&self) -> PathBuf {
        self.config.out_dir.join("decisions.jsonl")
    }

    /// A newer request supersedes every unfinished answer (ambient updates do not): one
    /// already speaking is cancelled (what it said stays said), those not yet heard are
    /// dropped; both are counted as cancelled.
    fn supersede_in_flight(&mut self) {
        self.cut_checks.clear();
        for f in self.in_flight.drain(..) {
            if f.take_back(true) {
                bump(&self.counters.cancelled);
            }
        }
    }

    /// An alert makes every answer in flight of which nothing was heard yet stale: those
    /// (waiting, being generated but still silent, or queued in the speaker) are withdrawn
    /// and answered again from the next state. Of one the wearer has begun to hear:
    /// * a description goes on (and its generation with it): the speaker says it after the
    ///   alert, from the clause the alert cut
    ///   ([`crate::speech::queue::SpeechQueue::resume`]);
    /// * guidance ([`guides`]: which way to go, whether to go on) would now lead by what the
    ///   alert warned of: what is left of it is withdrawn and, if the alert cut it, it is
    ///   asked again from the state after the alert ([`Self::settle_cuts`]). So after a
    ///   heads-up too: going on with it was measured and rejected (the scorer's unsafe
    ///   count: "Turn slightly right, and walk about 7 steps." after "Obstacle in 4
    ///   metres.", with the obstacle in that way).
    ///
    /// An alert never swallows a question or half an answer (scene updates are dropped: the
    /// next one comes anyway).
    fn cancel_in_flight(&mut self) {
        let speaker = self.speaker.clone();
        if let (Answering::Inline(_), Some(s), false) =
            (&self.answering, &speaker, self.in_flight.is_empty())
        {
            // Lock step: the speaker thread places the alert (committing the audio before
            // it) before what was heard is asked, so the answer is the same on every run.
            s.sync();
        }
        let mark = speaker.as_ref().map_or(0, |s| s.said_count());
        let now = self.clock.now();
        let flights: Vec<InFlight> = self.in_flight.drain(..).collect();
        for f in flights {
            let heard = speaker
                .as_ref()
                .is_none_or(|s| s.answer_heard(f.request_id));
            let guidance = guides(&f.request);
            if heard && f.request.form != Form::Ambient && !guidance {
                self.in_flight.push_back(f);
                continue;
            }
            if !f.take_back(heard) {
                // Heard part-way, or whole: guidance stops here, and whether the alert cut
                // it is known once the speaker has placed the alert. A scene update heard
                // part-way just stops.
                if guidance {
                    if let Some(s) = &speaker {
                        s.withdraw(f.request_id);
                    }
                    self.cut_checks.push((f, mark, now));
                }
                continue;
            }
            if f.request.form == Form::Ambient {
                bump(&self.counters.cancelled);
            } else {
                self.ask_again(f);
            }
        }
        if matches!(self.answering, Answering::Inline(_)) {
            self.settle_cuts(now);
        }
    }

    /// A setting asked for by voice ("faster", "less talking"): changed for what is said
    /// from now on, and the new setting said back (at ambient priority: an answer playing
    /// goes on, at the new rate from its next clause).
    fn set(&mut self, c: Control, request: &Request, state: &EnvironmentState, now: HostTime) {
        let rate_wpm = self.speaker.as_ref().map(|s| {
            let rate = control::next_rate_wpm(c, s.rate_wpm());
            if rate != s.rate_wpm() {
                s.set_rate_wpm(rate);
            }
            rate
        });
        let v = control::next_verbosity(c, self.verbosity.get());
        self.verbosity.set(v);
        let text = control::acknowledgement(c, rate_wpm.unwrap_or_default(), v);
        let asked = Some((request.form.name().to_string(), request.text.clone()));
        let reply = Reply {
            request_index: request.index,
            request: asked,
            voice: request.voice,
            ask: Some(request.ask.to_string()),
            generator: "settings",
        };
        self.reply(text, reply, state.at, now);
    }

    /// Answers `f`'s request again at the next state (dropped, and counted, when too many
    /// wait already).
    fn ask_again(&mut self, f: InFlight) {
        if self.retry.len() >= self.config.max_pending {
            bump(&self.counters.dropped_requests);
            return;
        }
        // What the wearer heard whole of it (and of the answers before it) is not said
        // again while the new answer begins the same way.
        let mut heard = f.heard_before;
        if let Some(s) = &self.speaker {
            heard.extend(s.heard_whole(f.request_id));
        }
        self.resume_after.retain(|(r, _)| *r != f.request);
        if !heard.is_empty() {
            if self.resume_after.len() >= self.config.max_pending.max(1) {
                self.resume_after.pop_front();
            }
            self.resume_after.push_back((f.request.clone(), heard));
        }
        self.retry.push_back((f.request, f.text_read));
    }

    /// Guidance partly heard when an alert came is asked again, from a newer state, when
    /// the alert cut it: stopped while the answer thread still had more to say, or with
    /// some of their audio stopped or cleared by the alert, at most [`MAX_CUT_REPEATS`]
    /// times each. One heard to its end is not.
    /// In lock step this runs right after the alert (the speaker has placed it,
    /// [`Speaker::sync`]); in real time at each state until the speaker thread has placed
    /// the alert (it may be busy synthesising; never waited for), for at most
    /// [`CUT_CHECK_LIMIT_NS`].
    fn settle_cuts(&mut self, now: HostTime) {
        let speaker = self.speaker.clone();
        for (f, mark, since) in std::mem::take(&mut self.cut_checks) {
            let done = f.phase.load(Ordering::Acquire) == DONE;
            let cut = if !done {
                true
            } else {
                match speaker.as_ref() {
                    None => false,
                    Some(s) if s.has_placed(mark) => s.answer_cut(f.request_id),
                    Some(_) => {
                        if now.since(since) < CUT_CHECK_LIMIT_NS {
                            self.cut_checks.push((f, mark, since));
                        }
                        continue;
                    }
                }
            };
            if !cut {
                continue;
            }
            // Alerts one after another would otherwise restart the same answer without end.
            if self.count_cut_repeat(&f.request) {
                self.ask_again(f);
            }
        }
    }

    /// Counts one more repeat of `request` after a cut: `false` (not counted) once it was
    /// repeated [`MAX_CUT_REPEATS`] times.
    fn count_cut_repeat(&mut self, request: &Request) -> bool {
        let i = match self.cut_repeats.iter().position(|(r, _)| r == request) {
            Some(i) => i,
            None => {
                if self.cut_repeats.len() >= CUT_REPEATS_KEPT {
                    self.cut_repeats.pop_front();
                }
                self.cut_repeats.push_back((request.clone(), 0));
                self.cut_repeats.len() - 1
            }
        };
        match self.cut_repeats.get_mut(i) {
            Some((_, n)) if *n < MAX_CUT_REPEATS => {
                *n += 1;
                true
            }
            _ => false,
        }
    }

    /// Answers the requests whose text wait ends at `state`: those `served` (the newest
    /// whole-frame read folded into `state`, when known), found or past the limit.
    fn end_waits(&mut self, state: &Arc<EnvironmentState>, now: HostTime, served: Option<u64>) {
        if self.text_waits.is_empty() {
            return;
        }
        for e in self.text_waits.ready(state, served, now) {
            self.dispatch(e.request, Some(e.wait), state, now);
        }
    }

    /// Answers every waiting request now from `state` (`outcome`: why the wait ended).
    fn cut_waits(&mut self, state: &Arc<EnvironmentState>, now: HostTime, outcome: ReadOutcome) {
        let ended: Vec<Ended> = self.text_waits.take_all(state, now, outcome);
        for e in ended {
            self.dispatch(e.request, Some(e.wait), state, now);
        }
    }

    /// Answers `request` from `state`, or holds it for a whole-frame read when it needs text
    /// the state does not hold (`text_read`: it has waited already). A new request (`new`:
    /// not one taken back by an alert, which is older than any waiting) ends the waits
    /// before it first: they are answered from what the state holds, and then superseded
    /// like any older answer.
    fn route(
        &mut self,
        request: Request,
        text_read: Option<TextReadWait>,
        new: bool,
        state: &Arc<EnvironmentState>,
        now: HostTime,
    ) {
        let mut request = request;
        if new && request.ask == Ask::Open && request.form == Form::Question {
            if let Some(a) = self.likeness.as_ref().and_then(|l| l.ask(&request.text)) {
                log::info!("{:?} typed by likeness: {a}", request.text);
                request.ask = a;
                bump(&self.counters.by_likeness);
            }
        }
        if let (Ask::Setting(c), false) = (&request.ask, request.form == Form::Ambient) {
            self.set(*c, &request, state, now);
            return;
        }
        if new && request.form != Form::Ambient {
            self.cut_waits(state, now, ReadOutcome::Cut);
        }
        if text_read.is_none() && needs_text(&request, state) {
            // Only when there is a frame to read (no RGB frames: nothing to wait for).
            if let Some(rr) = self.read_requests.clone().filter(|r| r.ready()) {
                let ticket = rr.ask();
                match self.text_waits.hold(request, ticket, now) {
                    Ok(()) => return,
                    Err(r) => request = r,
                }
            }
        }
        self.dispatch(request, text_read, state, now);
    }

    /// Answers `request` from `state`: it supersedes every older answer, and guidance waits
    /// while an alert is said ([`Self::after_alerts`]).
    fn dispatch(
        &mut self,
        request: Request,
        text_read: Option<TextReadWait>,
        state: &Arc<EnvironmentState>,
        now: HostTime,
    ) {
        if request.form != Form::Ambient {
            self.supersede_in_flight();
            if self.after_alerts.take().is_some() {
                bump(&self.counters.cancelled);
            }
        }
        // Guidance decided while an alert is said, or waits to be, would be heard after it
        // from a state it has made stale ("the way ahead is clear" just before "Obstacle
        // ahead"): it is decided once the alerts have been said.
        if guides(&request) && self.alerter.busy(now) {
            self.after_alerts = Some((request, text_read));
            return;
        }
        self.answer(request, text_read, state, now);
    }

    /// Hands `request` to the answer engine now (inline, or to the answer thread).
    fn answer(
        &mut self,
        request: Request,
        text_read: Option<TextReadWait>,
        state: &Arc<EnvironmentState>,
        now: HostTime,
    ) {
        let request_id = self.next_id;
        self.next_id += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        let phase = Arc::new(AtomicU8::new(QUEUED));
        let kept = request.clone();
        let kept_read = text_read.clone();
        let heard_before = match self.resume_after.iter().position(|(r, _)| *r == request) {
            Some(i) => self
                .resume_after
                .remove(i)
                .map(|(_, h)| h)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let job = Job {
            request,
            request_id,
            state: Arc::clone(state),
            decided: now,
            cancel: Arc::clone(&cancel),
            phase: Arc::clone(&phase),
            text_read,
            heard_before: heard_before.clone(),
        };
        let sent = match &mut self.answering {
            // Lock step: answered and handed to the speaker now; an alert before its audio
            // plays still withdraws it (as in real time), so it is tracked too.
            Answering::Inline(engine) => {
                let _cpu = crate::profile::cpu::scope(crate::profile::stages::ANSWERS);
                engine.answer(&job);
                true
            }
            Answering::Thread { tx: Some(tx), .. } => match tx.try_send(job) {
                Ok(()) => true,
                Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                    bump(&self.counters.dropped_requests);
                    false
                }
            },
            Answering::Thread { tx: None, .. } => {
                bump(&self.counters.dropped_requests);
                false
            }
        };
        if sent {
            self.in_flight.push_back(InFlight {
                cancel,
                phase,
                request_id,
                request: kept,
                text_read: kept_read,
                heard_before,
            });
            while self.in_flight.len() > self.config.answer_queue.max(1) + 1 {
                self.in_flight.pop_front();
            }
        }
    }
}

/// How far a thing of the same kind may be from where a held alert's thing was for it to
/// be taken as that thing under a new tracker id, m.
const SAME_THING_M: f32 = 1.0;

/// Where the thing of an alert that waited is now, while it is in the path: the same
/// tracker id, else (perception re-identified it while the alert waited) the nearest thing
/// of the same kind within [`SAME_THING_M`] of where it was.
fn held_thing_now<'a>(was: &Thing, things: &'a [Thing]) -> Option<&'a Thing> {
    let in_path = || things.iter().filter(|t| t.in_path);
    in_path().find(|t| t.id == was.id).or_else(|| {
        let w = was.world_m?;
        in_path()
            .filter(|t| t.kind == was.kind)
            .filter_map(|t| {
                let p = t.world_m?;
                let d =
                    ((p[0] - w[0]).powi(2) + (p[1] - w[1]).powi(2) + (p[2] - w[2]).powi(2)).sqrt();
                (d <= SAME_THING_M).then_some((d, t))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, t)| t)
    })
}

impl PerceptionSink for Assistant {
    fn on_hazard(&mut self, event: &HazardEvent) {
        let now = self.clock.now();
        let Some(speaker) = self.speaker.as_ref() else {
            return;
        };
        // Alert lengths are estimated at the rate the wearer hears now.
        self.alerter.set_rate_wpm(speaker.rate_wpm());
        match self.alerter.alert(event, now) {
            Ok(u) => {
                let text = u.text.clone();
                let u_capture = u.capture;
                let request_id = self.next_id;
                self.next_id += 1;
                let _ = speaker.say(Utterance { request_id, ..u });
                bump(&self.counters.alerts);
                // Whatever answer is being generated is now stale.
                self.cancel_in_flight();
                // What it names, most urgent first (the event, or the event said with the
                // alert it replaces).
                let mut named = self.alerter.named().iter().map(|e| {
                    let t = &e.thing;
                    DecisionHazard {
                        thing_id: t.id,
                        kind: t.kind,
                        clock: t.clock,
                        distance_m: t.distance_m,
                        world_m: t.world_m,
                    }
                });
                let hazard = named.next();
                let more_hazards: Vec<DecisionHazard> = named.collect();
                let d = Decision {
                    kind: DecisionKind::Alert,
                    request_id,
                    request_index: None,
                    request: None,
                    text,
                    hazard,
                    more_hazards,
                    capture_ns: u_capture.ns(),
                    decided_ns: now.ns(),
                    state_at_ns: self
                        .state
                        .as_ref()
                        .map_or(event.evidence.ns(), |s| s.at.ns()),
                    generator: "alerter".into(),
                    guard: crate::state::GuardAction::Passed,
                    first_token_ns: None,
                    lm: None,
                    text_read: None,
                    voice: None,
                    ask: None,
                };
                write_decision(&self.decisions, &d);
            }
            Err(why) => {
                log::debug!(
                    "alert about thing {} ({:?}, {:.1} m) not said now: {why:?}",
                    event.thing.id,
                    event.thing.kind,
                    event.thing.distance_m
                );
                bump(&self.counters.alerts_suppressed);
            }
        }
    }

    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime) {
        self.state = Some(Arc::clone(state));
        // An alert held back whose thing has become more urgent than the alert being said
        // (it came nearer while it waited) is said now, cutting it.
        let urgent_now = self
            .alerter
            .take_more_urgent_held(now, |e| held_thing_now(&e.thing, &state.things).cloned());
        for e in urgent_now {
            self.on_hazard(&e);
        }
        // An alert held back while another was said is spoken once that one has been,
        // where its thing is now, while it is still in the path (else it is no longer
        // needed).
        while let Some(mut e) = self.alerter.take_held(now) {
            let Some(th) = held_thing_now(&e.thing, &state.things) else {
                log::debug!(
                    "alert about thing {} ({:?}) dropped after waiting: no longer in the path",
                    e.thing.id,
                    e.thing.kind
                );
                continue;
            };
            e.thing = th.clone();
            self.on_hazard(&e);
        }
        // Guidance that waited for the alerts, once they have been said.
        if !self.alerter.busy(now) {
            if let Some((r, w)) = self.after_alerts.take() {
                self.dispatch(r, w, state, now);
            }
        }
        // Waits that end at this state are answered first (they are the oldest).
        let served = self.read_requests.as_ref().map(|r| r.served());
        self.end_waits(state, now, served);
        // Requests taken back by an alert (older than any waiting), then new ones.
        self.settle_cuts(now);
        let retried: Vec<(Request, Option<TextReadWait>)> = self.retry.drain(..).collect();
        for (r, w) in retried {
            self.route(r, w, false, state, now);
        }
        let mut due: Vec<Request> = Vec::new();
        while let Some(r) = self.scripted.front() {
            let ready = match r.t {
                RequestTime::Device(t) => t <= state.at,
                RequestTime::Arrival(_) => true,
            };
            if !ready {
                break;
            }
            if let Some(r) = self.scripted.pop_front() {
                due.push(r);
            }
        }
        if let Some(q) = &self.live {
            due.extend(q.drain());
        }
        if let Some(p) = self.periodic.as_mut() {
            // Still: standing, or not known to move (no inertial data).
            let still = matches!(
                state.motion.state,
                MotionState::Standing | MotionState::Unknown
            );
            // A scene update waits while an alert is said: it would say the path.
            if self.verbosity.get().unasked() && !self.alerter.busy(now) && p.due(state.at, still) {
                due.push(Request::new(
                    None,
                    Form::Ambient,
                    "What is around me?".into(),
                    RequestTime::Device(state.at),
                ));
            }
        }
        for r in due {
            self.route(r, None, true, state, now);
        }
    }

    fn finish(&mut self) {
        // Requests still waiting for a read are answered from the last state.
        match self.state.clone() {
            Some(state) => {
                let now = self.clock.now();
                self.cut_waits(&state, now, ReadOutcome::RunEnded);
                // Guidance still waiting for alerts is answered from the last state.
                if let Some((r, w)) = self.after_alerts.take() {
                    self.answer(r, w, &state, now);
                }
            }
            None => {
                let n = self.text_waits.drop_all() as u64
                    + u64::from(self.after_alerts.take().is_some());
                self.counters
                    .dropped_requests
                    .fetch_add(n, Ordering::Relaxed);
            }
        }
        self.finished = true;
        // Requests withdrawn by an alert and not yet answered again end with the run.
        for _ in self.retry.drain(..) {
            bump(&self.counters.dropped_requests);
        }
        if let Answering::Thread { tx, worker } = &mut self.answering {
            tx.take();
            if let Some(w) = worker.take() {
                if let Err(e) = w.join() {
                    log::error!("assistant: {e}");
                }
            }
        }
        // The engine (inline) holds a speaker handle too: release it first.
        self.answering = Answering::Thread {
            tx: None,
            worker: None,
        };
        let end = self.clock.now();
        if let Some(sp) = self.speaker.take() {
            match Arc::try_unwrap(sp) {
                Ok(sp) => match sp.finish(Some(end)) {
                    Ok(r) => self.speaker_report = Some(r),
                    Err(e) => log::error!("assistant: speech: {e}"),
                },
                Err(_) => log::error!("assistant: speaker still shared at finish"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, ThingKind};
    use crate::time::DeviceTime;

    fn thing(id: u32, kind: ThingKind, world: [f32; 3], in_path: bool) -> Thing {
        Thing {
            id,
            kind,
            label: "x".into(),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(12),
            bearing_left_deg: None,
            distance_m: 2.0,
            height: None,
            world_m: Some(world),
            in_path,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 1.0,
            evidence: Evidence::Points,
        }
    }

    #[test]
    fn a_held_alert_finds_its_thing_by_id_or_by_kind_and_place() {
        let was = thing(7, ThingKind::StepUp, [2.0, 0.0, 0.0], true);
        // By id, while in the path.
        let now = [
            thing(3, ThingKind::StepUp, [2.1, 0.0, 0.0], true),
            thing(7, ThingKind::StepUp, [2.5, 0.0, 0.0], true),
        ];
        assert_eq!(held_thing_now(&was, &now).map(|t| t.id), Some(7));
        // Re-identified: the nearest of the same kind within a metre.
        let now = [
            thing(8, ThingKind::StepUp, [2.8, 0.0, 0.0], true),
            thing(9, ThingKind::StepUp, [2.3, 0.1, 0.0], true),
            thing(10, ThingKind::Obstacle, [2.0, 0.0, 0.0], true),
        ];
        assert_eq!(held_thing_now(&was, &now).map(|t| t.id), Some(9));
        // Out of the path, too far, or another kind: no longer needed.
        let now = [
            thing(7, ThingKind::StepUp, [2.0, 0.0, 0.0], false),
            thing(11, ThingKind::StepUp, [3.2, 0.0, 0.0], true),
            thing(12, ThingKind::DropOff, [2.0, 0.0, 0.0], true),
        ];
        assert_eq!(held_thing_now(&was, &now).map(|t| t.id), None);
    }
}
