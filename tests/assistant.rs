//! The assistant end to end: the safety guard on the issue's example and on unsafe
//! instructions, template answers checked against positions computed here from the state,
//! and the whole `Assistant` speaking through a real eSpeak NG speaker into a WAV
//! (alerts interrupt answers, "I can't tell" without evidence, a failing generator falls back
//! to templates, lock-step runs are byte-for-byte deterministic, real-time answers are
//! cancelled by alerts).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use vista::assistant::decisions::read_decisions;
use vista::assistant::guard::{Guard, Verdict};
use vista::assistant::requests::{read_requests_jsonl, RequestTime};
use vista::assistant::template::answer;
use vista::assistant::{
    start_assistant, Assistant, AssistantConfig, AssistantMode, Form, Request, RequestQueue,
    SessionOptions, Verbosity,
};
use vista::lexicon::thing_label;
use vista::speech::run_speech::start_session_speech;
use vista::speech::sink::AudioChoice;
use vista::speech::transcript::read_transcript;
use vista::speech::{Priority, SpeakerConfig};
use vista::state::{
    ClockHour, Continue, DecisionKind, EnvironmentState, Evidence, GazeFact, GenerationPrompt,
    GenerationStats, Generator, GeneratorError, GuardAction, HazardEvent, HeightBand,
    PerceptionSink, Side, TextFact, Thing, ThingDetail, ThingKind, Walkable,
};
use vista::synth::named::synthesize_named;
use vista::synth::SynthOptions;
use vista::time::{Clock, DeviceTime, HostTime, VirtualClock, WallClock};

const S: i64 = 1_000_000_000;

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

/// The issue's example: exit door at 2 o'clock, 6 m; bin at 12 o'clock, 2.5 m.
fn door_and_bin(at_ns: i64) -> EnvironmentState {
    let mut s = EnvironmentState::empty(DeviceTime(at_ns));
    s.things
        .push(thing(7, ThingKind::Obstacle, "bin", 12, 2.5, true));
    s.things
        .push(thing(4, ThingKind::Door, "exit door", 2, 6.0, false));
    s.walkable = Some(Walkable {
        clear_ahead_m: 2.3,
        clear_left_m: 3.0,
        clear_right_m: 4.0,
        floor_seen_m: None,
    });
    s
}

fn blocked(v: &Verdict) -> bool {
    matches!(v, Verdict::Block { .. })
}

#[test]
fn guard_blocks_the_smollm2_answer_and_says_where_the_door_is() {
    let state = door_and_bin(0);
    let door = state.thing(4);
    let g = Guard::default();
    let v = g.check_sentence(
        "Take a left turn and exit the elevator at 2 o'clock.",
        &state,
        door,
    );
    let Verdict::Block {
        reason,
        replacement,
    } = v
    else {
        panic!("passed: {v:?}");
    };
    assert!(reason.contains("elevator"), "{reason}");
    assert!(reason.contains("9 o'clock"), "{reason}");
    // The replacement gives the door's real place: 2 o'clock, 6 metres.
    let r = replacement.unwrap();
    assert!(r.contains("2 o'clock") && r.contains("6 metres"), "{r}");
    assert_eq!(g.check_sentence(&r, &state, door), Verdict::Pass);
}

#[test]
fn guard_blocks_walking_into_hazards_and_false_all_clears() {
    let state = door_and_bin(0);
    let g = Guard::default();
    for s in [
        "Walk straight ahead.",
        "Keep going straight.",
        "The path is clear.",
        "It is safe to walk forward.",
        "Walk forward 4 metres.",
    ] {
        let v = g.check_sentence(s, &state, None);
        let Verdict::Block { replacement, .. } = &v else {
            panic!("{s} passed");
        };
        assert!(
            replacement.as_deref().unwrap_or("").contains("bin"),
            "{s}: {v:?}"
        );
    }
    // Stopping short of the bin, or not walking at all, is fine.
    assert_eq!(
        g.check_sentence("Walk forward 1 step.", &state, None),
        Verdict::Pass
    );
    assert_eq!(
        g.check_sentence("Don't walk straight ahead.", &state, None),
        Verdict::Pass
    );
    // Walking towards the door (2 o'clock) passes the bin at 12: 2.5·sin 60° = 2.2 m off
    // the line.
    assert_eq!(
        g.check_sentence(
            "Turn right, towards 2 o'clock, and walk about 9 steps.",
            &state,
            None
        ),
        Verdict::Pass
    );
    // A drop-off ahead: "step forward to the edge" is blocked.
    let mut edge = EnvironmentState::empty(DeviceTime(0));
    edge.things
        .push(thing(1, ThingKind::DropOff, "platform edge", 12, 1.5, true));
    assert!(blocked(&g.check_sentence(
        "Step forward to the edge.",
        &edge,
        None
    )));
    // Head height: "nothing at head height" is false under a branch.
    let mut branch = EnvironmentState::empty(DeviceTime(0));
    let mut b = thing(2, ThingKind::Overhead, "low branch", 12, 3.0, true);
    b.height = Some(HeightBand::Head);
    branch.things.push(b);
    assert!(blocked(&g.check_sentence(
        "There is nothing at head height.",
        &branch,
        None
    )));
}

/// A vehicle perception saw moving may be called a car by the language model: that names
/// what is there. Without a vehicle, the same sentence names something not detected.
#[test]
fn guard_passes_a_car_for_a_vehicle_and_blocks_it_without_one() {
    let g = Guard::default();
    let mut road = EnvironmentState::empty(DeviceTime(0));
    let mut car = thing(
        2_000_000_001,
        ThingKind::Vehicle,
        "vehicle coming from the left",
        10,
        12.0,
        true,
    );
    car.detail = ThingDetail::Moving {
        side: Side::Left,
        approaching: true,
    };
    road.things.push(car);
    for s in [
        "A car is coming from the left, about 12 metres.",
        "Wait, a vehicle is coming from the left.",
    ] {
        assert_eq!(g.check_sentence(s, &road, None), Verdict::Pass, "{s}");
    }
    let empty = EnvironmentState::empty(DeviceTime(0));
    assert!(blocked(&g.check_sentence(
        "A car is coming from the left, about 12 metres.",
        &empty,
        None
    )));
    // A bicycle is not a vehicle seen on the road: naming one is not grounded by it.
    assert!(blocked(&g.check_sentence(
        "A bicycle is coming from the left.",
        &road,
        None
    )));
}

#[test]
fn guard_and_templates_pass_obstacles_on_the_free_side() {
    // A pole straight ahead at 2 m with a drop-off at 11 o'clock, 2.5 m: passing the pole on
    // the left (heading 11 o'clock) walks into the drop-off; on the right (1 o'clock) the
    // drop-off is 2.5·sin 60° = 2.2 m off the line.
    let mut s = EnvironmentState::empty(DeviceTime(0));
    s.things
        .push(thing(1, ThingKind::Obstacle, "metal pole", 12, 2.0, true));
    s.things.push(thing(
        2,
        ThingKind::DropOff,
        "platform edge",
        11,
        2.5,
        false,
    ));
    s.things
        .push(thing(3, ThingKind::Door, "exit door", 12, 6.0, false));
    // More free space on the left, so the template would prefer it, but for the drop-off.
    s.walkable = Some(Walkable {
        clear_ahead_m: 1.5,
        clear_left_m: 4.0,
        clear_right_m: 1.0,
        floor_seen_m: None,
    });
    let g = Guard::default();
    let left = "The metal pole is in the way at 12 o'clock, 2 metres: go around it on the left.";
    let Verdict::Block {
        reason,
        replacement,
    } = g.check_sentence(left, &s, s.thing(3))
    else {
        panic!("passing into the drop-off was allowed");
    };
    assert!(reason.contains("platform edge"), "{reason}");
    assert!(replacement.unwrap().contains("platform edge"));
    let right = left.replace("left.", "right.");
    assert_eq!(g.check_sentence(&right, &s, s.thing(3)), Verdict::Pass);
    let a = answer(Form::Goal, "Take me to the exit door.", &s);
    assert!(a.sentences.contains(&right), "{:?}", a.sentences);
    // Without the drop-off, the template takes the freer left side.
    s.things.retain(|t| t.id != 2);
    let a = answer(Form::Goal, "Take me to the exit door.", &s);
    assert!(
        a.sentences.iter().any(|x| x.ends_with("on the left.")),
        "{:?}",
        a.sentences
    );
}

/// Two hazards of one name: the guard checks the pass against the one at the hour the
/// sentence gives, not the other (found by `template_answers_pass_the_guard`).
#[test]
fn the_guard_tells_two_things_of_one_name_apart_by_their_hour() {
    let mut s = EnvironmentState::empty(DeviceTime(5 * S));
    s.things
        .push(thing(1, ThingKind::Door, "exit door", 4, 0.3, false));
    for (id, h) in [(2, 9), (3, 6)] {
        s.things
            .push(thing(id, ThingKind::DropOff, "platform edge", h, 0.3, true));
    }
    let g = Guard::default();
    // Left of the edge at 6 o'clock is clear; left of the one at 9 o'clock is not.
    let six = "The platform edge is in the way at 6 o'clock, 0.5 metres: go around it on the left.";
    assert_eq!(g.check_sentence(six, &s, s.thing(1)), Verdict::Pass);
    let nine = six.replace("6 o'clock", "9 o'clock");
    assert!(matches!(
        g.check_sentence(&nine, &s, s.thing(1)),
        Verdict::Block { .. }
    ));
}

#[test]
fn guard_tolerances_are_one_hour_and_30_percent_or_one_metre() {
    let state = door_and_bin(0);
    let g = Guard::default();
    let check = |s: &str| g.check_sentence(s, &state, None);
    // Door at 2 o'clock, 6 m: ±1 hour, ±1.8 m.
    assert_eq!(
        check("The exit door is at 3 o'clock, 7.5 metres."),
        Verdict::Pass
    );
    assert_eq!(
        check("The exit door is at 1 o'clock, 4.5 metres."),
        Verdict::Pass
    );
    assert!(blocked(&check("The exit door is at 4 o'clock, 6 metres.")));
    assert!(blocked(&check("The exit door is at 2 o'clock, 8 metres.")));
    // Bin at 2.5 m: ±1 m (30 % is less).
    assert_eq!(
        check("The bin is at 12 o'clock, 3.5 metres."),
        Verdict::Pass
    );
    assert!(blocked(&check("The bin is at 12 o'clock, 1 metre.")));
    // Steps: 9 steps = 6.3 m for the door; 14 steps = 9.8 m is not.
    assert_eq!(check("The exit door is about 9 steps away."), Verdict::Pass);
    assert!(blocked(&check("The exit door is about 14 steps away.")));
    // Sides: the door is on the right, not the left.
    assert_eq!(check("The exit door is on your right."), Verdict::Pass);
    assert!(blocked(&check("The exit door is on your left.")));
    // Objects: nothing else is there.
    assert!(blocked(&check("A chair is at 12 o'clock.")));
    assert_eq!(check("I can't see a chair."), Verdict::Pass);
    // Quoted text must have been read.
    let mut signed = door_and_bin(0);
    signed.texts.push(TextFact {
        text: "EXIT".into(),
        confidence: 0.9,
        clock: ClockHour::new(2),
        distance_m: Some(6.0),
        rgb_box: [0.0; 4],
        gazed: true,
        at: DeviceTime(0),
    });
    assert_eq!(
        g.check_sentence("The sign says \"EXIT\".", &signed, None),
        Verdict::Pass
    );
    assert!(blocked(&g.check_sentence(
        "The sign says \"ENTRANCE\".",
        &signed,
        None
    )));
}

