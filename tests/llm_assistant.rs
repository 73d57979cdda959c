//! The assistant's language model with its prompt prefilled ahead of requests
//! (`vista::assistant::lm::prefill`, over the model's view of the state, `lm_context`): a
//! request over a prefilled state pays only for its own
//! tokens and answers exactly as a fresh engine given the whole prompt does; a prefilled
//! state older than the staleness bound is not used; the sink forwards every call. A model
//! that fails mid-run leaves the run on the templates with one warning (no model needed); a
//! NUL in one request leaves the model on for the next.
//! The others need SmolLM2 in the model cache (`models/fetch`); they skip with a message
//! otherwise.

#![cfg(feature = "llm")]

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use vista::assistant::lm::context::model_context;
use vista::assistant::lm::prefill::{LmPrefill, PrefillConfig};
use vista::assistant::Form;
use vista::infer::llm::generator::{system_turn, user_turn};
use vista::infer::llm::{ContextConfig, LmEngine, DEFAULT_SYSTEM_PROMPT};
use vista::state::{
    ClockHour, Continue, EnvironmentState, Evidence, GenerationPrompt, GenerationStats, Generator,
    HazardEvent, PerceptionSink, Thing, ThingKind,
};
use vista::time::{DeviceTime, HostTime};

#[path = "common/lm.rs"]
mod lm;
use lm::{lock, model_path};

fn engine(p: &std::path::Path) -> LmEngine {
    LmEngine::load(
        p,
        &ContextConfig {
            n_ctx: 1024,
            n_batch: 512,
            threads: 2,
            ..ContextConfig::default()
        },
    )
    .unwrap()
}

const S: i64 = 1_000_000_000;

/// A bench 2.5 m ahead (in the path) and a door at 2 o'clock, `door_m` away.
fn state(at_ns: i64, door_m: f32) -> EnvironmentState {
    let mut s = EnvironmentState::empty(DeviceTime(at_ns));
    let thing = |id, kind, label: &str, clock, d, in_path| Thing {
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
    };
    s.things
        .push(thing(7, ThingKind::Obstacle, "bench", 12, 2.5, true));
    s.things
        .push(thing(4, ThingKind::Door, "glass door", 2, door_m, false));
    s
}

fn prompt(context: &str) -> GenerationPrompt {
    let spec = Form::Question.spec();
    GenerationPrompt {
        system: spec.system.to_string(),
        context: context.to_string(),
        request: "Is this a busy place?".to_string(),
        form: "question".to_string(),
        max_tokens: 20,
    }
}

fn answer(g: &mut dyn Generator, p: &GenerationPrompt) -> (String, GenerationStats) {
    let never = AtomicBool::new(false);
    let mut text = String::new();
    let st = g
        .generate(
            p,
            &mut |s| {
                text.push_str(s);
                Continue::Yes
            },
            &never,
        )
        .unwrap();
    (text, st)
}

/// The CPU budget's dial holds prefills back while it pauses them (each period it would have
/// run in counted once), and a request then answers over its own state; set back, the next
/// state is prefilled.
#[test]
fn a_paused_prefill_holds_back_until_the_budget_lets_it_run() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let cfg = PrefillConfig {
        every_ns: S / 10,
        max_stale_ns: S / 4,
        backoff: 0,
    };
    let pre = LmPrefill::start(engine(&path), cfg).unwrap();
    let dial = vista::budget::RateDial::new();
    dial.set_stretch_pct(vista::budget::PAUSED);
    pre.follow(dial.clone());
    for k in 0..5 {
        pre.offer(&state(S + k * S / 10, 6.0 + k as f32));
    }
    pre.settle();
    let c = pre.counters();
    assert_eq!((c.offered, c.prefills, c.held_back), (0, 0, 5), "{c:?}");
    let st = state(S + S / 2, 7.0);
    let mut g = pre.generator();
    let (_, stats) = answer(g.as_mut(), &prompt(&model_context(&st)));
    assert!(!stats.on_prefilled, "nothing was prefilled: {stats:?}");
    dial.set_stretch_pct(vista::budget::FULL_RATE_PCT);
    pre.offer(&state(S + S, 8.0));
    pre.settle();
    let c = pre.counters();
    assert_eq!((c.offered, c.prefills, c.held_back), (1, 1, 5), "{c:?}");
}

