//! The [`Assistant`]: perception's sink. A hazard event becomes an alert at once (no model on
//! that path); each state snapshot is kept, and the requests that are due are answered from
//! it — synchronously inside `on_state` on a virtual clock (lock-step replay, deterministic),
//! or on an answer thread behind a bounded queue in real time, where a newer request or a
//! hazard alert cancels the answer being generated. Generated text passes the safety
//! [`Guard`] sentence by sentence before it is spoken; every decision goes to
//! `decisions.jsonl`. A generator that fails is reported once and replaced by templates for
//! the rest of the run.

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};

use super::alerts::{Alerter, AlerterConfig};
use super::decisions::{DecisionError, DecisionWriter};
use super::forms::Form;
use super::guard::claims::complete_sentences;
use super::guard::{action_of, Guard, GuardConfig, Guarded};
use super::intent::{classify, goal_target, resolve, Intent};
use super::render::render_state;
use super::requests::{PeriodicScene, Request, RequestQueue, RequestTime};
use super::template::answer as template_answer;
use crate::speech::chunker::ChunkerConfig;
use crate::speech::speaker::SpeakerError;
use crate::speech::{AnswerStream, Priority, Speaker, SpeakerReport, Utterance};
use crate::state::{
    Continue, Decision, DecisionHazard, DecisionKind, EnvironmentState, GenerationPrompt,
    Generator, HazardEvent, PerceptionSink, Thing,
};
use crate::time::{Clock, HostTime};

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

#[derive(Debug, Default)]
struct Counters {
    alerts: AtomicU64,
    alerts_suppressed: AtomicU64,
    answers: AtomicU64,
    ambient: AtomicU64,
    guard_interventions: AtomicU64,
    unanswerable: AtomicU64,
    dropped_requests: AtomicU64,
    cancelled: AtomicU64,
    generator_failures: AtomicU64,
}

/// What the assistant did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AssistantCounters {
    /// Alerts spoken.
    pub alerts: u64,
    /// Hazard events not alerted (duplicates, rate limit).
    pub alerts_suppressed: u64,
    /// Answers given.
    pub answers: u64,
    /// Periodic scene updates given.
    pub ambient: u64,
    /// Sentences the guard blocked.
    pub guard_interventions: u64,
    /// Requests the evidence did not answer.
    pub unanswerable: u64,
    /// Requests dropped (queues full).
    pub dropped_requests: u64,
    /// Answers cancelled mid-generation.
    pub cancelled: u64,
    /// Generator failures (after the first, templates answer).
    pub generator_failures: u64,
}

impl Counters {
    fn snapshot(&self) -> AssistantCounters {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        AssistantCounters {
            alerts: g(&self.alerts),
            alerts_suppressed: g(&self.alerts_suppressed),
            answers: g(&self.answers),
            ambient: g(&self.ambient),
            guard_interventions: g(&self.guard_interventions),
            unanswerable: g(&self.unanswerable),
            dropped_requests: g(&self.dropped_requests),
            cancelled: g(&self.cancelled),
            generator_failures: g(&self.generator_failures),
        }
    }
}

fn bump(a: &AtomicU64) {
    a.fetch_add(1, Ordering::Relaxed);
}

/// One answer to produce.
struct Job {
    request: Request,
    request_id: u64,
    state: Arc<EnvironmentState>,
    decided: HostTime,
    cancel: Arc<AtomicBool>,
}

/// Writes decisions; shared by the perception thread (alerts) and the answer thread.
type SharedDecisions = Arc<Mutex<DecisionWriter>>;

fn write_decision(w: &SharedDecisions, d: &Decision) {
    match w.lock() {
        Ok(mut w) => {
            if let Err(e) = w.write(d) {
                log::error!("assistant: {e}");
            }
        }
        Err(_) => log::error!("assistant: decision writer poisoned; decision lost"),
    }
}

/// The thing a request is about (goal target, "where is X").
fn target_of<'a>(r: &Request, state: &'a EnvironmentState) -> Option<&'a Thing> {
    match r.form {
        Form::Goal => goal_target(&r.text, state),
        Form::Question => match classify(&r.text) {
            Intent::WhereIs(words) => resolve(&words, state),
            _ => None,
        },
        _ => None,
    }
}