#[test]
fn templates_give_positions_from_the_state() {
    let state = door_and_bin(0);
    let a = answer(Form::Goal, "Take me to the exit door.", &state);
    assert!(!a.unanswerable);
    // 6 m at 0.7 m per step is 8.6, said as 9 steps; the bin is off that line.
    assert_eq!(
        a.sentences,
        vec![
            "The exit door is at 2 o'clock, about 6 metres.",
            "Turn right, towards 2 o'clock, and walk about 9 steps.",
            "The bin is at 12 o'clock, 2.5 metres, in your path.",
        ]
    );
    // A pole straight ahead on the way to a door straight ahead: go around it.
    let mut s = EnvironmentState::empty(DeviceTime(0));
    s.things
        .push(thing(1, ThingKind::Obstacle, "metal pole", 12, 2.0, true));
    s.things
        .push(thing(2, ThingKind::Door, "exit door", 12, 6.0, false));
    let a = answer(Form::Goal, "Take me to the exit door.", &s);
    assert_eq!(a.sentences.len(), 2);
    assert!(a.sentences[1].starts_with("The metal pole is in the way at 12 o'clock, 2 metres"));
    assert!(!a.text().contains("Walk straight"));
    // Every template sentence passes the guard unchanged.
    let g = Guard::default();
    for st in [&state, &s] {
        for (form, q) in [
            (Form::Scene, "What is around me?"),
            (Form::Goal, "Take me to the exit door."),
            (Form::Question, "What is in front of me?"),
            (Form::Question, "Where is the door?"),
            (Form::Question, "Is there anything at head height?"),
        ] {
            let a = answer(form, q, st);
            let checked = g.check_text(&a.text(), st, None);
            assert!(
                checked.interventions.is_empty(),
                "{q}: {:?}",
                checked.interventions
            );
        }
    }
}

/// "What am I looking at?": a sign under the gaze is named before the wall the gaze ray
/// meets, unless something stands clearly in front of it.
#[test]
fn the_gazed_sign_is_what_is_looked_at() {
    let mut s = EnvironmentState::empty(DeviceTime(0));
    let mut wall = thing(3, ThingKind::Obstacle, "wall", 12, 2.5, true);
    wall.detail = ThingDetail::Wall;
    s.things.push(wall);
    s.gaze = Some(GazeFact {
        clock: ClockHour::new(12),
        pitch_deg: 10.0,
        depth_m: None,
        rgb_pixel: Some([700.0, 500.0]),
        target: Some(3),
        at: DeviceTime(0),
    });
    s.texts.push(TextFact {
        text: "Platform 3".into(),
        confidence: 0.95,
        clock: ClockHour::new(12),
        distance_m: Some(2.5),
        rgb_box: [650.0, 450.0, 750.0, 550.0],
        gazed: true,
        at: DeviceTime(0),
    });
    let a = answer(Form::Question, "What am I looking at?", &s);
    assert_eq!(
        a.sentences,
        vec!["You are looking at a sign that says \"Platform 3\", at 12 o'clock, 2.5 metres."]
    );
    // A pillar 1.5 m in front of the sign is what the gaze meets first.
    s.things
        .push(thing(4, ThingKind::Obstacle, "pillar", 12, 1.0, true));
    s.gaze.as_mut().unwrap().target = Some(4);
    let a = answer(Form::Question, "What am I looking at?", &s);
    assert_eq!(
        a.sentences,
        vec!["You are looking at the pillar, at 12 o'clock, 1 metre."]
    );
    // Not gazed: the thing.
    s.texts[0].gazed = false;
    s.gaze.as_mut().unwrap().target = Some(3);
    let a = answer(Form::Question, "What am I looking at?", &s);
    assert!(
        a.sentences[0].starts_with("You are looking at the wall"),
        "{a:?}"
    );
}

/// Which sign "the sign" is: the one looked at; without a gaze (live, on Gen1 glasses),
/// the one most straight ahead, however sure the reading of another off to the side; of
/// two equally ahead, the one placed, then the surer read.
#[test]
fn the_sign_asked_about_is_the_one_looked_at_else_the_one_ahead() {
    let text = |t: &str, clock: u8, confidence: f32| TextFact {
        text: t.into(),
        confidence,
        clock: ClockHour::new(clock),
        distance_m: None,
        rgb_box: [0.0; 4],
        gazed: false,
        at: DeviceTime(0),
    };
    let mut s = EnvironmentState::empty(DeviceTime(0));
    s.texts = vec![
        text("every 10 min", 1, 0.97),
        text("Platform 3", 12, 0.81),
        text("EXIT", 9, 0.99),
    ];
    let said = |s: &EnvironmentState| answer(Form::Question, "What does the sign say?", s).text();
    assert_eq!(said(&s), "The sign says \"Platform 3\", at 12 o'clock.");
    s.texts[0].gazed = true;
    assert_eq!(said(&s), "The sign says \"every 10 min\", at 1 o'clock.");
    s.texts[0].gazed = false;
    s.texts.push(text("Way out", 12, 0.9));
    assert_eq!(said(&s), "The sign says \"Way out\", at 12 o'clock.");
    s.texts[1].distance_m = Some(2.5);
    assert_eq!(
        said(&s),
        "The sign says \"Platform 3\", at 12 o'clock, 2.5 metres."
    );
}

#[test]
fn templates_say_when_the_evidence_does_not_answer() {
    let empty = EnvironmentState::empty(DeviceTime(0));
    let a = answer(Form::Question, "What does the sign say?", &empty);
    assert!(a.unanswerable);
    assert_eq!(a.text(), "I can't see any text right now.");
    let a = answer(Form::Question, "Where is the lift?", &door_and_bin(0));
    assert!(a.unanswerable);
    assert!(
        a.text() == "I don't see the lift right now.",
        "{}",
        a.text()
    );
    let a = answer(Form::Scene, "What is around me?", &empty);
    assert!(a.unanswerable && a.text().starts_with("I can't tell"));
    let a = answer(Form::Question, "What am I looking at?", &empty);
    assert!(a.unanswerable && a.text().starts_with("I can't tell"));
}

/// A way is called clear only as far as the floor was seen: nothing standing in it says
/// nothing of a step or a drop where the floor is unseen. The guard holds a model to the
/// same.
#[test]
fn the_way_is_clear_only_as_far_as_the_floor_was_seen() {
    let with_floor = |floor_seen_m: Option<f32>| {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        s.walkable = Some(Walkable {
            clear_ahead_m: 5.0,
            clear_left_m: 5.0,
            clear_right_m: 5.0,
            floor_seen_m,
        });
        s
    };
    let scene = |s: &EnvironmentState| answer(Form::Scene, "What is in front of me?", s).text();
    let g = Guard::default();
    assert!(
        scene(&with_floor(None)).contains("clear for about 5 metres"),
        "{}",
        scene(&with_floor(None))
    );
    let far = with_floor(Some(3.2));
    assert!(
        scene(&far).contains("clear for about 3 metres"),
        "{}",
        scene(&far)
    );
    let unseen = with_floor(Some(0.75));
    let said = scene(&unseen);
    assert!(!said.contains("clear for"), "{said}");
    assert!(said.contains("can't see the ground"), "{said}");
    // ...and the guard reads no claim of a clear way in it.
    assert_eq!(g.check_text(&said, &unseen, None).interventions, vec![]);
    assert!(blocked(&g.check_sentence(
        "Your path ahead is clear.",
        &unseen,
        None
    )));
    assert_eq!(
        g.check_sentence("Your path ahead is clear.", &far, None),
        Verdict::Pass
    );
}

/// A wearer looking aside while walking on: what perception finds in the walking path is
/// at 3 o'clock of the head, outside the corridor where the head faces. The way on is not
/// called clear in front of it (find_exit said "Your path ahead is clear for 2 metres. The
/// obstacle is at 3 o'clock, 1 metre, in your path."), and the guard blocks a model that
/// says it is.
#[test]
fn the_way_on_is_not_called_clear_with_a_thing_in_the_walking_path_aside() {
    let mut s = EnvironmentState::empty(DeviceTime(0));
    s.walkable = Some(Walkable {
        clear_ahead_m: 2.0,
        clear_left_m: 3.0,
        clear_right_m: 1.0,
        floor_seen_m: None,
    });
    s.things
        .push(thing(5, ThingKind::Obstacle, "obstacle", 3, 1.0, true));
    let said = answer(Form::Question, "Can I keep going?", &s).text();
    assert!(!said.contains("clear"), "{said}");
    assert!(
        said.starts_with("Wait. The obstacle is at 3 o'clock"),
        "{said}"
    );
    let said = answer(Form::Scene, "What is around me?", &s).text();
    assert!(!said.contains("clear"), "{said}");
    let g = Guard::default();
    assert!(blocked(&g.check_sentence(
        "Your path ahead is clear.",
        &s,
        None
    )));
    // Beside the walk and not in its path, it does not stop the claim.
    s.things[0].in_path = false;
    let said = answer(Form::Question, "Can I keep going?", &s).text();
    assert!(said.starts_with("Your path ahead is clear"), "{said}");
    assert_eq!(
        g.check_sentence("Your path ahead is clear.", &s, None),
        Verdict::Pass
    );
}

/// Floor edges in the answers: three drop-offs of riser height a tread apart are stairs
/// going down (said once, with the stairs seen counted), one edge of curb height is a step,
/// never a curb or stairs; "Am I nearly across?" is about the way ahead. Every answer
/// passes the guard unchanged.
#[test]
fn edges_in_a_row_are_stairs_and_one_edge_is_a_step() {
    use vista::state::MotionState;
    // A floor edge as perception reports it: its measured height, named from it.
    let edge = |id: u32, kind: ThingKind, cm: u16, d: f32| {
        let detail = ThingDetail::Edge {
            rise_m: f32::from(cm) / 100.0,
        };
        let mut t = thing(id, kind, &thing_label(kind, &detail, None), 12, d, true);
        t.detail = detail;
        t.world_m = Some([d, 0.0, 0.0]);
        t
    };
    let say = |form: Form, q: &str, st: &EnvironmentState| {
        let text = answer(form, q, st).text();
        let g = Guard::default().check_text(&text, st, None);
        assert!(g.interventions.is_empty(), "{text}: {:?}", g.interventions);
        text
    };
    let mut s = EnvironmentState::empty(DeviceTime(0));
    s.motion.state = MotionState::Standing;
    s.things = vec![
        edge(4, ThingKind::DropOff, 17, 2.6),
        edge(2, ThingKind::DropOff, 17, 2.0),
        edge(3, ThingKind::DropOff, 17, 2.3),
    ];
    assert_eq!(
        say(Form::Question, "What is ahead?", &s),
        "Stairs going down at 12 o'clock, 2 metres, in your path. I can see three stairs."
    );
    assert_eq!(
        say(Form::Question, "Am I on stairs?", &s),
        "No, you are on level ground. Stairs going down at 12 o'clock, 2 metres, in your path. \
         I can see three stairs."
    );
    // One step up of curb height: a step up, in the way ahead when nearly across.
    s.things = vec![edge(5, ThingKind::StepUp, 15, 1.5)];
    // "Pick up" names no step up: a goal of handling a thing not seen is not found.
    assert_eq!(
        say(Form::Goal, "Help me pick up my water bottle", &s),
        "I don't see the water bottle right now."
    );
    let text = say(Form::Question, "Am I nearly across?", &s);
    assert_eq!(
        text,
        "The step up of 15 cm is at 12 o'clock, 1.5 metres, in your path."
    );
    assert!(!text.contains("curb") && !text.contains("tairs"), "{text}");
}