#[test]
fn a_prefilled_request_pays_only_its_own_tokens_and_answers_as_a_fresh_prompt() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let cfg = PrefillConfig {
        every_ns: 0,
        max_stale_ns: S / 4,
        backoff: 0,
    };
    let pre = LmPrefill::start(engine(&path), cfg).unwrap();
    let st = state(S, 6.0);
    pre.offer(&st);
    pre.settle();
    let c = pre.counters();
    assert_eq!((c.offered, c.prefills, c.failures), (1, 1, 0), "{c:?}");

    let p = prompt(&model_context(&st));
    let mut g = pre.generator();
    let (text, stats) = answer(g.as_mut(), &p);

    // A fresh engine over the whole prompt: same greedy answer, and every token prefilled.
    let mut fresh = engine(&path);
    let (fresh_text, fresh_stats) = answer(&mut fresh, &p);
    assert_eq!(text, fresh_text);
    assert!(!text.trim().is_empty());
    // What the request alone costs: the whole prompt less the system turn (the chat
    // template's two renderings, tokenised here).
    let (prefix, total) = fresh
        .prompt_lengths(
            &system_turn(DEFAULT_SYSTEM_PROMPT, &p.context),
            &user_turn(&p.system, &p.request),
        )
        .unwrap();
    assert_eq!(fresh_stats.prefill_tokens as usize, total);
    assert_eq!(stats.prefill_tokens as usize, total - prefix);
    assert!(total - prefix < 80, "{prefix} {total}");
    let c = pre.counters();
    assert_eq!((c.requests, c.on_prefilled), (1, 1), "{c:?}");
    // The generator's statistics say so too, with the thread count it chose.
    assert!(stats.on_prefilled && !fresh_stats.on_prefilled);
    assert!(stats.threads >= 1 && stats.wait_ns >= 0 && stats.prefill_ns > 0);
}

#[test]
fn only_a_recent_prefilled_state_stands_in_for_the_requests_own() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    // Prefill once (the first state), never again (every_ns huge).
    let cfg = PrefillConfig {
        every_ns: i64::MAX,
        max_stale_ns: S / 4,
        backoff: 0,
    };
    let pre = LmPrefill::start(engine(&path), cfg).unwrap();
    let a = state(S, 6.0);
    pre.offer(&a);
    pre.settle();
    let mut g = pre.generator();
    let mut fresh = engine(&path);

    // 200 ms later, the door 5.7 m away: the prefilled text (6.0 m) is used.
    let b = state(S + S / 5, 5.7);
    pre.offer(&b);
    assert_ne!(model_context(&a), model_context(&b));
    let (text, _) = answer(g.as_mut(), &prompt(&model_context(&b)));
    let (over_a, _) = answer(&mut fresh, &prompt(&model_context(&a)));
    assert_eq!(text, over_a);
    assert_eq!(pre.counters().on_prefilled, 1);

    // 400 ms after the prefilled state: too old, the request's own state is used.
    let c = state(S + 2 * S / 5, 5.4);
    pre.offer(&c);
    let (text, stats) = answer(g.as_mut(), &prompt(&model_context(&c)));
    let (over_c, _) = answer(&mut fresh, &prompt(&model_context(&c)));
    assert_eq!(text, over_c);
    let k = pre.counters();
    assert_eq!((k.requests, k.on_prefilled), (2, 1), "{k:?}");
    assert!(stats.prefill_tokens > 0);
}

/// A request answered after newer states arrived (the answer thread is behind perception)
/// still finds the prefilled state: its own state is placed in time by its text.
#[test]
fn a_request_behind_newer_states_still_uses_the_prefilled_one() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let cfg = PrefillConfig {
        every_ns: i64::MAX,
        max_stale_ns: S / 4,
        backoff: 0,
    };
    let pre = LmPrefill::start(engine(&path), cfg).unwrap();
    let a = state(S, 6.0);
    pre.offer(&a);
    pre.settle();
    // Perception moves on twice before the request over `a` reaches the model.
    pre.offer(&state(S + S / 20, 5.9));
    pre.offer(&state(S + S / 10, 5.8));
    let mut g = pre.generator();
    let (_, stats) = answer(g.as_mut(), &prompt(&model_context(&a)));
    assert!(stats.on_prefilled, "{:?}", pre.counters());
}

#[derive(Default)]
struct Seen {
    states: Vec<i64>,
    hazards: usize,
    finished: bool,
}

struct Recorder(Arc<Mutex<Seen>>);

impl PerceptionSink for Recorder {
    fn on_hazard(&mut self, _event: &HazardEvent) {
        self.0.lock().unwrap().hazards += 1;
    }
    fn on_state(&mut self, state: &Arc<EnvironmentState>, _now: HostTime) {
        self.0.lock().unwrap().states.push(state.at.ns());
    }
    fn finish(&mut self) {
        self.0.lock().unwrap().finished = true;
    }
}

