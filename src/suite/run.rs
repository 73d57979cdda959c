//! Running a suite: bounded parallel workers over its sessions (this shard's), each
//! writing its session once with `vista synth` and replaying it in every mode with `vista
//! replay --asap` (child processes: a crash ends a cell, not the suite), scored in-process.
//! A cell is finished when `cells/CELL.json` holds a score; a second run of the same plan
//! into the same folder redoes nothing finished (a failed cell is tried again). A stop
//! (Ctrl-C) kills the steps in flight and records nothing of them.
//!
//! The output folder:
//!
//! ```text
//! OUT/plan.json                    the suite, seeds, modes and replay options
//! OUT/sessions/ENTRY-sSEED/        written sessions (`.complete` once whole)
//! OUT/runs/CELL/                   each run's outputs (decisions, transcript, profile, …)
//! OUT/cells/CELL.json              each cell's result
//! OUT/logs/…                       each step's output
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::cell::{cell_score, CellResult, Outcome, ProfileView, Stage};
use super::child::{run_child, ChildEnd};
use super::error::SuiteError;
use super::plan::{Cell, Plan, SessionKey, Shard, Source};
use crate::eval::mode::RunMode;
use crate::eval::score_run::{score_run, ScoreOptions};
use crate::eval::HazardTolerances;
use crate::stop::StopHandle;
use crate::synth::device::SynthDevice;

/// The marker of a session written whole.
const COMPLETE: &str = ".complete";

/// A cell's Rerun recording, in its run folder (with [`SuiteOptions::rerun`]).
pub const RERUN_FILE: &str = "run.rrd";

/// What a suite run needs.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    /// The `vista` binary that runs the steps.
    pub vista: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    /// The plan.
    pub plan: Plan,
    /// Which sessions this process runs.
    pub shard: Shard,
    /// Sessions at once.
    pub jobs: usize,
    /// The longest one step (a synth or a replay) may run.
    pub step_limit: Duration,
    /// Threads `vista synth` renders with (`None`: its default).
    pub synth_threads: Option<usize>,
    /// Each cell's run also as a Rerun recording, `RUN/run.rrd` beside its outputs (the
    /// binary must be built with `--features rerun`).
    pub rerun: bool,
}

/// What a suite run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteRun {
    /// Cells of this shard.
    pub cells: usize,
    /// Of them, finished by an earlier run.
    pub finished_before: usize,
    /// Run now and scored.
    pub scored: usize,
    /// Run now and failed.
    pub failed: usize,
    /// The suite was stopped before its end.
    pub stopped: bool,
    /// Wall time, s.
    pub wall_s: f64,
}

/// The output folder's paths.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The folder.
    pub out: PathBuf,
}

impl Layout {
    /// `plan.json`.
    pub fn plan(&self) -> PathBuf {
        self.out.join("plan.json")
    }
    /// A written session.
    pub fn session(&self, key: &SessionKey) -> PathBuf {
        self.out.join("sessions").join(key.to_string())
    }
    /// A run's outputs.
    pub fn run(&self, cell: &Cell) -> PathBuf {
        self.out.join("runs").join(cell.to_string())
    }
    /// A cell's result.
    pub fn cell(&self, cell: &Cell) -> PathBuf {
        self.out.join("cells").join(format!("{cell}.json"))
    }
    /// The wall time of every run into the folder.
    pub fn wall(&self) -> PathBuf {
        self.out.join("wall.json")
    }
    /// A step's log.
    pub fn log(&self, name: &str) -> PathBuf {
        self.out.join("logs").join(format!("{name}.log"))
    }
}

/// Reads a JSON file of the suite.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, SuiteError> {
    let bytes = std::fs::read(path).map_err(|e| SuiteError::io(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| SuiteError::Json {
        path: path.to_path_buf(),
        why: e.to_string(),
    })
}

/// Writes JSON whole or not at all (a temporary file renamed over the target).
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), SuiteError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| SuiteError::io(dir, e))?;
    }
    let text = serde_json::to_string_pretty(value).map_err(|e| SuiteError::Json {
        path: path.to_path_buf(),
        why: e.to_string(),
    })?;
    let tmp = path.with_extension("json.part");
    std::fs::write(&tmp, text + "\n").map_err(|e| SuiteError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| SuiteError::io(path, e))
}