/// Turns that are over are answered from the state's turn history: "Did I just turn?" asked
/// after the turn, and a recent turn said after other motion answers. With a heading and no
/// recent turn, a past turn is answered no; without a heading it is not denied.
#[test]
fn motion_answers_say_the_recent_turns() {
    use vista::state::{MotionState, TurnFact};
    let at = |s: f64| DeviceTime((s * 1e9) as i64);
    let turn = |angle_deg: f32, from_s: f64, to_s: f64| TurnFact {
        direction: TurnFact::direction_of(angle_deg),
        angle_deg,
        started: at(from_s),
        ended: at(to_s),
    };
    let say = |q: &str, st: &EnvironmentState| answer(Form::Question, q, st).text();
    let mut s = EnvironmentState::empty(at(9.6));
    s.motion.state = MotionState::Walking;
    s.motion.heading_deg = Some(272.0);
    s.turns = vec![turn(-88.0, 6.2, 7.7)];
    assert_eq!(
        say("Did I just turn?", &s),
        "Yes, you turned left, about 90 degrees, 2 seconds ago. You are walking now."
    );
    assert_eq!(
        say("Am I walking?", &s),
        "Yes, you are walking. You turned left, about 90 degrees, 2 seconds ago."
    );
    // Standing after a half turn.
    let mut s = EnvironmentState::empty(at(24.0));
    s.motion.state = MotionState::Standing;
    s.motion.heading_deg = Some(92.0);
    s.turns = vec![turn(179.0, 17.0, 20.0), turn(-88.0, 6.2, 7.7)];
    assert_eq!(
        say("Am I standing still?", &s),
        "Yes, you are standing still. You turned around, 4 seconds ago."
    );
    // Turns older than 15 s are not "just" turns; with a heading that is a no.
    s.at = at(40.0);
    assert_eq!(
        say("Did I just turn?", &s),
        "No, I noticed no turn in the last 15 seconds. You are standing still now."
    );
    assert_eq!(
        say("Am I standing still?", &s),
        "Yes, you are standing still."
    );
    // A generated sentence saying the wearer turned needs that turn in the history.
    let g = Guard::default();
    assert!(matches!(
        g.check_sentence("You turned right a moment ago.", &s, None),
        Verdict::Block { .. }
    ));
    assert_eq!(
        g.check_sentence("You turned around a few seconds ago.", &s, None),
        Verdict::Pass
    );
    // Without a heading, a turn is neither seen nor denied.
    s.turns.clear();
    s.motion.heading_deg = None;
    assert_eq!(
        say("Did I just turn?", &s),
        "You are standing still now. I can't tell whether you turned before."
    );
}

/// Questions about the wearer's own motion, how far a thing is, and people are answered
/// by templates from the state (they went to the model, or to "what is ahead", before).
#[test]
fn templates_answer_motion_distance_and_people_questions() {
    use vista::assistant::lm::route::{route, Route};
    use vista::state::MotionState;
    let mut s = door_and_bin(0);
    s.motion.state = MotionState::Walking;
    for q in [
        "Am I walking?",
        "Am I standing still?",
        "Did I just turn?",
        "How far is the door?",
        "Is someone coming toward me?",
    ] {
        let ask = vista::assistant::understand::ask_for(Form::Question, q);
        assert_eq!(route(Form::Question, &ask), Route::Template, "{q}");
    }
    let say = |q: &str, st: &EnvironmentState| answer(Form::Question, q, st).text();
    assert_eq!(say("Am I walking?", &s), "Yes, you are walking.");
    assert_eq!(say("Am I standing still?", &s), "No, you are walking.");
    // A turn that may be over is not denied: the state holds the motion now.
    assert_eq!(
        say("Did I just turn?", &s),
        "You are walking now. I can't tell whether you turned before."
    );
    s.motion.state = MotionState::Standing;
    assert_eq!(
        say("Am I standing still?", &s),
        "Yes, you are standing still."
    );
    s.motion.state = MotionState::Turning;
    assert_eq!(say("Did I just turn?", &s), "Yes, you are turning.");
    s.motion.state = MotionState::Unknown;
    assert!(answer(Form::Question, "Am I walking?", &s).unanswerable);
    // "How far is the door?": where the door is.
    assert_eq!(
        say("How far is the door?", &s),
        "The exit door is at 2 o'clock, about 6 metres."
    );
    // Of two doorways, the one with the clearer evidence (lintel and jambs), and the sign
    // read at it.
    let mut d = EnvironmentState::empty(DeviceTime(0));
    let mut gap = thing(1, ThingKind::Door, "doorway", 2, 2.4, false);
    gap.confidence = 0.7;
    d.things.push(gap);
    d.things
        .push(thing(2, ThingKind::Door, "doorway", 12, 4.0, false));
    d.texts.push(TextFact {
        text: "ROOM 12".into(),
        confidence: 0.9,
        clock: ClockHour::new(12),
        distance_m: Some(3.9),
        rgb_box: [0.0; 4],
        gazed: false,
        at: DeviceTime(0),
    });
    assert_eq!(
        say("How far is the door now?", &d),
        "The door is at 12 o'clock, about 4 metres, under the sign \"ROOM 12\"."
    );
    // Read twice (distance_estimation): from afar, small and more confident, with the
    // words joined; near, larger. The larger read is the sign's (as the boxes measured).
    let mut near = d.clone();
    near.texts[0].rgb_box = [415.0, 656.0, 449.0, 777.0];
    near.texts[0].confidence = 0.905;
    near.texts.insert(
        0,
        TextFact {
            text: "ROOM12".into(),
            confidence: 0.933,
            rgb_box: [473.0, 696.0, 497.0, 758.0],
            ..near.texts[0].clone()
        },
    );
    assert_eq!(
        say("How far is the door now?", &near),
        "The door is at 12 o'clock, about 4 metres, under the sign \"ROOM 12\"."
    );
    // A sign at an unknown distance is not put over the nearer door.
    d.things.retain(|t| t.id == 1);
    d.texts[0].clock = ClockHour::new(1);
    d.texts[0].distance_m = None;
    assert_eq!(
        say("How far is the door?", &d),
        "The doorway is at 2 o'clock, 2.5 metres."
    );
    // People: a moving person is named; with none, says so and what is in the way.
    assert_eq!(
        say("Is someone coming toward me?", &s),
        "I don't detect anyone moving. The bin is at 12 o'clock, 2.5 metres, in your path."
    );
    // What stands close beside is named (it may be a person standing or walking along).
    s.things
        .push(thing(8, ThingKind::Obstacle, "obstacle", 3, 0.8, false));
    assert_eq!(
        say("Is anyone walking with me?", &s),
        "I don't detect anyone moving. The obstacle is at 3 o'clock, 1 metre."
    );
    // With the object detector on, what it did not recognise that stands close (at body
    // height, not a wall) may be a person it missed: no "I don't see anyone".
    s.sees_objects = true;
    assert_eq!(
        say("Is anyone walking with me?", &s),
        "I can't tell whether anyone is there. The obstacle is at 3 o'clock, 1 metre."
    );
    let mut far = s.clone();
    far.things.retain(|t| t.id != 8);
    assert_eq!(
        say("Is someone coming toward me?", &far),
        "I don't see anyone. The bin is at 12 o'clock, 2.5 metres, in your path."
    );
    s.sees_objects = false;
    s.things
        .push(thing(9, ThingKind::Person, "person moving", 12, 6.0, true));
    // Whether the person comes toward the wearer is not known here: not said yes.
    assert_eq!(
        say("Is someone coming toward me?", &s),
        "A person is moving at 12 o'clock, about 6 metres, in your path."
    );
    assert_eq!(
        say("Is anyone around?", &s),
        "Yes. A person is moving at 12 o'clock, about 6 metres, in your path."
    );
    // What perception cannot see is never answered yes.
    assert_eq!(
        say("Is someone waving at me?", &s),
        "I can't tell whether anyone is waving at you. A person is moving at 12 o'clock, about \
         6 metres, in your path."
    );
    let side = vista::state::Side::Left;
    if let Some(p) = s.things.iter_mut().find(|t| t.id == 9) {
        p.detail = vista::state::ThingDetail::Moving {
            side,
            approaching: true,
        };
    }
    assert_eq!(
        say("Is someone coming toward me?", &s),
        "Yes. A person is coming toward you at 12 o'clock, about 6 metres, in your path."
    );
    if let Some(p) = s.things.iter_mut().find(|t| t.id == 9) {
        p.detail = vista::state::ThingDetail::Moving {
            side,
            approaching: false,
        };
    }
    assert_eq!(
        say("Is anybody walking towards me?", &s),
        "No one is coming toward you. A person is moving at 12 o'clock, about 6 metres, in your \
         path."
    );
    assert_eq!(
        say("How many people are around?", &s),
        "I can see one person. A person is moving at 12 o'clock, about 6 metres, in your path."
    );
    // "Can I keep going?" with someone moving into the path, or a hazard close in it:
    // "Wait." first; asked what is ahead, or with the hazard farther, no "wait".
    let mut w = EnvironmentState::empty(DeviceTime(0));
    w.things
        .push(thing(9, ThingKind::Person, "person moving", 12, 2.5, true));
    assert_eq!(
        say("Can I keep going?", &w),
        "Wait. The person moving is at 12 o'clock, 2.5 metres, in your path."
    );
    assert_eq!(
        say("What is ahead?", &w),
        "The person moving is at 12 o'clock, 2.5 metres, in your path."
    );
    w.things = vec![thing(7, ThingKind::Obstacle, "bin", 12, 4.0, true)];
    assert_eq!(
        say("Can I keep going?", &w),
        "The bin is at 12 o'clock, about 4 metres, in your path."
    );
    w.things[0].distance_m = 1.0;
    assert!(say("Is it safe to cross?", &w).starts_with("Wait. The bin"));
    // A vehicle whose way crosses the path, far still: waited for first, whatever is near.
    let mut car = thing(
        2_000_000_007,
        ThingKind::Vehicle,
        "vehicle coming from the left",
        10,
        16.0,
        true,
    );
    car.evidence = vista::state::Evidence::Motion;
    car.detail = ThingDetail::Moving {
        side: Side::Left,
        approaching: true,
    };
    w.things.push(car.clone());
    assert_eq!(
        say("Is it safe to cross?", &w),
        "Wait. A vehicle is coming from the left, about 16 metres."
    );
    assert_eq!(
        say("What is ahead?", &w),
        "A vehicle is coming from the left, about 16 metres. The bin is at 12 o'clock, 1 metre, in your path."
    );
    // Moving away (not into the path): not waited for.
    w.things[1].in_path = false;
    w.things[1].label = "vehicle moving away".into();
    w.things[1].detail = ThingDetail::Moving {
        side: Side::Right,
        approaching: false,
    };
    assert!(say("Is it safe to cross?", &w).starts_with("Wait. The bin"));
    // Moving away and now ahead: its name says no side that its clock hour contradicts, so
    // the guard lets the answer through whole.
    let away = ThingDetail::Moving {
        side: Side::Right,
        approaching: false,
    };
    let mut passed = EnvironmentState::empty(DeviceTime(0));
    let label = thing_label(ThingKind::Vehicle, &away, None);
    let mut gone = thing(2_000_000_017, ThingKind::Vehicle, &label, 12, 2.6, false);
    gone.evidence = vista::state::Evidence::Motion;
    gone.detail = away;
    passed.things.push(gone);
    let said = answer(Form::Question, "Is it safe to cross?", &passed).text();
    assert!(said.contains("vehicle"), "{said}");
    let checked = Guard::default().check_text(&said, &passed, None);
    assert!(
        checked.interventions.is_empty(),
        "{said}: {:?}",
        checked.interventions
    );
    // A label that says "at head height" is not followed by it again.
    let mut h = EnvironmentState::empty(DeviceTime(0));
    let mut branch = thing(
        3,
        ThingKind::Overhead,
        "obstacle at head height",
        12,
        1.9,
        true,
    );
    branch.height = Some(HeightBand::Head);
    h.things.push(branch);
    assert_eq!(
        say("Is there anything at head height?", &h),
        "Yes. The obstacle at head height is at 12 o'clock, 2 metres, in your path."
    );
    // Every one of these passes the guard unchanged.
    let g = Guard::default();
    for (q, st) in [
        ("Is someone coming toward me?", &s),
        ("How far is the door now?", &d),
        ("Am I walking?", &s),
        ("Can I keep going?", &w),
    ] {
        let a = answer(Form::Question, q, st);
        let checked = g.check_text(&a.text(), st, None);
        assert!(
            checked.interventions.is_empty(),
            "{q}: {:?}",
            checked.interventions
        );
    }
}

/// A generator that streams a fixed text word by word (and counts its calls).
struct Scripted {
    text: String,
    calls: Arc<AtomicUsize>,
    fail: bool,
    word_delay: Duration,
    /// Pieces handed to the assistant so far.
    emitted: Arc<AtomicUsize>,
}

/// The first-token delay [`Scripted`] reports.
const SCRIPTED_FIRST_TOKEN_NS: i64 = 40_000_000;

