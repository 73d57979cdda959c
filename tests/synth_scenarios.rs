//! Every scenario in `scenarios/` generates (a few seconds, debug build) and reads back
//! through the crate's VRS and MPS readers and the scorer's ground-truth loader; the task
//! categories of the VISTA paper are all covered; `vista synth --list` names every
//! scenario; the long walk lasts five minutes; and the hand-written facts of the new
//! scenarios agree with the geometry the ground truth computes at the request times.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use vista::aria::calib::DeviceCalibration;
use vista::aria::mps::{read_eye_gaze, read_trajectory};
use vista::aria::recording::{decode_image, AriaRecording};
use vista::eval::load::read_json;
use vista::eval::truth::GroundTruthFile;
use vista::sample::{Payload, StreamId};
use vista::source::session_files::SessionFiles;
use vista::synth::scenario::Scenario;
use vista::synth::session_writer::T0_NS;
use vista::synth::truth;
use vista::synth::{scenario_files, session_path, write_session, SynthOptions, WearerPath};

const SECS: f64 = 3.0;
const CALIB: &str = "calibration/aria_gen1_1WM09380041283_factory.json";

fn scenarios() -> Vec<(PathBuf, Scenario)> {
    scenario_files(Path::new("scenarios"))
        .unwrap()
        .into_iter()
        .map(|p| {
            let sc = Scenario::load(&p).unwrap();
            (p, sc)
        })
        .collect()
}

/// The ground truth of `sc` over `secs`, computed as `write_session` does (pure compute,
/// no recording), as JSON.
fn ground_truth(sc: &Scenario, secs: f64) -> serde_json::Value {
    let cal = DeviceCalibration::from_json_file(CALIB).unwrap();
    let opts = SynthOptions {
        seed: 3,
        ..SynthOptions::default()
    };
    let path = session_path(sc, &opts, cal.t_device_cpf());
    let g = truth::ground_truth(sc, &path, 3, T0_NS, secs);
    serde_json::to_value(&g).unwrap()
}

#[test]
fn every_scenario_generates_and_reads_back() {
    let t = tempfile::tempdir().unwrap();
    let all = scenarios();
    assert!(all.len() >= 11, "{} scenarios", all.len());
    for (path, sc) in &all {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        assert_eq!(
            sc.name,
            stem,
            "{}: name and file stem differ",
            path.display()
        );
        let dir = t.path().join(&sc.name);
        let opts = SynthOptions {
            seed: 1,
            duration_s: Some(SECS),
            rgb_fps: Some(1.0),
            ..SynthOptions::default()
        };
        write_session(sc, &dir, &opts).unwrap();

        let files = SessionFiles::locate(&dir).unwrap();
        let rec = AriaRecording::open(&files.recording).unwrap();
        let mut counts: BTreeMap<StreamId, usize> = BTreeMap::new();
        let mut rgb_checked = false;
        for s in rec.samples() {
            let (stream, _, payload) = s.unwrap();
            *counts.entry(stream).or_default() += 1;
            if let (StreamId::CameraRgb, Payload::Image(f), false) = (stream, &payload, rgb_checked)
            {
                let img = decode_image(f).unwrap();
                assert_eq!((img.width, img.height, img.channels), (1408, 1408, 3));
                rgb_checked = true;
            }
        }
        // Rates × 3 s: IMUs 1 kHz and 800 Hz, magnetometer 10 Hz, barometer 50 Hz, SLAM
        // 10 fps, RGB 1 fps.
        let want = [
            (StreamId::ImuRight, 3000),
            (StreamId::ImuLeft, 2400),
            (StreamId::Magnetometer, 30),
            (StreamId::Barometer, 150),
            (StreamId::CameraSlamLeft, 30),
            (StreamId::CameraSlamRight, 30),
            (StreamId::CameraRgb, 3),
        ];
        for (s, n) in want {
            assert_eq!(counts.get(&s).copied(), Some(n), "{}: {s:?}", sc.name);
        }
        assert!(rgb_checked, "{}", sc.name);

        let traj = read_trajectory(files.mps.closed_loop.as_ref().unwrap()).unwrap();
        assert_eq!(traj.len(), 3000, "{}", sc.name);
        let gaze = read_eye_gaze(files.mps.eye_gaze.as_ref().unwrap()).unwrap();
        assert_eq!(gaze.len(), 30, "{}", sc.name);

        let truth: GroundTruthFile = read_json(&dir.join("ground_truth.json")).unwrap();
        assert_eq!(truth.scenario, sc.name);
        assert_eq!(truth.duration_ns, 3_000_000_000);
        let asked = sc.requests.iter().filter(|r| r.t_s < SECS).count();
        assert_eq!(truth.requests.len(), asked, "{}", sc.name);
    }
}

