//! CPU accounting end to end (issue 27): a lock-step `vista replay --speak` of a synthetic
//! session writes a `cpu` object in `profile.json` (perception's thread CPU, the stages that
//! run inline in it, the process total at least the sum of the stages), prints the table,
//! draws the CPU panel, and `scripts/cpu_budget.sh` checks the budget from it.

#[path = "common/cli.rs"]
mod cli;

use cli::{json, replay_speak, synth};

#[test]
fn a_lock_step_run_accounts_its_cpu_per_stage() {
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    synth(
        "pole_to_door",
        &["--duration", "6", "--rgb-fps", "0"],
        &session,
    );
    let dir = out.path().join("run");
    let o = replay_speak(&session, &dir, &["--no-lm"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("CPU per stage"), "{stdout}");

    let profile = json(&dir.join("profile.json"));
    let cpu = &profile["cpu"];
    let stage = |name: &str| {
        cpu["stages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["stage"] == name)
            .unwrap_or_else(|| panic!("no stage {name} in {cpu}"))
            .clone()
    };
    let perception = stage("perception");
    assert!(perception["cpu_s"].as_f64().unwrap() > 0.0, "{cpu}");
    assert_eq!(perception["threads"], 1, "{cpu}");
    assert!(stage("ingest")["cpu_s"].as_f64().unwrap() > 0.0, "{cpu}");
    // Stereo depth and the vehicle detector run inline in lock step: their scopes hold it.
    assert!(stage("stereo")["cpu_s"].as_f64().unwrap() > 0.0, "{cpu}");
    assert!(stage("movers")["cpu_s"].as_f64().unwrap() > 0.0, "{cpu}");
    let sum: f64 = cpu["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["cpu_s"].as_f64().unwrap())
        .sum();
    let process = cpu["process_cpu_s"].as_f64().unwrap();
    // getrusage truncates user and system time to whole µs each: at most 2 µs below.
    assert!(
        process + 2e-6 >= sum,
        "process {process} s < stages {sum} s"
    );
    assert!(cpu["cores_used"].as_f64().unwrap() > 0.0);
    assert!(cpu["peak_rss_mib"].as_f64().unwrap() > 0.0);
    let un = cpu["unattributed_cpu_s"].as_f64().unwrap();
    assert!((process - sum - un).abs() < 1e-6, "{cpu}");

    let svg = std::fs::read_to_string(dir.join("latency.svg")).unwrap();
    assert!(svg.contains(r#"<g id="cpu""#));

    // The budget script: a generous budget is kept, a tiny one is not.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/cpu_budget.sh");
    let has_jq = std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_ok();
    if has_jq {
        let run = |max: &str| {
            std::process::Command::new("bash")
                .arg(script)
                .arg(&dir)
                .arg(max)
                .output()
                .unwrap()
        };
        let kept = run("1000");
        assert_eq!(kept.status.code(), Some(0), "{kept:?}");
        assert!(String::from_utf8_lossy(&kept.stdout).contains("perception"));
        let over = run("0.000001");
        assert_eq!(over.status.code(), Some(1), "{over:?}");
        let bad = run("zero");
        assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    }
}
