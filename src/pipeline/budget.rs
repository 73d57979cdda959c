//! The CPU budget of a real-time run: a thread that reads the process's CPU time every
//! [`TICK_NS`] and moves the optional stages' dials down and up the budget's ladder through a
//! [`Governor`] (see [`crate::budget`]). A lock-step run has no wall time to keep: its dials
//! stay at the stages' own rates and its report says it was not governed.

use std::time::Instant;

use crate::budget::{
    BudgetReport, Dials, Governor, GovernorConfig, OptionalStage, StageCpu, Step, LADDER,
};
use crate::time::HostTime;
use crate::worker::{Worker, WorkerError};

use super::PipelineError;

/// How often the process's CPU is read, ns.
const TICK_NS: i64 = 250_000_000;

/// The least budget a run may be given, cores: what the safety path alone used in a release
/// build of the README's main job on this project's 2-core reference machine (0.33: ingest
/// 0.022, read-ahead 0.015, perception 0.032, stereo depth 0.164, vehicles from motion
/// 0.065, speech 0.007, the rest 0.028), rounded up. Below it, alerts could not keep real
/// time, so such a budget is refused.
pub const MIN_BUDGET_CORES: f64 = 0.35;

/// Why a budget of `cores` cannot be kept, when it cannot: below what the safety path needs.
pub fn too_low(cores: f64) -> Option<String> {
    (!(cores.is_finite() && cores >= MIN_BUDGET_CORES)).then(|| {
        format!(
            "{cores}: below the {MIN_BUDGET_CORES} cores the safety path needs (ingest, \
             perception, stereo depth, vehicles, speech)"
        )
    })
}

/// Checks a budget asked for (`None`: no budget).
pub fn check(budget_cores: Option<f64>) -> Result<(), PipelineError> {
    match budget_cores.and_then(too_low) {
        Some(why) => Err(PipelineError::Options(format!("--cpu-budget {why}"))),
        None => Ok(()),
    }
}

/// The governor's thread of a real-time run.
#[derive(Debug)]
pub(crate) struct BudgetKeeper {
    worker: Worker<BudgetReport>,
}

impl BudgetKeeper {
    /// Starts keeping `budget_cores` by setting `dials`.
    pub(crate) fn start(budget_cores: f64, dials: Dials) -> Result<Self, WorkerError> {
        let worker = Worker::spawn("cpu-budget", move |stop| {
            let _cpu = crate::profile::cpu::account(crate::profile::stages::CPU_BUDGET);
            let mut governor = Governor::new(GovernorConfig::new(budget_cores));
            dials.apply(governor.level());
            let t0 = Instant::now();
            while !stop.is_stopped() {
                let t = t0.elapsed().as_secs_f64();
                let (cpu, stages) = read_cpu();
                match governor.observe(t, cpu, stages) {
                    Step::Hold => {}
                    Step::Lower(level) | Step::Raise(level) => {
                        dials.apply(level);
                        log::debug!(
                            "cpu budget: level {level} ({}), {:.2} cores over the window",
                            level
                                .checked_sub(1)
                                .map_or("every stage at its own rate".into(), |r| LADDER[r]
                                    .describe()),
                            governor.window_cores().unwrap_or(0.0)
                        );
                    }
                    Step::TooSlow => log::warn!(
                        "this machine cannot keep the CPU budget of {budget_cores} cores: with \
                         optional work at its lowest rates the run used {:.2}; alerts and what \
                         feeds them keep running whole",
                        governor.window_cores().unwrap_or(0.0)
                    ),
                }
                let due = HostTime::now().add_ns(TICK_NS);
                let _ = crate::time::sleep_until_or_stop(due, || stop.is_stopped());
            }
            // The last stretch up to the stop.
            let (cpu, stages) = read_cpu();
            governor.observe(t0.elapsed().as_secs_f64(), cpu, stages);
            governor.report()
        })?;
        Ok(Self { worker })
    }

    /// Stops the thread and returns what the governor did.
    pub(crate) fn finish(self) -> Option<BudgetReport> {
        self.worker.stop();
        match self.worker.join() {
            Ok(r) => Some(r),
            Err(e) => {
                log::warn!("cpu budget: {e}");
                None
            }
        }
    }
}

/// The process's CPU time and the optional stages' (s), from the CPU accounting.
fn read_cpu() -> (f64, StageCpu) {
    let r = crate::profile::cpu::snapshot();
    let mut stages = [0.0; OptionalStage::ALL.len()];
    for stage in OptionalStage::ALL {
        let name = match stage {
            OptionalStage::Prefill => crate::assistant::lm::PREFILL_STAGE,
            OptionalStage::TextReads => crate::ocr::text_reads::CPU_STAGE,
            OptionalStage::Objects => crate::detect::seer::DETECT_STAGE,
        };
        stages[stage.index()] = r.stage(name).map_or(0.0, |s| s.cpu_s);
    }
    (r.process_cpu_s, stages)
}

/// The report of a run that was not governed (lock step, or no budget asked).
pub(crate) fn ungoverned(budget_cores: Option<f64>) -> BudgetReport {
    BudgetReport {
        budget_cores: budget_cores.unwrap_or(0.0),
        governed: false,
        ladder: crate::budget::ladder::described(),
        ..BudgetReport::default()
    }
}

/// One line for the terminal report.
pub(crate) fn line(r: &BudgetReport) -> String {
    if !r.governed {
        return if r.budget_cores > 0.0 {
            "cpu budget: not governed (lock step: no wall time to keep)".into()
        } else {
            "cpu budget: none asked".into()
        };
    }
    let lowest = r
        .max_level
        .checked_sub(1)
        .and_then(|i| r.ladder.get(i))
        .map_or("every stage at its own rate".to_string(), |s| {
            format!("down to {s}")
        });
    format!(
        "cpu budget {:.2} cores: {} ({:.2} cores over {:.1} s); {lowest}, {} step(s) down, {} up{}",
        r.budget_cores,
        if r.kept { "kept" } else { "NOT kept" },
        r.mean_cores,
        r.seconds,
        r.lowered,
        r.raised,
        if r.too_slow {
            "; this machine is too slow for it"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_below_the_safety_path_are_refused() {
        assert!(check(None).is_ok());
        assert!(check(Some(0.5)).is_ok());
        for bad in [0.3, 0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = check(Some(bad)).map(|_| ()).err().map(|e| e.to_string());
            assert!(
                e.as_deref().is_some_and(|m| m.contains("0.35 cores")),
                "{bad}: {e:?}"
            );
        }
    }

    #[test]
    fn a_keeper_stops_and_reports() {
        let dials = Dials::new();
        let k = BudgetKeeper::start(0.5, dials).map_err(|e| e.to_string());
        let Ok(k) = k else {
            panic!("{k:?}");
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        let r = k.finish();
        assert!(
            r.as_ref().is_some_and(|r| r.governed && r.seconds > 0.2),
            "{r:?}"
        );
    }
}