/// Produces answers: the generator (or templates), the guard, the speaker, the decision.
struct Engine {
    generator: Option<Box<dyn Generator>>,
    failed: bool,
    guard: Guard,
    chunker: ChunkerConfig,
    speaker: Arc<Speaker>,
    decisions: SharedDecisions,
    counters: Arc<Counters>,
    clock: Arc<dyn Clock>,
}

/// Speaks guarded sentences within the form's budget.
struct Speech<'a> {
    stream: Option<AnswerStream<'a>>,
    speaker: &'a Speaker,
    job: &'a Job,
    clock: &'a dyn Clock,
    guard: &'a Guard,
    target: Option<&'a Thing>,
    guarded: Guarded,
    said: BTreeSet<String>,
    pending: String,
    spoken: usize,
    words: usize,
    full: bool,
}

impl<'a> Speech<'a> {
    fn now(&self) -> HostTime {
        // On a virtual clock every clause shares the decision time (deterministic).
        if self.clock.is_real_time() {
            self.clock.now()
        } else {
            self.job.decided
        }
    }

    /// Adds generated text; speaks the sentences it completes. Returns whether to go on.
    fn push(&mut self, piece: &str) -> Continue {
        self.pending.push_str(piece);
        let (parts, rest) = complete_sentences(&self.pending);
        self.pending = rest.to_string();
        for s in parts {
            self.sentence(&s);
        }
        if self.full {
            Continue::Stop
        } else {
            Continue::Yes
        }
    }

    fn sentence(&mut self, s: &str) {
        if self.full {
            return;
        }
        let before = self.guarded.sentences.len();
        self.guard.check_into(
            s,
            &self.job.state,
            self.target,
            &mut self.guarded,
            &mut self.said,
        );
        let spec = self.job.request.form.spec();
        let new: Vec<String> = self.guarded.sentences.get(before..).unwrap_or(&[]).to_vec();
        let mut kept = 0;
        for s in new {
            let n = s.split_whitespace().count();
            if self.spoken >= spec.max_sentences
                || (self.spoken > 0 && self.words + n > spec.max_words)
            {
                self.full = true;
                break;
            }
            self.spoken += 1;
            self.words += n;
            kept += 1;
            self.say(&s);
        }
        self.guarded.sentences.truncate(before + kept);
    }

    fn say(&mut self, s: &str) {
        let now = self.now();
        if self.job.request.form == Form::Ambient {
            let _ = self.speaker.say(Utterance {
                text: s.to_string(),
                priority: Priority::Ambient,
                request_id: self.job.request_id,
                capture: self.job.state.at,
                decided: now,
                earcon: None,
            });
        } else if let Some(st) = self.stream.as_mut() {
            st.push(&format!("{s} "), now);
        }
    }

    fn finish(mut self) -> Guarded {
        let rest = std::mem::take(&mut self.pending);
        if !rest.trim().is_empty() {
            self.sentence(rest.trim());
        }
        let now = self.now();
        if let Some(st) = self.stream.take() {
            st.finish(now);
        }
        self.guarded
    }
}