impl Generator for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }
    fn generate(
        &mut self,
        _prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail {
            return Err(GeneratorError {
                generator: "scripted".into(),
                message: "model file missing".into(),
            });
        }
        let mut stats = GenerationStats::default();
        for w in self.text.split_inclusive(' ') {
            if cancel.load(Ordering::Acquire) {
                stats.cancelled = true;
                break;
            }
            std::thread::sleep(self.word_delay);
            stats.generated_tokens += 1;
            // The delay the generator reports (a fixed 40 ms, to check how it is recorded).
            stats.first_token_ns = SCRIPTED_FIRST_TOKEN_NS;
            let go_on = on_text(w);
            self.emitted.fetch_add(1, Ordering::SeqCst);
            if go_on == Continue::Stop {
                break;
            }
        }
        Ok(stats)
    }
}

fn goal(t_ns: i64, index: usize) -> Request {
    Request::new(
        Some(index),
        Form::Goal,
        "Take me to the exit door.".into(),
        RequestTime::Device(DeviceTime(t_ns)),
    )
}

fn pole_hazard(at_ns: i64) -> HazardEvent {
    HazardEvent {
        thing: thing(7, ThingKind::Obstacle, "bin", 12, 2.0, true),
        time_to_contact_s: Some(1.8),
        evidence: DeviceTime(at_ns - 30_000_000),
        raised: HostTime(at_ns),
    }
}

/// A lock-step assistant on a virtual clock at 0, speaking into a WAV in `dir`, answering
/// with `generator` (templates when `None`) the scripted `requests`.
fn lockstep_assistant(
    dir: &Path,
    generator: Option<Box<dyn Generator>>,
    requests: Vec<Request>,
) -> (Assistant, Arc<dyn Clock>) {
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let speech = start_session_speech(
        dir,
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let a = Assistant::new(
        AssistantConfig::new(dir, AssistantMode::LockStep),
        speech.speaker,
        generator,
        Arc::clone(&clock),
    )
    .unwrap()
    .with_scripted(requests);
    (a, clock)
}

/// A lock-step run on a virtual clock: states every 100 ms for 4 s, a goal at 1 s, a
/// question with no evidence at 3.2 s, a hazard at 1.2 s.
fn lockstep_run(dir: &Path, generator: Option<Box<dyn Generator>>, hazard: bool) -> Assistant {
    lockstep_run_with(dir, generator, hazard, false)
}

/// [`lockstep_run`]; with `for_model`, the two requests are ones the router gives the
/// language model (a scene description at 1 s, an open question at 3.2 s) rather than a
/// goal and a text question, which stay with the templates.
fn lockstep_run_with(
    dir: &Path,
    generator: Option<Box<dyn Generator>>,
    hazard: bool,
    for_model: bool,
) -> Assistant {
    let (mut a, clock) = lockstep_assistant(
        dir,
        generator,
        if for_model {
            vec![
                Request::new(
                    Some(0),
                    Form::Scene,
                    "What is around me?".into(),
                    RequestTime::Device(DeviceTime(S)),
                ),
                Request::new(
                    Some(1),
                    Form::Question,
                    "Why is it so quiet here?".into(),
                    RequestTime::Device(DeviceTime(3_200_000_000)),
                ),
            ]
        } else {
            vec![
                goal(S, 0),
                Request::new(
                    Some(1),
                    Form::Question,
                    "What does the sign say?".into(),
                    RequestTime::Device(DeviceTime(3_200_000_000)),
                ),
            ]
        },
    );
    for i in 0..=40 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        if hazard && at == 1_200_000_000 {
            a.on_hazard(&pole_hazard(at));
        }
        a.on_state(&Arc::new(door_and_bin(at)), now);
    }
    a.finish();
    a
}

#[test]
fn alerts_interrupt_answers_and_no_evidence_gets_i_cant_tell() {
    let dir = tempfile::tempdir().unwrap();
    let a = lockstep_run(dir.path(), None, true);
    let c = a.counters();
    // The goal's answer, cut by the alert, is answered again after it.
    assert_eq!((c.alerts, c.answers, c.unanswerable), (1, 3, 1));
    let decisions = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let kinds: Vec<DecisionKind> = decisions.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        vec![
            DecisionKind::Answer,
            DecisionKind::Alert,
            DecisionKind::Answer,
            DecisionKind::Answer
        ]
    );
    assert_eq!(decisions[0].request_index, Some(0));
    assert_eq!(decisions[0].generator, "template");
    assert_eq!(decisions[0].state_at_ns, S);
    assert_eq!(decisions[1].text, "Stop, obstacle.");
    assert_eq!(decisions[1].capture_ns, 1_200_000_000 - 30_000_000);
    assert_eq!(decisions[2].request_index, Some(0));
    assert_eq!(decisions[3].text, "I can't see any text right now.");
    // The transcript: the answer, started at 1 s, is cut off by the alert at 1.2 s, which
    // plays at once.
    let t = read_transcript(&dir.path().join("transcript.jsonl")).unwrap();
    let alert = t.iter().find(|e| e.priority == Priority::Alert).unwrap();
    assert_eq!(alert.text, "Stop, obstacle.");
    assert_eq!(alert.decided_ns, 1_200_000_000);
    let first = alert.first_audio_ns.unwrap();
    assert!((1_200_000_000..1_250_000_000).contains(&first), "{first}");
    // The goal is decided again once the alert has been said, from the state then (not
    // from the state under the alert, which it would be heard long after).
    let said = alert.end_ns;
    let again = decisions[2].state_at_ns;
    assert!(
        (said..said + 400_000_000).contains(&again),
        "decided again at {again}, the alert ended at {said}"
    );
    let answer_id = decisions[0].request_id;
    let cut = t
        .iter()
        .filter(|e| e.request_id == answer_id)
        .filter(|e| e.interrupted)
        .count();
    assert!(cut >= 1, "{t:#?}");
    assert!(t
        .iter()
        .any(|e| e.text == "I can't see any text right now." && !e.interrupted));
    let r = a.speaker_report().unwrap();
    assert!(r.spoken >= 2 && r.interrupted + r.dropped >= 1);
}

/// What the assistant decided and when, per transcript entry (audio timing left out: see
/// the note in `lock_step_runs_are_deterministic`).
fn decided(dir: &Path) -> Vec<(String, Priority, u64, i64, i64, bool)> {
    read_transcript(&dir.join("transcript.jsonl"))
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.text,
                e.priority,
                e.request_id,
                e.capture_ns,
                e.decided_ns,
                e.dropped.is_some(),
            )
        })
        .collect()
}

#[test]
fn lock_step_runs_are_deterministic() {
    for hazard in [false, true] {
        let d1 = tempfile::tempdir().unwrap();
        let d2 = tempfile::tempdir().unwrap();
        lockstep_run(d1.path(), None, hazard);
        lockstep_run(d2.path(), None, hazard);
        let a = std::fs::read_to_string(d1.path().join("decisions.jsonl")).unwrap();
        let b = std::fs::read_to_string(d2.path().join("decisions.jsonl")).unwrap();
        assert!(!a.is_empty());
        assert_eq!(a, b, "hazard: {hazard}");
        // Every utterance is decided identically. (The audio after a cut-off utterance can
        // differ by a few samples between runs: eSpeak NG's synthesis after a cancelled one
        // is not bit-exact — a speech-layer matter, reported.)
        assert_eq!(decided(d1.path()), decided(d2.path()), "hazard: {hazard}");
    }
}

/// A model that loops ("The obstacle - The obstacle - …", with no sentence end) is stopped
/// and never heard: the templates answer instead, and the loop is counted.
#[test]
fn a_looping_model_is_stopped_and_the_templates_answer() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let emitted = Arc::new(AtomicUsize::new(0));
    let g = Scripted {
        text: "The obstacle - ".repeat(40),
        calls: Arc::clone(&calls),
        fail: false,
        word_delay: Duration::ZERO,
        emitted: Arc::clone(&emitted),
    };
    let a = lockstep_run_with(dir.path(), Some(Box::new(g)), false, true);
    assert!(calls.load(Ordering::SeqCst) >= 1);
    let c = a.counters();
    assert!(c.degenerate >= 1, "{c:?}");
    // Stopped at the third time round (two words each, and the dash), not after 40.
    assert!(
        emitted.load(Ordering::SeqCst) < 20,
        "{}",
        emitted.load(Ordering::SeqCst)
    );
    let t = read_transcript(&dir.path().join("transcript.jsonl")).unwrap();
    assert!(
        t.iter().all(|e| !e.text.contains("The obstacle -")),
        "{t:#?}"
    );
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answers: Vec<_> = d
        .iter()
        .filter(|d| d.kind == DecisionKind::Answer)
        .collect();
    assert!(!answers.is_empty());
    assert!(answers.iter().all(|d| d.generator == "template"), "{d:?}");
}

#[test]
fn the_guard_rewrites_a_model_answer_before_it_is_spoken() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let g = Scripted {
        text: "Take a left turn and exit the elevator at 2 o'clock. Then walk straight ahead."
            .into(),
        calls: Arc::clone(&calls),
        fail: false,
        word_delay: Duration::ZERO,
        emitted: Arc::default(),
    };
    let a = lockstep_run_with(dir.path(), Some(Box::new(g)), true, true);
    // The scene, cut by the alert at 1.2 s and asked again after it, and the question.
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    let c = a.counters();
    // Two per answer: both of the model's sentences are replaced.
    assert_eq!(c.guard_interventions, 6, "{c:?}");
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    assert_eq!(d[0].generator, "scripted");
    // The first token is a time on the session clock (decision + the reported delay; the
    // virtual clock stands still while the generator runs), as the latency report reads it.
    assert_eq!(
        d[0].first_token_ns,
        Some(d[0].decided_ns + SCRIPTED_FIRST_TOKEN_NS)
    );
    assert!(!d[0].text.contains("elevator") && !d[0].text.contains("straight"));
    assert!(
        d[0].text.contains("2 o'clock") && d[0].text.contains("6 metres"),
        "{}",
        d[0].text
    );
    let GuardAction::Replaced { blocked, reason } = &d[0].guard else {
        panic!("{:?}", d[0].guard);
    };
    assert!(blocked.contains("elevator"));
    assert!(reason.contains("bin"), "{reason}");
    let t = read_transcript(&dir.path().join("transcript.jsonl")).unwrap();
    assert!(t
        .iter()
        .all(|e| !e.text.contains("elevator") && !e.text.contains("left turn")));
}

#[test]
fn a_failing_generator_is_replaced_by_templates() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let g = Scripted {
        text: String::new(),
        calls: Arc::clone(&calls),
        fail: true,
        word_delay: Duration::ZERO,
        emitted: Arc::default(),
    };
    let a = lockstep_run_with(dir.path(), Some(Box::new(g)), true, true);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "tried once, then templates"
    );
    assert_eq!(a.counters().generator_failures, 1);
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answers: Vec<_> = d
        .iter()
        .filter(|d| d.kind == DecisionKind::Answer)
        .collect();
    // The scene, cut by the alert at 1.2 s and answered again after it, and the question.
    assert_eq!(answers.len(), 3);
    assert!(answers.iter().all(|d| d.generator == "template"));
    // The scene template names what the state holds: the door where the state has it.
    assert!(
        answers[0].text.contains("2 o'clock") && answers[0].text.contains("door"),
        "{}",
        answers[0].text
    );
}

/// A real-time assistant answering with `g`, writing a WAV into `dir`, asked "What is
/// around me?" live and given the state at `S`; with the speaker's first-audio events.
fn real_time_scene_asked(
    dir: &Path,
    g: Scripted,
) -> (
    Assistant,
    crossbeam_channel::Receiver<vista::speech::FirstAudio>,
) {
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let (heard_tx, heard) = crossbeam_channel::unbounded();
    let speech = start_session_speech(
        dir,
        AudioChoice::Wav,
        SpeakerConfig {
            first_audio_events: Some(heard_tx),
            ..SpeakerConfig::default()
        },
        Arc::clone(&clock),
    )
    .unwrap();
    let queue = RequestQueue::new(4);
    let mut a = Assistant::new(
        AssistantConfig::new(dir, AssistantMode::RealTime),
        speech.speaker,
        Some(Box::new(g)),
        Arc::clone(&clock),
    )
    .unwrap()
    .with_live(queue.clone());
    queue.offer(Request::new(
        None,
        Form::Scene,
        "What is around me?".into(),
        RequestTime::Arrival(clock.now()),
    ));
    a.on_state(&Arc::new(door_and_bin(S)), clock.now());
    (a, heard)
}

