//! Cost of the profiling outputs: `cargo bench --bench trace`.
//!
//! * `trace_complete_event`: one stage span written as a complete event through a
//!   `BufWriter` into a sink (what tracing every runtime span would add per span).
//! * `fact_present`: matching one computed fact against a three-sentence answer.
//! * `render_svg_20_stages_500_utterances`: the whole picture of a long session.

use std::io::{sink, BufWriter};

use criterion::{criterion_group, criterion_main, Criterion};
use vista::eval::requests::fact_present;
use vista::profile::trace::TraceWriter;
use vista::profile::Span;
use vista::report::plot::{render_svg, Distribution, Picture, Tick, UtteranceBar};
use vista::time::{DeviceTime, HostTime};

fn bench(c: &mut Criterion) {
    let mut w = TraceWriter::new(BufWriter::new(sink())).unwrap();
    let mut t = 0i64;
    c.bench_function("trace_complete_event", |b| {
        b.iter(|| {
            t += 1_000;
            let span = Span {
                stage: "perception",
                capture: DeviceTime(t - 500),
                start: HostTime(t),
                end: HostTime(t + 700),
            };
            w.span(std::hint::black_box(&span), 1, 3);
        })
    });
    let answer = "The exit door is at 1 o'clock, about 9.5 metres. A metal pole is straight \
                  ahead in your path, 5 m away. Go around it on the left.";
    c.bench_function("fact_present", |b| {
        b.iter(|| {
            fact_present(
                std::hint::black_box("the exit door is at 12 o'clock, about 8 m"),
                std::hint::black_box(answer),
            )
        })
    });
    let p = Picture {
        title: "bench".into(),
        stages: (0..20)
            .map(|i| Distribution {
                name: format!("stage {i}"),
                count: 1000,
                min_ms: Some(0.1),
                p50_ms: 1.0 + f64::from(i),
                p95_ms: 5.0 + f64::from(i),
                p99_ms: 9.0 + f64::from(i),
                max_ms: 50.0,
            })
            .collect(),
        bars: (0..500)
            .map(|i| UtteranceBar {
                kind: ["alert", "answer", "ambient"][i % 3].into(),
                decided_s: i as f64,
                spoken_s: vec![(i as f64 + 0.2, i as f64 + 0.8)],
                label: format!("utterance {i}"),
            })
            .collect(),
        windows: Vec::new(),
        ticks: (0..50)
            .map(|i| Tick {
                label: format!("request {i}"),
                at_s: f64::from(i) * 10.0,
            })
            .collect(),
        duration_s: Some(600.0),
    };
    c.bench_function("render_svg_20_stages_500_utterances", |b| {
        b.iter(|| render_svg(std::hint::black_box(&p)).len())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
