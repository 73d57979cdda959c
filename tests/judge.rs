//! `vista judge` end to end with the real local model (the fetched SmolLM2): a suite run
//! of `read_sign` (live, `--no-lm`) judged with the paper's prompt and rubric. Decoding is
//! constrained to the verdict's shape, so every answered item gets a verdict the rubric
//! reads; each item's score is its components' sum (capped at 1.95 on a critical error),
//! and the tables count every item once per form. What a 360M model says of an answer is
//! not checked: it is not a good judge, only a real one.

#[path = "common/cli.rs"]
mod cli;
#[path = "common/lm.rs"]
mod lm;

use cli::{json, jsonl, vista};

#[test]
fn a_suite_run_is_judged_item_by_item_into_tables() {
    let Some(_model) = lm::model_path() else {
        return;
    };
    let _serial = lm::lock();
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("suite.txt");
    std::fs::write(&list, "read_sign\n").unwrap();
    let eval = tmp.path().join("eval");
    let o = vista()
        .args(["eval", list.to_str().unwrap(), "--modes", "live", "--out"])
        .arg(&eval)
        .args(["--", "--no-lm"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = tmp.path().join("judged");
    let o = vista()
        .args(["judge", "--suite"])
        .arg(&eval)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{said}");
    let judged = jsonl(&out.join("judged.jsonl"));
    let requests = jsonl(&eval.join("sessions/read_sign-s0/requests.jsonl"));
    assert_eq!(judged.len(), requests.len(), "{said}");
    for j in &judged {
        let item = &j["item"];
        assert_eq!(item["run"], "read_sign-s0-live");
        assert!(
            ["question_1", "question_2", "scene_description"]
                .contains(&item["task_type"].as_str().unwrap()),
            "{item}"
        );
        assert!(!item["references"][0].as_str().unwrap().is_empty());
        if item["prediction"].as_str().unwrap().is_empty() {
            assert_eq!(j["score"]["total"], 0.0);
            continue;
        }
        let v = &j["verdict"];
        assert!(v.is_object(), "unjudged: {j}");
        let sum: f64 = [
            "evidence_grounding",
            "answer_correctness",
            "task_completion",
            "accessible_communication",
        ]
        .iter()
        .map(|k| v[k].as_f64().unwrap())
        .sum();
        let expect = if v["critical_error"] == true {
            sum.min(1.95)
        } else {
            sum
        };
        assert!(
            (j["score"]["total"].as_f64().unwrap() - expect).abs() < 1e-9,
            "{j}"
        );
        assert_eq!(
            j["attempts"], 1,
            "a constrained reply is a verdict at once: {j}"
        );
    }
    let t = json(&out.join("judge.json"));
    assert_eq!(t["all"]["items"].as_u64().unwrap() as usize, judged.len());
    assert_eq!(t["all"]["unjudged"], 0);
    let per_form: u64 = t["forms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["items"].as_u64().unwrap())
        .sum();
    assert_eq!(per_form as usize, judged.len());
    let md = std::fs::read_to_string(out.join("judge.md")).unwrap();
    assert!(md.contains("| text understanding |"), "{md}");

    // Nothing to judge is an error, not an empty table.
    let o = vista()
        .args(["judge", "--out"])
        .arg(tmp.path().join("none"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing to judge"));
}
