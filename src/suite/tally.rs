//! A suite's results added up (pure): per mode (live first), one row per entry, per task
//! category of the paper (an entry counts for each category it lists) and per response
//! form (requests only), and the suite's total; what it cost; which cells failed.
//! Counts are pooled over seeds (recall = all caught / all relevant), medians over every
//! hazard or request, never medians of medians.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::cell::{CellResult, CellScore, Outcome, Stage};
use super::plan::{mode_name, Cell, Plan};
use crate::eval::hazards::median;
use crate::eval::mode::RunMode;

/// One row of a table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Entry, category, form, or `all`.
    pub name: String,
    /// Cells scored.
    pub cells: usize,
    /// Cells failed.
    pub failed: usize,
    /// Cells meeting every target of the scorer.
    pub passing: usize,
    /// Hazards that became relevant.
    pub hazards_relevant: usize,
    /// Of them, caught.
    pub hazards_caught: usize,
    /// Caught / relevant.
    pub recall: Option<f64>,
    /// Spoken alerts matching no hazard.
    pub false_alerts: usize,
    /// Minutes of session scored.
    pub minutes: f64,
    /// False alerts per minute.
    pub false_alerts_per_min: Option<f64>,
    /// Alerts naming the wrong kind.
    pub wrong_kind_alerts: usize,
    /// Median lead time over caught hazards, ms.
    pub lead_time_p50_ms: Option<f64>,
    /// Least lead time, ms.
    pub lead_time_min_ms: Option<f64>,
    /// Unsafe utterances (by meaning) plus unsafe instructions spoken.
    pub unsafe_speech: usize,
    /// Requests.
    pub requests: usize,
    /// Of them, answered.
    pub answered: usize,
    /// Of them, passed.
    pub passed: usize,
    /// Facts required.
    pub facts_required: usize,
    /// Of them, present.
    pub facts_present: usize,
    /// Median request → first audio of its answer, ms.
    pub answer_p50_ms: Option<f64>,
    /// The largest per-cell p99 of hazard evidence → alert audio, ms.
    pub alert_p99_ms: Option<f64>,
    /// Replay CPU, s (cells whose profile had it).
    pub cpu_s: f64,
    /// Device time of those cells, s.
    pub cpu_device_s: f64,
    /// `cpu_s / cpu_device_s`: cores the assistant would use at real time.
    pub cores_at_real_time: Option<f64>,
    /// Largest peak resident set, MiB.
    pub peak_rss_mib: Option<f64>,
}

/// A mode's tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModeReport {
    /// The mode.
    pub mode: RunMode,
    /// The whole suite.
    pub total: Row,
    /// Per entry, in the plan's order.
    pub entries: Vec<Row>,
    /// Per task category, by name.
    pub categories: Vec<Row>,
    /// Per response form.
    pub forms: Vec<Row>,
}

/// A cell that failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailedCell {
    /// The cell.
    pub cell: String,
    /// The step.
    pub stage: Stage,
    /// Its error.
    pub error: String,
}

/// What the suite cost (informational: a report written before a field existed still reads,
/// e.g. as a baseline).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cost {
    /// Cells in the plan.
    pub cells: usize,
    /// With a result (scored or failed).
    pub with_result: usize,
    /// Wall time writing sessions, s.
    pub synth_wall_s: f64,
    /// Wall time replaying, s.
    pub replay_wall_s: f64,
    /// Median replay wall time per cell, s.
    pub replay_wall_p50_s: Option<f64>,
    /// Median session-writing wall time per session, s.
    pub synth_wall_p50_s: Option<f64>,
    /// Replay CPU over all cells, s.
    pub replay_cpu_s: f64,
    /// Wall time of every `vista eval` run into the folder, s (a resumed suite has several).
    pub wall_s: Option<f64>,
    /// Those runs.
    pub runs: usize,
}

/// A suite's report (`report.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The plan.
    pub plan: Plan,
    /// Per mode, live first.
    pub modes: Vec<ModeReport>,
    /// Cost.
    pub cost: Cost,
    /// Cells that failed.
    pub failed: Vec<FailedCell>,
    /// Cells without a result (another shard's, or not run yet).
    pub missing: Vec<String>,
    /// Regressions against a baseline, in words (empty: none, or no baseline).
    #[serde(default)]
    pub regressions: Vec<String>,
}

/// Sums toward a [`Row`].
#[derive(Default)]
struct Acc {
    row: Row,
    leads: Vec<f64>,
    answers: Vec<f64>,
}

