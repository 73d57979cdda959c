//! Bad scenario input and a missing font are clear errors, never panics: each names the
//! file and what is wrong. (One test: it sets `VISTA_FONT`, which is process-wide.)

use std::path::Path;

use vista::synth::scenario::{Scenario, ScenarioError};
use vista::synth::{find_scenario, write_session, SynthError, SynthOptions};

fn with(base: &serde_json::Value, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = base.clone();
    edit(&mut v);
    v.to_string()
}

#[test]
fn bad_scenarios_and_a_missing_font_are_clear_errors() {
    let text = std::fs::read_to_string("scenarios/find_exit.json").unwrap();
    let base: serde_json::Value = serde_json::from_str(&text).unwrap();
    let path = Path::new("scenarios/find_exit.json");
    assert!(Scenario::from_json(path, &text).is_ok());
    let cases: Vec<(String, &str)> = vec![
        (
            with(&base, |v| {
                v["world"]["people"][0]["path_m"] = serde_json::json!([])
            }),
            "person 0",
        ),
        (
            with(&base, |v| {
                v["world"]["people"][0]["speed_mps"] = serde_json::json!(0.0)
            }),
            "person 0",
        ),
        (
            with(&base, |v| v["rgb_fps"] = serde_json::json!(120.0)),
            "rgb_fps",
        ),
        (
            with(&base, |v| {
                v["world"]["signs"][0]["size_m"] = serde_json::json!([0.0, 0.3])
            }),
            "sign 0",
        ),
        (
            with(&base, |v| {
                v["world"]["steps"] = serde_json::json!([
                    {"label": "kerb", "edge_m": [1.0, 0.0, 0.0], "rise_m": 0.1, "width_m": -1.0}
                ])
            }),
            "step 0",
        ),
        (
            with(&base, |v| {
                v["wearer"]["script"][13]["duration_s"] = serde_json::json!(0.0)
            }),
            "script action 13",
        ),
    ];
    for (json, want) in cases {
        match Scenario::from_json(path, &json) {
            Err(e @ ScenarioError::Invalid { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("find_exit.json") && msg.contains(want),
                    "{msg}"
                );
            }
            other => panic!("{want}: expected Invalid, got {other:?}"),
        }
    }
    // An unknown field in a person is a parse error with its line.
    let json = with(&base, |v| {
        v["world"]["people"][0]["colour"] = serde_json::json!("red")
    });
    assert!(matches!(
        Scenario::from_json(path, &json),
        Err(ScenarioError::Parse { .. })
    ));

    // A scenario with a sign and no font: a clear error naming the font and the variable.
    std::env::set_var("VISTA_FONT", "/no/such/dir/font.ttf");
    let sc = find_scenario(Path::new("scenarios"), "read_sign").unwrap();
    let t = tempfile::tempdir().unwrap();
    let opts = SynthOptions {
        duration_s: Some(0.5),
        rgb_fps: Some(0.0),
        slam_fps: None,
        ..SynthOptions::default()
    };
    let e = write_session(&sc, t.path(), &opts).unwrap_err();
    assert!(matches!(e, SynthError::Text(_)), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("/no/such/dir/font.ttf") && msg.contains("VISTA_FONT"),
        "{msg}"
    );
    std::env::remove_var("VISTA_FONT");
}