#[test]
fn the_sink_forwards_every_state_and_offers_them_at_most_every_interval() {
    let Some(path) = model_path() else { return };
    let _g = lock();
    let cfg = PrefillConfig {
        every_ns: S / 5,
        max_stale_ns: S / 4,
        backoff: 0,
    };
    let pre = LmPrefill::start(engine(&path), cfg).unwrap();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mut sink = pre.sink(Recorder(Arc::clone(&seen)));
    // 20 states 50 ms apart (1 s), the door coming closer so each text differs.
    for i in 0..20i64 {
        let st = Arc::new(state(S + i * S / 20, 6.0 - i as f32 * 0.07));
        sink.on_state(&st, HostTime(0));
    }
    sink.finish();
    pre.settle();
    let s = seen.lock().unwrap();
    assert_eq!(s.states.len(), 20);
    assert!(s.finished);
    // Offered at 0, 200, 400, 600, 800 ms of the 1 s.
    let c = pre.counters();
    assert_eq!(c.offered, 5, "{c:?}");
    assert_eq!(c.prefills + c.superseded, 5, "{c:?}");
}

/// A model that answers its first request, then fails halfway through its second (a
/// decode error after a few words), and would answer again if asked.
struct FailsOnSecond {
    calls: Arc<std::sync::atomic::AtomicUsize>,
}

impl Generator for FailsOnSecond {
    fn name(&self) -> &str {
        "flaky"
    }
    fn generate(
        &mut self,
        _prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        _cancel: &AtomicBool,
    ) -> Result<GenerationStats, vista::state::GeneratorError> {
        let n = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let words: &[&str] = if n == 1 {
            &["The ", "bench ", "is "]
        } else {
            &["There ", "is ", "a ", "door. "]
        };
        let mut st = GenerationStats {
            threads: 1,
            ..GenerationStats::default()
        };
        for w in words {
            st.generated_tokens += 1;
            if on_text(w) == Continue::Stop {
                break;
            }
        }
        if n == 1 {
            return Err(vista::state::GeneratorError {
                generator: "flaky".into(),
                message: "llama_decode failed (injected)".into(),
            });
        }
        Ok(st)
    }
}

#[test]
fn a_model_failing_mid_run_leaves_one_warning_and_templates_answer_the_rest() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use vista::assistant::decisions::read_decisions;
    use vista::assistant::requests::RequestTime;
    use vista::assistant::{Assistant, AssistantConfig, AssistantMode, Request};
    use vista::speech::run_speech::start_session_speech;
    use vista::speech::sink::AudioChoice;
    use vista::speech::SpeakerConfig;
    use vista::state::DecisionKind;
    use vista::time::{Clock, VirtualClock};

    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let speech = start_session_speech(
        dir.path(),
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let g = FailsOnSecond {
        calls: Arc::clone(&calls),
    };
    let scene = |i: usize, t: i64| {
        Request::new(
            Some(i),
            Form::Scene,
            "What is around me?".into(),
            RequestTime::Device(DeviceTime(t)),
        )
    };
    let mut a = Assistant::new(
        AssistantConfig::new(dir.path(), AssistantMode::LockStep),
        speech.speaker,
        Some(Box::new(g)),
        Arc::clone(&clock),
    )
    .unwrap()
    .with_scripted(vec![scene(0, S), scene(1, 2 * S), scene(2, 3 * S)]);
    assert!(a.lm_failure().is_none());
    for i in 0..=40 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        a.on_state(&Arc::new(state(at, 6.0)), now);
    }
    a.finish();

    // Asked twice: the failure ends its use for the run.
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(a.counters().generator_failures, 1);
    let note = a.lm_failure().expect("one warning for the run's notes");
    assert!(
        note.contains("flaky") && note.contains("injected") && note.contains("templates"),
        "{note}"
    );
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answers: Vec<_> = d
        .iter()
        .filter(|d| d.kind == DecisionKind::Answer)
        .collect();
    assert_eq!(answers.len(), 3, "{answers:#?}");
    // The first answer is the model's; the second failed before a sentence was complete
    // (the cut "The bench is" is not spoken) and the templates answered it; the third went
    // straight to the templates.
    assert_eq!(answers[0].generator, "flaky");
    assert_eq!(answers[0].text, "There is a door.");
    for (a, t) in answers[1..].iter().zip([2 * S, 3 * S]) {
        assert_eq!(a.generator, "template", "{a:?}");
        let template =
            vista::assistant::template::answer(Form::Scene, "What is around me?", &state(t, 6.0));
        assert_eq!(a.text, template.sentences.join(" "), "{a:?}");
    }
    let t1 = answers[0].lm.as_ref().expect("timing of a model answer");
    assert!(t1.failure.is_none() && t1.threads == 1 && t1.first_speech_ns.is_some());
    let t2 = answers[1]
        .lm
        .as_ref()
        .expect("timing of the failed attempt");
    assert!(t2.failure.as_deref().unwrap().contains("injected"));
    assert!(answers[2].lm.is_none(), "the model was not asked again");
}

