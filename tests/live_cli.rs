//! End to end through the binaries: `vista device-sim` → `vista live --profile` over a
//! loopback socket delivers per stream exactly what `vista replay --recorded-only` delivers,
//! exits 0 on the device's goodbye, and writes replay's profile shape plus the link section.
//! `device-sim` refuses non-loopback addresses without `--allow-remote --token`.

use std::net::TcpListener;
use std::process::{Command, Stdio};

const VRS: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";

fn vista() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vista"));
    c.env("RUST_LOG", "warn");
    c
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn delivered(profile: &serde_json::Value) -> Vec<(String, u64)> {
    profile["streams"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["delivered"].as_u64().unwrap()))
        .collect()
}

#[test]
fn device_sim_to_live_matches_replay() {
    let dir = tempfile::tempdir().unwrap();
    let replay_json = dir.path().join("replay.json");
    let st = vista()
        .args([
            "replay",
            VRS,
            "--asap",
            "--recorded-only",
            "--quiet",
            "--profile",
        ])
        .arg(&replay_json)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());

    let addr = format!("127.0.0.1:{}", free_port());
    let mut sim = vista()
        .args(["device-sim", VRS, "--rate", "4", "--listen", &addr])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let live_json = dir.path().join("live.json");
    let out = vista()
        .args([
            "live",
            "--connect",
            &addr,
            "--reconnect-s",
            "10",
            "--profile",
        ])
        .arg(&live_json)
        .output()
        .unwrap();
    let sim_status = sim.wait().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sim_status.success());

    let replay: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&replay_json).unwrap()).unwrap();
    let live: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&live_json).unwrap()).unwrap();
    assert_eq!(delivered(&live), delivered(&replay));
    assert_eq!(live["mode"], "live");
    assert_eq!(live["stop_reason"], "EndOfSource");
    // Same shape as replay's profile, plus the link.
    for key in replay.as_object().unwrap().keys() {
        assert!(live.get(key).is_some(), "missing {key}");
    }
    assert_eq!(live["link"]["connections"], 1);
    assert_eq!(live["link"]["goodbyes"], 1);
    let imu = &live["link"]["latency"]["imu-right"];
    assert_eq!(
        imu["count"].as_u64(),
        replay["streams"]["imu-right"]["delivered"].as_u64()
    );
}

#[test]
fn device_sim_refuses_remote_without_token() {
    for extra in [&[][..], &["--allow-remote"][..]] {
        let out = vista()
            .args(["device-sim", VRS, "--listen", "0.0.0.0:0"])
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--token"), "{err}");
    }
}
