//! Text read "first around the gaze point, the whole frame on request" (issue 8): perception
//! with PP-OCRv4 reading a small square of each frame (no gaze, so the centre, where the
//! frame has no text) and the whole assistant, in lock step. A goal naming a sign arrives
//! before any text fact exists: the answer waits for a whole-frame read of the newest frame
//! and names the sign; a question that needs no text is not held. With a reader that never
//! returns, the answer is given at the wait limit, and an alert meanwhile is not delayed.
//! A newer request, or the end of the run, ends a wait: the request is still answered.
//! PP-OCR needs the models from `models/fetch`.

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use bytes::Bytes;
use vista::assistant::decisions::read_decisions;
use vista::assistant::requests::RequestTime;
use vista::assistant::{Assistant, AssistantConfig, AssistantMode, Form, Request};
use vista::ocr::text_reads::{ProfiledReader, TextReadStats};
use vista::ocr::{OcrConfig, OcrEngine, OcrReader, Orientation, ReadMode, ReaderConfig};
use vista::perception::{Perception, PerceptionConfig, PerceptionConsumer, SensorModels};
use vista::runtime::{run, ClockMode, Consumer, RuntimeConfig};
use vista::sample::{ImageEncoding, ImageFrame, Payload, Sample, StreamId};
use vista::speech::run_speech::start_session_speech;
use vista::speech::sink::AudioChoice;
use vista::speech::transcript::read_transcript;
use vista::speech::SpeakerConfig;
use vista::state::{
    ClockHour, Decision, DecisionKind, EnvironmentState, Evidence, HazardEvent, PerceptionSink,
    ReadOutcome, ReadRequests, TextFact, TextReader, Thing, ThingKind,
};
use vista::time::{Clock, DeviceTime, HostTime, VirtualClock};

const MS: i64 = 1_000_000;
const S: i64 = 1_000 * MS;
/// `frame_1408.jpg`: "Gate 12" at x 850..1096, y 463..512; "Toilets" at x 164..301,
/// y 1111..1156. The 300 px square at the centre (554..854 both ways) holds neither.
const FRAME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ocr/frame_1408.jpg");
const SQUARE_PX: u32 = 300;

/// RGB frames of `frame_1408.jpg` every 100 ms over `0..=until_ns`.
fn frames(until_ns: i64) -> Vec<Sample> {
    let jpeg = Bytes::from(std::fs::read(FRAME).unwrap());
    (0..=until_ns / (100 * MS))
        .map(|i| Sample {
            stream: StreamId::CameraRgb,
            capture: DeviceTime(i * 100 * MS),
            arrival: HostTime::default(),
            seq: i as u64,
            payload: Payload::Image(ImageFrame {
                width: 1408,
                height: 1408,
                encoding: ImageEncoding::Jpeg,
                data: jpeg.clone(),
                frame_number: i as u64,
                exposure_s: 0.01,
                gain: 1.0,
            }),
        })
        .collect()
}

fn request(index: usize, form: Form, text: &str, t_ns: i64) -> Request {
    Request::new(
        Some(index),
        form,
        text.into(),
        RequestTime::Device(DeviceTime(t_ns)),
    )
}

/// A lock-step assistant on `clock` writing into `dir`, with `requests`.
fn assistant(dir: &Path, clock: &Arc<dyn Clock>, requests: Vec<Request>) -> Assistant {
    let speech = start_session_speech(
        dir,
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(clock),
    )
    .unwrap();
    Assistant::new(
        AssistantConfig::new(dir, AssistantMode::LockStep),
        speech.speaker,
        None,
        Arc::clone(clock),
    )
    .unwrap()
    .with_scripted(requests)
}

/// Runs perception over `samples` in lock step on `clock`, reading text with `reader` and
/// answering with `sink`.
fn run_lockstep(
    samples: Vec<Sample>,
    clock: Arc<dyn Clock>,
    reader: Box<dyn TextReader>,
    requests: Arc<ReadRequests>,
    sink: Box<dyn PerceptionSink>,
) {
    let engine = Perception::new(PerceptionConfig::default(), SensorModels::default(), None);
    let consumer = PerceptionConsumer::new(engine, sink)
        .with_text_reader(reader)
        .with_read_requests(requests);
    let consumers: Vec<Box<dyn Consumer>> = vec![Box::new(consumer)];
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.clock = Some((DeviceTime(0), clock));
    run(
        Box::new(vista::source::VecSource::new(samples)),
        config,
        consumers,
    )
    .unwrap();
}

fn answers(dir: &Path) -> Vec<Decision> {
    read_decisions(&dir.join("decisions.jsonl"))
        .unwrap()
        .into_iter()
        .filter(|d| d.kind == DecisionKind::Answer)
        .collect()
}

fn answer_to(decisions: &[Decision], index: usize) -> &Decision {
    decisions
        .iter()
        .find(|d| d.request_index == Some(index))
        .unwrap_or_else(|| panic!("no answer to request {index}: {decisions:?}"))
}

