//! The language model with its prompt prefix prefilled ahead of requests.
//!
//! The model's system turn holds the standing system prompt and the environment state as
//! text (see [`crate::infer::llm::generator`]). A sink placed in front of the
//! assistant renders every state snapshot (microseconds) and, at most every
//! [`PrefillConfig::every_ns`] of device time, hands the newest one to a background thread
//! that brings the KV cache up to date (only the tokens after the first difference are
//! recomputed). A request then pays only for its own tokens: when the prefilled state is at
//! most [`PrefillConfig::max_stale_ns`] older than the request's (or newer; the request's
//! state is placed in time among the last states seen by its text), the model answers over
//! the prefilled state text; the guard still checks every
//! sentence against the request's own state, so a distance that moved more than its
//! tolerance (30 % or 1 m; a walker covers ~1.4 m in the 1 s allowed) is replaced by the
//! template's, never spoken stale. Safety questions and goals never reach the model. A
//! prefill costs ~150 tokens of view (the things seen change often) and comes at most every
//! four times its duration, so on a 2-core machine the prefilled state is often ~1 s old;
//! over it a request pays only its own ~20 tokens (first token ~125–175 ms measured here at
//! load 5–6) instead of ~150–200 (~500 ms). Otherwise the request's own state text
//! is used and its changed tokens are prefilled then.
//!
//! What is prefilled and how a request answers over it is the run's [`PromptLayout`]: the
//! system turn's text ([`TextLayout`], the default), or a bundle's layout with its sensor
//! tokens and the newest camera frame after the text ([`super::layout::BundleLayout`]):
//! then a new frame, as well as a new state text, makes a prefill due, and a request over
//! the prefilled state decodes neither the frame nor the sensor tokens again. The KV cache
//! knows every position it holds (tokens, and embedding rows by their source's key), so a
//! request never answers over anything but its own prompt; a stale guess only costs time.
//!
//! Bounded: one pending snapshot (a newer one replaces it, counted as superseded), one
//! context. The thread holds only a weak reference and ends once the generator and the
//! sink are gone. In lock-step replay, use the engine directly (no prefill) so answers are
//! deterministic.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use super::context::model_context;
use super::threads::ThreadPolicy;
use crate::budget::RateDial;
use crate::infer::llm::generator::port_stats;
use crate::infer::llm::{LmEngine, LmError};
use crate::state::{
    Continue, EnvironmentState, GenerationPrompt, GenerationStats, Generator, GeneratorError,
    PerceptionSink, StateTap,
};
use crate::stop::StopHandle;
use crate::time::HostTime;
use crate::worker::{Worker, WorkerError};

/// When to prefill and how old a prefilled state may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefillConfig {
    /// Prefill at most this often, device ns.
    pub every_ns: i64,
    /// A request may use a prefilled state this much older than its own, device ns.
    pub max_stale_ns: i64,
    /// Prefills are also at least this many times the last one's duration apart (host
    /// ns, compared with device ns: real time), so a slow or busy machine spends at most a
    /// fraction of a core on them; 0 turns this off.
    pub backoff: i64,
}

impl Default for PrefillConfig {
    fn default() -> Self {
        Self {
            every_ns: 200_000_000,
            max_stale_ns: 1_000_000_000,
            backoff: 1,
        }
    }
}

/// What the prefill did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PrefillCounters {
    /// State snapshots handed to the prefill thread.
    pub offered: u64,
    /// Snapshots replaced by a newer one before the thread took them (dropped).
    pub superseded: u64,
    /// Prefills run to the end.
    pub prefills: u64,
    /// Prefills cut short because a request wanted the model.
    pub interrupted: u64,
    /// Tokens prefilled by them.
    pub prefill_tokens: u64,
    /// Prefills that failed (the cache is then rebuilt by the next request).
    pub failures: u64,
    /// Requests answered.
    pub requests: u64,
    /// Requests answered over a prefilled state.
    pub on_prefilled: u64,
    /// Prefills that were due but held back while the CPU budget paused them (see
    /// [`crate::budget`]).
    pub held_back: u64,
}