#[test]
fn real_time_answers_are_cancelled_by_an_alert_and_live_requests_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let emitted = Arc::new(AtomicUsize::new(0));
    let g = Scripted {
        text: "The exit door is at 2 o'clock, about 6 metres. ".repeat(20),
        calls: Arc::clone(&calls),
        fail: false,
        word_delay: Duration::from_millis(20),
        emitted: Arc::clone(&emitted),
    };
    let (mut a, heard) = real_time_scene_asked(dir.path(), g);
    // Once the answer's first audio reached the sink, however loaded the machine: an
    // answer already heard is cut, not withdrawn.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while std::time::Instant::now() < deadline {
        match heard.recv_timeout(Duration::from_millis(100)) {
            Ok(e) if e.priority == Priority::Answer => {
                seen.push(e.priority);
                break;
            }
            Ok(e) => seen.push(e.priority),
            Err(_) => {}
        }
    }
    assert!(
        seen.last() == Some(&Priority::Answer),
        "the answer was never heard: {seen:?}, {} words emitted",
        emitted.load(Ordering::SeqCst)
    );
    assert!(
        calls.load(Ordering::SeqCst) > 0 && emitted.load(Ordering::SeqCst) > 0,
        "the model was never called"
    );
    a.on_hazard(&pole_hazard(S));
    a.finish();
    let c = a.counters();
    assert_eq!((c.alerts, c.answers, c.cancelled), (1, 1, 1), "{c:?}");
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answer = d.iter().find(|d| d.kind == DecisionKind::Answer).unwrap();
    assert_eq!(answer.request_index, None);
    // Cancelled after about 7 words: far less than the 20 sentences scripted.
    assert!(answer.text.len() < 200, "{}", answer.text);
}

/// A generator that waits inside `generate` until the test lets it go, then says one word
/// unless cancelled: the test decides exactly when the answer thread is busy.
struct Gated {
    go: crossbeam_channel::Receiver<()>,
    entered: Arc<AtomicUsize>,
}

impl Generator for Gated {
    fn name(&self) -> &str {
        "gated"
    }
    fn generate(
        &mut self,
        _prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        self.entered.fetch_add(1, Ordering::SeqCst);
        let _ = self.go.recv_timeout(Duration::from_secs(30));
        let mut stats = GenerationStats::default();
        if cancel.load(Ordering::Acquire) {
            stats.cancelled = true;
        } else {
            stats.generated_tokens = 1;
            on_text("Nothing. ");
        }
        Ok(stats)
    }
}

/// A newer request supersedes the answer being generated; an alert then withdraws the
/// newer one, still waiting behind it, and it is answered again from the next state (the
/// one after the alert): nothing the user asked is lost to an alert.
#[test]
fn an_alert_withdraws_a_waiting_request_which_is_answered_from_the_next_state() {
    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let speech = start_session_speech(
        dir.path(),
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let (go, gate) = crossbeam_channel::bounded(1);
    let entered = Arc::new(AtomicUsize::new(0));
    let g = Gated {
        go: gate,
        entered: Arc::clone(&entered),
    };
    let queue = RequestQueue::new(4);
    let mut a = Assistant::new(
        AssistantConfig::new(dir.path(), AssistantMode::RealTime),
        speech.speaker,
        Some(Box::new(g)),
        Arc::clone(&clock),
    )
    .unwrap()
    .with_live(queue.clone());
    let offer = |form, text: &str| {
        queue.offer(Request::new(
            None,
            form,
            text.into(),
            RequestTime::Arrival(clock.now()),
        ))
    };
    // The scene goes to the model, which holds the answer thread until let go.
    offer(Form::Scene, "What is around me?");
    a.on_state(&Arc::new(door_and_bin(S)), clock.now());
    for _ in 0..3000 {
        if entered.load(Ordering::SeqCst) > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        entered.load(Ordering::SeqCst),
        1,
        "the model was never called"
    );
    // A goal (answered by the templates) supersedes the scene and waits behind it.
    offer(Form::Goal, "Take me to the exit door.");
    a.on_state(&Arc::new(door_and_bin(S + 50_000_000)), clock.now());
    a.on_hazard(&pole_hazard(S + 100_000_000));
    go.send(()).unwrap();
    let later = S + 200_000_000;
    a.on_state(&Arc::new(door_and_bin(later)), clock.now());
    a.finish();
    let c = a.counters();
    // The scene: superseded before a word of it was heard (cancelled, no answer); the
    // goal: withdrawn by the alert, then answered.
    assert_eq!((c.alerts, c.answers, c.cancelled), (1, 1, 1), "{c:?}");
    assert_eq!(c.dropped_requests, 0, "{c:?}");
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let goal = d
        .iter()
        .find(|d| {
            d.kind == DecisionKind::Answer && d.request.as_ref().is_some_and(|r| r.0 == "goal")
        })
        .unwrap_or_else(|| panic!("the goal was not answered: {d:?}"));
    // Answered from the state after the alert, not the one it was first queued with.
    assert_eq!(goal.state_at_ns, later);
    assert!(goal.text.contains("door"), "{}", goal.text);
    assert!(
        !d.iter()
            .any(|d| d.request.as_ref().is_some_and(|r| r.0 == "scene")),
        "{d:?}"
    );
}

/// An alert while the model is still working on an answer of which nothing was spoken:
/// the answer is withdrawn (the model is stopped, what it produced afterwards is dropped)
/// and the question is answered again from the state after the alert.
#[test]
fn an_alert_before_the_first_word_withdraws_the_answer_being_generated() {
    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let speech = start_session_speech(
        dir.path(),
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let (go, gate) = crossbeam_channel::bounded(2);
    let entered = Arc::new(AtomicUsize::new(0));
    let g = Gated {
        go: gate,
        entered: Arc::clone(&entered),
    };
    let queue = RequestQueue::new(4);
    let mut a = Assistant::new(
        AssistantConfig::new(dir.path(), AssistantMode::RealTime),
        speech.speaker,
        Some(Box::new(g)),
        Arc::clone(&clock),
    )
    .unwrap()
    .with_live(queue.clone());
    queue.offer(Request::new(
        None,
        Form::Scene,
        "What is around me?".into(),
        RequestTime::Arrival(clock.now()),
    ));
    a.on_state(&Arc::new(door_and_bin(S)), clock.now());
    for _ in 0..3000 {
        if entered.load(Ordering::SeqCst) > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        entered.load(Ordering::SeqCst),
        1,
        "the model was never called"
    );
    // The model is busy and silent: the alert withdraws its answer.
    a.on_hazard(&pole_hazard(S + 50_000_000));
    go.send(()).unwrap();
    // The next state answers the scene again; the model is let go at once this time.
    go.send(()).unwrap();
    let later = S + 100_000_000;
    a.on_state(&Arc::new(door_and_bin(later)), clock.now());
    a.finish();
    let c = a.counters();
    assert_eq!(entered.load(Ordering::SeqCst), 2, "answered again");
    assert_eq!((c.alerts, c.answers, c.cancelled), (1, 1, 0), "{c:?}");
    assert_eq!(c.dropped_requests, 0, "{c:?}");
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let scenes: Vec<_> = d
        .iter()
        .filter(|d| d.request.as_ref().is_some_and(|r| r.0 == "scene"))
        .collect();
    assert_eq!(
        scenes.len(),
        1,
        "one answer, not the withdrawn attempt: {d:?}"
    );
    assert_eq!(scenes[0].state_at_ns, later);
    assert_eq!(scenes[0].text, "Nothing.");
}

#[test]
fn a_synthetic_session_is_answered_with_its_ground_truth_facts() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session");
    // What `vista synth pole_to_door --duration 3 --out SESSION` writes.
    let opts = SynthOptions {
        duration_s: Some(3.0),
        ..SynthOptions::default()
    };
    synthesize_named(Path::new("scenarios"), "pole_to_door", &session, &opts).unwrap();
    let requests = session.join("requests.jsonl");
    let s = read_requests_jsonl(&requests).unwrap();
    assert!(s.skipped.is_empty());
    // pole_to_door asks at 2.0 s (its 7.5 s request is past the 3 s session).
    assert_eq!(s.requests.len(), 1);
    assert_eq!(s.requests[0].form, Form::Goal);
    let RequestTime::Device(t_req) = s.requests[0].t else {
        panic!("scripted requests are on the device clock");
    };
    // A state built from the ground truth's positions at the request (perception's stand-in).
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(session.join("ground_truth.json")).unwrap())
            .unwrap();
    let req = &truth["requests"][0];
    let rel = |label: &str| {
        let r = req["relative"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == label)
            .unwrap();
        (
            r["clock"].as_u64().unwrap() as u8,
            r["distance_m"].as_f64().unwrap() as f32,
        )
    };
    let (door_h, door_m) = rel("exit door");
    let (pole_h, pole_m) = rel("metal pole");
    let mut state = EnvironmentState::empty(DeviceTime(t_req.ns()));
    state.things.push(thing(
        1,
        ThingKind::Obstacle,
        "metal pole",
        pole_h,
        pole_m,
        pole_h == 12,
    ));
    state.things.push(thing(
        2,
        ThingKind::Door,
        "exit door",
        door_h,
        door_m,
        false,
    ));
    let outdir = dir.path().join("out");
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(t_req.ns() - S)));
    let mut run = start_assistant(
        SessionOptions {
            out_dir: &outdir,
            requests: Some(&requests),
            audio: AudioChoice::Wav,
            generator: None,
            live: None,
            ambient_every_ns: None,
            speech_rate_wpm: 175,
            verbosity: Verbosity::Full,
            answer_voice: vista::speech::AnswerVoice::default(),
            taps: Default::default(),
        },
        Arc::clone(&clock),
    )
    .unwrap();
    assert_eq!((run.scripted, run.skipped_lines), (1, 0));
    let state = Arc::new(state);
    let now = clock.wait_until(clock.due(state.at));
    run.assistant.on_state(&state, now);
    run.assistant.finish();
    let d = read_decisions(&outdir.join("decisions.jsonl")).unwrap();
    assert_eq!(d.len(), 1);
    let text = d[0].text.to_lowercase();
    // The facts a correct answer contains: the door's clock hour and distance.
    assert!(
        text.contains(&format!("exit door is at {door_h} o'clock")),
        "{text}"
    );
    assert!(
        text.contains(&format!("{} metres", door_m.round() as i64)),
        "{text} vs {door_m} m"
    );
    for bad in req["unsafe_instructions"].as_array().unwrap() {
        assert!(!text.contains(bad.as_str().unwrap()), "{text} says {bad}");
    }
    assert!(outdir.join("speech.wav").exists() && outdir.join("transcript.jsonl").exists());
}

mod props {
    use super::*;
    use proptest::prelude::*;
    use vista::assistant::intent::{goal_target, resolve};
    use vista::state::{GazeFact, MotionState};

    const LABELS: &[(ThingKind, &str)] = &[
        (ThingKind::Obstacle, "obstacle"),
        (ThingKind::Obstacle, "metal pole"),
        (ThingKind::Obstacle, "rubbish bin"),
        (ThingKind::Obstacle, "cardboard box"),
        (ThingKind::Overhead, "low branch"),
        (ThingKind::Overhead, "low obstacle at head height"),
        (ThingKind::DropOff, "platform edge"),
        (ThingKind::DropOff, "stairs down"),
        (ThingKind::StepUp, "step up"),
        (ThingKind::Door, "exit door"),
        (ThingKind::Door, "door"),
        (ThingKind::Text, "sign 'EXIT'"),
        (ThingKind::Person, "person"),
        (ThingKind::Vehicle, "car"),
        (ThingKind::Object, "table"),
    ];

    const REQUESTS: &[(Form, &str)] = &[
        (Form::Scene, "What is around me?"),
        (Form::Ambient, "What is around me?"),
        (Form::Goal, "Take me to the exit door."),
        (Form::Goal, "Take me to the table."),
        (Form::Goal, "Find the exit."),
        (Form::Question, "What is in front of me?"),
        (Form::Question, "Is there anything at head height?"),
        (Form::Question, "What does the sign say?"),
        (Form::Question, "Where is the door?"),
        (Form::Question, "Where is the person?"),
        (Form::Question, "What am I looking at?"),
        (Form::Question, "Am I on stairs?"),
        (Form::Question, "Take me to the door."),
        (Form::Question, "Is someone coming toward me?"),
        (Form::Question, "Is anyone waving at me?"),
        (Form::Question, "How many people are around me?"),
        (Form::Question, "Is the traffic light green?"),
        (Form::Question, "Why is it so quiet here?"),
    ];

