//! [`Governor`]: keeps the process within a CPU budget at real time by moving down and up
//! the [`LADDER`]. A pure core: at each tick it is given the time, the process's CPU time
//! and each optional stage's CPU time (seconds, any origin), and answers with the level to
//! run at; the shell that reads the clocks and sets the dials lives in the pipeline.
//!
//! It decides over a window ([`GovernorConfig::window_s`]) that lies wholly after its last
//! step, from what each stage costs at its own rate: a stage's CPU over the window divided
//! by the share of its rate it ran at (the last such measure is kept while it is paused).
//!
//! - Over the budget, it goes down as many rungs as the predicted savings need to come
//!   within [`GovernorConfig::target`] of it, stopping after a rung whose stage's cost is not
//!   known yet (its saving is seen over the next window).
//! - Under it, it takes one rung back when the process's average since the start is within
//!   the budget and the predicted cost of that rung keeps the window within
//!   [`GovernorConfig::headroom`] of it (a stage never measured: only below
//!   [`GovernorConfig::unknown_raise`] of it).
//! - It starts with optional work at its lowest rates ([`GovernorConfig::start_level`]),
//!   so a run spends on speculation only once it has shown room for it.
//! - At the floor and still over for [`GovernorConfig::too_slow_s`], the machine is too slow
//!   for the budget: said once ([`Step::TooSlow`]); the safety path keeps running whole.

use std::collections::VecDeque;

use serde::Serialize;

use super::ladder::{rate_share_at, OptionalStage, FLOOR_LEVEL, LADDER};

/// The optional stages' CPU time (s), in [`OptionalStage::ALL`] order.
pub type StageCpu = [f64; OptionalStage::ALL.len()];

/// How the governor decides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GovernorConfig {
    /// The budget, cores (CPU seconds per wall second).
    pub budget_cores: f64,
    /// The span each decision averages over, s; steps are at least this far apart.
    pub window_s: f64,
    /// Going down aims at this share of the budget.
    pub target: f64,
    /// A rung comes back only while the predicted window stays within this share of the
    /// budget.
    pub headroom: f64,
    /// A rung whose stage was never measured comes back only below this share of the
    /// budget.
    pub unknown_raise: f64,
    /// The level a run starts at: optional work starts at its lowest rates (the floor) and
    /// rises as the run shows room for it.
    pub start_level: usize,
    /// At the floor and over the budget this long (s), the machine is too slow for it (a
    /// model answering for a few seconds is not).
    pub too_slow_s: f64,
}

impl GovernorConfig {
    /// The defaults for a budget of `budget_cores`.
    pub fn new(budget_cores: f64) -> Self {
        Self {
            budget_cores,
            window_s: 2.0,
            target: 1.0,
            headroom: 0.85,
            unknown_raise: 0.6,
            start_level: FLOOR_LEVEL,
            too_slow_s: 15.0,
        }
    }
}

/// What the governor answers to a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Stay at the level.
    Hold,
    /// Lowered to this level (one or more rungs applied).
    Lower(usize),
    /// Raised to this level (one rung taken back).
    Raise(usize),
    /// At the floor and over the budget for a whole window (said once per run).
    TooSlow,
}

/// What the governor did over a run (`profile.json`'s `budget`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BudgetReport {
    /// The budget, cores.
    pub budget_cores: f64,
    /// Whether a governor ran (real time only: a lock-step run has no wall time to keep).
    pub governed: bool,
    /// The governed span, s (from the run's start to its end).
    pub seconds: f64,
    /// The process's CPU over the governed span, cores (with its worker processes').
    pub mean_cores: f64,
    /// Whether `mean_cores` is within the budget.
    pub kept: bool,
    /// The ladder, in order (what each level adds).
    pub ladder: Vec<String>,
    /// Seconds spent at each level, 0 (every stage at its own rate) to the floor.
    pub seconds_at_level: Vec<f64>,
    /// The level at the start.
    pub start_level: usize,
    /// The level at the end.
    pub final_level: usize,
    /// The lowest level reached (the most rungs applied).
    pub max_level: usize,
    /// Rungs applied.
    pub lowered: u64,
    /// Rungs taken back.
    pub raised: u64,
    /// What each optional stage was last measured to cost at its own rate, cores (`null`:
    /// never measured), by name.
    pub stage_cost_cores: Vec<(String, Option<f64>)>,
    /// Seconds at the floor with the window still over the budget.
    pub over_at_floor_s: f64,
    /// Whether the machine was found too slow to keep the budget.
    pub too_slow: bool,
}