#[derive(Default)]
struct Counters {
    offered: AtomicU64,
    superseded: AtomicU64,
    prefills: AtomicU64,
    interrupted: AtomicU64,
    prefill_tokens: AtomicU64,
    failures: AtomicU64,
    requests: AtomicU64,
    on_prefilled: AtomicU64,
    held_back: AtomicU64,
}

/// States remembered so a request can be placed in time by its text (1.6 s of 50 ms ticks).
const RECENT_STATES: usize = 32;

/// A state's text and its device time (ns).
type Snapshot = (i64, Arc<str>);

/// A state to prefill: its device time, its text and the key of what the layout would show
/// with it ([`PromptLayout::extras`]).
type Offer = (i64, Arc<str>, u64);

/// How prompts are laid out in the KV cache: what a prefill decodes ahead of a request for a
/// state, and how a request answers over a chosen state text. Called with the engine locked;
/// `extras` is called on the perception thread and must not block.
pub trait PromptLayout: Send + Sync {
    /// A key for what, besides the state text, a prefill for a state at `at_ns` would decode
    /// now (a camera frame, sensor tokens): a prefill is due when the text or this changes.
    fn extras(&self, _at_ns: i64) -> u64 {
        0
    }

    /// Brings the cache up to date for the state text `text` at `at_ns`, stopping between
    /// chunks once `stop` is set. Returns the positions decoded and whether it completed.
    fn prefill(
        &self,
        engine: &mut LmEngine,
        text: &str,
        at_ns: i64,
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError>;

    /// Answers `prompt` with `context` as the state text (`prefilled`: the text of the last
    /// complete prefill, whose other parts the layout may reuse while fresh).
    fn answer(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        prefilled: bool,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, LmError>;
}

/// The text-only layout: the system turn holds the standing prompt and the state text.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextLayout;

impl PromptLayout for TextLayout {
    fn prefill(
        &self,
        engine: &mut LmEngine,
        text: &str,
        _at_ns: i64,
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError> {
        engine
            .prefill_context_until(text, stop)
            .map(|(_, n, complete)| (n, complete))
    }

    fn answer(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        _prefilled: bool,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, LmError> {
        engine
            .generate_with_context(prompt, context, on_text, cancel)
            .map(|st| port_stats(&st))
    }
}

impl Slot {
    /// The device time of the newest remembered state whose text is `text`.
    fn time_of(&self, text: &str) -> Option<i64> {
        self.recent
            .iter()
            .rev()
            .find(|(_, t)| &**t == text)
            .map(|(at, _)| *at)
    }
}

#[derive(Default)]
struct Slot {
    /// The newest states seen (at most [`RECENT_STATES`]), oldest first: a request finds
    /// its own state's time here by its text.
    recent: std::collections::VecDeque<Snapshot>,
    /// Waiting for the thread.
    pending: Option<Offer>,
    /// When the thread was last woken (device ns).
    last_wake_ns: Option<i64>,
    /// The state text (and extras key) whose prefix the KV cache holds (or its backup
    /// sequence, when `cached_in_backup`).
    cached: Option<Offer>,
    /// `cached` lives in the cache's backup: a prefill after it was cut short.
    cached_in_backup: bool,
    /// The CPU budget's dial: stretches [`PrefillConfig::every_ns`], or pauses prefills.
    dial: RateDial,
}

struct Shared {
    engine: Mutex<LmEngine>,
    layout: Arc<dyn PromptLayout>,
    slot: Mutex<Slot>,
    wake: Condvar,
    counters: Counters,
    config: PrefillConfig,
    name: String,
    /// The prefill thread's stop handle (its [`Worker`]'s).
    stop: StopHandle,
    /// llama.cpp threads, chosen per use.
    threads: ThreadPolicy,
    /// A request is waiting for the model or using it: no new prefill starts, and one
    /// running stops after its current chunk (the request answers over the last complete
    /// prefill, kept in the cache's backup, or prefills its own state).
    requesting: AtomicBool,
    /// The model failed on a request: no more prefills (templates answer from then on).
    disabled: AtomicBool,
    /// How long the last prefill took, host ns (see [`PrefillConfig::backoff`]).
    last_cost_ns: AtomicI64,
}

fn bump(c: &AtomicU64, n: u64) {
    c.fetch_add(n, Ordering::Relaxed);
}

impl Shared {
    fn offer(&self, state: &EnvironmentState) {
        if self.disabled.load(Ordering::Relaxed) {
            return;
        }
        let at = state.at.ns();
        let text: Arc<str> = Arc::from(model_context(state));
        let extras = self.layout.extras(at);
        let Ok(mut slot) = self.slot.lock() else {
            return;
        };
        if slot.recent.len() >= RECENT_STATES {
            slot.recent.pop_front();
        }
        slot.recent.push_back((at, Arc::clone(&text)));
        let every = self.config.every_ns.max(
            self.last_cost_ns
                .load(Ordering::Relaxed)
                .saturating_mul(self.config.backoff.max(0)),
        );
        let paused = slot.dial.is_paused();
        let every = if paused {
            every
        } else {
            slot.dial.interval_ns(every)
        };
        let due = slot
            .last_wake_ns
            .is_none_or(|w| at.saturating_sub(w) >= every);
        let unchanged = slot
            .cached
            .as_ref()
            .is_some_and(|(_, c, x)| *c == text && *x == extras);
        if !due || unchanged {
            return;
        }
        if paused {
            // Counted once per period it would have run in.
            slot.last_wake_ns = Some(at);
            bump(&self.counters.held_back, 1);
            return;
        }
        if slot.pending.replace((at, text, extras)).is_some() {
            bump(&self.counters.superseded, 1);
        }
        slot.last_wake_ns = Some(at);
        bump(&self.counters.offered, 1);
        self.wake.notify_one();
    }

    /// Takes the pending snapshot, waiting up to `wait`.
    fn take(&self, wait: Duration) -> Option<Offer> {
        let slot = self.slot.lock().ok()?;
        let (mut slot, _) = self
            .wake
            .wait_timeout_while(slot, wait, |s| s.pending.is_none())
            .ok()?;
        slot.pending.take()
    }

    fn prefill(&self, (at, text, extras): Offer) {
        if self.requesting.load(Ordering::Acquire) {
            return;
        }
        let Ok(mut engine) = self.engine.lock() else {
            return;
        };
        if self.requesting.load(Ordering::Acquire) {
            return;
        }
        engine.set_threads(self.threads.threads());
        // The last complete prefill stays usable while this one runs: it is kept in the
        // cache's backup sequence (no copy), unless a cut-short prefill already put it
        // there.
        let keep_last = self
            .slot
            .lock()
            .map(|slot| slot.cached.is_some() && !slot.cached_in_backup)
            .unwrap_or(false);
        if keep_last {
            engine.backup_cache();
        }
        let t0 = std::time::Instant::now();
        let result = self
            .layout
            .prefill(&mut engine, &text, at, &self.requesting);
        self.last_cost_ns.store(
            i64::try_from(t0.elapsed().as_nanos()).unwrap_or(i64::MAX),
            Ordering::Relaxed,
        );
        let Ok(mut slot) = self.slot.lock() else {
            return;
        };
        match result {
            Ok((n, true)) => {
                bump(&self.counters.prefill_tokens, u64::from(n));
                bump(&self.counters.prefills, 1);
                engine.drop_cache_backup();
                slot.cached = Some((at, text, extras));
                slot.cached_in_backup = false;
            }
            Ok((n, false)) => {
                // Cut short by a request: the cache holds part of this text; the last
                // complete one (if any) waits in the backup for the request.
                bump(&self.counters.prefill_tokens, u64::from(n));
                bump(&self.counters.interrupted, 1);
                slot.cached_in_backup = slot.cached.is_some() && engine.has_cache_backup();
                if !slot.cached_in_backup {
                    slot.cached = None;
                }
            }
            Err(e) => {
                bump(&self.counters.failures, 1);
                log::debug!("lm prefill: {e}");
                engine.reset();
                slot.cached = None;
                slot.cached_in_backup = false;
            }
        }
    }

    /// The state text a request over `context` should use: the prefilled one when the
    /// prefilled one is recent enough against the request's own.
    fn context_for(&self, context: &str) -> (Arc<str>, bool) {
        if let Ok(slot) = self.slot.lock() {
            if let (Some(at), Some((cat, ctext, _))) = (slot.time_of(context), &slot.cached) {
                // The prefilled state may also be newer than the request's own (better).
                if at.saturating_sub(*cat) <= self.config.max_stale_ns {
                    return (Arc::clone(ctext), true);
                }
            }
        }
        (Arc::from(context), false)
    }
}

/// How much lower than the rest of the run the prefill thread is scheduled (a nice value
/// added to the process's): the prefill is work ahead of need, so perception, alerts,
/// text reading and speech always come first when cores are short, while a free core is
/// still used at full speed.
const PREFILL_NICENESS: i32 = 10;

/// Lowers the calling thread's scheduling priority by [`PREFILL_NICENESS`] (Linux: nice
/// values are per thread). Best effort: where it fails the thread keeps its priority and
/// the backoff still bounds its share.
fn lower_this_threads_priority() {
    if !crate::sys::lower_this_thread_priority(PREFILL_NICENESS) {
        log::debug!("lm prefill: could not lower the thread's priority");
    }
}

fn prefill_thread(shared: Weak<Shared>) {
    let _cpu = crate::profile::cpu::account(super::PREFILL_STAGE);
    lower_this_threads_priority();
    loop {
        let Some(s) = shared.upgrade() else {
            return;
        };
        if s.stop.is_stopped() {
            return;
        }
        if let Some(snap) = s.take(Duration::from_millis(100)) {
            s.prefill(snap);
        }
    }
}

/// The language model with prefill ahead of requests: hands out the assistant's
/// [`Generator`] and the sink ([`LmPrefill::sink`]) that feeds it states.
pub struct LmPrefill {
    /// The prefill thread, joined on drop (after `Drop` has woken it), before `shared`
    /// goes: the engine is freed here, never on the thread.
    worker: Worker,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LmPrefill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmPrefill")
            .field("thread", &self.worker.name())
            .field("config", &self.shared.config)
            .field("counters", &self.counters())
            .finish()
    }
}

impl LmPrefill {
    /// Starts the prefill thread over `engine` (threads chosen automatically).
    pub fn start(engine: LmEngine, config: PrefillConfig) -> Result<Self, WorkerError> {
        Self::start_with(engine, config, ThreadPolicy::Auto)
    }

    /// Starts the prefill thread over `engine`, choosing llama.cpp threads by `threads`.
    pub fn start_with(
        engine: LmEngine,
        config: PrefillConfig,
        threads: ThreadPolicy,
    ) -> Result<Self, WorkerError> {
        Self::start_with_layout(engine, Arc::new(TextLayout), config, threads)
    }

    /// Starts the prefill thread over `engine` with prompts laid out by `layout` (e.g. a
    /// bundle's camera frames and sensor tokens, [`super::layout::BundleLayout`]).
    pub fn start_with_layout(
        engine: LmEngine,
        layout: Arc<dyn PromptLayout>,
        config: PrefillConfig,
        threads: ThreadPolicy,
    ) -> Result<Self, WorkerError> {
        let stop = StopHandle::new();
        let shared = Arc::new(Shared {
            name: engine.name().to_string(),
            engine: Mutex::new(engine),
            layout,
            slot: Mutex::new(Slot::default()),
            wake: Condvar::new(),
            counters: Counters::default(),
            config,
            stop: stop.clone(),
            threads,
            requesting: AtomicBool::new(false),
            disabled: AtomicBool::new(false),
            last_cost_ns: AtomicI64::new(0),
        });
        let weak = Arc::downgrade(&shared);
        let worker = Worker::spawn_with("vista-lm-prefill", stop, move |_| prefill_thread(weak))?;
        Ok(Self { worker, shared })
    }

    /// The assistant's generator (shares the engine with the prefill thread).
    pub fn generator(&self) -> Box<dyn Generator> {
        Box::new(PrefillGenerator {
            shared: Arc::clone(&self.shared),
        })
    }

    /// Wraps the assistant's perception sink so that every state also reaches the prefill.
    pub fn sink<S: PerceptionSink>(
        &self,
        inner: S,
    ) -> StateTap<S, impl FnMut(&Arc<EnvironmentState>, HostTime) + Send> {
        let shared = Arc::clone(&self.shared);
        StateTap::new(inner, move |state: &Arc<EnvironmentState>, _| {
            shared.offer(state)
        })
    }

    /// Follows `dial` (the CPU budget's): prefills are spaced by its stretch, or paused.
    pub fn follow(&self, dial: RateDial) {
        if let Ok(mut slot) = self.shared.slot.lock() {
            slot.dial = dial;
        }
    }

    /// Offers a state directly (what the sink does on each snapshot).
    pub fn offer(&self, state: &EnvironmentState) {
        self.shared.offer(state);
    }

    /// Waits until no snapshot is pending and no prefill runs (tests, benchmarks).
    pub fn settle(&self) {
        loop {
            let idle = self
                .shared
                .slot
                .lock()
                .map(|s| s.pending.is_none())
                .unwrap_or(true);
            if idle {
                // A prefill in flight holds the engine: wait for it.
                drop(self.shared.engine.lock());
                let still = self
                    .shared
                    .slot
                    .lock()
                    .map(|s| s.pending.is_some())
                    .unwrap_or(false);
                if !still {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Counters so far.
    pub fn counters(&self) -> PrefillCounters {
        let c = &self.shared.counters;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        PrefillCounters {
            offered: g(&c.offered),
            superseded: g(&c.superseded),
            prefills: g(&c.prefills),
            prefill_tokens: g(&c.prefill_tokens),
            failures: g(&c.failures),
            requests: g(&c.requests),
            on_prefilled: g(&c.on_prefilled),
            interrupted: g(&c.interrupted),
            held_back: g(&c.held_back),
        }
    }
}

impl Drop for LmPrefill {
    fn drop(&mut self) {
        // Stop the thread and wait for it (at most one prefill and one 100 ms wait), so
        // the engine is never freed on it while the process exits (llama.cpp's globals go
        // first then: a crash at exit). Keep the `LmPrefill` alive for the whole run; the
        // generator still answers without the thread afterwards.
        self.shared.stop.stop();
        self.shared.wake.notify_all();
        // `worker` is joined when the fields drop, right after this.
    }
}

/// The assistant's generator over a prefilled engine.
struct PrefillGenerator {
    shared: Arc<Shared>,
}

impl Generator for PrefillGenerator {
    fn name(&self) -> &str {
        &self.shared.name
    }

    fn generate(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        let s = &self.shared;
        let err = |message: String| GeneratorError {
            generator: s.name.clone(),
            message,
        };
        s.requesting.store(true, Ordering::Release);
        let asked = std::time::Instant::now();
        let Ok(mut engine) = s.engine.lock() else {
            s.requesting.store(false, Ordering::Release);
            return Err(err("the language model's lock was poisoned".into()));
        };
        // Chosen with the engine held (no prefill runs now), so one that just finished
        // counts.
        let (context, prefilled) = s.context_for(&prompt.context);
        if let Ok(mut slot) = s.slot.lock() {
            if prefilled && slot.cached_in_backup {
                // A prefill cut short for this request left its partial text in the cache:
                // bring back the complete one it was working from.
                if !engine.restore_cache() {
                    slot.cached = None;
                }
            } else {
                engine.drop_cache_backup();
            }
            slot.cached_in_backup = false;
        }
        bump(&s.counters.requests, 1);
        if prefilled {
            bump(&s.counters.on_prefilled, 1);
        }
        let wait_ns = i64::try_from(asked.elapsed().as_nanos()).unwrap_or(i64::MAX);
        let threads = s.threads.threads();
        engine.set_threads(threads);
        let result = s
            .layout
            .answer(&mut engine, prompt, &context, prefilled, on_text, cancel);
        drop(engine);
        s.requesting.store(false, Ordering::Release);
        if result.is_err() {
            s.disabled.store(true, Ordering::Relaxed);
        }
        if let Ok(mut slot) = s.slot.lock() {
            // The cache now holds the system turn of `context` (or nothing, after an error).
            slot.cached = match (&result, prefilled) {
                (Err(_), _) => None,
                (Ok(_), true) => slot.cached.take(),
                (Ok(_), false) => slot
                    .time_of(&context)
                    .map(|at| (at, Arc::clone(&context), s.layout.extras(at))),
            };
        }
        result
            .map(|st| GenerationStats {
                wait_ns,
                threads,
                on_prefilled: prefilled,
                ..st
            })
            .map_err(|e| err(e.to_string()))
    }
}
