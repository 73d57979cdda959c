//! Assistant costs (criterion; medians in `target/criterion/assistant*/new/estimates.json`):
//!
//! * `assistant/alert`: a hazard event to its alert utterance (dedup and rate limit
//!   included) — the safety path, which never waits for a model.
//! * `assistant/template_goal`, `assistant/template_scene`: a template answer from a state
//!   with 12 things and 2 texts.
//! * `assistant/guard_answer`: the guard on a three-sentence answer (one sentence blocked).
//! * `assistant/render_state`: the state as text for a language model.
//!
//! Run: `cargo bench --bench assistant`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};

use vista::assistant::template::answer;
use vista::assistant::{render_state, Alerter, AlerterConfig, Form, Guard};
use vista::state::{
    ClockHour, EnvironmentState, Evidence, HazardEvent, TextFact, Thing, ThingKind, Walkable,
};
use vista::time::{DeviceTime, HostTime};

fn thing(id: u32, kind: ThingKind, label: &str, clock: u8, d: f32, in_path: bool) -> Thing {
    Thing {
        id,
        kind,
        label: label.into(),
        detail: Default::default(),
        class: None,
        clock: ClockHour::new(clock),
        bearing_left_deg: None,
        distance_m: d,
        height: None,
        world_m: None,
        in_path,
        first_seen: DeviceTime(0),
        last_seen: DeviceTime(0),
        confidence: 0.9,
        evidence: Evidence::Points,
    }
}

fn busy_state() -> EnvironmentState {
    let mut s = EnvironmentState::empty(DeviceTime(1_000_000_000));
    let labels = [
        (ThingKind::Obstacle, "rubbish bin"),
        (ThingKind::Door, "exit door"),
        (ThingKind::Obstacle, "metal pole"),
        (ThingKind::Person, "person"),
        (ThingKind::Object, "table"),
        (ThingKind::Overhead, "low branch"),
    ];
    for i in 0..12u32 {
        let (k, l) = labels[i as usize % labels.len()];
        s.things.push(thing(
            i,
            k,
            l,
            (i % 12 + 1) as u8,
            1.0 + i as f32 * 0.7,
            i % 3 == 0,
        ));
    }
    for (i, t) in ["EXIT", "PLATFORM 3"].iter().enumerate() {
        s.texts.push(TextFact {
            text: (*t).into(),
            confidence: 0.9,
            clock: ClockHour::new(2 + i as u8),
            distance_m: Some(6.0),
            rgb_box: [0.0; 4],
            gazed: i == 0,
            at: DeviceTime(0),
        });
    }
    s.walkable = Some(Walkable {
        clear_ahead_m: 1.0,
        clear_left_m: 3.0,
        clear_right_m: 2.0,
        floor_seen_m: None,
    });
    s
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("assistant");
    let state = busy_state();
    let mut alerter = Alerter::new(AlerterConfig::default());
    let mut n: i64 = 0;
    g.bench_function("alert", |b| {
        b.iter(|| {
            n += 1;
            let e = HazardEvent {
                thing: thing(n as u32, ThingKind::Obstacle, "bin", 12, 2.0, true),
                time_to_contact_s: Some(1.5),
                evidence: DeviceTime(n),
                raised: HostTime(n * 1_000_000_000),
            };
            black_box(alerter.alert(&e, HostTime(n * 1_000_000_000)).ok())
        })
    });
    g.bench_function("template_goal", |b| {
        b.iter(|| black_box(answer(Form::Goal, "Take me to the exit door.", &state)))
    });
    g.bench_function("template_scene", |b| {
        b.iter(|| black_box(answer(Form::Scene, "What is around me?", &state)))
    });
    let guard = Guard::default();
    let text = "The exit door is at 2 o'clock, about 6 metres. Take a left turn and exit the \
                elevator at 2 o'clock. Walk straight ahead about 9 steps.";
    g.bench_function("guard_answer", |b| {
        b.iter(|| black_box(guard.check_text(text, &state, state.thing(1))))
    });
    g.bench_function("render_state", |b| {
        b.iter(|| black_box(render_state(&state)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