/// Keeps a CPU budget; see the module documentation.
#[derive(Debug)]
pub struct Governor {
    cfg: GovernorConfig,
    level: usize,
    max_level: usize,
    /// (t, process CPU, stages' CPU) over the last window, oldest first (bounded: at most
    /// [`HISTORY_CAP`], thinned when ticks come faster).
    history: VecDeque<(f64, f64, StageCpu)>,
    first: Option<(f64, f64)>,
    last: Option<(f64, f64)>,
    last_step_s: f64,
    /// Each stage's cost at its own rate, cores, as last measured.
    cost: [Option<f64>; OptionalStage::ALL.len()],
    seconds_at_level: [f64; FLOOR_LEVEL + 1],
    lowered: u64,
    raised: u64,
    over_at_floor_s: f64,
    too_slow: bool,
}

/// Samples kept for the window.
const HISTORY_CAP: usize = 256;

impl Governor {
    /// A governor at its configured start level.
    pub fn new(cfg: GovernorConfig) -> Self {
        let level = cfg.start_level.min(FLOOR_LEVEL);
        Self {
            cfg,
            level,
            max_level: level,
            history: VecDeque::with_capacity(HISTORY_CAP),
            first: None,
            last: None,
            last_step_s: f64::NEG_INFINITY,
            cost: [None; OptionalStage::ALL.len()],
            seconds_at_level: [0.0; FLOOR_LEVEL + 1],
            lowered: 0,
            raised: 0,
            over_at_floor_s: 0.0,
            too_slow: false,
        }
    }

    /// The level now.
    pub fn level(&self) -> usize {
        self.level
    }

    /// The process's CPU over the window, cores, once a whole window is seen.
    pub fn window_cores(&self) -> Option<f64> {
        self.window().map(|(total, _)| total)
    }

    /// The process's and each stage's CPU over the window, cores.
    fn window(&self) -> Option<(f64, StageCpu)> {
        let (t0, c0, s0) = *self.history.front()?;
        let (t1, c1, s1) = *self.history.back()?;
        let span = t1 - t0;
        if span < self.cfg.window_s * 0.9 {
            return None;
        }
        let mut stages = [0.0; OptionalStage::ALL.len()];
        for (i, r) in stages.iter_mut().enumerate() {
            *r = ((s1[i] - s0[i]) / span).max(0.0);
        }
        Some((((c1 - c0) / span).max(0.0), stages))
    }

    /// The process's CPU since the first tick, cores.
    pub fn run_cores(&self) -> Option<f64> {
        let (t0, c0) = self.first?;
        let (t1, c1) = self.last?;
        let span = t1 - t0;
        (span > 0.0).then(|| ((c1 - c0) / span).max(0.0))
    }

    /// The saving of going from `level` to `level + 1`, cores (`None`: its stage's cost is
    /// not known).
    fn rung_cores(&self, level: usize) -> Option<f64> {
        let stage = LADDER.get(level)?.stage;
        let share = rate_share_at(level, stage) - rate_share_at(level + 1, stage);
        self.cost[stage.index()].map(|c| c * share)
    }