    fn arb_thing() -> impl Strategy<Value = (usize, u8, f32, bool, bool)> {
        (
            0..LABELS.len(),
            1u8..=12,
            0.3f32..15.0,
            any::<bool>(),
            any::<bool>(),
        )
    }

    fn arb_state() -> impl Strategy<Value = EnvironmentState> {
        (
            prop::collection::vec(arb_thing(), 0..6),
            prop::collection::vec(("[A-Z]{2,8}( [0-9])?", 1u8..=12, 1.0f32..12.0), 0..3),
            prop::option::of((
                0.5f32..10.0,
                0.5f32..10.0,
                0.5f32..10.0,
                prop::option::of(0.0f32..10.0),
            )),
            0usize..6,
            prop::option::of((1u8..=12, 0usize..6)),
        )
            .prop_map(|(things, texts, walk, motion, gaze)| {
                let mut s = EnvironmentState::empty(DeviceTime(5 * S));
                for (i, (k, c, d, in_path, head)) in things.into_iter().enumerate() {
                    let (kind, label) = LABELS[k];
                    let mut t = thing(i as u32 + 1, kind, label, c, d, in_path);
                    if head {
                        t.height = Some(HeightBand::Head);
                    }
                    s.things.push(t);
                }
                for (text, c, d) in texts {
                    s.texts.push(TextFact {
                        text,
                        confidence: 0.9,
                        clock: ClockHour::new(c),
                        distance_m: Some(d),
                        rgb_box: [0.0; 4],
                        gazed: false,
                        at: DeviceTime(5 * S),
                    });
                }
                s.walkable = walk.map(|(a, l, r, f)| Walkable {
                    clear_ahead_m: a,
                    clear_left_m: l,
                    clear_right_m: r,
                    floor_seen_m: f,
                });
                s.motion.state = [
                    MotionState::Unknown,
                    MotionState::Standing,
                    MotionState::Walking,
                    MotionState::Turning,
                    MotionState::StairsUp,
                    MotionState::StairsDown,
                ][motion];
                let n = s.things.len();
                s.gaze = gaze.map(|(c, target)| GazeFact {
                    clock: ClockHour::new(c),
                    pitch_deg: 0.0,
                    depth_m: None,
                    rgb_pixel: None,
                    target: (n > 0).then(|| (target % n) as u32 + 1),
                    at: DeviceTime(5 * S),
                });
                s
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Templates are grounded by construction: the guard, checking them independently
        /// against the same state, never has to intervene.
        #[test]
        fn template_answers_pass_the_guard(state in arb_state()) {
            let g = Guard::default();
            for &(form, q) in REQUESTS {
                let a = answer(form, q, &state);
                let target = match vista::assistant::understand::ask_for(form, q) {
                    _ if matches!(form, Form::Scene | Form::Ambient) => None,
                    vista::assistant::understand::Ask::Goal(_) => goal_target(q, &state),
                    vista::assistant::understand::Ask::WhereIs(t) => resolve(&t.words, &state),
                    _ => None,
                };
                let checked = g.check_text(&a.text(), &state, target);
                prop_assert!(
                    checked.interventions.is_empty(),
                    "{:?} {:?}: {:?}\n{}",
                    form,
                    q,
                    checked.interventions,
                    vista::assistant::render_state(&state)
                );
                let answered_as = vista::assistant::Request::new(
                    None,
                    form,
                    q.to_string(),
                    vista::assistant::RequestTime::Device(state.at),
                )
                .response_form();
                prop_assert!(
                    a.sentences.len() <= answered_as.spec().max_sentences,
                    "{:?} {:?}: {:?}",
                    form,
                    q,
                    a.sentences
                );
            }
        }

        /// Any text, however odd, is checked without a panic.
        #[test]
        fn the_guard_takes_any_text(text in "\\PC{0,200}", state in arb_state()) {
            let g = Guard::default();
            let _ = g.check_text(&text, &state, state.things.first());
        }
    }
}

#[test]
fn socket_requests_reach_the_queue() {
    use std::io::Write;
    let q = RequestQueue::new(8);
    let stop = vista::stop::StopHandle::new();
    let (addr, handle) = vista::assistant::requests::spawn_socket(
        "127.0.0.1:0".parse().unwrap(),
        q.clone(),
        Arc::new(WallClock),
        stop.clone(),
    )
    .unwrap();
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    c.write_all(b"goal: the exit door\nwhat does the sign say?\n")
        .unwrap();
    c.write_all(&vec![b'x'; 5000]).unwrap();
    c.write_all(b"\nscene:\n").unwrap();
    drop(c);
    let mut got = Vec::new();
    for _ in 0..100 {
        got.extend(q.drain());
        if got.len() >= 3 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.stop();
    handle.join().unwrap();
    let forms: Vec<Form> = got.iter().map(|r| r.form).collect();
    assert_eq!(forms, vec![Form::Goal, Form::Question, Form::Scene]);
    assert_eq!(got[0].text, "the exit door");
    assert!(got
        .iter()
        .all(|r| r.index.is_none() && matches!(r.t, RequestTime::Arrival(_))));
    assert_eq!(q.stats().skipped_lines.load(Ordering::Relaxed), 1);
}

#[test]
fn answer_cli_shows_the_template_answer_and_the_guard_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    std::fs::write(&state, serde_json::to_string(&door_and_bin(0)).unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(["answer", "--form", "goal", "--state"])
        .arg(&state)
        .args([
            "Take me to the exit door.",
            "--check",
            "Take a left turn and exit the elevator at 2 o'clock. The bin is at 12 o'clock.",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("#4 exit door (door): 2 o'clock, 6.0 m (9 steps)"),
        "{s}"
    );
    assert!(
        s.contains("The exit door is at 2 o'clock, about 6 metres."),
        "{s}"
    );
    assert!(s.contains("BLOCKED  Take a left turn"), "{s}");
    assert!(s.contains("pass     The bin is at 12 o'clock."), "{s}");
    // A bad state file is an error naming it, not a crash.
    std::fs::write(&state, "{\"at\": 1").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(["answer", "--state"])
        .arg(&state)
        .arg("What is ahead?")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("state.json"));
}

/// In real time a live request is answered from the newest state as soon as it arrives:
/// the request thread does not wait for perception's next state (none comes here).
#[test]
fn a_live_request_is_answered_at_once_from_the_newest_state() {
    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let speech = start_session_speech(
        dir.path(),
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let queue = RequestQueue::new(4);
    let a = Assistant::new(
        AssistantConfig::new(dir.path(), AssistantMode::RealTime),
        speech.speaker,
        None,
        Arc::clone(&clock),
    )
    .unwrap()
    .with_live(queue.clone());
    let a = Arc::new(std::sync::Mutex::new(a));
    a.lock()
        .unwrap()
        .on_state(&Arc::new(door_and_bin(S)), clock.now());
    let mut pump = vista::assistant::request_pump::RequestPump::start(Arc::clone(&a))
        .unwrap()
        .expect("an assistant with a live queue gets a pump");
    queue.offer(Request::new(
        None,
        Form::Goal,
        "Take me to the exit door.".into(),
        RequestTime::Arrival(clock.now()),
    ));
    let mut answered = false;
    for _ in 0..3000 {
        if a.lock().unwrap().counters().answers == 1 {
            answered = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    pump.stop();
    a.lock().unwrap().finish();
    assert!(answered, "the request waited for a state that never came");
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let goal = d
        .iter()
        .find(|d| d.kind == DecisionKind::Answer)
        .unwrap_or_else(|| panic!("{d:?}"));
    assert_eq!(goal.state_at_ns, S, "from the newest state");
    assert!(goal.text.contains("door"), "{}", goal.text);
}

/// An answer already handed to the speaker but still silent — queued behind an alert that
/// is speaking — is withdrawn by a second alert (which clears it from the speaker's queue)
/// and answered again from the state after it: the question is not lost. (Before, only
/// answers the answer thread had not yet handed over were withdrawn, and this one was
/// cleared unheard and never answered: find_exit's "Can I keep going?".)
#[test]
fn an_answer_queued_unheard_behind_an_alert_is_asked_again_after_the_next_alert() {
    let dir = tempfile::tempdir().unwrap();
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let speech = start_session_speech(
        dir.path(),
        AudioChoice::Wav,
        SpeakerConfig::default(),
        Arc::clone(&clock),
    )
    .unwrap();
    let queue = RequestQueue::new(4);
    let mut a = Assistant::new(
        AssistantConfig::new(dir.path(), AssistantMode::RealTime),
        speech.speaker,
        None,
        Arc::clone(&clock),
    )
    .unwrap()
    .with_live(queue.clone());
    // An alert starts speaking (about 2 s of audio).
    a.on_hazard(&pole_hazard(S));
    // A question (a description, not guidance: answered at once, not after the alert)
    // answered by the templates at once, queues behind it.
    queue.offer(Request::new(
        None,
        Form::Question,
        "Where is the exit door?".into(),
        RequestTime::Arrival(clock.now()),
    ));
    a.on_state(&Arc::new(door_and_bin(S + 50_000_000)), clock.now());
    for _ in 0..500 {
        if a.counters().answers > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(a.counters().answers, 1, "the question was answered once");
    // A second, more urgent hazard while the first alert still speaks (reached in a third
    // of the time: it cuts the first): the answer, never heard, is cleared from the
    // queue and taken back.
    let mut second = pole_hazard(S + 100_000_000);
    second.thing = thing(9, ThingKind::Person, "person moving", 11, 1.5, true);
    second.time_to_contact_s = Some(0.6);
    a.on_hazard(&second);
    let later = S + 200_000_000;
    a.on_state(&Arc::new(door_and_bin(later)), clock.now());
    a.finish();
    let c = a.counters();
    assert_eq!((c.alerts, c.answers), (2, 2), "{c:?}");
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let goals: Vec<_> = d
        .iter()
        .filter(|d| d.request.as_ref().is_some_and(|r| r.0 == "question"))
        .collect();
    assert_eq!(goals.len(), 2, "{d:?}");
    // Answered again from the state after the second alert, and that answer is heard.
    assert_eq!(goals[1].state_at_ns, later);
    let t = read_transcript(&dir.path().join("transcript.jsonl")).unwrap();
    let heard: Vec<_> = t
        .iter()
        .filter(|e| e.priority == Priority::Answer && e.dropped.is_none() && !e.interrupted)
        .map(|e| e.request_id)
        .collect();
    assert!(
        !heard.is_empty() && heard.iter().all(|&id| id == goals[1].request_id),
        "{t:?}"
    );
}

/// Guidance asked while an alert is said ("Take me to the exit door." just after "Stop,
/// obstacle ahead.") is decided once the alert has been said, from the state then, and
/// heard whole after it; a description asked at the same moment is decided at once (it
/// stays true past the alert) and heard after it.
#[test]
fn guidance_asked_during_an_alert_is_decided_once_the_alert_has_been_said() {
    let dir = tempfile::tempdir().unwrap();
    let (goals, t) = lockstep_goal_then_alert(dir.path(), &[S]);
    let alert = t.iter().find(|e| e.priority == Priority::Alert).unwrap();
    assert!(!alert.interrupted && alert.dropped.is_none(), "{t:?}");
    assert_eq!(goals.len(), 1, "{goals:?}");
    let decided = goals[0].decided_ns;
    assert!(
        (alert.end_ns..alert.end_ns + 400_000_000).contains(&decided),
        "decided at {decided}, the alert ended at {}",
        alert.end_ns
    );
    let answer: Vec<_> = t
        .iter()
        .filter(|e| e.request_id == goals[0].request_id)
        .collect();
    assert!(
        !answer.is_empty()
            && answer.iter().all(|e| e.dropped.is_none()
                && !e.interrupted
                && e.first_audio_ns >= Some(alert.end_ns)),
        "{t:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let (asked, t) = lockstep_asked_then_alert(dir.path(), where_is_the_door(), &[S]);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].decided_ns, S + 100_000_000);
    let alert = t.iter().find(|e| e.priority == Priority::Alert).unwrap();
    assert!(t
        .iter()
        .filter(|e| e.request_id == asked[0].request_id)
        .all(|e| e.dropped.is_none() && e.first_audio_ns >= Some(alert.end_ns)));
}

/// Lock-step replay answers inline, and its answers, too, are withdrawn by an alert that
/// comes before any of their audio played, and answered again after it — deterministically
/// (the speaker places the alert before the assistant asks what was heard). Before, an
/// inline answer was not tracked at all: find_exit's "Can I keep going?" and four other
/// scenario questions were cleared from the speaker's queue unheard and never answered.
#[test]
fn lock_step_answers_queued_unheard_behind_an_alert_are_asked_again() {
    // An alert at 1.0 s (about 1.5 s of audio), a question at 1.05 s answered at once (a
    // description: guidance would wait for the alert) and queued behind it, a second, more
    // urgent alert at 1.5 s (the first still speaking).
    let alerts = [S, S + 500_000_000];
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let (goals, t) = lockstep_asked_then_alert(dirs[0].path(), where_is_the_door(), &alerts);
    assert_eq!(goals.len(), 2, "{goals:?}");
    // The first answer rests on the state at 1.1 s, the second on the one after the
    // second alert.
    assert_eq!(goals[0].state_at_ns, S + 100_000_000);
    assert_eq!(goals[1].state_at_ns, S + 500_000_000);
    let answers: Vec<_> = t
        .iter()
        .filter(|e| e.priority == Priority::Answer)
        .collect();
    // The first was cleared from the queue by the second alert; the second is heard whole.
    assert!(
        answers
            .iter()
            .filter(|e| e.request_id == goals[0].request_id)
            .all(|e| e.dropped.is_some()),
        "{t:?}"
    );
    let heard: Vec<_> = answers
        .iter()
        .filter(|e| e.dropped.is_none() && !e.interrupted)
        .map(|e| e.request_id)
        .collect();
    assert!(
        !heard.is_empty() && heard.iter().all(|&id| id == goals[1].request_id),
        "{t:?}"
    );
    // The same run again: the same decisions, and every utterance decided and dropped
    // alike (not the audio's length after a cut: see `lock_step_runs_are_deterministic`).
    let (goals2, t2) = lockstep_asked_then_alert(dirs[1].path(), where_is_the_door(), &alerts);
    assert_eq!(format!("{goals:?}"), format!("{goals2:?}"));
    let key = |t: &[vista::speech::transcript::TranscriptEntry]| -> Vec<_> {
        t.iter()
            .map(|e| {
                let heard = e.dropped.is_none() && !e.interrupted;
                (e.text.clone(), e.request_id, e.decided_ns, heard)
            })
            .collect()
    };
    assert_eq!(key(&t), key(&t2));
}

/// One lock-step run of 16 s: a goal at 1.05 s (answered at 1.1 s, about 10 s of speech),
/// an alert at each of `alerts_ns` (about a different thing each). Returns the goal's
/// decisions and the transcript.
fn lockstep_goal_then_alert(
    dir: &Path,
    alerts_ns: &[i64],
) -> (
    Vec<vista::state::Decision>,
    Vec<vista::speech::transcript::TranscriptEntry>,
) {
    lockstep_asked_then_alert(dir, goal(S + 50_000_000, 0), alerts_ns)
}

/// One lock-step run of 16 s: `request`, an alert at each of `alerts_ns` (about a different
/// thing each). Returns the decisions answering `request`'s form and the transcript.
fn lockstep_asked_then_alert(
    dir: &Path,
    request: Request,
    alerts_ns: &[i64],
) -> (
    Vec<vista::state::Decision>,
    Vec<vista::speech::transcript::TranscriptEntry>,
) {
    let form = request.form.name();
    let (d, t) = lockstep_requests(dir, vec![request], alerts_ns);
    let mine = d
        .into_iter()
        .filter(|d| d.request.as_ref().is_some_and(|r| r.0 == form))
        .collect();
    (mine, t)
}

/// Guidance an alert cuts part-way ("The exit door is at 2 o'clock, [alert]") is asked
/// again, whole, from the state after the alert (the rest of the old one is not said: it
/// led by what the alert warned of); guidance heard to its end before an alert is not
/// repeated.
#[test]
fn an_answer_cut_part_way_by_an_alert_is_answered_again_and_one_heard_whole_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (goals, t) = lockstep_goal_then_alert(dir.path(), &[2 * S]);
    assert_eq!(goals.len(), 2, "{goals:?}");
    assert_eq!(goals[0].state_at_ns, S + 100_000_000);
    let of = |id: u64| -> Vec<_> {
        t.iter()
            .filter(|e| e.priority == Priority::Answer && e.request_id == id)
            .collect()
    };
    let first = of(goals[0].request_id);
    // Part of the first was heard, and the alert cut the rest.
    assert!(first.iter().any(|e| e.first_audio_ns.is_some()), "{t:?}");
    assert!(
        first.iter().any(|e| e.interrupted || e.dropped.is_some()),
        "{t:?}"
    );
    // The second is heard to its end, after the alert.
    let second = of(goals[1].request_id);
    assert!(
        !second.is_empty() && second.iter().all(|e| e.dropped.is_none() && !e.interrupted),
        "{t:?}"
    );
    let alert_end = t
        .iter()
        .find(|e| e.priority == Priority::Alert)
        .map(|e| e.end_ns)
        .unwrap();
    assert!(second.iter().all(|e| e.first_audio_ns >= Some(alert_end)));
    // Decided again once the alert has been said (within its estimated length's margin
    // and a state), from the state then: not from the one under the alert.
    let again = goals[1].state_at_ns;
    assert!(
        (alert_end..alert_end + 400_000_000).contains(&again),
        "decided again at {again}, the alert ended at {alert_end}"
    );

    // The same answer heard whole before an alert at 15 s: answered once.
    let dir = tempfile::tempdir().unwrap();
    let (goals, t) = lockstep_goal_then_alert(dir.path(), &[15 * S]);
    assert_eq!(goals.len(), 1, "{goals:?}");
    let alert = t.iter().find(|e| e.priority == Priority::Alert).unwrap();
    assert!(
        t.iter()
            .filter(|e| e.priority == Priority::Answer)
            .all(|e| e.dropped.is_none() && !e.interrupted && e.end_ns <= alert.decided_ns),
        "{t:?}"
    );
}

/// Guidance cut by an alert after its first clause was heard whole goes on, when asked
/// again, from the clause the alert cut: what the wearer heard is not said again while the
/// new answer begins the same way, and between the two every clause is heard whole.
#[test]
fn guidance_asked_again_after_a_cut_goes_on_from_the_cut_clause() {
    // Heard whole first (an alert long after), to find where its clauses end.
    let dir = tempfile::tempdir().unwrap();
    let (goals, t) = lockstep_goal_then_alert(dir.path(), &[15 * S]);
    let whole: Vec<_> = t
        .iter()
        .filter(|e| e.priority == Priority::Answer && e.request_id == goals[0].request_id)
        .collect();
    assert!(whole.len() >= 3, "{t:?}");
    // The alert at the first state after the first clause ended (states every 100 ms),
    // while the second is being said.
    let at = (whole[0].end_ns / 100_000_000 + 1) * 100_000_000;
    assert!(at < whole[1].end_ns, "{t:?}");
    let dir = tempfile::tempdir().unwrap();
    let (goals, t) = lockstep_goal_then_alert(dir.path(), &[at]);
    assert_eq!(goals.len(), 2, "{goals:?}");
    assert_eq!(
        goals[0].text, goals[1].text,
        "the same state ahead: the same answer"
    );
    let said = |id: u64| -> Vec<(String, bool)> {
        t.iter()
            .filter(|e| e.priority == Priority::Answer && e.request_id == id)
            .filter(|e| e.first_audio_ns.is_some())
            .map(|e| (e.text.clone(), !e.interrupted))
            .collect()
    };
    let first = said(goals[0].request_id);
    let second = said(goals[1].request_id);
    assert_eq!(first[0], (whole[0].text.clone(), true), "{t:?}");
    assert!(!first[1].1, "the second clause is cut: {t:?}");
    // Asked again: from the cut clause on, each heard whole.
    let rest: Vec<String> = whole[1..].iter().map(|e| e.text.clone()).collect();
    let again: Vec<String> = second.iter().map(|(c, _)| c.clone()).collect();
    assert_eq!(again, rest, "{t:?}");
    assert!(second.iter().all(|(_, w)| *w), "{t:?}");
}

/// Real time: a model answer the wearer has begun to hear when an alert comes is stopped
/// (the rest is not generated) and answered again from the state after the alert.
#[test]
fn real_time_an_answer_cut_part_way_by_an_alert_is_answered_again() {
    let dir = tempfile::tempdir().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let g = Scripted {
        text: "The exit door is at 2 o'clock, about 6 metres. The bin is at 12 o'clock. ".into(),
        calls: Arc::clone(&calls),
        fail: false,
        word_delay: Duration::from_millis(20),
        emitted: Arc::default(),
    };
    let (mut a, heard) = real_time_scene_asked(dir.path(), g);
    let clock = WallClock;
    // The answer's first audio reached the sink, however loaded the machine.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut first = None;
    while first.is_none() && std::time::Instant::now() < deadline {
        if let Ok(e) = heard.recv_timeout(Duration::from_millis(100)) {
            first = (e.priority == Priority::Answer).then_some(e.request_id);
        }
    }
    let first = first.expect("the answer was never heard");
    a.on_hazard(&pole_hazard(S + 100_000_000));
    let later = S + 200_000_000;
    // The next state (the alert placed by then: wait for its first audio).
    while std::time::Instant::now() < deadline {
        if let Ok(e) = heard.recv_timeout(Duration::from_millis(100)) {
            if e.priority == Priority::Alert {
                break;
            }
        }
    }
    // States every 100 ms: the answer again, once the alert has been said, heard after it.
    let mut again = None;
    let mut at = later;
    while again.is_none() && std::time::Instant::now() < deadline {
        a.on_state(&Arc::new(door_and_bin(at)), clock.now());
        at += 100_000_000;
        if let Ok(e) = heard.recv_timeout(Duration::from_millis(100)) {
            again = (e.priority == Priority::Answer && e.request_id > first).then_some(e);
        }
    }
    assert!(again.is_some(), "not answered again");
    a.finish();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answers: Vec<_> = d
        .iter()
        .filter(|d| d.kind == DecisionKind::Answer)
        .collect();
    assert_eq!(answers.len(), 2, "{d:?}");
    // From a state after the alert was placed, once it has been said.
    let alert = d.iter().find(|d| d.kind == DecisionKind::Alert).unwrap();
    assert!(answers[1].state_at_ns > later, "{d:?}");
    assert!(
        answers[1].decided_ns > alert.decided_ns + 700_000_000,
        "{d:?}"
    );
}

/// Alerts one after another cut the same answer again and again: it is answered again at
/// most twice; the third cut ends it (the wearer can ask again).
#[test]
fn an_answer_cut_by_alert_after_alert_is_answered_again_at_most_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (goals, t) = lockstep_goal_then_alert(dir.path(), &[2 * S, 5 * S, 8 * S, 11 * S]);
    assert_eq!(goals.len(), 3, "{goals:?}");
    // Each of them was heard part-way and cut.
    for g in &goals {
        let mine: Vec<_> = t
            .iter()
            .filter(|e| e.priority == Priority::Answer && e.request_id == g.request_id)
            .collect();
        assert!(mine.iter().any(|e| e.first_audio_ns.is_some()), "{t:?}");
        assert!(mine.iter().any(|e| e.interrupted), "{t:?}");
    }
}

/// Every distinct answer clause of `request_id`: the times it was heard uncut, and whether
/// it was ever cut part-way.
fn clauses_of(
    t: &[vista::speech::transcript::TranscriptEntry],
    request_id: u64,
) -> Vec<(String, Vec<i64>, bool)> {
    let mut out: Vec<(String, Vec<i64>, bool)> = Vec::new();
    for e in t
        .iter()
        .filter(|e| e.priority == Priority::Answer && e.request_id == request_id)
    {
        let i = match out.iter().position(|c| c.0 == e.text) {
            Some(i) => i,
            None => {
                out.push((e.text.clone(), Vec::new(), false));
                out.len() - 1
            }
        };
        if let Some(a) = e.first_audio_ns {
            if e.interrupted {
                out[i].2 = true;
            } else {
                out[i].1.push(a);
            }
        }
    }
    out
}

fn where_is_the_door() -> Request {
    Request::new(
        Some(0),
        Form::Question,
        "Where is the exit door?".into(),
        RequestTime::Device(DeviceTime(S + 50_000_000)),
    )
}

/// A description an alert cuts part-way ("The exit door is at 2 o'clock, [alert]") goes on
/// after the alert from the clause it cut: answered once, every clause heard whole exactly
/// once (nothing heard whole before the alert is said again).
#[test]
fn a_description_cut_part_way_by_an_alert_resumes_from_the_cut_clause() {
    let dir = tempfile::tempdir().unwrap();
    let (answers, t) = lockstep_asked_then_alert(dir.path(), where_is_the_door(), &[2 * S]);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let alert = t.iter().find(|e| e.priority == Priority::Alert).unwrap();
    let clauses = clauses_of(&t, answers[0].request_id);
    assert!(clauses.len() >= 2, "{t:?}");
    let cut: Vec<_> = clauses.iter().filter(|c| c.2).collect();
    assert_eq!(cut.len(), 1, "{t:?}");
    assert!(cut[0].1.iter().all(|&a| a >= alert.end_ns), "{t:?}");
    for (text, whole, _) in &clauses {
        assert_eq!(
            whole.len(),
            1,
            "{text:?} heard whole {} times: {t:?}",
            whole.len()
        );
    }
    assert!(t.iter().all(|e| e.dropped.is_none()), "{t:?}");
}

/// Alerts one after another cut the same description again and again: it goes on after
/// each, and in the end every clause of it was heard whole, once.
#[test]
fn a_description_cut_by_alert_after_alert_is_heard_whole_in_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let (answers, t) =
        lockstep_asked_then_alert(dir.path(), where_is_the_door(), &[2 * S, 3 * S, 6 * S]);
    assert_eq!(answers.len(), 1, "{answers:?}");
    let cuts = t
        .iter()
        .filter(|e| e.request_id == answers[0].request_id && e.interrupted)
        .count();
    assert!(cuts >= 2, "{t:?}");
    for (text, whole, _) in &clauses_of(&t, answers[0].request_id) {
        assert_eq!(
            whole.len(),
            1,
            "{text:?} heard whole {} times: {t:?}",
            whole.len()
        );
    }
}

/// "Take me to the exit door." on the door-and-bin state at `rate_wpm` and `verbosity`:
/// the goal's decision text and the span of its audio (first audio to the end of the last
/// clause), ns.
fn goal_said_at(rate_wpm: u32, verbosity: Verbosity) -> (String, i64) {
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    std::fs::write(
        &requests,
        "{\"t_ns\": 1000000000, \"form\": \"goal\", \"text\": \"Take me to the exit door.\"}\n",
    )
    .unwrap();
    let outdir = dir.path().join("out");
    let clock: Arc<dyn Clock> = Arc::new(VirtualClock::new(DeviceTime(0)));
    let mut run = start_assistant(
        SessionOptions {
            out_dir: &outdir,
            requests: Some(&requests),
            audio: AudioChoice::Wav,
            generator: None,
            live: None,
            ambient_every_ns: None,
            speech_rate_wpm: rate_wpm,
            verbosity,
            answer_voice: vista::speech::AnswerVoice::default(),
            taps: Default::default(),
        },
        Arc::clone(&clock),
    )
    .unwrap();
    for i in 0..=20 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        run.assistant.on_state(&Arc::new(door_and_bin(at)), now);
    }
    run.assistant.finish();
    let d = read_decisions(&outdir.join("decisions.jsonl")).unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    let t = read_transcript(&outdir.join("transcript.jsonl")).unwrap();
    let first = t.iter().filter_map(|e| e.first_audio_ns).min().unwrap();
    let end = t.iter().map(|e| e.end_ns).max().unwrap();
    (d[0].text.clone(), end - first)
}

/// `--verbosity brief` says an answer's first sentence only; `--speech-rate` speaks the
/// same words in less time.
#[test]
fn brief_answers_are_their_first_sentence_and_a_faster_voice_says_them_sooner() {
    let (full, _) = goal_said_at(175, Verbosity::Full);
    let sentences = vista::assistant::guard::claims::split_sentences(&full);
    assert!(sentences.len() >= 2, "{full}");
    let (brief, slow_ns) = goal_said_at(175, Verbosity::Brief);
    assert_eq!(brief, sentences[0]);
    let (fast, fast_ns) = goal_said_at(350, Verbosity::Brief);
    assert_eq!(fast, brief);
    // Twice the rate: well under three quarters of the time (pauses shrink less).
    assert!(
        (fast_ns as f64) < 0.75 * slow_ns as f64,
        "{fast_ns} ns at 350 wpm, {slow_ns} ns at 175"
    );
}

/// A lock-step run of 16 s on the door-and-bin state with `requests` scripted and an alert
/// at each of `alerts_ns` (about a different thing each): its decisions and transcript.
fn lockstep_requests(
    dir: &Path,
    requests: Vec<Request>,
    alerts_ns: &[i64],
) -> (
    Vec<vista::state::Decision>,
    Vec<vista::speech::transcript::TranscriptEntry>,
) {
    let (mut a, clock) = lockstep_assistant(dir, None, requests);
    for i in 0..=160 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        if let Some(k) = alerts_ns.iter().position(|&t| t == at) {
            let mut h = pole_hazard(at);
            h.thing.id = 20 + k as u32;
            // Each more urgent than the last (reached in 0.4 of its time), so that one
            // coming while the last is still said cuts it instead of waiting for it.
            h.time_to_contact_s = h.time_to_contact_s.map(|s| s * 0.4f32.powi(k as i32));
            a.on_hazard(&h);
        }
        a.on_state(&Arc::new(door_and_bin(at)), now);
    }
    a.finish();
    (
        read_decisions(&dir.join("decisions.jsonl")).unwrap(),
        read_transcript(&dir.join("transcript.jsonl")).unwrap(),
    )
}

/// An alert no more urgent than the one being said waits for it to end (instead of cutting
/// it) and is then said where its thing is by then: both are heard whole.
#[test]
fn an_alert_no_more_urgent_waits_for_the_one_being_said() {
    let dir = tempfile::tempdir().unwrap();
    let (mut a, clock) = lockstep_assistant(dir.path(), None, Vec::new());
    for i in 0..=60 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        // A person at 2 o'clock, walking closer from 3.5 m.
        let person = thing(
            9,
            ThingKind::Person,
            "person",
            2,
            3.5 - at as f32 * 2e-10,
            true,
        );
        if at == S {
            a.on_hazard(&pole_hazard(at));
        }
        if at == S + 500_000_000 {
            a.on_hazard(&HazardEvent {
                thing: person.clone(),
                time_to_contact_s: None,
                ..pole_hazard(at)
            });
        }
        let mut state = door_and_bin(at);
        state.things.push(person);
        a.on_state(&Arc::new(state), now);
    }
    a.finish();
    let t = read_transcript(&dir.path().join("transcript.jsonl")).unwrap();
    let alerts: Vec<_> = t.iter().filter(|e| e.priority == Priority::Alert).collect();
    assert_eq!(alerts.len(), 2, "{t:?}");
    assert!(
        alerts.iter().all(|e| !e.interrupted && e.dropped.is_none()),
        "{t:?}"
    );
    assert_eq!(alerts[0].text, "Stop, obstacle.");
    // Said once the first has ended, at the distance it is then (about 3 m, not 3.4 m).
    assert!(
        alerts[1].first_audio_ns.unwrap() >= alerts[0].end_ns,
        "{t:?}"
    );
    assert!(alerts[1].decided_ns > S + 1_000_000_000, "{t:?}");
    assert_eq!(alerts[1].text, "Person 2 o'clock.");
}

fn asked(index: usize, form: Form, text: &str, t_ns: i64) -> Request {
    Request::new(
        Some(index),
        form,
        text.into(),
        RequestTime::Device(DeviceTime(t_ns)),
    )
}

/// "Faster" is a setting, not a question: said back, and the answer after it is spoken in
/// less time than the same answer without it; "less talking" makes the next guidance one
/// sentence.
#[test]
fn faster_and_less_talking_change_how_the_next_answers_are_said() {
    let span = |t: &[vista::speech::transcript::TranscriptEntry], id: u64| {
        let mine: Vec<_> = t.iter().filter(|e| e.request_id == id).collect();
        let first = mine.iter().filter_map(|e| e.first_audio_ns).min().unwrap();
        mine.iter().map(|e| e.end_ns).max().unwrap() - first
    };
    let q = "Where is the exit door?";
    let dir = tempfile::tempdir().unwrap();
    let (d, t) = lockstep_requests(dir.path(), vec![asked(0, Form::Question, q, 2 * S)], &[]);
    let plain = span(&t, d[0].request_id);
    let plain_text = d[0].text.clone();

    let dir = tempfile::tempdir().unwrap();
    let (d, t) = lockstep_requests(
        dir.path(),
        vec![
            asked(0, Form::Question, "Speak faster please.", S),
            asked(1, Form::Question, q, 2 * S),
        ],
        &[],
    );
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].generator, "settings");
    assert_eq!(d[0].text, "225 words a minute.");
    assert!(t.iter().any(|e| e.text == "225 words a minute."));
    assert_eq!(d[1].text, plain_text);
    let fast = span(&t, d[1].request_id);
    assert!(
        (fast as f64) < 0.9 * plain as f64,
        "{fast} ns after \"faster\", {plain} ns before"
    );

