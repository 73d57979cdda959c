//! A suite's report as Markdown (`report.md`) and as one SVG plot (`report.svg`: hazard
//! recall and facts present per entry and mode). Pure text from a [`Report`].

use std::fmt::Write as _;

use super::plan::mode_name;
use super::tally::{Report, Row};
use crate::eval::mode::RunMode;
use crate::report::plot::xml_escape;

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "n/a".into()
    } else {
        format!(
            "{:.0} % ({part}/{whole})",
            100.0 * part as f64 / whole as f64
        )
    }
}

fn secs(ms: Option<f64>) -> String {
    ms.map_or("–".into(), |v| format!("{:.1} s", v / 1e3))
}

fn millis(ms: Option<f64>) -> String {
    ms.map_or("–".into(), |v| format!("{v:.0} ms"))
}

fn heading(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Live => "Live mode (what the glasses stream, no MPS)",
        RunMode::Offline => "Offline mode (with MPS)",
    }
}

fn hazard_row(r: &Row) -> String {
    format!(
        "| {} | {}{} | {} | {} | {} | {} / {} | {} | {} | {} | {} | {} | {} | {} |",
        r.name,
        r.cells,
        if r.failed > 0 {
            format!(" + {} failed", r.failed)
        } else {
            String::new()
        },
        pct(r.hazards_caught, r.hazards_relevant),
        r.false_alerts_per_min
            .map_or("–".into(), |v| format!("{v:.1} ({})", r.false_alerts)),
        r.wrong_kind_alerts,
        secs(r.lead_time_p50_ms),
        secs(r.lead_time_min_ms),
        r.unsafe_speech,
        pct(r.facts_present, r.facts_required),
        pct(r.passed, r.requests),
        secs(r.answer_p50_ms),
        millis(r.alert_p99_ms),
        r.cores_at_real_time
            .map_or("–".into(), |v| format!("{v:.2}")),
        r.peak_rss_mib.map_or("–".into(), |v| format!("{v:.0} MiB")),
    )
}

const HAZARD_HEADER: &str = "| | cells | hazard recall | false alerts / min | wrong kind | lead time p50 / min | unsafe | facts | requests passed | answer p50 | alert p99 | cores at real time | peak RSS |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|";

/// `report.md`. `command` is the line that made it.
pub fn markdown(report: &Report, command: &str) -> String {
    let mut s = String::new();
    let plan = &report.plan;
    let _ = writeln!(s, "# Suite report\n");
    let _ = writeln!(s, "```sh\n{command}\n```\n");
    let _ = writeln!(
        s,
        "{} entries × seeds {:?} × modes {}, replay options `{}`; lock step (deterministic), \
         scored with the strict scorer of docs/truth.md. Counts are pooled over seeds; \
         medians are over every hazard or request. \"unsafe\" is utterances judged by \
         meaning plus the ground truth's unsafe phrases spoken; \"alert p99\" is the worst \
         cell's hazard evidence → alert audio p99 on the lock-step clock; \"cores at real \
         time\" is the replay's CPU over its device time.\n",
        plan.entries.len(),
        plan.seeds,
        plan.modes
            .iter()
            .map(|m| mode_name(*m))
            .collect::<Vec<_>>()
            .join(", "),
        if plan.replay_args.is_empty() {
            "(none)".to_string()
        } else {
            plan.replay_args.join(" ")
        },
    );
    for m in &report.modes {
        let _ = writeln!(s, "## {}\n", heading(m.mode));
        let _ = writeln!(s, "{HAZARD_HEADER}");
        for r in &m.entries {
            let _ = writeln!(s, "{}", hazard_row(r));
        }
        let mut total = m.total.clone();
        total.name = "**all**".into();
        let _ = writeln!(s, "{}\n", hazard_row(&total));
        let _ = writeln!(
            s,
            "Per task category (an entry counts for each it lists):\n"
        );
        let _ = writeln!(
            s,
            "| category | cells | hazard recall | false alerts / min | unsafe | facts | requests passed |\n|---|---|---|---|---|---|---|"
        );
        for r in &m.categories {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.name,
                r.cells,
                pct(r.hazards_caught, r.hazards_relevant),
                r.false_alerts_per_min
                    .map_or("–".into(), |v| format!("{v:.1}")),
                r.unsafe_speech,
                pct(r.facts_present, r.facts_required),
                pct(r.passed, r.requests),
            );
        }
        let _ = writeln!(s, "\nPer response form:\n");
        let _ = writeln!(
            s,
            "| form | requests | answered | facts | passed | answer p50 |\n|---|---|---|---|---|---|"
        );
        for r in &m.forms {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                r.name,
                r.requests,
                pct(r.answered, r.requests),
                pct(r.facts_present, r.facts_required),
                pct(r.passed, r.requests),
                secs(r.answer_p50_ms),
            );
        }
        let _ = writeln!(s);
    }
    let c = &report.cost;
    let _ = writeln!(s, "## Cost\n");
    let _ = writeln!(
        s,
        "{} of {} cells have a result. Writing sessions: {:.0} s in all, {} per session; \
         replaying: {:.0} s in all, {} per cell, {:.0} s of CPU.{}\n",
        c.with_result,
        c.cells,
        c.synth_wall_s,
        c.synth_wall_p50_s
            .map_or("–".into(), |v| format!("median {v:.1} s")),
        c.replay_wall_s,
        c.replay_wall_p50_s
            .map_or("–".into(), |v| format!("median {v:.1} s")),
        c.replay_cpu_s,
        c.wall_s.map_or(String::new(), |v| format!(
            " The suite took {v:.0} s of wall time in {} run(s).",
            c.runs
        )),
    );
    if !report.failed.is_empty() {
        let _ = writeln!(s, "## Failed cells\n");
        for f in &report.failed {
            let _ = writeln!(s, "- `{}` ({:?}): {}", f.cell, f.stage, f.error);
        }
        let _ = writeln!(s);
    }
    if !report.missing.is_empty() {
        let _ = writeln!(
            s,
            "## Not run here\n\n{} cell(s) have no result in this folder (other shards', or not run yet): {}\n",
            report.missing.len(),
            report.missing.join(", ")
        );
    }
    if !report.regressions.is_empty() {
        let _ = writeln!(s, "## Regressions against the baseline\n");
        for r in &report.regressions {
            let _ = writeln!(s, "- {r}");
        }
        let _ = writeln!(s);
    }
    s
}