impl Acc {
    fn add_cell(&mut self, s: &CellScore) {
        let r = &mut self.row;
        r.cells += 1;
        r.passing += usize::from(s.pass);
        r.hazards_relevant += s.hazards_relevant;
        r.hazards_caught += s.hazards_caught;
        r.false_alerts += s.false_alerts;
        r.minutes += s.duration_s / 60.0;
        r.wrong_kind_alerts += s.wrong_kind_alerts;
        r.unsafe_speech += s.unsafe_utterances + s.unsafe_spoken;
        self.leads.extend(s.lead_times_ms.iter().copied());
        if let Some([_, p99]) = s.alert_from_evidence_ms {
            r.alert_p99_ms = Some(r.alert_p99_ms.map_or(p99, |m| m.max(p99)));
        }
        if let Some(cpu) = s.cpu_s {
            r.cpu_s += cpu;
            r.cpu_device_s += s.duration_s;
        }
        if let Some(rss) = s.peak_rss_mib {
            r.peak_rss_mib = Some(r.peak_rss_mib.map_or(rss, |m| m.max(rss)));
        }
        for q in &s.requests {
            self.add_request(q);
        }
    }

    fn add_request(&mut self, q: &super::cell::RequestScore) {
        let r = &mut self.row;
        r.requests += 1;
        r.answered += usize::from(q.answered);
        r.passed += usize::from(q.pass);
        r.facts_required += q.facts_required;
        r.facts_present += q.facts_present;
        if let Some(ms) = q.response_ms {
            self.answers.push(ms);
        }
    }

    fn finish(mut self, name: &str) -> Row {
        let r = &mut self.row;
        r.name = name.to_string();
        r.recall =
            (r.hazards_relevant > 0).then(|| r.hazards_caught as f64 / r.hazards_relevant as f64);
        r.false_alerts_per_min = (r.minutes > 0.0).then(|| r.false_alerts as f64 / r.minutes);
        r.lead_time_p50_ms = median(&self.leads);
        r.lead_time_min_ms = self.leads.iter().copied().reduce(f64::min);
        r.answer_p50_ms = median(&self.answers);
        r.cores_at_real_time = (r.cpu_device_s > 0.0).then(|| r.cpu_s / r.cpu_device_s);
        self.row
    }
}

/// The paper's order of response forms; others follow by name.
const FORM_ORDER: [&str; 3] = ["scene", "question", "goal"];

/// Adds up `results` for `plan`.
pub fn tally(plan: &Plan, results: &BTreeMap<Cell, CellResult>) -> Report {
    let mut modes = Vec::new();
    let mut failed = Vec::new();
    for &mode in &plan.modes {
        let mut total = Acc::default();
        let mut entries: Vec<(String, Acc)> = plan
            .entries
            .iter()
            .map(|e| (e.name.clone(), Acc::default()))
            .collect();
        let mut categories: BTreeMap<String, Acc> = BTreeMap::new();
        let mut forms: BTreeMap<String, Acc> = BTreeMap::new();
        for cell in plan.cells().iter().filter(|c| c.mode == mode) {
            let Some(result) = results.get(cell) else {
                continue;
            };
            let entry = plan.entry(&cell.session.entry);
            let slot = entries
                .iter_mut()
                .find(|(n, _)| *n == cell.session.entry)
                .map(|(_, a)| a);
            match &result.outcome {
                Outcome::Failed { stage, error } => {
                    total.row.failed += 1;
                    if let Some(a) = slot {
                        a.row.failed += 1;
                    }
                    failed.push(FailedCell {
                        cell: cell.to_string(),
                        stage: *stage,
                        error: error.clone(),
                    });
                }
                Outcome::Scored(s) => {
                    total.add_cell(s);
                    if let Some(a) = slot {
                        a.add_cell(s);
                    }
                    for c in entry.map(|e| e.categories.as_slice()).unwrap_or_default() {
                        categories.entry(c.clone()).or_default().add_cell(s);
                    }
                    for q in &s.requests {
                        forms.entry(q.form.clone()).or_default().add_request(q);
                    }
                }
            }
        }
        let mut forms: Vec<(String, Acc)> = forms.into_iter().collect();
        forms.sort_by_key(|(f, _)| {
            (
                FORM_ORDER
                    .iter()
                    .position(|o| o == f)
                    .unwrap_or(FORM_ORDER.len()),
                f.clone(),
            )
        });
        modes.push(ModeReport {
            mode,
            total: total.finish("all"),
            entries: entries.into_iter().map(|(n, a)| a.finish(&n)).collect(),
            categories: categories.into_iter().map(|(n, a)| a.finish(&n)).collect(),
            forms: forms.into_iter().map(|(n, a)| a.finish(&n)).collect(),
        });
    }
    modes.sort_by_key(|m| m.mode != RunMode::Live);
    let mut synth = Vec::new();
    let mut replay = Vec::new();
    let mut replay_cpu_s = 0.0;
    for r in results.values() {
        synth.extend(r.synth_wall_s);
        replay.extend(r.replay_wall_s);
        replay_cpu_s += r.score().and_then(|s| s.cpu_s).unwrap_or(0.0);
    }
    let cells = plan.cells();
    let cost = Cost {
        cells: cells.len(),
        with_result: results.len(),
        synth_wall_s: synth.iter().sum(),
        replay_wall_s: replay.iter().sum(),
        replay_wall_p50_s: median(&replay),
        synth_wall_p50_s: median(&synth),
        replay_cpu_s,
        wall_s: None,
        runs: 0,
    };
    Report {
        plan: plan.clone(),
        modes,
        cost,
        failed,
        missing: cells
            .iter()
            .filter(|c| !results.contains_key(c))
            .map(ToString::to_string)
            .collect(),
        regressions: Vec::new(),
    }
}

