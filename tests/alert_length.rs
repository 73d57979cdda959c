//! Every alert the alerter can say, spoken by the real voice at the default rate with its
//! earcon, lasts at most 1.5 s: a walker hears the street again within a step or two.

use vista::assistant::Alerter;
use vista::speech::{Tts, VoiceParams};
use vista::state::{
    ClockHour, Evidence, HazardEvent, HeightBand, ObjectClass, Side, Thing, ThingDetail, ThingKind,
};
use vista::time::{DeviceTime, HostTime};

/// Every kind of thing an alert is about.
const KINDS: [ThingKind; 6] = [
    ThingKind::Obstacle,
    ThingKind::Person,
    ThingKind::Vehicle,
    ThingKind::Overhead,
    ThingKind::DropOff,
    ThingKind::StepUp,
];

fn event(kind: ThingKind, clock_h: u8, distance_m: f32, detail: ThingDetail) -> HazardEvent {
    HazardEvent {
        thing: Thing {
            id: 1,
            kind,
            label: "x".into(),
            detail,
            class: None,
            clock: ClockHour::new(clock_h),
            bearing_left_deg: None,
            distance_m,
            height: Some(HeightBand::Body),
            world_m: None,
            in_path: true,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 1.0,
            evidence: Evidence::Points,
        },
        time_to_contact_s: None,
        evidence: DeviceTime(0),
        raised: HostTime(0),
    }
}

/// Keeps, for each text, the longest earcon it is said with (an urgent one, when it can be).
fn keep_longest(
    said: &mut std::collections::BTreeMap<String, Option<vista::speech::Earcon>>,
    text: String,
    earcon: Option<vista::speech::Earcon>,
) {
    let e = said.entry(text).or_insert(earcon);
    if earcon.map_or(0, |x| x.duration_ns()) > e.map_or(0, |x| x.duration_ns()) {
        *e = earcon;
    }
}

#[test]
fn every_alert_with_its_earcon_is_said_within_a_second_and_a_half() {
    let alerter = Alerter::default();
    let tts = Tts::new(VoiceParams::default()).unwrap();
    let rate = f64::from(tts.sample_rate_hz());
    let mut said = std::collections::BTreeMap::new();
    let details = [
        ThingDetail::None,
        ThingDetail::Moving {
            side: Side::Left,
            approaching: true,
        },
        ThingDetail::Moving {
            side: Side::Right,
            approaching: true,
        },
    ];
    for kind in KINDS {
        for detail in &details {
            for clock_h in 1..=12 {
                for d in [0.4_f32, 1.0, 1.5, 2.4, 2.9, 4.5, 9.9, 14.0] {
                    for ttc in [None, Some(1.0_f32)] {
                        let mut e = event(kind, clock_h, d, *detail);
                        e.time_to_contact_s = ttc;
                        let (text, earcon) = alerter.phrase(&e);
                        keep_longest(&mut said, text, earcon);
                    }
                }
            }
        }
    }
    // What the object detector saw there: every class, said where it can be.
    for &class in ObjectClass::ALL {
        for kind in [ThingKind::Obstacle, ThingKind::Person, ThingKind::Vehicle] {
            for detail in &details {
                for clock_h in 1..=12 {
                    for (d, ttc) in [(1.0_f32, Some(1.0_f32)), (4.5, None)] {
                        let mut e = event(kind, clock_h, d, *detail);
                        e.thing.class = Some(class);
                        e.time_to_contact_s = ttc;
                        let (text, earcon) = alerter.phrase(&e);
                        keep_longest(&mut said, text, earcon);
                    }
                }
            }
        }
    }
    assert!(
        said.keys().any(|t| t.starts_with("Chair")),
        "classes are said"
    );
    assert!(said.len() >= 20, "{said:?}");
    let mut longest = (0.0, String::new());
    for (text, earcon) in said {
        let voice_s = tts.synthesize_to_vec(&text).unwrap().len() as f64 / rate;
        let earcon_s = earcon.map_or(0.0, |e| e.duration_ns() as f64 * 1e-9);
        assert!(
            voice_s + earcon_s <= 1.5,
            "{text:?} with {earcon:?}: {voice_s:.2} s + {earcon_s:.2} s"
        );
        if voice_s + earcon_s > longest.0 {
            longest = (voice_s + earcon_s, text);
        }
    }
    eprintln!("longest alert: {:?}, {:.2} s", longest.1, longest.0);
}

/// Two hazards met together, said in one alert (most urgent first; the alerter does so when
/// it fits `AlerterConfig::max_length_ns` at the wearer's rate): the second thing is heard
/// sooner, and the whole ends sooner, than with two alerts, the second waiting for the first
/// to be said; at the default rate it lasts at most 3 s.
#[test]
fn two_things_said_together_take_less_than_two_alerts() {
    let alerter = Alerter::default();
    let tts = Tts::new(VoiceParams::default()).unwrap();
    let rate = f64::from(tts.sample_rate_hz());
    let secs = |text: &str, earcon: Option<vista::speech::Earcon>| {
        tts.synthesize_to_vec(text).unwrap().len() as f64 / rate
            + earcon.map_or(0.0, |e| e.duration_ns() as f64 * 1e-9)
    };
    let mut checked = 0;
    let mut longest = (0.0, String::new());
    for a in KINDS {
        for b in KINDS {
            for (clock_b, d_b) in [(12, 1.8_f32), (3, 4.0), (11, 6.0)] {
                let first = event(a, 12, 1.2, ThingDetail::None);
                let mut second = event(b, clock_b, d_b, ThingDetail::None);
                second.thing.id = 2;
                let (text, earcon) = alerter.phrase_named(&[first.clone(), second.clone()]);
                let together = secs(&text, earcon);
                let (t1, e1) = alerter.phrase(&first);
                let (t2, e2) = alerter.phrase(&second);
                // Apart, the second waits for the first to be said (its length stretched
                // by the alerter's margin, at least the minimum gap).
                let cfg = vista::assistant::AlerterConfig::default();
                let wait = (secs(&t1, e1) * f64::from(cfg.length_margin))
                    .max(cfg.min_gap_ns as f64 * 1e-9);
                let apart = wait + secs(&t2, e2);
                assert!(
                    together < apart && together <= 3.0,
                    "{text:?}: {together:.2} s, apart {apart:.2} s ({t1:?}, {t2:?})"
                );
                if together > longest.0 {
                    longest = (together, text);
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 108);
    eprintln!(
        "longest alert naming two things: {:?}, {:.2} s",
        longest.1, longest.0
    );
}