/// A model that says something the guard blocks without a replacement.
struct Hallucinates;

impl Generator for Hallucinates {
    fn name(&self) -> &str {
        "dreamer"
    }
    fn generate(
        &mut self,
        _prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        _cancel: &AtomicBool,
    ) -> Result<GenerationStats, vista::state::GeneratorError> {
        let _ = on_text("The staircase is at 12 o'clock");
        Ok(GenerationStats {
            generated_tokens: 8,
            ..GenerationStats::default()
        })
    }
}

#[test]
fn when_nothing_the_model_said_passes_the_guard_the_templates_answer() {
    use vista::assistant::decisions::read_decisions;
    use vista::assistant::requests::RequestTime;
    use vista::assistant::{Assistant, AssistantConfig, AssistantMode, Request};
    use vista::speech::run_speech::start_session_speech;
    use vista::speech::sink::AudioChoice;
    use vista::speech::SpeakerConfig;
    use vista::state::{DecisionKind, GuardAction};
    use vista::time::{Clock, VirtualClock};

    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let speech = start_session_speech(
        dir.path(),
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let mut a = Assistant::new(
        AssistantConfig::new(dir.path(), AssistantMode::LockStep),
        speech.speaker,
        Some(Box::new(Hallucinates)),
        Arc::clone(&clock),
    )
    .unwrap()
    .with_scripted(vec![Request::new(
        Some(0),
        Form::Scene,
        "What is around me?".into(),
        RequestTime::Device(DeviceTime(S)),
    )]);
    for i in 0..=15 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        a.on_state(&Arc::new(state(at, 6.0)), now);
    }
    a.finish();
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answer = d
        .iter()
        .find(|d| d.kind == DecisionKind::Answer)
        .expect("an answer");
    let template =
        vista::assistant::template::answer(Form::Scene, "What is around me?", &state(S, 6.0));
    assert_eq!(answer.text, template.sentences.join(" "));
    assert!(!answer.text.is_empty());
    assert_eq!(answer.generator, "template");
    assert!(
        matches!(&answer.guard, GuardAction::Replaced { blocked, .. } if blocked.contains("staircase")),
        "{:?}",
        answer.guard
    );
    assert!(answer.lm.as_ref().is_some_and(|t| t.template_fallback));
    assert!(
        a.lm_failure().is_none(),
        "blocked text is not a model failure"
    );
}

/// A NUL in one request (llama.cpp takes chat messages as C strings) used to fail that
/// prompt, and the failure turned the model off for the rest of the run.
#[test]
fn a_nul_in_one_request_leaves_the_model_on_for_the_next() {
    let Some(_model) = model_path() else {
        return;
    };
    let _one = lock();
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    std::fs::write(
        &requests,
        concat!(
            "{\"t_ns\": 0, \"form\": \"question\", \"text\": \"what\\u0000 is here?\"}\n",
            "{\"t_ns\": 100000000, \"form\": \"question\", \"text\": \"what is here?\"}\n",
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "replay",
            "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs",
            "--asap",
            "-q",
            "--speak",
        ])
        .arg(&out_dir)
        .arg("--requests")
        .arg(&requests)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("failed mid-run"), "{err}");
    let decisions = std::fs::read_to_string(out_dir.join("decisions.jsonl")).unwrap();
    // Both requests reach the model and it generates for both (whether its words then pass
    // the guard, or the templates answer instead, is the model's, not the NUL's doing).
    let answers: Vec<serde_json::Value> = decisions
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|d| d["kind"] == "answer")
        .collect();
    assert_eq!(answers.len(), 2, "{decisions}");
    for d in &answers {
        assert!(d["lm"]["failure"].is_null(), "{decisions}");
        assert!(
            d["lm"]["generated_tokens"].as_u64() > Some(0),
            "{decisions}"
        );
    }
    assert_eq!(answers[1]["generator"], "smollm2", "{decisions}");
}
