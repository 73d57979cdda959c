//! Producing one answer: the generator (or the templates, after a failure or when there is
//! no model) streams text; complete sentences pass the safety guard and the form's budget,
//! then go to the speaker (clause by clause under the request id, or as one ambient
//! utterance); the decision is written to `decisions.jsonl`.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::counters::{bump, Counters};
use super::decisions::DecisionWriter;
use super::degenerate;
use super::forms::Form;
use super::goal::find_goal;
use super::guard::claims::complete_sentences;
use super::guard::{action_of, Guard, Guarded};
use super::intent::resolve;
use super::requests::{Request, RequestTime};
use super::template::answer_ask as template_answer;
use super::understand::Ask;
use super::verbosity::SharedVerbosity;
use crate::speech::chunker::ChunkerConfig;
use crate::speech::{AnswerStream, Priority, Speaker, Utterance};
use crate::state::{
    Continue, Decision, DecisionKind, EnvironmentState, GenerationPrompt, Generator, LmTiming,
    TextReadWait, Thing,
};
use crate::time::{Clock, HostTime};

/// One answer to produce.
pub(crate) struct Job {
    pub(crate) request: Request,
    pub(crate) request_id: u64,
    pub(crate) state: Arc<EnvironmentState>,
    pub(crate) decided: HostTime,
    pub(crate) cancel: Arc<AtomicBool>,
    /// [`QUEUED`], [`STARTED`], [`SPEAKING`] or [`WITHDRAWN`]: who owns the job once an
    /// alert or a newer request comes.
    pub(crate) phase: Arc<AtomicU8>,
    /// How its wait for a whole-frame text read went, when it waited for one.
    pub(crate) text_read: Option<TextReadWait>,
    /// Clauses of earlier answers to its request that an alert cut, heard whole: left out
    /// while this answer begins with them ([`AnswerStream::with_heard_before`]).
    pub(crate) heard_before: Vec<String>,
}

/// The job waits for the answer thread.
pub(crate) const QUEUED: u8 = 0;
/// The answer thread took it and is working on it; nothing of it was spoken yet.
pub(crate) const STARTED: u8 = 1;
/// Taken back before anything of it was spoken (an alert came): it is answered again from
/// a newer state, and whatever the answer thread was still doing with it is discarded.
pub(crate) const WITHDRAWN: u8 = 2;
/// Its first sentence went to the speaker: from then on it can only be cancelled (what it
/// said stays said), or withdrawn by an alert while none of its audio has reached the sink.
pub(crate) const SPEAKING: u8 = 3;
/// Every sentence of it went to the speaker (or it had nothing to say): an alert can still
/// cut its audio, or withdraw it while none of that has reached the sink.
pub(crate) const DONE: u8 = 4;

/// Claims the right to speak for `phase`'s job: `false` once it was withdrawn. Compare and
/// swap, so the assistant withdrawing it and the answer thread speaking it never both win.
fn claim_speech(phase: &AtomicU8) -> bool {
    phase
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |p| {
            (p == QUEUED || p == STARTED).then_some(SPEAKING)
        })
        .is_ok()
        || phase.load(Ordering::Acquire) == SPEAKING
}

/// Writes decisions; shared by the perception thread (alerts) and the answer thread.
pub(crate) type SharedDecisions = Arc<Mutex<DecisionWriter>>;

/// Writes one decision, logging (not failing on) an I/O error.
pub(crate) fn write_decision(w: &SharedDecisions, d: &Decision) {
    match w.lock() {
        Ok(mut w) => {
            if let Err(e) = w.write(d) {
                log::error!("assistant: {e}");
            }
        }
        Err(_) => log::error!("assistant: decision writer poisoned; decision lost"),
    }
}

/// The session-clock time (host ns) of a first token that came `since_call_ns` after the
/// generator was called at `called` (generators report the delay, decisions the time).
fn first_token_at(called: HostTime, since_call_ns: i64) -> i64 {
    called.ns().saturating_add(since_call_ns.max(0))
}

/// The thing a request is about (goal target, "where is X").
fn target_of<'a>(r: &Request, state: &'a EnvironmentState) -> Option<&'a Thing> {
    match (&r.ask, r.form) {
        (_, Form::Ambient | Form::Scene) => None,
        (Ask::Goal(_) | Ask::AtGoal(_), _) => find_goal(&r.text, state).and_then(|g| g.thing()),
        (Ask::WhereIs(t), _) => resolve(&t.words, state),
        _ => None,
    }
}

