//! The Chrome/Perfetto trace writer and the SVG picture: the trace parses as JSON with
//! exactly the events written (also when dropped before `finish`, and after a write
//! error), and the picture is well-formed XML naming every stage.

use std::io::{self, Write};

use serde_json::{json, Value};
use vista::profile::trace::{InstantScope, TraceWriter};
use vista::profile::Span;
use vista::report::plot::{render_svg, Distribution, Picture, Tick, UtteranceBar, Window};
use vista::time::{DeviceTime, HostTime};

fn events(bytes: &[u8]) -> Vec<Value> {
    let v: Value = serde_json::from_slice(bytes).unwrap();
    v["traceEvents"].as_array().unwrap().clone()
}

#[test]
fn trace_has_the_events_given() {
    let mut w = TraceWriter::new(Vec::new()).unwrap();
    w.process_name(1, "vista");
    w.thread_name(1, 3, "perception \"main\"");
    w.complete(
        "decode",
        "stage",
        1,
        3,
        1_500,
        2_250,
        Some(&json!({"frame": 7})),
    );
    let span = Span {
        stage: "ingest",
        capture: DeviceTime(42),
        start: HostTime(10_000),
        end: HostTime(12_500),
    };
    w.span(&span, 1, 4);
    w.instant(
        "alert",
        "alert",
        1,
        5,
        3_000_000,
        InstantScope::Process,
        None,
    );
    w.counter(
        "queue",
        1,
        4_000,
        &[("depth", 3.0), ("dropped", 1.0), ("bad", f64::NAN)],
    );
    assert_eq!(w.events(), 6);
    let out = w.finish().unwrap();
    let ev = events(&out);
    assert_eq!(ev.len(), 6);
    assert_eq!(ev[1]["args"]["name"], "perception \"main\"");
    // 1 500 ns = 1.5 µs, 2 250 ns = 2.25 µs.
    assert_eq!(ev[2]["ph"], "X");
    assert_eq!(ev[2]["ts"], json!(1.5));
    assert_eq!(ev[2]["dur"], json!(2.25));
    assert_eq!(ev[2]["args"]["frame"], 7);
    assert_eq!(ev[3]["name"], "ingest");
    assert_eq!(ev[3]["dur"], json!(2.5));
    assert_eq!(ev[3]["args"]["capture_ns"], 42);
    assert_eq!(
        (ev[4]["ph"].clone(), ev[4]["s"].clone(), ev[4]["ts"].clone()),
        (json!("i"), json!("p"), json!(3000.0))
    );
    assert_eq!(ev[5]["ph"], "C");
    assert_eq!(
        ev[5]["args"],
        json!({"depth": 3.0, "dropped": 1.0, "bad": null})
    );
    // Negative durations become 0.
    let mut w = TraceWriter::new(Vec::new()).unwrap();
    w.complete("x", "", 1, 1, 10, -5, None);
    let ev = events(&w.finish().unwrap());
    assert_eq!(ev[0]["dur"], json!(0.0));
    assert!(ev[0].get("cat").is_none());
}

/// A sink shared with the test, so what a dropped writer wrote can be read back.
#[derive(Clone, Default)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_run_that_stops_early_leaves_valid_json() {
    let sink = Shared::default();
    {
        let mut w = TraceWriter::new(sink.clone()).unwrap();
        for i in 0..1000 {
            w.complete("stage", "s", 1, 1, i * 1000, 500, None);
        }
        // Dropped without finish (an early return or a panic unwinding).
    }
    assert_eq!(events(&sink.0.borrow()).len(), 1000);
    let empty = Shared::default();
    drop(TraceWriter::new(empty.clone()).unwrap());
    assert!(events(&empty.0.borrow()).is_empty());
}

/// Accepts `limit` bytes, then fails.
#[derive(Debug)]
struct Failing {
    written: Vec<u8>,
    limit: usize,
}