/// Takes the output folder for `plan`: writes `plan.json`, or checks that the one there is
/// the same plan.
pub fn claim(layout: &Layout, plan: &Plan) -> Result<(), SuiteError> {
    let path = layout.plan();
    if path.exists() {
        let old: Plan = read_json(&path)?;
        if let Some(why) = plan.difference(&old) {
            return Err(SuiteError::PlanDiffers { path, why });
        }
        return Ok(());
    }
    write_json(&path, plan)
}

/// The results in the folder for `plan`'s cells (a damaged file counts as none).
pub fn load_results(layout: &Layout, plan: &Plan) -> BTreeMap<Cell, CellResult> {
    plan.cells()
        .into_iter()
        .filter_map(|c| {
            let path = layout.cell(&c);
            if !path.exists() {
                return None;
            }
            match read_json::<CellResult>(&path) {
                Ok(r) if r.cell == c => Some((c, r)),
                Ok(_) => {
                    log::warn!("{}: holds another cell; ignored", path.display());
                    None
                }
                Err(e) => {
                    log::warn!("{e}; the cell is run again");
                    None
                }
            }
        })
        .collect()
}

fn finished(results: &BTreeMap<Cell, CellResult>, cell: &Cell) -> bool {
    results.get(cell).is_some_and(|r| r.score().is_some())
}