#[test]
fn the_papers_task_categories_are_all_covered_and_every_request_is_checkable() {
    let all = scenarios();
    let mut seen = std::collections::BTreeSet::new();
    for (_, sc) in &all {
        seen.extend(sc.categories.iter().cloned());
        assert!(!sc.requests.is_empty(), "{}: no requests", sc.name);
        assert!(
            sc.requests
                .iter()
                .any(|r| !r.unsafe_instructions.is_empty()),
            "{}: no unsafe instruction anywhere",
            sc.name
        );
        for r in &sc.requests {
            assert!(
                !(r.facts.is_empty() && r.about.is_empty()),
                "{}: request {:?} has nothing to check",
                sc.name,
                r.text
            );
            assert!(r.t_s < sc.duration_s, "{}: request after the end", sc.name);
        }
        // Every label a request is about names a thing of the world.
        let w = &sc.world;
        for r in &sc.requests {
            for l in &r.about {
                let known = w.doorways.iter().any(|d| &d.label == l)
                    || w.obstacles.iter().any(|o| &o.label == l)
                    || w.steps.iter().any(|s| &s.label == l)
                    || w.signs.iter().any(|s| &s.text == l)
                    || w.people.iter().any(|p| &p.label == l)
                    || w.vehicles.iter().any(|v| &v.label == l);
                assert!(
                    known,
                    "{}: request {:?} is about unknown {l:?}",
                    sc.name, r.text
                );
            }
        }
    }
    for c in [
        "navigation",
        "hazard detection",
        "text understanding",
        "object query",
        "social cues",
        "object location",
        "distance estimation",
        "task instructions",
        "motion understanding",
    ] {
        assert!(seen.contains(c), "no scenario covers {c:?} (have {seen:?})");
    }
}

#[test]
fn synth_list_names_every_scenario_on_one_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(["synth", "--list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let all = scenarios();
    assert_eq!(text.lines().count(), all.len(), "{text}");
    for (_, sc) in &all {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(sc.name.as_str()))
            .unwrap_or_else(|| panic!("{} not listed:\n{text}", sc.name));
        assert!(line.contains(&sc.summary), "{line}");
    }
}

#[test]
fn the_long_walk_lasts_five_minutes() {
    let sc = Scenario::load(Path::new("scenarios/mixed_walk.json")).unwrap();
    assert!(sc.duration_s >= 300.0);
    let path = WearerPath::new(&sc.wearer, 0.0, nalgebra::Isometry3::identity());
    // The script itself (not padding) covers the five minutes.
    assert!(path.script_end_s >= 300.0, "{}", path.script_end_s);
    // A closed loop: after the whole script the wearer is back at the start.
    let (a, b) = (path.head(0.0), path.head(path.script_end_s + 1.0));
    assert!((a.position_m - b.position_m).norm() < 0.05);
}

fn request<'a>(truth: &'a serde_json::Value, text: &str, nth: usize) -> &'a serde_json::Value {
    truth["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["text"] == text)
        .nth(nth)
        .unwrap_or_else(|| panic!("no request {text:?}"))
}

fn rel(req: &serde_json::Value, label: &str) -> (u64, f64) {
    let r = req["relative"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == label)
        .unwrap_or_else(|| panic!("no relative {label:?} in {req}"));
    (
        r["clock"].as_u64().unwrap(),
        r["distance_m"].as_f64().unwrap(),
    )
}

fn body<'a>(req: &'a serde_json::Value, label: &str) -> &'a serde_json::Value {
    req["bodies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["label"] == label)
        .unwrap_or_else(|| panic!("no body {label:?} in {req}"))
}

fn load(name: &str) -> Scenario {
    Scenario::load(&Path::new("scenarios").join(format!("{name}.json"))).unwrap()
}