    /// One tick: the time, the process's CPU time and the optional stages' CPU times, s.
    /// Time that goes back, CPU time that goes back, or values that are not finite are
    /// ignored.
    pub fn observe(&mut self, t_s: f64, cpu_s: f64, stages_s: StageCpu) -> Step {
        if !t_s.is_finite() || !cpu_s.is_finite() || stages_s.iter().any(|s| !s.is_finite()) {
            return Step::Hold;
        }
        let mut dt = 0.0;
        if let Some((lt, lc)) = self.last {
            if t_s <= lt || cpu_s < lc {
                return Step::Hold;
            }
            dt = t_s - lt;
            self.seconds_at_level[self.level] += dt;
        }
        self.first.get_or_insert((t_s, cpu_s));
        self.last = Some((t_s, cpu_s));
        let min_gap = self.cfg.window_s / HISTORY_CAP as f64 * 2.0;
        if let Some(b) = self.history.back_mut() {
            if t_s - b.0 < min_gap {
                // Thinned: the newest sample replaces the one just before it.
                *b = (t_s, cpu_s, stages_s);
            } else {
                if self.history.len() == HISTORY_CAP {
                    self.history.pop_front();
                }
                self.history.push_back((t_s, cpu_s, stages_s));
            }
        } else {
            self.history.push_back((t_s, cpu_s, stages_s));
        }
        while self
            .history
            .get(1)
            .is_some_and(|(t, _, _)| t_s - t >= self.cfg.window_s)
        {
            self.history.pop_front();
        }
        // Decide only over a window wholly after the last step.
        let after_step = self
            .history
            .front()
            .is_some_and(|(t, _, _)| *t >= self.last_step_s);
        let Some((total, stages)) = self.window().filter(|_| after_step) else {
            return Step::Hold;
        };
        for stage in OptionalStage::ALL {
            let share = rate_share_at(self.level, stage);
            if share > 0.0 {
                self.cost[stage.index()] = Some(stages[stage.index()] / share);
            }
        }
        let budget = self.cfg.budget_cores;
        if total > budget {
            if self.level == FLOOR_LEVEL {
                self.over_at_floor_s += dt;
                if !self.too_slow && self.over_at_floor_s >= self.cfg.too_slow_s {
                    self.too_slow = true;
                    return Step::TooSlow;
                }
                return Step::Hold;
            }
            let mut predicted = total;
            let mut to = self.level;
            while to < FLOOR_LEVEL && predicted > budget * self.cfg.target {
                let saving = self.rung_cores(to);
                to += 1;
                match saving {
                    Some(s) => predicted -= s,
                    None => break,
                }
            }
            self.lowered += (to - self.level) as u64;
            self.level = to;
            self.max_level = self.max_level.max(to);
            self.last_step_s = t_s;
            return Step::Lower(to);
        }
        if self.level > 0 && self.run_cores().is_none_or(|r| r <= budget) {
            let room = match self.rung_cores(self.level - 1) {
                Some(cost) => total + cost <= budget * self.cfg.headroom,
                None => total <= budget * self.cfg.unknown_raise,
            };
            if room {
                self.level -= 1;
                self.raised += 1;
                self.last_step_s = t_s;
                return Step::Raise(self.level);
            }
        }
        Step::Hold
    }

