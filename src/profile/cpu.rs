//! CPU accounting per stage: thread CPU time (not wall time) for every thread the product
//! spawns, the process total and peak RSS.
//!
//! Each spawned thread opens [`account`] (`let _cpu = cpu::account(stages::STEREO);`, the
//! names in [`super::stages`]) at the top of its closure: the thread is registered under its
//! stage with its CPU clock (so the reporting thread can read live threads), and when the
//! guard drops, its CPU time since the guard was made is added to the stage's total (so
//! short-lived threads are counted exactly). Work that runs inline on another stage's thread
//! opens a [`scope`] (`cpu::scope(stages::MOVERS)`): the CPU it used is moved from the
//! enclosing stage to its own. [`snapshot`] reads it all into a
//! [`CpuReport`]; what no stage holds (set-up on the main thread, thread pools of llama.cpp and
//! ONNX Runtime) is reported as unattributed, process total minus the stages.
//!
//! The registry is bounded: at most [`MAX_STAGES`] stage names (later names fold into
//! `other`, counted) and [`MAX_LIVE_THREADS`] live threads (a thread beyond that is still
//! counted when it ends, only not read while it runs; counted).

use std::cell::Cell;
use std::fmt::Write as _;
use std::marker::PhantomData;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Most distinct stage names kept (the last slot is `other`).
pub const MAX_STAGES: usize = 128;
/// Most live threads read while they run.
pub const MAX_LIVE_THREADS: usize = 256;
/// The stage that names beyond [`MAX_STAGES`] fold into.
pub const OTHER_STAGE: &str = "other";

use crate::sys::{self, ClockId};

/// One stage's totals in the registry.
#[derive(Debug, Clone)]
struct StageEntry {
    name: String,
    /// CPU of its threads that have ended (ns).
    ended_ns: i64,
    /// CPU moved in by scopes, minus CPU moved out to scopes (ns).
    moved_ns: i64,
    /// Threads registered under it.
    threads: u64,
}

/// A live thread read while it runs.
#[derive(Debug, Clone, Copy)]
struct LiveEntry {
    key: u64,
    stage: usize,
    clock: ClockId,
    /// Its CPU time when registered (ns).
    base_ns: i64,
}

/// The bounded registry of stages and live threads (the pure core; the process has one).
#[derive(Debug)]
pub(crate) struct Registry {
    stages: Vec<StageEntry>,
    live: Vec<LiveEntry>,
    next_key: u64,
    max_stages: usize,
    max_live: usize,
    /// Threads not read while they ran (the live table was full).
    untracked_threads: u64,
    /// Registrations whose stage name folded into `other`.
    folded_stages: u64,
    /// CPU of worker processes (user, system; ns), also in their stages.
    workers_ns: (i64, i64),
}

/// One stage's CPU as read now.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StageTotal {
    pub name: String,
    pub cpu_ns: i64,
    pub threads: u64,
    pub live: usize,
}

impl Registry {
    pub(crate) const fn new(max_stages: usize, max_live: usize) -> Self {
        Self {
            stages: Vec::new(),
            live: Vec::new(),
            next_key: 0,
            max_stages,
            max_live,
            untracked_threads: 0,
            folded_stages: 0,
            workers_ns: (0, 0),
        }
    }

    /// The index of stage `name`, added when new (folded into `other` when full).
    pub(crate) fn stage(&mut self, name: &str) -> usize {
        if let Some(i) = self.stages.iter().position(|s| s.name == name) {
            return i;
        }
        // The last slot is kept for `other`.
        let name = if self.stages.len() + 1 >= self.max_stages.max(1) && name != OTHER_STAGE {
            self.folded_stages += 1;
            if let Some(i) = self.stages.iter().position(|s| s.name == OTHER_STAGE) {
                return i;
            }
            OTHER_STAGE
        } else {
            name
        };
        self.stages.push(StageEntry {
            name: name.to_string(),
            ended_ns: 0,
            moved_ns: 0,
            threads: 0,
        });
        self.stages.len() - 1
    }