impl Engine {
    fn answer(&mut self, job: &Job) {
        let state = Arc::clone(&job.state);
        let target = target_of(&job.request, &state);
        let speaker = Arc::clone(&self.speaker);
        let mut speech = Speech {
            stream: (job.request.form != Form::Ambient)
                .then(|| AnswerStream::new(&speaker, self.chunker, job.request_id, state.at)),
            speaker: &speaker,
            job,
            clock: self.clock.as_ref(),
            guard: &self.guard,
            target,
            guarded: Guarded::default(),
            said: BTreeSet::new(),
            pending: String::new(),
            spoken: 0,
            words: 0,
            full: false,
        };
        let mut name = "template".to_string();
        let mut unanswerable = false;
        let mut cancelled = false;
        let mut use_template = true;
        if let (Some(g), false) = (self.generator.as_mut(), self.failed) {
            use_template = false;
            let spec = job.request.form.spec();
            let prompt = GenerationPrompt {
                system: spec.system.to_string(),
                context: render_state(&state),
                request: job.request.text.clone(),
                form: job.request.form.name().to_string(),
                max_tokens: spec.max_tokens,
            };
            name = g.name().to_string();
            let mut any = false;
            let result = g.generate(
                &prompt,
                &mut |piece| {
                    any |= !piece.trim().is_empty();
                    speech.push(piece)
                },
                &job.cancel,
            );
            match result {
                Ok(stats) => cancelled = stats.cancelled || job.cancel.load(Ordering::Acquire),
                Err(e) => {
                    bump(&self.counters.generator_failures);
                    log::warn!(
                        "assistant: generator {name} failed ({e}); templates answer for the \
                         rest of the run"
                    );
                    self.failed = true;
                    if !any {
                        use_template = true;
                        name = "template".to_string();
                    }
                }
            }
        }
        if use_template && !job.cancel.load(Ordering::Acquire) {
            let a = template_answer(job.request.form, &job.request.text, &state);
            unanswerable = a.unanswerable;
            for s in &a.sentences {
                speech.push(&format!("{s} "));
            }
        }
        let guarded = speech.finish();
        if cancelled || job.cancel.load(Ordering::Acquire) {
            bump(&self.counters.cancelled);
        }
        if guarded.sentences.is_empty() && job.request.form == Form::Ambient {
            return;
        }
        // A model that says it cannot tell counts as unanswered too.
        let first = guarded
            .sentences
            .first()
            .map(|s| s.to_lowercase())
            .unwrap_or_default();
        if unanswerable || first.starts_with("i can't") || first.starts_with("i cannot") {
            bump(&self.counters.unanswerable);
        }
        let n = guarded.interventions.len() as u64;
        self.counters
            .guard_interventions
            .fetch_add(n, Ordering::Relaxed);
        let kind = if job.request.form == Form::Ambient {
            bump(&self.counters.ambient);
            DecisionKind::Ambient
        } else {
            bump(&self.counters.answers);
            DecisionKind::Answer
        };
        let d = Decision {
            kind,
            request_id: job.request_id,
            request_index: job.request.index,
            request: (kind == DecisionKind::Answer).then(|| {
                (
                    job.request.form.name().to_string(),
                    job.request.text.clone(),
                )
            }),
            text: guarded.sentences.join(" "),
            hazard: None,
            capture_ns: state.at.ns(),
            decided_ns: job.decided.ns(),
            state_at_ns: state.at.ns(),
            generator: name,
            guard: action_of(&guarded.interventions),
        };
        write_decision(&self.decisions, &d);
    }
}

enum Answering {
    Inline(Box<Engine>),
    Thread {
        tx: Option<Sender<Job>>,
        handle: Option<JoinHandle<()>>,
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
    state: Option<Arc<EnvironmentState>>,
    next_id: u64,
    in_flight: VecDeque<Arc<AtomicBool>>,
    answering: Answering,
    speaker_report: Option<SpeakerReport>,
    generator_name: String,
}

impl std::fmt::Debug for Assistant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Assistant")
            .field("mode", &self.config.mode)
            .field("counters", &self.counters.snapshot())
            .finish()
    }
}

