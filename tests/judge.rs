//! `vista judge` end to end with the real local model (the fetched SmolLM2): a suite run
//! of `read_sign` (live, `--no-lm`) judged with the paper's prompt and rubric. Decoding is
//! constrained to the verdict's shape, so every answered item gets a verdict the rubric
//! reads; each item's score is its components' sum (capped at 1.95 on a critical error),
//! and the tables count every item once per form. The same run is then judged through a
//! real OpenAI-compatible endpoint: llama.cpp's `llama-server` (built by
//! `scripts/llama_server.sh`) serving the same GGUF, started by the test: the same items,
//! each judged; shown the clips' frames, that text-only model refuses them item by item and
//! the run goes on. What a small model says of an answer is not checked: it is not a good
//! judge, only a real one.

#[path = "common/cli.rs"]
mod cli;
#[path = "common/lm.rs"]
mod lm;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli::{json, jsonl, vista};

/// The llama-server binary: $VISTA_LLAMA_SERVER, or the one `scripts/llama_server.sh`
/// builds; `None` (with a printed skip) when missing outside CI.
fn server_path() -> Option<PathBuf> {
    let p = std::env::var_os("VISTA_LLAMA_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("VISTA_CACHE").map_or_else(
                || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/vista"),
                PathBuf::from,
            );
            cache.join("llama-server/bin/llama-server")
        });
    lm::present_or_skip(
        p,
        "llama-server",
        "run scripts/llama_server.sh (scripts/test does)",
    )
}

/// A llama-server serving `model` on a free local port, stopped when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(bin: &Path, model: &Path, log: &Path) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(bin)
            .arg("-m")
            .arg(model)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-c", "4096", "-t", "2", "-np", "1"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        let mut s = Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        // Up when /health answers 200 (loading the model answers 503).
        let t0 = Instant::now();
        loop {
            if let Some(status) = s.child.try_wait().unwrap() {
                panic!(
                    "llama-server exited ({status}): {}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            if health_ok(port) {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "llama-server not up"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        s.base.push_str("/v1");
        s
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn health_ok(port: u16) -> bool {
    use std::io::{Read as _, Write as _};
    let Ok(mut c) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = c.set_read_timeout(Some(Duration::from_secs(2)));
    if c.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut head = String::new();
    let _ = c.read_to_string(&mut head);
    head.starts_with("HTTP/1.1 200")
}

#[test]
fn a_suite_run_is_judged_item_by_item_into_tables() {
    let Some(model) = lm::model_path() else {
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

    // The same run through a local llama-server: the same items, each judged.
    if let Some(bin) = server_path() {
        let server = Server::start(&bin, &model, &tmp.path().join("server.log"));
        let via = tmp.path().join("judged-http");
        let o = vista()
            .args(["judge", "--suite"])
            .arg(&eval)
            .args(["--endpoint", &server.base, "--timeout-s", "300", "--out"])
            .arg(&via)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.status.success(), "{said}");
        assert!(said.contains("OpenAI-compatible endpoint"), "{said}");
        let remote = jsonl(&via.join("judged.jsonl"));
        let key = |j: &serde_json::Value| {
            let i = &j["item"];
            (
                i["run"].to_string(),
                i["index"].to_string(),
                i["task_type"].to_string(),
                i["prediction"].to_string(),
            )
        };
        assert_eq!(
            remote.iter().map(key).collect::<Vec<_>>(),
            judged.iter().map(key).collect::<Vec<_>>(),
            "{said}"
        );
        for j in &remote {
            assert!(j["score"].is_object(), "unjudged through the server: {j}");
            if !j["item"]["prediction"].as_str().unwrap().is_empty() {
                assert!(j["verdict"].is_object(), "{j}");
                assert!(j["attempts"].as_u64().unwrap() <= 3, "{j}");
            }
        }
        assert_eq!(json(&via.join("judge.json"))["all"]["unjudged"], 0);
        // Shown the frames, a text-only model refuses each answered item, says why, and the
        // run goes on (the frames did reach it: it read the images and refused them).
        let seen = tmp.path().join("judged-frames");
        let o = vista()
            .args(["judge", "--suite"])
            .arg(&eval)
            .args([
                "--endpoint",
                &server.base,
                "--frames",
                "--retries",
                "0",
                "--out",
            ])
            .arg(&seen)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{said}");
        assert!(said.contains("shown eight frames"), "{said}");
        for j in jsonl(&seen.join("judged.jsonl")) {
            if j["item"]["prediction"].as_str().unwrap().is_empty() {
                continue;
            }
            assert!(j["score"].is_null(), "{j}");
            assert_eq!(j["attempts"], 1, "{j}");
            assert!(
                j["error"]
                    .as_str()
                    .unwrap()
                    .contains("image input is not supported"),
                "{j}"
            );
        }
        let base = server.base.clone();
        drop(server);
        // A server gone is an error at start, naming the endpoint.
        let o = vista()
            .args(["judge", "--suite"])
            .arg(&eval)
            .args(["--endpoint", &base, "--out"])
            .arg(tmp.path().join("gone"))
            .output()
            .unwrap();
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("{base}/models")), "{err}");
    }

    // Nothing to judge is an error, not an empty table.
    let o = vista()
        .args(["judge", "--out"])
        .arg(tmp.path().join("none"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing to judge"));
}