    let dir = tempfile::tempdir().unwrap();
    let (d, _) = lockstep_requests(
        dir.path(),
        vec![asked(0, Form::Question, "Less talking.", S), goal(2 * S, 1)],
        &[],
    );
    assert_eq!(d[0].text, "Brief answers.");
    let sentences = vista::assistant::guard::claims::split_sentences(&d[1].text);
    assert_eq!(sentences.len(), 1, "{}", d[1].text);
}

/// A lock-step run asking "The exit, please." (a question no rule types) at 1 s, with or
/// without likeness; the decision's typed request and the answer's text.
fn open_question_run(likeness: bool) -> (String, String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let (mut a, clock) = lockstep_assistant(
        dir.path(),
        None,
        vec![Request::new(
            Some(0),
            Form::Question,
            "The exit, please.".into(),
            RequestTime::Device(DeviceTime(S)),
        )],
    );
    if likeness {
        let encoder = vista::infer::sentence::load_minilm()
            .unwrap_or_else(|e| panic!("the sentence encoder (run models/fetch): {e}"));
        let cache = vista::infer::sentence::minilm_cache_dir();
        let (l, _) = vista::assistant::understand::similar::SimilarAsks::new(
            Arc::new(encoder),
            Some(&cache),
        );
        a.set_likeness(Arc::new(l));
    }
    for i in 0..=20 {
        let at = i * 100_000_000;
        let now = clock.wait_until(clock.due(DeviceTime(at)));
        a.on_state(&Arc::new(door_and_bin(at)), now);
    }
    a.finish();
    let by_likeness = a.counters().by_likeness;
    let d = read_decisions(&dir.path().join("decisions.jsonl")).unwrap();
    let answer = d
        .iter()
        .find(|d| d.request_index == Some(0))
        .unwrap_or_else(|| panic!("{d:#?}"));
    (
        answer.ask.clone().unwrap_or_default(),
        answer.text.clone(),
        by_likeness,
    )
}

#[test]
fn a_question_no_rule_types_is_typed_by_likeness_and_answered_as_that_request() {
    let (ask, text, n) = open_question_run(false);
    assert_eq!((ask.as_str(), n), ("open", 0));
    assert_eq!(text, vista::assistant::template::CANNOT_ANSWER);
    let (ask, text, n) = open_question_run(true);
    assert_eq!((ask.as_str(), n), ("goal exit", 1));
    // Guidance to the exit door the state holds, at 2 o'clock.
    assert!(text.contains("2 o'clock"), "{text}");
}