/// `report.svg`: per entry, one bar per mode for hazard recall and one for facts present.
pub fn svg(report: &Report) -> String {
    const LEFT: f64 = 170.0;
    const BAR_W: f64 = 240.0;
    const GAP: f64 = 40.0;
    const ROW_H: f64 = 12.0;
    let colours = ["#1f77b4", "#ff7f0e"];
    let Some(first) = report.modes.first() else {
        return String::from("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n");
    };
    let names: Vec<&str> = first.entries.iter().map(|r| r.name.as_str()).collect();
    let modes = report.modes.len() as f64;
    let group_h = ROW_H * modes + 8.0;
    let top = 48.0;
    let height = top + group_h * names.len() as f64 + 24.0;
    let width = LEFT + 2.0 * BAR_W + GAP + 20.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    for (k, title) in ["hazard recall", "facts present"].iter().enumerate() {
        let x0 = LEFT + k as f64 * (BAR_W + GAP);
        let _ = writeln!(
            s,
            "<text x=\"{x0:.0}\" y=\"16\" font-weight=\"bold\">{title}</text>"
        );
        for t in [0.0, 0.5, 1.0] {
            let x = x0 + t * BAR_W;
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{:.0}\" x2=\"{x:.1}\" y2=\"{:.0}\" stroke=\"#ccc\"/><text x=\"{x:.1}\" y=\"{:.0}\" text-anchor=\"middle\" fill=\"#666\">{:.0} %</text>",
                top - 6.0,
                height - 20.0,
                height - 8.0,
                t * 100.0
            );
        }
    }
    for (m, mode) in report.modes.iter().enumerate() {
        let x = LEFT + m as f64 * 90.0;
        let colour = colours[m % colours.len()];
        let _ = writeln!(
            s,
            "<rect x=\"{x:.0}\" y=\"24\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{:.0}\" y=\"33\">{}</text>",
            x + 14.0,
            mode_name(mode.mode)
        );
    }
    for (i, name) in names.iter().enumerate() {
        let y0 = top + i as f64 * group_h;
        let _ = writeln!(
            s,
            "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y0 + group_h / 2.0 + 2.0,
            xml_escape(name)
        );
        for (m, mode) in report.modes.iter().enumerate() {
            let Some(r) = mode.entries.iter().find(|r| r.name == *name) else {
                continue;
            };
            let colour = colours[m % colours.len()];
            let y = y0 + m as f64 * ROW_H;
            let shares = [
                (r.hazards_relevant > 0)
                    .then(|| r.hazards_caught as f64 / r.hazards_relevant as f64),
                (r.facts_required > 0).then(|| r.facts_present as f64 / r.facts_required as f64),
            ];
            for (k, share) in shares.iter().enumerate() {
                let x0 = LEFT + k as f64 * (BAR_W + GAP);
                match share {
                    Some(v) => {
                        let _ = writeln!(
                            s,
                            "<rect x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{colour}\"><title>{} {}: {:.0} %</title></rect>",
                            (v * BAR_W).max(0.5),
                            ROW_H - 2.0,
                            xml_escape(name),
                            mode_name(mode.mode),
                            v * 100.0
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#999\">n/a</text>",
                            x0 + 2.0,
                            y + ROW_H - 3.0
                        );
                    }
                }
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