    /// Registers a thread of `stage` with its clock; the key to end it with, `None` when it
    /// is not read while it runs (no clock, or the live table is full: counted).
    pub(crate) fn register(
        &mut self,
        stage: usize,
        clock: Option<ClockId>,
        base_ns: i64,
    ) -> Option<u64> {
        if let Some(s) = self.stages.get_mut(stage) {
            s.threads += 1;
        }
        let clock = clock?;
        if self.live.len() >= self.max_live {
            self.untracked_threads += 1;
            return None;
        }
        let key = self.next_key;
        self.next_key = self.next_key.wrapping_add(1);
        self.live.push(LiveEntry {
            key,
            stage,
            clock,
            base_ns,
        });
        Some(key)
    }

    /// A thread of `stage` ends having used `cpu_ns` since it registered.
    pub(crate) fn end(&mut self, key: Option<u64>, stage: usize, cpu_ns: i64) {
        if let Some(k) = key {
            if let Some(i) = self.live.iter().position(|e| e.key == k) {
                self.live.swap_remove(i);
            }
        }
        if let Some(s) = self.stages.get_mut(stage) {
            s.ended_ns = s.ended_ns.saturating_add(cpu_ns.max(0));
        }
    }

    /// Moves `ns` of CPU from stage `from` (none: it was unattributed) to stage `to`.
    pub(crate) fn moved(&mut self, from: Option<usize>, to: usize, ns: i64) {
        let ns = ns.max(0);
        if let Some(s) = from.and_then(|f| self.stages.get_mut(f)) {
            s.moved_ns = s.moved_ns.saturating_sub(ns);
        }
        if let Some(s) = self.stages.get_mut(to) {
            s.moved_ns = s.moved_ns.saturating_add(ns);
        }
    }

    /// Adds CPU a worker process used (user, system; ns) to `stage` and to the workers'
    /// total.
    pub(crate) fn worker(&mut self, stage: usize, user_ns: i64, system_ns: i64) {
        let (user_ns, system_ns) = (user_ns.max(0), system_ns.max(0));
        if let Some(s) = self.stages.get_mut(stage) {
            s.moved_ns = s.moved_ns.saturating_add(user_ns.saturating_add(system_ns));
        }
        self.workers_ns = (
            self.workers_ns.0.saturating_add(user_ns),
            self.workers_ns.1.saturating_add(system_ns),
        );
    }

    /// Every stage's CPU now, live threads read through `read`.
    pub(crate) fn totals(&self, read: impl Fn(ClockId) -> Option<i64>) -> Vec<StageTotal> {
        let mut out: Vec<StageTotal> = self
            .stages
            .iter()
            .map(|s| StageTotal {
                name: s.name.clone(),
                cpu_ns: s.ended_ns.saturating_add(s.moved_ns),
                threads: s.threads,
                live: 0,
            })
            .collect();
        for e in &self.live {
            if let Some(t) = out.get_mut(e.stage) {
                let now = read(e.clock).unwrap_or(e.base_ns);
                t.cpu_ns = t
                    .cpu_ns
                    .saturating_add(now.saturating_sub(e.base_ns).max(0));
                t.live += 1;
            }
        }
        for t in &mut out {
            // A scope's move can run ahead of a live read by a few ns.
            t.cpu_ns = t.cpu_ns.max(0);
        }
        out
    }
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry::new(MAX_STAGES, MAX_LIVE_THREADS));
static START: OnceLock<Instant> = OnceLock::new();

thread_local! {
    /// The stage the calling thread's CPU goes to now (its own or its innermost scope's).
    static CURRENT: Cell<Option<usize>> = const { Cell::new(None) };
}

fn with_registry<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    // A panic while holding the lock leaves plain counters: keep using them.
    let mut g = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut g)
}

/// Marks the start of the run's wall time (the process start, when called first thing in
/// `main`); without it, the first use of the meter marks it.
pub fn mark_start() -> Instant {
    *START.get_or_init(Instant::now)
}

/// Held by a thread for its life: its CPU goes to its stage (see the module doc).
#[must_use = "the thread is accounted while the guard lives"]
#[derive(Debug)]
pub struct ThreadGuard {
    inner: GuardKind,
    /// Not `Send`: it accounts the thread that made it.
    _here: PhantomData<*const ()>,
}