/// Runs this shard's unfinished cells. `on_cell` sees each result as it is recorded.
pub fn run_suite(
    opts: &SuiteOptions,
    stop: &StopHandle,
    on_cell: &(dyn Fn(&CellResult) + Sync),
) -> Result<SuiteRun, SuiteError> {
    let start = Instant::now();
    let layout = Layout {
        out: opts.out.clone(),
    };
    std::fs::create_dir_all(&opts.out).map_err(|e| SuiteError::io(&opts.out, e))?;
    claim(&layout, &opts.plan)?;
    for d in ["sessions", "runs", "cells", "logs"] {
        let p = opts.out.join(d);
        std::fs::create_dir_all(&p).map_err(|e| SuiteError::io(&p, e))?;
    }
    let before = load_results(&layout, &opts.plan);
    let sessions = opts.shard.select(&opts.plan.sessions());
    let cells: Vec<Cell> = sessions
        .iter()
        .flat_map(|s| {
            opts.plan.modes.iter().map(|&mode| Cell {
                session: s.clone(),
                mode,
            })
        })
        .collect();
    let finished_before = cells.iter().filter(|c| finished(&before, c)).count();
    let queue: Mutex<VecDeque<SessionKey>> = Mutex::new(
        sessions
            .into_iter()
            .filter(|s| {
                opts.plan.modes.iter().any(|&mode| {
                    !finished(
                        &before,
                        &Cell {
                            session: s.clone(),
                            mode,
                        },
                    )
                })
            })
            .collect(),
    );
    let scored = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let first_error: Mutex<Option<SuiteError>> = Mutex::new(None);
    let record = |r: CellResult| -> Result<(), SuiteError> {
        write_json(&layout.cell(&r.cell), &r)?;
        match r.outcome {
            Outcome::Scored(_) => scored.fetch_add(1, Ordering::Relaxed),
            Outcome::Failed { .. } => failed.fetch_add(1, Ordering::Relaxed),
        };
        on_cell(&r);
        Ok(())
    };
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            scope.spawn(|| loop {
                if stop.is_stopped() {
                    return;
                }
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                let Some(key) = next else { return };
                let todo: Vec<Cell> = opts
                    .plan
                    .modes
                    .iter()
                    .map(|&mode| Cell {
                        session: key.clone(),
                        mode,
                    })
                    .filter(|c| !finished(&before, c))
                    .collect();
                if let Err(e) = run_session(opts, &layout, &key, &todo, stop, &record) {
                    // The folder itself failed (disk full, permissions): stop the suite.
                    stop.stop();
                    let mut g = first_error.lock().unwrap_or_else(|e| e.into_inner());
                    g.get_or_insert(e);
                    return;
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(SuiteRun {
        cells: cells.len(),
        finished_before,
        scored: scored.into_inner(),
        failed: failed.into_inner(),
        stopped: stop.is_stopped(),
        wall_s: start.elapsed().as_secs_f64(),
    })
}

/// Writes one session (when it is a scenario not yet written) and runs `todo`'s cells.
fn run_session(
    opts: &SuiteOptions,
    layout: &Layout,
    key: &SessionKey,
    todo: &[Cell],
    stop: &StopHandle,
    record: &dyn Fn(CellResult) -> Result<(), SuiteError>,
) -> Result<(), SuiteError> {
    let Some(entry) = opts.plan.entry(&key.entry) else {
        return Ok(());
    };
    let failed_all = |stage: Stage, error: String| -> Result<(), SuiteError> {
        for c in todo {
            record(CellResult {
                cell: c.clone(),
                outcome: Outcome::Failed {
                    stage,
                    error: error.clone(),
                },
                synth_wall_s: None,
                replay_wall_s: None,
            })?;
        }
        Ok(())
    };
    let mut synth_wall_s = None;
    let session = match &entry.source {
        Source::Session { path } => path.clone(),
        Source::Scenario {
            file, duration_s, ..
        } => {
            let dir = layout.session(key);
            if !dir.join(COMPLETE).exists() {
                remove_dir(&dir)?;
                let mut args: Vec<OsString> = vec!["synth".into(), file.into()];
                if let Some(seed) = key.seed {
                    args.extend(["--seed".into(), seed.to_string().into()]);
                }
                args.extend(["--out".into(), dir.clone().into()]);
                if let Some(d) = duration_s {
                    args.extend(["--duration".into(), d.to_string().into()]);
                }
                if opts.plan.device != SynthDevice::Gen1 {
                    args.extend(["--device".into(), "gen2".into()]);
                }
                if let Some(t) = opts.synth_threads {
                    args.extend(["--threads".into(), t.to_string().into()]);
                }
                let log = layout.log(&format!("{key}.synth"));
                let run = run_child(&opts.vista, &args, &log, opts.step_limit, stop)?;
                match run.end {
                    ChildEnd::Done => {
                        let marker = dir.join(COMPLETE);
                        std::fs::write(&marker, b"").map_err(|e| SuiteError::io(&marker, e))?;
                        synth_wall_s = Some(run.wall_s);
                    }
                    ChildEnd::Stopped => return Ok(()),
                    ChildEnd::TimedOut => {
                        return failed_all(Stage::Synth, timed_out(opts, &log));
                    }
                    ChildEnd::Failed(e) => return failed_all(Stage::Synth, e),
                }
            }
            dir
        }
    };
    for cell in todo {
        if stop.is_stopped() {
            return Ok(());
        }
        let out = layout.run(cell);
        remove_dir(&out)?;
        let mut args: Vec<OsString> = vec![
            "replay".into(),
            session.clone().into(),
            "--asap".into(),
            "--speak".into(),
            out.clone().into(),
            "-q".into(),
        ];
        if cell.mode == RunMode::Live {
            args.push("--recorded-only".into());
        }
        if opts.rerun {
            std::fs::create_dir_all(&out).map_err(|e| SuiteError::io(&out, e))?;
            args.push("--rerun".into());
            args.push(out.join(RERUN_FILE).into());
        }
        args.extend(opts.plan.replay_args.iter().map(OsString::from));
        let log = layout.log(&format!("{cell}.replay"));
        let run = run_child(&opts.vista, &args, &log, opts.step_limit, stop)?;
        let outcome = match run.end {
            ChildEnd::Stopped => return Ok(()),
            ChildEnd::TimedOut => Outcome::Failed {
                stage: Stage::Replay,
                error: timed_out(opts, &log),
            },
            ChildEnd::Failed(error) => Outcome::Failed {
                stage: Stage::Replay,
                error,
            },
            ChildEnd::Done => score_cell(&session, &out),
        };
        record(CellResult {
            cell: cell.clone(),
            outcome,
            synth_wall_s: synth_wall_s.take(),
            replay_wall_s: Some(run.wall_s),
        })?;
    }
    Ok(())
}

/// Scores a finished run in-process.
fn score_cell(session: &Path, out: &Path) -> Outcome {
    let scored = score_run(&ScoreOptions {
        session: session.to_path_buf(),
        out: out.to_path_buf(),
        world_tolerance_m: HazardTolerances::default().world_m,
        latency: false,
        latency_run: false,
    });
    match scored {
        Ok(s) => {
            let path = out.join("profile.json");
            let profile = read_json::<ProfileView>(&path).unwrap_or_else(|e| {
                log::warn!("{e}: the cell has no CPU or alert latency");
                ProfileView::default()
            });
            Outcome::Scored(cell_score(&s, &profile))
        }
        Err(e) => Outcome::Failed {
            stage: Stage::Score,
            error: e.to_string(),
        },
    }
}

fn timed_out(opts: &SuiteOptions, log: &Path) -> String {
    format!(
        "ran past {} s and was killed (log {})",
        opts.step_limit.as_secs(),
        log.display()
    )
}

fn remove_dir(dir: &Path) -> Result<(), SuiteError> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(SuiteError::io(dir, e)),
    }
}

/// Merges shard folders into `out`: every shard ran the same plan, and together they hold
/// a result (scored or failed) for every cell, or nothing is written. Returns the plan and
/// the results.
pub fn merge(
    out: &Path,
    shards: &[PathBuf],
) -> Result<(Plan, BTreeMap<Cell, CellResult>), SuiteError> {
    let Some(first) = shards.first() else {
        return Err(SuiteError::Suite("--merge needs shard folders".into()));
    };
    let plan: Plan = read_json(&Layout { out: first.clone() }.plan())?;
    let mut results: BTreeMap<Cell, CellResult> = BTreeMap::new();
    for dir in shards {
        let layout = Layout { out: dir.clone() };
        let p: Plan = read_json(&layout.plan())?;
        if let Some(why) = plan.difference(&p) {
            return Err(SuiteError::PlanDiffers {
                path: layout.plan(),
                why,
            });
        }
        for (c, r) in load_results(&layout, &plan) {
            let better = match results.get(&c) {
                None => true,
                Some(old) => old.score().is_none() && r.score().is_some(),
            };
            if better {
                results.insert(c, r);
            }
        }
    }
    let missing: Vec<String> = plan
        .cells()
        .iter()
        .filter(|c| !results.contains_key(c))
        .map(ToString::to_string)
        .collect();
    if !missing.is_empty() {
        return Err(SuiteError::NotCovered {
            missing: missing.len(),
            examples: missing
                .iter()
                .take(4)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let layout = Layout {
        out: out.to_path_buf(),
    };
    std::fs::create_dir_all(out).map_err(|e| SuiteError::io(out, e))?;
    claim(&layout, &plan)?;
    for r in results.values() {
        write_json(&layout.cell(&r.cell), r)?;
    }
    Ok((plan, results))
}

/// A scored cell's folders.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredCell {
    /// The cell's name.
    pub name: String,
    /// Its session folder.
    pub session: PathBuf,
    /// Its run's outputs.
    pub out: PathBuf,
    /// Its entry's task categories.
    pub categories: Vec<String>,
}

/// Every scored cell of the suite folder `dir`, in plan order (a merged folder holds the
/// results, not the runs: give the shard folders).
pub fn scored_cells(dir: &Path) -> Result<Vec<ScoredCell>, SuiteError> {
    let layout = Layout {
        out: dir.to_path_buf(),
    };
    let plan: Plan = read_json(&layout.plan())?;
    let results = load_results(&layout, &plan);
    let mut out = Vec::new();
    for cell in plan.cells() {
        if results.get(&cell).is_none_or(|r| r.score().is_none()) {
            continue;
        }
        let Some(entry) = plan.entry(&cell.session.entry) else {
            continue;
        };
        let session = match &entry.source {
            Source::Session { path } => path.clone(),
            Source::Scenario { .. } => layout.session(&cell.session),
        };
        let run = layout.run(&cell);
        if !run.join("decisions.jsonl").exists() {
            continue;
        }
        out.push(ScoredCell {
            name: cell.to_string(),
            session,
            out: run,
            categories: entry.categories.clone(),
        });
    }
    Ok(out)
}

/// Every run's wall time into a folder (`wall.json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WallTime {
    /// Seconds, all runs.
    pub wall_s: f64,
    /// Runs.
    pub runs: usize,
}

/// Adds one run's `wall_s` to the folder's `wall.json` and returns the new totals.
pub fn add_wall_time(layout: &Layout, wall_s: f64) -> Result<WallTime, SuiteError> {
    let path = layout.wall();
    let mut w: WallTime = if path.exists() {
        read_json(&path).unwrap_or_default()
    } else {
        WallTime::default()
    };
    w.wall_s += wall_s;
    w.runs += 1;
    write_json(&path, &w)?;
    Ok(w)
}

/// The folder's `wall.json` (none: `None`).
pub fn wall_time(layout: &Layout) -> Option<WallTime> {
    read_json(&layout.wall()).ok()
}