    /// What it did, so far.
    pub fn report(&self) -> BudgetReport {
        let budget = self.cfg.budget_cores;
        let (seconds, mean_cores) = match (self.first, self.last) {
            (Some((t0, _)), Some((t1, _))) if t1 > t0 => (t1 - t0, self.run_cores().unwrap_or(0.0)),
            _ => (0.0, 0.0),
        };
        BudgetReport {
            budget_cores: budget,
            governed: true,
            seconds,
            mean_cores,
            kept: mean_cores <= budget,
            ladder: super::ladder::described(),
            seconds_at_level: self.seconds_at_level.to_vec(),
            start_level: self.cfg.start_level.min(FLOOR_LEVEL),
            final_level: self.level,
            max_level: self.max_level,
            lowered: self.lowered,
            raised: self.raised,
            stage_cost_cores: OptionalStage::ALL
                .iter()
                .map(|s| (s.name().to_string(), self.cost[s.index()]))
                .collect(),
            over_at_floor_s: self.over_at_floor_s,
            too_slow: self.too_slow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process whose optional stages cost `full` cores each at their own rate (scaled by
    /// the share they run at) on top of `fixed(t)`, governed for `seconds` at 4 ticks/s.
    fn run(
        cfg: GovernorConfig,
        seconds: f64,
        full: StageCpu,
        fixed: impl Fn(f64) -> f64,
    ) -> (Governor, Vec<Step>) {
        let mut g = Governor::new(cfg);
        let (mut t, mut cpu, mut stages) = (0.0, 0.0, [0.0; 3]);
        let mut steps = Vec::new();
        while t < seconds {
            let s = g.observe(t, cpu, stages);
            if s != Step::Hold {
                steps.push(s);
            }
            let dt = 0.25;
            cpu += fixed(t) * dt;
            for stage in OptionalStage::ALL {
                let c = full[stage.index()] * rate_share_at(g.level(), stage) * dt;
                stages[stage.index()] += c;
                cpu += c;
            }
            t += dt;
        }
        (g, steps)
    }

    /// The find_exit profile's costs at full rate (release, this machine): prefill 0.28,
    /// text reads 0.25, objects 0.08; the rest (stereo 0.16 among it) 0.41.
    const FIND_EXIT: StageCpu = [0.28, 0.25, 0.08];
    const REST: f64 = 0.41;

    #[test]
    fn with_room_it_raises_rung_by_rung_to_every_stage_at_its_own_rate() {
        let (g, steps) = run(GovernorConfig::new(1.5), 60.0, FIND_EXIT, |_| REST);
        let want: Vec<Step> = (0..FLOOR_LEVEL).rev().map(Step::Raise).collect();
        assert_eq!(steps, want);
        let r = g.report();
        assert!(r.kept && r.final_level == 0 && r.raised == 5, "{r:?}");
        assert!(
            r.stage_cost_cores[0]
                .1
                .is_some_and(|c| (c - 0.28).abs() < 0.01),
            "the prefill's cost is measured once it runs: {r:?}"
        );
    }

    #[test]
    fn at_half_a_core_it_keeps_the_budget_at_the_floor() {
        let (g, steps) = run(GovernorConfig::new(0.5), 120.0, FIND_EXIT, |_| REST);
        let r = g.report();
        assert!(steps.is_empty(), "{steps:?}");
        assert!(r.kept && r.mean_cores > 0.45, "{r:?}");
        assert_eq!(g.level(), FLOOR_LEVEL);
    }

    #[test]
    fn over_budget_it_goes_down_as_far_as_needed_at_once() {
        // Reads at their own rate, then the fixed part grows by 0.3 cores at 40 s.
        let mut cfg = GovernorConfig::new(1.0);
        cfg.start_level = 0;
        let (g, steps) = run(cfg, 80.0, FIND_EXIT, |t| if t < 40.0 { 0.31 } else { 0.61 });
        // 0.92 within 1.0 at level 0; 1.22 needs the prefill (0.28) paused: one step.
        assert_eq!(steps, vec![Step::Lower(1)], "{:?}", g.report());
        assert!(g.report().kept);
    }

    #[test]
    fn a_burst_passes_and_the_rungs_come_back() {
        // A model answering: 0.9 cores more for 10 s from t = 20 s.
        let (g, steps) = run(GovernorConfig::new(0.8), 90.0, FIND_EXIT, |t| {
            if (20.0..30.0).contains(&t) {
                REST + 0.9
            } else {
                REST
            }
        });
        let r = g.report();
        assert_eq!(r.max_level, FLOOR_LEVEL, "{r:?} {steps:?}");
        assert!(!r.too_slow, "a burst is not a slow machine: {r:?}");
        assert_eq!(g.level(), 2, "{r:?} {steps:?}");
        assert!(r.raised >= 5, "{r:?}");
    }

    #[test]
    fn a_machine_too_slow_is_said_once_at_the_floor() {
        let (g, steps) = run(GovernorConfig::new(0.5), 60.0, FIND_EXIT, |_| 0.85);
        assert_eq!(g.level(), FLOOR_LEVEL);
        assert_eq!(
            steps.iter().filter(|s| **s == Step::TooSlow).count(),
            1,
            "{steps:?}"
        );
        let r = g.report();
        assert!(r.too_slow && !r.kept && r.over_at_floor_s > 15.0, "{r:?}");
    }

    #[test]
    fn time_going_back_or_nan_is_ignored() {
        let mut g = Governor::new(GovernorConfig::new(0.5));
        let z = [0.0; 3];
        assert_eq!(g.observe(10.0, 1.0, z), Step::Hold);
        assert_eq!(g.observe(9.0, 2.0, z), Step::Hold);
        assert_eq!(g.observe(f64::NAN, 2.0, z), Step::Hold);
        assert_eq!(g.observe(11.0, 2.0, [f64::INFINITY, 0.0, 0.0]), Step::Hold);
        assert_eq!(
            g.observe(11.0, 0.5, z),
            Step::Hold,
            "CPU time never goes back"
        );
        assert_eq!(g.run_cores(), None);
    }
}