#[derive(Debug)]
enum GuardKind {
    Thread {
        key: Option<u64>,
        stage: usize,
        base_ns: i64,
    },
    /// The thread was accounted already: this guard is a scope (held for its drop).
    Scope { _held: Scope },
}

/// Accounts the calling thread's CPU to `stage` until the guard drops. On a thread already
/// accounted it acts as [`scope`].
pub fn account(stage: &str) -> ThreadGuard {
    if CURRENT.with(Cell::get).is_some() {
        return ThreadGuard {
            inner: GuardKind::Scope {
                _held: scope(stage),
            },
            _here: PhantomData,
        };
    }
    mark_start();
    let base_ns = sys::this_thread_ns();
    let clock = sys::this_thread_clock();
    let (stage, key) = with_registry(|r| {
        let s = r.stage(stage);
        (s, r.register(s, clock, base_ns))
    });
    CURRENT.with(|c| c.set(Some(stage)));
    ThreadGuard {
        inner: GuardKind::Thread {
            key,
            stage,
            base_ns,
        },
        _here: PhantomData,
    }
}

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        if let GuardKind::Thread {
            key,
            stage,
            base_ns,
        } = self.inner
        {
            let used = sys::this_thread_ns().saturating_sub(base_ns);
            with_registry(|r| r.end(key, stage, used));
            CURRENT.with(|c| c.set(None));
        }
    }
}

/// CPU used inline on another stage's thread, moved to its own stage when it drops.
#[must_use = "the work is accounted while the scope lives"]
#[derive(Debug)]
pub struct Scope {
    stage: usize,
    parent: Option<usize>,
    start_ns: i64,
    _here: PhantomData<*const ()>,
}

/// Moves the CPU the calling thread uses until the scope drops from its current stage to
/// `stage` (scopes nest).
pub fn scope(stage: &str) -> Scope {
    mark_start();
    let stage = with_registry(|r| r.stage(stage));
    let parent = CURRENT.with(|c| c.replace(Some(stage)));
    Scope {
        stage,
        parent,
        start_ns: sys::this_thread_ns(),
        _here: PhantomData,
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let used = sys::this_thread_ns().saturating_sub(self.start_ns);
        with_registry(|r| r.moved(self.parent, self.stage, used));
        CURRENT.with(|c| c.set(self.parent));
    }
}

/// Counts CPU that a worker process of `stage` used (user and system time, ns, since its
/// last report): in the stage, and in the process total (see [`CpuReport::workers_cpu_s`]).
pub fn add_worker_process(stage: &str, user_ns: i64, system_ns: i64) {
    mark_start();
    with_registry(|r| {
        let s = r.stage(stage);
        r.worker(s, user_ns, system_ns);
    });
}

/// One stage's CPU in a [`CpuReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageCpu {
    /// The stage's name.
    pub stage: String,
    /// Its threads' CPU time, scopes moved in and out (s).
    pub cpu_s: f64,
    /// Threads registered under it over the run.
    pub threads: u64,
    /// Of them, still running when read.
    pub live_threads: usize,
    /// Its CPU over the run's wall time: the share of one core it used.
    pub share_of_core: f64,
}

/// CPU per stage and for the whole process (`profile.json`'s `cpu`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuReport {
    /// Wall time since the process started (s).
    pub wall_s: f64,
    /// The process's CPU time, user + system, with its worker processes' (s).
    pub process_cpu_s: f64,
    /// Of it, user time (s).
    pub process_user_s: f64,
    /// Of it, system time (s).
    pub process_system_s: f64,
    /// Of it, the worker processes' (the speech worker), as they reported it after each
    /// request (s).
    #[serde(default)]
    pub workers_cpu_s: f64,
    /// Process CPU over wall time.
    pub cores_used: f64,
    /// Peak resident set (MiB).
    pub peak_rss_mib: f64,
    /// Stages, most CPU first.
    pub stages: Vec<StageCpu>,
    /// Sum of the stages (s).
    pub attributed_cpu_s: f64,
    /// Process CPU no stage holds (s): set-up and teardown on the main thread, and threads
    /// the product does not spawn itself (llama.cpp's and ONNX Runtime's pools).
    pub unattributed_cpu_s: f64,
    /// Threads not read while they ran (the live table was full; counted when they ended).
    pub untracked_threads: u64,
    /// Registrations whose stage name folded into `other` (too many names).
    pub folded_stages: u64,
}

