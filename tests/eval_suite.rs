//! `vista eval` end to end on the small suite CI runs (`suites/ci.txt`: two scenarios, one
//! seed, both modes, `--no-lm`): stopped by a signal after its first cell, it records
//! nothing of the cell in flight; run again, it redoes nothing finished and meets the
//! committed baseline (`suites/ci.baseline.json`: a count that got worse fails); a third
//! run does nothing; another plan is refused in the same folder; shards that do not cover
//! the suite are refused at the merge. Cells that fail are recorded and the suite goes on.

#[path = "common/cli.rs"]
mod cli;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli::{json, vista};

fn eval(args: &[&str]) -> std::process::Output {
    vista().arg("eval").args(args).output().unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_stopped_suite_resumes_without_redoing_and_meets_its_baseline() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ci");
    let out_s = out.to_str().unwrap();
    let first = out.join("cells/read_sign-s0-live.json");

    // Stopped by SIGINT once the first cell is recorded.
    let mut child = vista()
        .args([
            "eval",
            "suites/ci.txt",
            "--jobs",
            "1",
            "--out",
            out_s,
            "--",
            "--no-lm",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !first.exists() {
        assert!(start.elapsed() < Duration::from_secs(900), "no first cell");
        if let Some(status) = child.try_wait().unwrap() {
            panic!("vista eval ended before its first cell: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: kill(2) on the pid of a child this test spawned and has not reaped.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0);
    let stopped = child.wait_with_output().unwrap();
    let said = text(&stopped);
    assert!(!stopped.status.success(), "{said}");
    assert!(said.contains("stopped: 1 of 4 cells finished"), "{said}");
    let cells: Vec<_> = std::fs::read_dir(out.join("cells")).unwrap().collect();
    assert_eq!(cells.len(), 1, "only the finished cell is recorded");
    let first_bytes = std::fs::read(&first).unwrap();
    let first_time = std::fs::metadata(&first).unwrap().modified().unwrap();

    // Run again: the finished cell is not redone; the rest meets the baseline.
    let resumed = eval(&[
        "suites/ci.txt",
        "--jobs",
        "1",
        "--out",
        out_s,
        "--baseline",
        "suites/ci.baseline.json",
        "--",
        "--no-lm",
    ]);
    let said = text(&resumed);
    assert!(resumed.status.success(), "{said}");
    assert!(
        said.contains("4 cells: 1 finished before, 3 scored now, 0 failed"),
        "{said}"
    );
    assert_eq!(std::fs::read(&first).unwrap(), first_bytes);
    assert_eq!(
        std::fs::metadata(&first).unwrap().modified().unwrap(),
        first_time
    );
    let report = json(&out.join("report.json"));
    assert_eq!(report["regressions"].as_array().unwrap().len(), 0);
    assert_eq!(report["failed"].as_array().unwrap().len(), 0);
    assert_eq!(report["cost"]["with_result"], 4);
    assert_eq!(report["modes"][0]["mode"], "live", "live first");
    let live = &report["modes"][0]["total"];
    assert_eq!(live["cells"], 2);
    // The report's counts are the scorer's: each run's own score.json (written by the
    // replay) adds up to them.
    let mut caught = 0;
    for s in ["read_sign-s0-live", "pole_to_door-s0-live"] {
        caught += json(&out.join("runs").join(s).join("score.json"))["summary"]["hazards_caught"]
            .as_u64()
            .unwrap();
    }
    assert_eq!(live["hazards_caught"].as_u64().unwrap(), caught);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.find("## Live mode").unwrap() < md.find("## Offline mode").unwrap());
    assert!(md.contains("| pole_to_door | 1 |"), "{md}");
    assert!(md.contains("Per response form"), "{md}");
    assert!(std::fs::read_to_string(out.join("report.svg"))
        .unwrap()
        .starts_with("<svg"));

    // A third run does nothing.
    let again = eval(&["suites/ci.txt", "--out", out_s, "--", "--no-lm"]);
    let said = text(&again);
    assert!(again.status.success(), "{said}");
    assert!(
        said.contains("4 cells: 4 finished before, 0 scored now"),
        "{said}"
    );

    // Another plan in the same folder is refused.
    let other = eval(&[
        "suites/ci.txt",
        "--seeds",
        "2",
        "--out",
        out_s,
        "--",
        "--no-lm",
    ]);
    let said = text(&other);
    assert!(!other.status.success());
    assert!(
        said.contains("another plan") && said.contains("seeds"),
        "{said}"
    );

    // A better baseline (one more hazard caught than now) makes now a regression.
    let mut base = json(&Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/ci.baseline.json"));
    let n = report["modes"][1]["total"]["hazards_caught"]
        .as_u64()
        .unwrap();
    base["modes"][1]["total"]["hazards_caught"] = (n + 1).into();
    let worse = tmp.path().join("worse.json");
    std::fs::write(&worse, base.to_string()).unwrap();
    let judged = eval(&[
        "--merge",
        out_s,
        "--out",
        tmp.path().join("m0").to_str().unwrap(),
        "--baseline",
        worse.to_str().unwrap(),
    ]);
    let said = text(&judged);
    assert!(!judged.status.success());
    assert!(
        said.contains(&format!("offline all: hazards caught {} → {n}", n + 1)),
        "{said}"
    );

    // Shards: one that lacks a cell does not cover the suite; the whole folder does.
    let part = tmp.path().join("part");
    std::fs::create_dir_all(part.join("cells")).unwrap();
    std::fs::copy(out.join("plan.json"), part.join("plan.json")).unwrap();
    for c in [
        "read_sign-s0-live",
        "read_sign-s0-offline",
        "pole_to_door-s0-live",
    ] {
        let f = format!("cells/{c}.json");
        std::fs::copy(out.join(&f), part.join(&f)).unwrap();
    }
    let merged = tmp.path().join("merged");
    let m = eval(&[
        "--merge",
        part.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    let said = text(&m);
    assert!(!m.status.success());
    assert!(
        said.contains("do not cover the suite: 1 cell(s) missing, e.g. pole_to_door-s0-offline"),
        "{said}"
    );
    let m = eval(&[
        "--merge",
        part.to_str().unwrap(),
        out_s,
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(m.status.success(), "{}", text(&m));
    let merged_report = json(&merged.join("report.json"));
    assert_eq!(merged_report["modes"], report["modes"]);
}

#[test]
fn failed_cells_are_recorded_and_the_suite_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["broken_a", "broken_b"] {
        let s = tmp.path().join(name);
        std::fs::create_dir_all(&s).unwrap();
        std::fs::write(s.join("ground_truth.json"), "{}").unwrap();
        std::fs::write(s.join("recording.vrs"), b"not a recording").unwrap();
    }
    let list = tmp.path().join("suite.txt");
    std::fs::write(&list, "session broken_a\nsession broken_b\n").unwrap();
    let out = tmp.path().join("out");
    let o = eval(&[
        list.to_str().unwrap(),
        "--modes",
        "live",
        "--out",
        out.to_str().unwrap(),
    ]);
    let said = text(&o);
    assert!(!o.status.success());
    assert!(
        said.contains("2 cell(s) failed: broken_a-live, broken_b-live"),
        "{said}"
    );
    let report = json(&out.join("report.json"));
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 2);
    assert_eq!(failed[0]["stage"], "replay");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("recording.vrs"),
        "{failed:?}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Failed cells"), "{md}");
}