/// Produces answers: the generator (or templates), the guard, the speaker, the decision.
pub(crate) struct Engine {
    pub(crate) generator: Option<Box<dyn Generator>>,
    pub(crate) failed: bool,
    pub(crate) guard: Guard,
    pub(crate) chunker: ChunkerConfig,
    pub(crate) speaker: Arc<Speaker>,
    pub(crate) decisions: SharedDecisions,
    pub(crate) counters: Arc<Counters>,
    pub(crate) clock: Arc<dyn Clock>,
    /// Why the model was given up, once it failed (the run's one warning, for its notes).
    pub(crate) lm_failure: Arc<Mutex<Option<String>>>,
    /// How much an answer says.
    pub(crate) verbosity: SharedVerbosity,
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
    /// Text not spoken as degenerate ([`super::degenerate`]).
    degenerate: u64,
    /// The answer's budget: most sentences and words.
    budget: (usize, usize),
    /// When the first sentence went to the speaker.
    first_speech: Option<HostTime>,
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
        if !self.full && degenerate::loops(&self.pending) {
            // Looping before the sentence even ends: the model has derailed.
            self.pending.clear();
            self.degenerate += 1;
            self.full = true;
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
        if degenerate::loops(s) {
            // A phrase said over and over: nothing more of this answer is trusted.
            self.degenerate += 1;
            self.full = true;
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
        let (max_sentences, max_words) = self.budget;
        let new: Vec<String> = self.guarded.sentences.get(before..).unwrap_or(&[]).to_vec();
        let mut kept = 0;
        for s in new {
            let n = s.split_whitespace().count();
            if self.spoken >= max_sentences || (self.spoken > 0 && self.words + n > max_words) {
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
        if (self.first_speech.is_none() && !claim_speech(&self.job.phase))
            || self.job.phase.load(Ordering::Acquire) == WITHDRAWN
        {
            // Withdrawn before its first word was heard: it is answered again, so say
            // nothing more.
            self.full = true;
            return;
        }
        let now = self.now();
        if self.first_speech.is_none() {
            self.first_speech = Some(self.clock.now());
        }
        if self.job.request.form == Form::Ambient {
            let _ = self.speaker.say(Utterance {
                text: s.to_string(),
                priority: Priority::Ambient,
                request_id: self.job.request_id,
                capture: self.job.state.at,
                decided: now,
                earcon: None,
                cue: None,
                pan: crate::speech::Pan::CENTRE,
                urgent: false,
            });
        } else if let Some(st) = self.stream.as_mut() {
            st.push(&format!("{s} "), now);
        }
    }

    /// Speaks what is left of the text as a last sentence (through the guard), unless the
    /// model ran `out_of_tokens` in the middle of it: an unfinished sentence is not said.
    fn flush(&mut self, out_of_tokens: bool) {
        let rest = std::mem::take(&mut self.pending);
        if rest.trim().is_empty() {
            return;
        }
        if out_of_tokens && !degenerate::finished(&rest) {
            self.degenerate += 1;
        } else {
            self.sentence(rest.trim());
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
    /// Answers `job` (blocking until generation ends).
    pub(crate) fn answer(&mut self, job: &Job) {
        let state = Arc::clone(&job.state);
        log::debug!(
            "request {} ({} \"{}\") answered from the state at {} ns:\n{}",
            job.request_id,
            job.request.form.name(),
            job.request.text,
            state.at.ns(),
            super::render::render_state(&state)
        );
        let target = target_of(&job.request, &state);
        let speaker = Arc::clone(&self.speaker);
        let mut speech = Speech {
            stream: (job.request.form != Form::Ambient).then(|| {
                AnswerStream::new(&speaker, self.chunker, job.request_id, state.at)
                    .with_heard_before(job.heard_before.clone())
            }),
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
            degenerate: 0,
            budget: self
                .verbosity
                .get()
                .budget(&job.request.response_form().spec()),
            first_speech: None,
        };
        let mut name = "template".to_string();
        let mut unanswerable = false;
        let mut cancelled = false;
        let mut use_template = true;
        // --- language model (h-llm): only scenes and open questions go to the model ---
        let mut first_token_ns = None;
        let mut lm_timing = None;
        let lm_route = super::lm::route::route(job.request.form, &job.request.ask);
        let generator = self
            .generator
            .as_mut()
            .filter(|_| lm_route == super::lm::route::Route::Lm);
        if let (Some(g), false) = (generator, self.failed) {
            use_template = false;
            let started = self.clock.now();
            let spec = job.request.response_form().spec();
            let prompt = GenerationPrompt {
                system: spec.system.to_string(),
                context: {
                    let c = super::lm::context::model_context(&state);
                    log::trace!("lm view for request {}:\n{c}", job.request_id);
                    c
                },
                request: job.request.text.clone(),
                form: job.request.response_form().name().to_string(),
                max_tokens: spec.max_tokens,
            };
            name = g.name().to_string();
            // First-token times are recorded on the session clock (like `decided_ns`), so
            // the latency report can take decision → first token → first audio.
            // (On a virtual clock the call is at the decision time, as every clause is.)
            let called = if self.clock.is_real_time() {
                self.clock.now()
            } else {
                job.decided
            };
            let result = g.generate(&prompt, &mut |piece| speech.push(piece), &job.cancel);
            let ended = self.clock.now();
            let mut timing = LmTiming {
                asked_ns: match job.request.t {
                    RequestTime::Device(t) => self.clock.due(t).ns(),
                    RequestTime::Arrival(h) => h.ns(),
                },
                started_ns: started.ns(),
                generate_ns: called.ns(),
                end_ns: ended.ns(),
                ..LmTiming::default()
            };
            match result {
                Ok(stats) => {
                    cancelled = stats.cancelled || job.cancel.load(Ordering::Acquire);
                    if cancelled {
                        // An alert cut the answer: its unfinished
                        // sentence is not spoken.
                        speech.pending.clear();
                    } else {
                        speech.flush(stats.generated_tokens >= spec.max_tokens);
                        if speech.spoken == 0 {
                            // Nothing the model said passed the guard (or it said
                            // nothing, or only a loop): the templates answer, so a
                            // question is never met with silence.
                            speech.full = false;
                            use_template = true;
                            name = "template".to_string();
                            timing.template_fallback = true;
                        }
                    }
                    first_token_ns = (stats.generated_tokens > 0)
                        .then(|| first_token_at(called, stats.first_token_ns));
                    timing.wait_ns = stats.wait_ns;
                    timing.prefill_tokens = stats.prefill_tokens;
                    timing.prefill_ns = stats.prefill_ns;
                    timing.on_prefilled = stats.on_prefilled;
                    timing.generated_tokens = stats.generated_tokens;
                    timing.threads = stats.threads;
                    timing.sensor_tokens = stats.sensor_tokens;
                    timing.image_used = stats.image_used;
                    timing.image_capture_ns = stats.image_capture_ns;
                    timing.image_age_ns = stats.image_age_ns;
                }
                Err(e) => {
                    bump(&self.counters.generator_failures);
                    let note = format!(
                        "language model {name} failed mid-run ({e}); templates answered from \
                         then on"
                    );
                    log::warn!("assistant: {note}");
                    if let Ok(mut n) = self.lm_failure.lock() {
                        n.get_or_insert(note);
                    }
                    timing.failure = Some(e.to_string());
                    self.failed = true;
                    // A sentence cut by the failure is not spoken; when nothing was, the
                    // templates answer this request.
                    speech.pending.clear();
                    if speech.spoken == 0 {
                        speech.full = false;
                        use_template = true;
                        name = "template".to_string();
                    }
                }
            }
            lm_timing = Some(timing);
        }
        // --- end language model ---
        if use_template && !job.cancel.load(Ordering::Acquire) {
            let a = template_answer(
                job.request.form,
                &job.request.ask,
                &job.request.text,
                &state,
            );
            unanswerable = a.unanswerable;
            // After a whole-frame read that did not find the place named, say so last
            // (an answer that already says it cannot tell needs no more).
            let note = job
                .text_read
                .as_ref()
                .filter(|_| !a.unanswerable)
                .and_then(|w| super::text_wait::not_found_note(&job.request, w, &state));
            for s in a.sentences.iter().chain(&note) {
                speech.push(&format!("{s} "));
            }
        }
        let first_speech = speech.first_speech;
        self.counters
            .degenerate
            .fetch_add(speech.degenerate, Ordering::Relaxed);
        let guarded = speech.finish();
        if let Some(t) = lm_timing.as_mut() {
            t.first_speech_ns = first_speech.map(|h| h.ns());
        }
        if job.phase.load(Ordering::Acquire) == WITHDRAWN {
            // Taken back before a word of it was spoken: the assistant answers it again
            // from a newer state; this attempt leaves no decision.
            return;
        }
        if cancelled || job.cancel.load(Ordering::Acquire) {
            bump(&self.counters.cancelled);
        } else {
            // All of it is with the speaker now (an alert's take-back may race this: it
            // wins, or sees the answer done).
            let _ = job
                .phase
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |p| {
                    (p != WITHDRAWN).then_some(DONE)
                });
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
            more_hazards: Vec::new(),
            capture_ns: state.at.ns(),
            decided_ns: job.decided.ns(),
            state_at_ns: state.at.ns(),
            generator: name,
            guard: action_of(&guarded.interventions),
            first_token_ns,
            lm: lm_timing,
            text_read: job.text_read.clone(),
            voice: job.request.voice,
            ask: (kind == DecisionKind::Answer).then(|| job.request.ask.to_string()),
        };
        write_decision(&self.decisions, &d);
    }
}