fn answer_thread(mut engine: Engine, rx: Receiver<Job>) {
    for job in rx.iter() {
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
        let decisions = Arc::new(Mutex::new(DecisionWriter::create(
            &config.out_dir.join("decisions.jsonl"),
        )?));
        let speaker = Arc::new(speaker);
        let counters = Arc::new(Counters::default());
        let generator_name = generator
            .as_ref()
            .map(|g| g.name().to_string())
            .unwrap_or_else(|| "template".into());
        let engine = Engine {
            generator,
            failed: false,
            guard: Guard::new(config.guard),
            chunker: config.chunker,
            speaker: Arc::clone(&speaker),
            decisions: Arc::clone(&decisions),
            counters: Arc::clone(&counters),
            clock: Arc::clone(&clock),
        };
        let answering = match config.mode {
            AssistantMode::LockStep => Answering::Inline(Box::new(engine)),
            AssistantMode::RealTime => {
                let (tx, rx) = bounded(config.answer_queue.max(1));
                let handle = std::thread::Builder::new()
                    .name("vista-answer".into())
                    .spawn(move || answer_thread(engine, rx))
                    .map_err(|e| AssistantError::Thread(e.to_string()))?;
                Answering::Thread {
                    tx: Some(tx),
                    handle: Some(handle),
                }
            }
        };
        Ok(Self {
            periodic: config.ambient_every_ns.map(PeriodicScene::new),
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
            answering,
            speaker_report: None,
            generator_name,
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

    /// The generator's name as configured (`template` when none).
    pub fn generator_name(&self) -> &str {
        &self.generator_name
    }

    /// Counters so far (live-queue drops included).
    pub fn counters(&self) -> AssistantCounters {
        let mut c = self.counters.snapshot();
        if let Some(q) = &self.live {
            c.dropped_requests += q.stats().dropped_full.load(Ordering::Relaxed);
        }
        c
    }

    /// The speaker's report, once [`PerceptionSink::finish`] has run.
    pub fn speaker_report(&self) -> Option<&SpeakerReport> {
        self.speaker_report.as_ref()
    }

    /// `decisions.jsonl`.
    pub fn decisions_path(&self) -> PathBuf {
        self.config.out_dir.join("decisions.jsonl")
    }

    fn cancel_in_flight(&mut self) {
        for c in self.in_flight.drain(..) {
            c.store(true, Ordering::Release);
        }
    }

    fn dispatch(&mut self, request: Request, state: &Arc<EnvironmentState>, now: HostTime) {
        let request_id = self.next_id;
        self.next_id += 1;
        // A newer request cancels the answer being generated (ambient updates do not).
        if request.form != Form::Ambient {
            self.cancel_in_flight();
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let job = Job {
            request,
            request_id,
            state: Arc::clone(state),
            decided: now,
            cancel: Arc::clone(&cancel),
        };
        match &mut self.answering {
            Answering::Inline(engine) => engine.answer(&job),
            Answering::Thread { tx: Some(tx), .. } => match tx.try_send(job) {
                Ok(()) => {
                    self.in_flight.push_back(cancel);
                    while self.in_flight.len() > self.config.answer_queue.max(1) + 1 {
                        self.in_flight.pop_front();
                    }
                }
                Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                    bump(&self.counters.dropped_requests);
                }
            },
            Answering::Thread { tx: None, .. } => bump(&self.counters.dropped_requests),
        }
    }
}

impl PerceptionSink for Assistant {
    fn on_hazard(&mut self, event: &HazardEvent) {
        let now = self.clock.now();
        let Some(speaker) = self.speaker.as_ref() else {
            return;
        };
        match self.alerter.alert(event, now) {
            Ok(u) => {
                let text = u.text.clone();
                let request_id = self.next_id;
                self.next_id += 1;
                let _ = speaker.say(Utterance { request_id, ..u });
                bump(&self.counters.alerts);
                // Whatever answer is being generated is now stale.
                self.cancel_in_flight();
                let t = &event.thing;
                let d = Decision {
                    kind: DecisionKind::Alert,
                    request_id,
                    request_index: None,
                    request: None,
                    text,
                    hazard: Some(DecisionHazard {
                        thing_id: t.id,
                        kind: t.kind,
                        clock: t.clock,
                        distance_m: t.distance_m,
                        world_m: t.world_m,
                    }),
                    capture_ns: event.evidence.ns(),
                    decided_ns: now.ns(),
                    state_at_ns: self
                        .state
                        .as_ref()
                        .map_or(event.evidence.ns(), |s| s.at.ns()),
                    generator: "alerter".into(),
                    guard: crate::state::GuardAction::Passed,
                };
                write_decision(&self.decisions, &d);
            }
            Err(_) => bump(&self.counters.alerts_suppressed),
        }
    }

    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime) {
        self.state = Some(Arc::clone(state));
        let mut due = Vec::new();
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
            if p.due(state.at) {
                due.push(Request {
                    index: None,
                    form: Form::Ambient,
                    text: "What is around me?".into(),
                    t: RequestTime::Device(state.at),
                });
            }
        }
        for r in due {
            self.dispatch(r, state, now);
        }
    }

    fn finish(&mut self) {
        if let Answering::Thread { tx, handle } = &mut self.answering {
            tx.take();
            if let Some(h) = handle.take() {
                if h.join().is_err() {
                    log::error!("assistant: the answer thread panicked");
                }
            }
        }
        // The engine (inline) holds a speaker handle too: release it first.
        self.answering = Answering::Thread {
            tx: None,
            handle: None,
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