/// Compares `now` with a `baseline` report of the same plan (entries, seeds, modes and
/// replay options): each count that got worse, per mode, for the suite and per entry
/// (fewer hazards caught, facts present or requests passed; more false or wrong-kind
/// alerts, unsafe speech or failed cells). `Err` says why the two cannot be compared.
pub fn regressions(now: &Report, baseline: &Report) -> Result<Vec<String>, String> {
    if let Some(why) = now.plan.difference(&baseline.plan) {
        return Err(format!("made with another plan: {why}"));
    }
    let mut out = Vec::new();
    for m in &now.modes {
        let Some(b) = baseline.modes.iter().find(|b| b.mode == m.mode) else {
            continue;
        };
        let pairs = std::iter::once((&m.total, Some(&b.total))).chain(
            m.entries
                .iter()
                .map(|r| (r, b.entries.iter().find(|x| x.name == r.name))),
        );
        for (r, base) in pairs {
            let Some(base) = base else { continue };
            let at = format!("{} {}", mode_name(m.mode), r.name);
            let mut worse = |what: &str, was: usize, is: usize, up_is_bad: bool| {
                if (up_is_bad && is > was) || (!up_is_bad && is < was) {
                    out.push(format!("{at}: {what} {was} → {is}"));
                }
            };
            worse(
                "hazards caught",
                base.hazards_caught,
                r.hazards_caught,
                false,
            );
            worse("facts present", base.facts_present, r.facts_present, false);
            worse("requests passed", base.passed, r.passed, false);
            worse("false alerts", base.false_alerts, r.false_alerts, true);
            worse(
                "wrong-kind alerts",
                base.wrong_kind_alerts,
                r.wrong_kind_alerts,
                true,
            );
            worse("unsafe speech", base.unsafe_speech, r.unsafe_speech, true);
            worse("failed cells", base.failed, r.failed, true);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::suite::cell::RequestScore;
    use crate::suite::plan::{Entry, SessionKey, Source};

    fn plan() -> Plan {
        let entry = |n: &str, cats: &[&str]| Entry {
            name: n.into(),
            source: Source::Scenario {
                file: PathBuf::from(n),
                duration_s: None,
                digest: n.into(),
            },
            categories: cats.iter().map(|c| c.to_string()).collect(),
        };
        Plan {
            entries: vec![
                entry("a", &["navigation"]),
                entry("b", &["navigation", "social cues"]),
            ],
            seeds: vec![0, 1],
            modes: vec![RunMode::Offline, RunMode::Live],
            replay_args: vec![],
            device: crate::synth::device::SynthDevice::Gen1,
        }
    }

    fn score(
        caught: usize,
        relevant: usize,
        leads: &[f64],
        form: &str,
        facts: (usize, usize),
    ) -> CellScore {
        CellScore {
            duration_s: 30.0,
            hazards_relevant: relevant,
            hazards_caught: caught,
            false_alerts: 1,
            wrong_kind_alerts: 0,
            lead_times_ms: leads.to_vec(),
            unsafe_utterances: 0,
            unsafe_spoken: 0,
            requests: vec![RequestScore {
                form: form.into(),
                answered: true,
                pass: facts.0 == facts.1,
                facts_required: facts.1,
                facts_present: facts.0,
                response_ms: Some(500.0),
            }],
            duty_cycle_walking: None,
            clauses_cut: 0,
            alert_from_evidence_ms: Some([10.0, 40.0 * caught as f64]),
            cpu_s: Some(15.0),
            peak_rss_mib: Some(400.0 + caught as f64),
            pass: false,
            failures: vec![],
        }
    }

    fn results(p: &Plan) -> BTreeMap<Cell, CellResult> {
        let mut out = BTreeMap::new();
        for (k, c) in p.cells().into_iter().enumerate() {
            let outcome =
                if c.session.entry == "b" && c.session.seed == Some(1) && c.mode == RunMode::Live {
                    Outcome::Failed {
                        stage: Stage::Replay,
                        error: "boom".into(),
                    }
                } else if c.session.entry == "a" {
                    Outcome::Scored(score(1, 2, &[1000.0 * (k + 1) as f64], "goal", (1, 2)))
                } else {
                    Outcome::Scored(score(2, 2, &[500.0, 700.0], "scene", (3, 3)))
                };
            out.insert(
                c.clone(),
                CellResult {
                    cell: c,
                    outcome,
                    synth_wall_s: Some(5.0),
                    replay_wall_s: Some(10.0 + k as f64),
                },
            );
        }
        out
    }

    #[test]
    fn counts_pool_over_seeds_and_live_comes_first() {
        let p = plan();
        let rep = tally(&p, &results(&p));
        assert_eq!(rep.modes[0].mode, RunMode::Live);
        let live = &rep.modes[0];
        // a: two cells, 1 of 2 each; b: one scored cell (2 of 2), one failed.
        assert_eq!(live.entries[0].hazards_caught, 2);
        assert_eq!(live.entries[0].hazards_relevant, 4);
        assert_eq!(live.entries[1].cells, 1);
        assert_eq!(live.entries[1].failed, 1);
        assert_eq!(live.total.hazards_caught, 4);
        assert_eq!(live.total.recall, Some(4.0 / 6.0));
        assert_eq!(live.total.false_alerts_per_min, Some(3.0 / 1.5));
        // Lead times: a's two cells (seed 0 live is cell 1, seed 1 live is cell 3) and b's 500, 700.
        assert_eq!(live.total.lead_time_min_ms, Some(500.0));
        assert_eq!(live.total.lead_time_p50_ms, Some((700.0 + 2000.0) / 2.0));
        assert_eq!(live.total.alert_p99_ms, Some(80.0));
        assert_eq!(live.total.peak_rss_mib, Some(402.0));
        assert_eq!(live.total.cores_at_real_time, Some(0.5));
        // Categories: navigation holds both entries, social cues only b.
        let cat = |n: &str| live.categories.iter().find(|r| r.name == n).unwrap();
        assert_eq!(cat("navigation").cells, 3);
        assert_eq!(cat("social cues").cells, 1);
        assert_eq!(cat("social cues").facts_present, 3);
        // Forms in the paper's order.
        let forms: Vec<&str> = live.forms.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(forms, ["scene", "goal"]);
        assert_eq!(live.forms[1].facts_present, 2);
        assert_eq!(live.forms[1].facts_required, 4);
        assert_eq!(rep.failed.len(), 1);
        assert_eq!(rep.failed[0].cell, "b-s1-live");
        assert!(rep.missing.is_empty());
        assert_eq!(rep.cost.with_result, 8);
        assert_eq!(rep.cost.synth_wall_s, 40.0);
    }

    #[test]
    fn missing_cells_are_listed_not_counted() {
        let p = plan();
        let mut r = results(&p);
        let gone = Cell {
            session: SessionKey {
                entry: "a".into(),
                seed: Some(0),
            },
            mode: RunMode::Live,
        };
        r.remove(&gone);
        let rep = tally(&p, &r);
        assert_eq!(rep.missing, ["a-s0-live"]);
        assert_eq!(rep.modes[0].entries[0].cells, 1);
    }

    #[test]
    fn a_regression_is_named_and_a_gain_is_not() {
        let p = plan();
        let base = tally(&p, &results(&p));
        assert_eq!(regressions(&base, &base).unwrap(), Vec::<String>::new());
        let mut r = results(&p);
        let cell = Cell {
            session: SessionKey {
                entry: "a".into(),
                seed: Some(1),
            },
            mode: RunMode::Offline,
        };
        if let Some(CellResult {
            outcome: Outcome::Scored(s),
            ..
        }) = r.get_mut(&cell)
        {
            s.hazards_caught = 0;
            s.requests[0].facts_present = 2;
            s.false_alerts = 3;
        }
        let now = tally(&p, &r);
        let regs = regressions(&now, &base).unwrap();
        assert!(
            regs.contains(&"offline a: hazards caught 2 → 1".to_string()),
            "{regs:?}"
        );
        assert!(
            regs.contains(&"offline all: false alerts 4 → 6".to_string()),
            "{regs:?}"
        );
        assert!(!regs.iter().any(|g| g.contains("facts")), "{regs:?}");
        let mut other = p.clone();
        other.seeds = vec![0];
        let elsewhere = tally(&other, &results(&other));
        assert!(regressions(&now, &elsewhere).unwrap_err().contains("seeds"));
    }
}