impl Write for Failing {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        if self.written.len() + b.len() > self.limit {
            return Err(io::Error::other("disk full"));
        }
        self.written.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_are_counted_and_returned() {
    let mut w = TraceWriter::new(Failing {
        written: Vec::new(),
        limit: 200,
    })
    .unwrap();
    for i in 0..10 {
        w.complete("stage", "s", 1, 1, i, 1, None);
    }
    assert!(w.events() < 10);
    assert_eq!(w.events() + w.lost(), 10);
    let e = w.finish().unwrap_err();
    assert_eq!(e.to_string(), "disk full");
}

/// Checks that every tag is closed in order and attributes are quoted; returns the tag
/// names seen. A small independent checker (the crate has no XML parser).
fn check_xml(s: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        let text = &rest[..i];
        assert!(!text.contains('>'), "stray '>' in text {text:?}");
        for (j, _) in text.match_indices('&') {
            let ent = &text[j..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| ent.starts_with(e)),
                "bad entity in {text:?}"
            );
        }
        let end = rest[i..].find('>').expect("unclosed tag") + i;
        let tag = &rest[i + 1..end];
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        assert!(!tag.contains('<'), "'<' inside <{tag}>");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap().to_string();
            stack.push(name.clone());
            seen.push(name);
        } else {
            seen.push(
                tag.split_whitespace()
                    .next()
                    .unwrap()
                    .trim_end_matches('/')
                    .to_string(),
            );
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert!(rest.trim().is_empty());
    seen
}

fn dist(name: &str, p50: f64, p99: f64) -> Distribution {
    Distribution {
        name: name.into(),
        count: 10,
        min_ms: Some(p50 / 2.0),
        p50_ms: p50,
        p95_ms: p50 * 1.5,
        p99_ms: p99,
        max_ms: p99 * 1.2,
    }
}

#[test]
fn picture_is_well_formed_and_shows_every_stage() {
    let p = Picture {
        title: "run <1> & \"friends\"".into(),
        stages: vec![
            dist("ingest", 0.05, 0.4),
            dist("perception", 12.0, 40.0),
            dist("alert: capture_to_first_audio", 80.0, 300.0),
        ],
        bars: vec![
            UtteranceBar {
                kind: "alert".into(),
                decided_s: 2.0,
                spoken_s: vec![(2.1, 3.0)],
                label: "Pole <ahead>".into(),
            },
            UtteranceBar {
                kind: "answer".into(),
                decided_s: 4.0,
                spoken_s: vec![],
                label: "never played".into(),
            },
        ],
        windows: vec![Window {
            label: "metal pole".into(),
            from_s: 1.0,
            to_s: 5.0,
            ok: Some(true),
        }],
        ticks: vec![Tick {
            label: "What's ahead?".into(),
            at_s: 1.5,
        }],
        duration_s: Some(10.0),
    };
    let svg = render_svg(&p);
    let tags = check_xml(&svg);
    assert_eq!(tags.first().map(String::as_str), Some("svg"));
    for stage in ["ingest", "perception", "alert: capture_to_first_audio"] {
        assert!(
            svg.contains(&format!(">{stage} (n=10)<")),
            "{stage} missing"
        );
    }
    assert!(svg.contains("run &lt;1&gt; &amp; &quot;friends&quot;"));
    assert!(svg.contains("What&apos;s ahead?"));
    // Log axis: 0.05 … 480 ms spans the decades 0.01 … 1000.
    for tick in [">0.01<", ">0.1<", ">1<", ">10<", ">100<", ">1000<"] {
        assert!(svg.contains(tick), "axis tick {tick} missing");
    }
    assert_eq!(tags.iter().filter(|t| *t == "circle").count(), 3);
    // Empty input still draws a valid document; a huge duration draws a bounded axis.
    check_xml(&render_svg(&Picture::default()));
    let huge = Picture {
        duration_s: Some(1e12),
        ..p
    };
    let svg = render_svg(&huge);
    check_xml(&svg);
    assert!(svg.len() < 64 * 1024);
}