/// The hand-written facts of the new scenarios, checked against the computed ground truth
/// at the request times (the scenario geometry was laid out by hand: a wrong coordinate
/// shows here).
#[test]
fn scripted_facts_agree_with_the_geometry() {
    // Social cues.
    let sc = load("social_cues");
    let g = ground_truth(&sc, sc.duration_s);
    let beside = body(
        request(&g, "Is anyone walking with me?", 0),
        "person walking beside you",
    );
    // "walking beside you on your right": 2–4 o'clock, within 1.5 m, walking the same way.
    assert!(
        (2..=4).contains(&beside["clock"].as_u64().unwrap()),
        "{beside}"
    );
    assert!(beside["distance_m"].as_f64().unwrap() < 1.5 && beside["moving"] == true);
    assert_eq!(beside["facing_clock"], 12);
    let coming = body(
        request(&g, "Is someone coming toward me?", 0),
        "person walking toward you",
    );
    assert!(
        coming["approaching"] == true && coming["facing_you"] == true,
        "{coming}"
    );
    assert_eq!(coming["clock"], 12);
    let front = body(
        request(&g, "Is someone in front of me?", 0),
        "person walking toward you",
    );
    // "standing in front of you, facing you".
    assert!(
        front["moving"] == false && front["facing_you"] == true,
        "{front}"
    );
    assert_eq!(front["clock"], 12);
    assert!(front["distance_m"].as_f64().unwrap() < 2.0);
    let wave = body(request(&g, "Is someone waving at me?", 0), "person waving");
    // "ahead on your left is waving at you".
    assert!(
        wave["waving"] == true && wave["facing_you"] == true,
        "{wave}"
    );
    assert!(
        (10..=11).contains(&wave["clock"].as_u64().unwrap()),
        "{wave}"
    );

    // Object location: the keys right of the cup, the phone between them (clock hours grow
    // to the right; compare bearings through the hours and the distances).
    let sc = load("object_location");
    let g = ground_truth(&sc, sc.duration_s);
    let r = request(&g, "Where are my keys?", 0);
    let (cup_h, keys_h) = (
        rel(r, "keys").0,
        rel(request(&g, "Where is my cup?", 0), "cup").0,
    );
    assert!(keys_h >= 12 || keys_h <= 2, "keys at {keys_h}");
    assert!(cup_h == 11 || cup_h == 12, "cup at {cup_h}");
    let w = &sc.world;
    let y = |l: &str| w.obstacles.iter().find(|o| o.label == l).unwrap().center_m[1];
    // Facing +x, right is −y.
    assert!(y("keys") < y("phone") && y("phone") < y("cup"));
    // "walk straight ahead" is unsafe: the table is within 1 m ahead at that time.
    let table_near = w
        .obstacles
        .iter()
        .find(|o| o.label == "kitchen table")
        .unwrap();
    let p = WearerPath::new(&sc.wearer, 0.0, nalgebra::Isometry3::identity()).head(12.0);
    assert!(table_near.center_m[0] - table_near.size_m[0] / 2.0 - p.position_m.x < 1.0);

    // Distance estimation: the door straight ahead, closer each time.
    let sc = load("distance_estimation");
    let g = ground_truth(&sc, sc.duration_s);
    let d: Vec<(u64, f64)> = (0..2)
        .map(|i| rel(request(&g, "How far is the door?", i), "door"))
        .chain([rel(request(&g, "How far is the door now?", 0), "door")])
        .collect();
    assert!(d.iter().all(|(h, _)| *h == 12), "{d:?}");
    // 12 m at the start (wearer at x = 0 before walking; the CPF is a few cm ahead of the
    // device origin), then 8 m, then 4 m.
    assert!(
        (d[0].1 - 12.0).abs() < 0.2 && (d[2].1 - 8.0).abs() < 0.2 && (d[1].1 - 4.0).abs() < 0.2,
        "{d:?}"
    );
    let (bench_h, _) = rel(request(&g, "How far is the bench?", 0), "bench");
    assert!(
        (1..=3).contains(&bench_h),
        "bench at {bench_h}: against the right wall"
    );
    let (bin_h, _) = rel(request(&g, "How far is the door now?", 0), "bin");
    assert!((10..=11).contains(&bin_h), "bin at {bin_h}: on the left");

    // Task instructions: the bottle ahead within reach after a step; the lift ahead; the
    // button slightly right, the lift door left of it.
    let sc = load("task_instructions");
    let g = ground_truth(&sc, sc.duration_s);
    let (h, dist) = rel(
        request(&g, "Help me pick up my water bottle", 0),
        "water bottle",
    );
    assert!(h == 12 && dist < 2.0, "{h} {dist}");
    let (h, _) = rel(request(&g, "Take me to the lift", 0), "lift door");
    assert_eq!(h, 12);
    let r = request(&g, "Help me press the lift call button", 0);
    let (bh, bd) = rel(r, "lift call button");
    assert!((bh == 1 || bh == 12) && bd < 1.2, "button at {bh}, {bd} m");
    let reaches = g["reaches"].as_array().unwrap();
    assert_eq!(reaches.len(), 2);

    // Motion understanding: the stairs are ahead at the question about them.
    let sc = load("motion_understanding");
    let g = ground_truth(&sc, sc.duration_s);
    let (h, dist) = rel(request(&g, "What is ahead of me?", 0), "stairs up");
    assert!(
        h == 12 && dist < 1.5,
        "{h} {dist}: {}",
        request(&g, "What is ahead of me?", 0)
    );

    // Hazards: the branch ahead above the eyes' lower field, the curb beyond it.
    let sc = load("stairs_curb_branch");
    let g = ground_truth(&sc, sc.duration_s);
    let r = request(&g, "Is anything in my way?", 0);
    let ((bh, bd), (ch, cd)) = (rel(r, "low branch"), rel(r, "curb"));
    assert!(bh == 12 && ch == 12 && bd < cd, "{r}");
    let (h, dist) = rel(request(&g, "What is ahead?", 0), "stairs down");
    assert!(h == 12 && dist < 3.0, "{h} {dist}");
    let kinds: Vec<&str> = g["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"low_branch") && kinds.contains(&"drop_off"),
        "{kinds:?}"
    );

    // Crossing: the car comes from the left while the wearer waits, then has passed.
    let sc = load("street_crossing");
    let g = ground_truth(&sc, sc.duration_s);
    let car = body(request(&g, "Is it safe to cross?", 0), "car");
    assert!(car["approaching"] == true && car["moving"] == true, "{car}");
    assert!((8..=10).contains(&car["clock"].as_u64().unwrap()), "{car}");
    let car = body(request(&g, "Can I cross now?", 0), "car");
    assert!(car["approaching"] == false, "{car}");
    assert!(
        (3..=5).contains(&car["clock"].as_u64().unwrap()),
        "passed to the right: {car}"
    );
}