/// Reads the registry and the process's usage now.
pub fn snapshot() -> CpuReport {
    let wall_s = mark_start().elapsed().as_secs_f64();
    let (stages, untracked, folded, workers) = with_registry(|r| {
        (
            r.totals(sys::clock_ns),
            r.untracked_threads,
            r.folded_stages,
            r.workers_ns,
        )
    });
    let (user_ns, sys_ns, rss) = sys::process_usage().unwrap_or((0, 0, 0));
    report(
        wall_s,
        (user_ns, sys_ns),
        workers,
        rss,
        stages,
        (untracked, folded),
    )
}

/// The report from the process's own (user, system) CPU and its workers' (ns), its peak
/// RSS, the stages' totals and the registry's (untracked threads, folded stages) counts.
fn report(
    wall_s: f64,
    own_ns: (i64, i64),
    workers_ns: (i64, i64),
    rss_bytes: u64,
    totals: Vec<StageTotal>,
    (untracked_threads, folded_stages): (u64, u64),
) -> CpuReport {
    let user_ns = own_ns.0.saturating_add(workers_ns.0);
    let sys_ns = own_ns.1.saturating_add(workers_ns.1);
    let per_core = |cpu_s: f64| if wall_s > 0.0 { cpu_s / wall_s } else { 0.0 };
    let mut stages: Vec<StageCpu> = totals
        .into_iter()
        .map(|t| {
            let cpu_s = t.cpu_ns as f64 / 1e9;
            StageCpu {
                stage: t.name,
                cpu_s,
                threads: t.threads,
                live_threads: t.live,
                share_of_core: per_core(cpu_s),
            }
        })
        .collect();
    stages.sort_by(|a, b| b.cpu_s.total_cmp(&a.cpu_s).then(a.stage.cmp(&b.stage)));
    let process_user_s = user_ns as f64 / 1e9;
    let process_system_s = sys_ns as f64 / 1e9;
    let process_cpu_s = process_user_s + process_system_s;
    let attributed_cpu_s: f64 = stages.iter().map(|s| s.cpu_s).sum();
    CpuReport {
        wall_s,
        process_cpu_s,
        process_user_s,
        process_system_s,
        workers_cpu_s: workers_ns.0.saturating_add(workers_ns.1) as f64 / 1e9,
        cores_used: per_core(process_cpu_s),
        peak_rss_mib: rss_bytes as f64 / (1024.0 * 1024.0),
        stages,
        attributed_cpu_s,
        unattributed_cpu_s: process_cpu_s - attributed_cpu_s,
        untracked_threads,
        folded_stages,
    }
}

impl CpuReport {
    /// The stage named `name`.
    pub fn stage(&self, name: &str) -> Option<&StageCpu> {
        self.stages.iter().find(|s| s.stage == name)
    }