/// The run of the first test: a goal naming "gate 12" at 1 s, a question on the way ahead
/// at 2 s, PP-OCR reading a 300 px square at the centre at most once a second; returns the
/// text reads' report.
fn gate_run(dir: &Path) -> vista::ocr::text_reads::TextReadReport {
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let whole = Arc::new(ReadRequests::new());
    let mut a = assistant(
        dir,
        &clock,
        vec![
            request(0, Form::Goal, "Take me to gate 12", S),
            request(1, Form::Question, "Is the path clear?", 2 * S),
        ],
    );
    a.set_read_requests(Arc::clone(&whole));
    let engine = OcrEngine::new(OcrConfig::default())
        .unwrap_or_else(|e| panic!("OCR models needed for this test (run models/fetch): {e}"));
    let ocr = OcrReader::new(
        engine,
        None,
        ReaderConfig {
            mode: ReadMode::Synchronous,
            orientation: Orientation::AsRecorded,
            roi_size_px: SQUARE_PX,
            whole_frame_without_gaze: false,
            ..ReaderConfig::default()
        },
    )
    .unwrap();
    let stats = Arc::new(TextReadStats::new());
    // As `replay --asap --speak` reads: at most once a second, inline.
    let reader = ProfiledReader::new(Box::new(ocr), S, false, Arc::clone(&stats)).unwrap();
    run_lockstep(frames(3 * S), clock, Box::new(reader), whole, Box::new(a));
    stats.report()
}

#[test]
fn a_goal_asked_before_any_text_is_read_waits_for_the_whole_frame_and_names_the_sign() {
    let dir = tempfile::tempdir().unwrap();
    let rep = gate_run(dir.path());
    // The reads of the square at the centre found nothing; one whole-frame read, on request,
    // found the signs.
    assert!(rep.reads >= 3, "{rep:?}");
    assert_eq!(rep.reads_with_text, 0, "{rep:?}");
    assert_eq!(rep.whole_frame_reads, 1, "{rep:?}");
    assert_eq!(rep.whole_frame_reads_with_text, 1, "{rep:?}");

    let d = answers(dir.path());
    let goal = answer_to(&d, 0);
    assert!(goal.text.contains("\"Gate 12\""), "{}", goal.text);
    assert!(!goal.text.starts_with("I don't see"), "{}", goal.text);
    let w = goal.text_read.as_ref().expect("the goal waited for a read");
    assert_eq!(w.outcome, ReadOutcome::Found);
    assert!(w.found);
    // Answered from a later state than the one it arrived at, within the wait limit.
    assert!(goal.state_at_ns > S, "{goal:?}");
    assert!(
        w.waited_for_read_ms > 0.0 && w.waited_for_read_ms < 2_000.0,
        "{w:?}"
    );
    // The question needs no text: answered at once, from the first state at its time.
    let q = answer_to(&d, 1);
    assert!(q.text_read.is_none(), "{q:?}");
    assert!(
        q.state_at_ns >= 2 * S && q.state_at_ns <= 2 * S + 100 * MS,
        "{q:?}"
    );
    // Lock step: the same run decides the same, byte for byte, and every utterance alike.
    // (Audio end times after a cut-off utterance are a speech-layer matter: see
    // `tests/assistant.rs`.)
    let again = tempfile::tempdir().unwrap();
    gate_run(again.path());
    let read = |d: &Path| std::fs::read_to_string(d.join("decisions.jsonl")).unwrap();
    assert_eq!(read(dir.path()), read(again.path()));
    assert_eq!(said(dir.path()), said(again.path()));
}

/// Each utterance: text, request, capture and decision times, whether it was dropped.
fn said(dir: &Path) -> Vec<(String, u64, i64, i64, bool)> {
    read_transcript(&dir.join("transcript.jsonl"))
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.text,
                e.request_id,
                e.capture_ns,
                e.decided_ns,
                e.dropped.is_some(),
            )
        })
        .collect()
}

/// Reads nothing around the gaze; a whole-frame read blocks until the run is over.
struct NeverReturns {
    release: Arc<(Mutex<bool>, Condvar)>,
    started: Arc<Mutex<u64>>,
}

impl TextReader for NeverReturns {
    fn submit(&mut self, _frame: &Sample, _gaze_px: Option<[f32; 2]>) {}
    fn read_whole(&mut self, _frame: &Sample, _gaze_px: Option<[f32; 2]>) {
        *self.started.lock().unwrap() += 1;
        let (m, cv) = &*self.release;
        let mut done = m.lock().unwrap();
        while !*done {
            done = cv.wait(done).unwrap();
        }
    }
    fn whole_reads_finished(&self) -> u64 {
        0
    }
    fn poll(&mut self) -> Vec<TextFact> {
        Vec::new()
    }
}

/// The assistant, with a hazard event raised at `hazard_at_ns`; releases the reader when
/// the run finishes.
struct Sink {
    a: Assistant,
    hazard_at_ns: i64,
    raised: bool,
    release: Arc<(Mutex<bool>, Condvar)>,
}

impl PerceptionSink for Sink {
    fn on_hazard(&mut self, event: &HazardEvent) {
        self.a.on_hazard(event);
    }
    fn on_state(&mut self, state: &Arc<EnvironmentState>, now: HostTime) {
        if !self.raised && state.at.ns() >= self.hazard_at_ns {
            self.raised = true;
            self.a.on_hazard(&HazardEvent {
                thing: Thing {
                    id: 7,
                    kind: ThingKind::Obstacle,
                    label: "bin".into(),
                    detail: Default::default(),
                    class: None,
                    clock: ClockHour::new(12),
                    bearing_left_deg: None,
                    distance_m: 2.0,
                    height: None,
                    world_m: None,
                    in_path: true,
                    first_seen: state.at,
                    last_seen: state.at,
                    confidence: 0.9,
                    evidence: Evidence::Points,
                },
                time_to_contact_s: Some(1.8),
                evidence: state.at,
                raised: now,
            });
        }
        self.a.on_state(state, now);
    }
    fn finish(&mut self) {
        self.a.finish();
        let (m, cv) = &*self.release;
        *m.lock().unwrap() = true;
        cv.notify_all();
    }
}

#[test]
fn a_read_that_never_returns_holds_the_answer_only_to_the_limit_and_never_an_alert() {
    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let whole = Arc::new(ReadRequests::new());
    let mut a = assistant(
        dir.path(),
        &clock,
        vec![request(0, Form::Goal, "How do I get to the exit?", S)],
    );
    a.set_read_requests(Arc::clone(&whole));
    let release = Arc::new((Mutex::new(false), Condvar::new()));
    let started = Arc::new(Mutex::new(0));
    let never = NeverReturns {
        release: Arc::clone(&release),
        started: Arc::clone(&started),
    };
    // On its own thread, as in real time: perception goes on while the read hangs.
    let stats = Arc::new(TextReadStats::new());
    let reader = ProfiledReader::new(Box::new(never), S, true, stats).unwrap();
    let sink = Sink {
        a,
        hazard_at_ns: 1_500 * MS,
        raised: false,
        release,
    };
    run_lockstep(
        frames(5 * S),
        clock,
        Box::new(reader),
        Arc::clone(&whole),
        Box::new(sink),
    );
    // One whole-frame read was asked for and started; it never finished.
    assert_eq!(*started.lock().unwrap(), 1);
    assert_eq!(whole.asked(), 1);
    assert_eq!(whole.served(), 0);

    let all = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let alert = all
        .iter()
        .find(|d| d.kind == DecisionKind::Alert)
        .expect("the alert was spoken");
    let goal = answer_to(&all, 0);
    let w = goal.text_read.as_ref().expect("the goal waited for a read");
    assert_eq!(w.outcome, ReadOutcome::TimedOut);
    assert!(!w.found);
    // The limit is 2 s of the session clock, checked at each state (every 100 ms here).
    assert!(
        w.waited_for_read_ms >= 2_000.0 && w.waited_for_read_ms <= 2_100.0,
        "{w:?}"
    );
    assert!(
        goal.text.starts_with("I don't see the exit"),
        "{}",
        goal.text
    );
    // The alert was decided when its hazard came, while the answer was still waiting.
    assert!(
        alert.decided_ns >= 1_500 * MS && alert.decided_ns <= 1_600 * MS,
        "{alert:?}"
    );
    assert!(alert.decided_ns < goal.decided_ns);
}

#[test]
fn a_newer_request_or_the_end_of_the_run_ends_a_wait_and_the_request_is_still_answered() {
    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let whole = Arc::new(ReadRequests::new());
    // Perception has frames but never serves a read.
    whole.set_ready();
    let mut a = assistant(
        dir.path(),
        &clock,
        vec![
            request(0, Form::Goal, "How do I get to the exit?", S),
            request(1, Form::Question, "Is the path clear?", 1_500 * MS),
            request(2, Form::Question, "What does the sign say?", 3 * S),
        ],
    );
    a.set_read_requests(Arc::clone(&whole));
    for i in 0..=35 {
        let at = i * 100 * MS;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        a.on_state(&Arc::new(EnvironmentState::empty(DeviceTime(at))), now);
    }
    a.finish();
    // The goal and the text question each asked for a read; the question on the way did not.
    assert_eq!(whole.asked(), 2);
    let d = answers(dir.path());
    assert_eq!(d.len(), 3, "{d:?}");
    let goal = answer_to(&d, 0);
    let w = goal.text_read.as_ref().unwrap();
    assert_eq!(w.outcome, ReadOutcome::Cut);
    assert_eq!(w.waited_for_read_ms, 500.0);
    assert_eq!(goal.decided_ns, 1_500 * MS);
    // The newer question was answered after the goal, from the same state, without waiting.
    let q = answer_to(&d, 1);
    assert!(q.text_read.is_none());
    assert_eq!(q.decided_ns, 1_500 * MS);
    assert!(q.request_id > goal.request_id);
    // The run ended 0.5 s into the text question's wait: answered from the last state.
    let t = answer_to(&d, 2);
    let w = t.text_read.as_ref().unwrap();
    assert_eq!(w.outcome, ReadOutcome::RunEnded);
    assert!(t.text.starts_with("I can't see any text"), "{}", t.text);
}