    /// The terminal table.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "CPU per stage (thread CPU time over {:.1} s of wall time):",
            self.wall_s
        );
        let _ = writeln!(
            s,
            "  {:<18} {:>9} {:>8} {:>8}",
            "stage", "cpu s", "cores", "threads"
        );
        for st in &self.stages {
            let _ = writeln!(
                s,
                "  {:<18} {:>9.3} {:>8.3} {:>8}",
                st.stage, st.cpu_s, st.share_of_core, st.threads
            );
        }
        let un = if self.wall_s > 0.0 {
            self.unattributed_cpu_s / self.wall_s
        } else {
            0.0
        };
        let _ = writeln!(
            s,
            "  {:<18} {:>9.3} {:>8.3}",
            "unattributed", self.unattributed_cpu_s, un
        );
        let _ = writeln!(
            s,
            "  {:<18} {:>9.3} {:>8.3}   (user {:.3} s, system {:.3} s), peak RSS {:.0} MiB",
            "process",
            self.process_cpu_s,
            self.cores_used,
            self.process_user_s,
            self.process_system_s,
            self.peak_rss_mib
        );
        if self.workers_cpu_s > 0.0 {
            let _ = writeln!(
                s,
                "  (the process's CPU includes {:.3} s of its speech worker process)",
                self.workers_cpu_s
            );
        }
        if self.untracked_threads > 0 || self.folded_stages > 0 {
            let _ = writeln!(
                s,
                "  ({} thread(s) read only when they ended, {} stage name(s) folded into `{}`)",
                self.untracked_threads, self.folded_stages, OTHER_STAGE
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work the optimiser cannot remove.
    fn burn(rounds: u64) -> u64 {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..rounds {
            x = std::hint::black_box(x.rotate_left(7) ^ i.wrapping_mul(0x2545_f491));
        }
        x
    }

    /// Runs `f` on a thread of its own accounted as `stage`, and joins it.
    fn on_thread(stage: &'static str, f: impl FnOnce() + Send + 'static) {
        crate::worker::Worker::spawn(stage, move |_| {
            let _cpu = account(stage);
            f();
        })
        .unwrap()
        .join()
        .unwrap();
    }

    fn cpu_of(name: &str) -> f64 {
        snapshot().stage(name).map_or(0.0, |s| s.cpu_s)
    }

    #[test]
    fn a_busy_thread_is_attributed_to_its_stage_and_a_sleeping_one_is_not() {
        let sleeper = crate::worker::Worker::spawn("test-sleeper", |_| {
            let _cpu = account("test-sleeper");
            std::thread::sleep(std::time::Duration::from_millis(150));
        })
        .unwrap();
        on_thread("test-busy", || {
            std::hint::black_box(burn(40_000_000));
        });
        sleeper.join().unwrap();
        let r = snapshot();
        let busy = r.stage("test-busy").unwrap();
        let sleep = r.stage("test-sleeper").unwrap();
        assert_eq!(busy.threads, 1);
        assert_eq!(sleep.threads, 1);
        assert!(busy.cpu_s > 0.0);
        assert!(
            busy.cpu_s >= 5.0 * sleep.cpu_s,
            "busy {} s, sleeper {} s",
            busy.cpu_s,
            sleep.cpu_s
        );
        // The process holds at least what its stages hold.
        assert!(r.process_cpu_s >= busy.cpu_s + sleep.cpu_s);
        assert!(r.peak_rss_mib > 0.0);
    }

    #[test]
    fn a_live_thread_is_read_while_it_runs() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let h = crate::worker::Worker::spawn("test-live", move |_| {
            let _cpu = account("test-live");
            std::hint::black_box(burn(20_000_000));
            done_tx.send(()).unwrap();
            rx.recv().unwrap();
        })
        .unwrap();
        done_rx.recv().unwrap();
        let r = snapshot();
        let live = r.stage("test-live").unwrap();
        assert_eq!(live.live_threads, 1);
        assert!(live.cpu_s > 0.0);
        tx.send(()).unwrap();
        h.join().unwrap();
        let after = snapshot();
        let ended = after.stage("test-live").unwrap();
        assert_eq!(ended.live_threads, 0);
        // The ended thread's time is kept, and it is at least what was read live.
        assert!(ended.cpu_s >= live.cpu_s);
    }

    #[test]
    fn a_scope_moves_cpu_from_the_thread_stage_to_its_own() {
        on_thread("test-parent", || {
            std::hint::black_box(burn(2_000_000));
            let _s = scope("test-inline");
            std::hint::black_box(burn(40_000_000));
        });
        let parent = cpu_of("test-parent");
        let inline = cpu_of("test-inline");
        assert!(inline > 0.0);
        // The inline work is 20x the parent's own: it went to the scope's stage.
        assert!(
            inline >= 5.0 * parent,
            "inline {inline} s, parent {parent} s"
        );
    }

    #[test]
    fn nested_scopes_move_only_their_own_share() {
        on_thread("test-outer-thread", || {
            let _a = scope("test-outer-scope");
            std::hint::black_box(burn(1_000_000));
            {
                let _b = scope("test-inner-scope");
                std::hint::black_box(burn(40_000_000));
            }
        });
        let outer = cpu_of("test-outer-scope");
        let inner = cpu_of("test-inner-scope");
        let thread = cpu_of("test-outer-thread");
        assert!(inner >= 5.0 * outer, "inner {inner} s, outer {outer} s");
        assert!(inner >= 5.0 * thread, "inner {inner} s, thread {thread} s");
    }

    #[test]
    fn short_lived_threads_are_all_kept() {
        for _ in 0..8 {
            on_thread("test-short", || {
                std::hint::black_box(burn(1_000_000));
            });
        }
        let r = snapshot();
        let s = r.stage("test-short").unwrap();
        assert_eq!(s.threads, 8);
        assert_eq!(s.live_threads, 0);
        assert!(s.cpu_s > 0.0);
    }

    #[test]
    fn a_second_account_on_one_thread_is_a_scope() {
        on_thread("test-first", || {
            let _again = account("test-again");
            std::hint::black_box(burn(20_000_000));
        });
        let r = snapshot();
        assert_eq!(r.stage("test-again").unwrap().threads, 0);
        assert!(cpu_of("test-again") >= 5.0 * cpu_of("test-first"));
    }

    #[test]
    fn the_registry_is_bounded_and_counts_what_it_cannot_hold() {
        let mut r = Registry::new(4, 2);
        let a = r.stage("a");
        let k1 = r.register(a, Some(1), 0);
        let k2 = r.register(a, Some(2), 0);
        let k3 = r.register(a, Some(3), 0);
        assert!(k1.is_some() && k2.is_some());
        assert_eq!(k3, None);
        assert_eq!(r.untracked_threads, 1);
        // The untracked thread is still counted when it ends.
        r.end(k3, a, 7);
        let t = r.totals(|c| Some(i64::from(c) * 100));
        assert_eq!(t[0].cpu_ns, 7 + 100 + 200);
        assert_eq!(t[0].threads, 3);
        assert_eq!(t[0].live, 2);
        // Ending a live thread frees its slot and keeps its time.
        r.end(k1, a, 100);
        assert!(r.register(a, Some(4), 0).is_some());
        // Names beyond the cap fold into `other`.
        let b = r.stage("b");
        let c = r.stage("c");
        let d = r.stage("d");
        let e = r.stage("e");
        assert_ne!(b, c);
        assert_eq!(d, e);
        assert_eq!(r.stages[d].name, OTHER_STAGE);
        assert_eq!(r.stages.len(), 4);
        assert_eq!(r.folded_stages, 2);
    }

    #[test]
    fn unattributed_is_the_process_minus_the_stages() {
        let totals = vec![
            StageTotal {
                name: "x".into(),
                cpu_ns: 1_000_000_000,
                threads: 1,
                live: 0,
            },
            StageTotal {
                name: "y".into(),
                cpu_ns: 3_000_000_000,
                threads: 2,
                live: 1,
            },
        ];
        let r = report(
            10.0,
            (4_500_000_000, 500_000_000),
            (0, 0),
            1 << 20,
            totals,
            (0, 0),
        );
        assert_eq!(r.stages[0].stage, "y");
        assert!((r.unattributed_cpu_s - 1.0).abs() < 1e-9);
        assert!((r.cores_used - 0.5).abs() < 1e-9);
        assert!((r.stages[0].share_of_core - 0.3).abs() < 1e-9);
        assert!((r.peak_rss_mib - 1.0).abs() < 1e-9);
        assert!(r.to_table().contains("unattributed"));
    }

    #[test]
    fn a_worker_process_counts_in_its_stage_and_in_the_process() {
        let mut r = Registry::new(8, 4);
        let s = r.stage("speech-synthesis");
        r.worker(s, 300_000_000, 100_000_000);
        r.worker(s, 200_000_000, -5);
        assert_eq!(r.workers_ns, (500_000_000, 100_000_000));
        let totals = r.totals(|_| None);
        assert_eq!(totals[0].cpu_ns, 600_000_000);
        // The process's own second of CPU, attributed to no stage, and the workers'.
        let report = report(4.0, (1_000_000_000, 0), r.workers_ns, 0, totals, (0, 0));
        assert!((report.process_cpu_s - 1.6).abs() < 1e-9);
        assert!((report.process_system_s - 0.1).abs() < 1e-9);
        assert!((report.workers_cpu_s - 0.6).abs() < 1e-9);
        assert!((report.unattributed_cpu_s - 1.0).abs() < 1e-9);
        assert!((report.cores_used - 0.4).abs() < 1e-9);
    }
}
