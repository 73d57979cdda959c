//! Property tests of the speech scheduler (pure, with a stand-in synthesiser): whatever
//! utterances arrive when, the timeline audio is contiguous per utterance and never
//! overlaps, every utterance gets exactly one final transcript entry (an answer clause an
//! alert cut part-way also has its cut before it), alerts are never dropped or
//! cut, an alert starts the moment it is decided (or when the alert before it ends),
//! speech never starts before its decision, cuts happen exactly at a later decision,
//! a heads-up (an alert not urgent) never cuts an answer clause that ends within the wait,
//! stale ambient updates are never spoken, and cues heard over speech change nothing that
//! is said or when.

use proptest::prelude::*;
use vista::speech::queue::{DropReason, Priority, QueueConfig, Utterance};
use vista::speech::schedule::{Output, Scheduler};
use vista::speech::timeline::Timeline;
use vista::speech::transcript::TranscriptEntry;
use vista::time::{DeviceTime, HostTime};

#[derive(Default)]
struct Collect {
    runs: Vec<(u64, usize)>,
    entries: Vec<TranscriptEntry>,
}

impl Output for Collect {
    fn audio(
        &mut self,
        start_index: u64,
        samples: &[i16],
        _pan: vista::speech::Pan,
        _first_of: Option<&Utterance>,
        _over: Option<vista::speech::schedule::Over<'_>>,
    ) {
        self.runs.push((start_index, samples.len()));
    }
    fn entry(&mut self, entry: TranscriptEntry) {
        self.entries.push(entry);
    }
}

/// 1 kHz timeline: one sample per millisecond.
const TL: Timeline = Timeline {
    origin: HostTime(0),
    rate_hz: 1_000,
};
const MS: i64 = 1_000_000;
const MAX_AGE_MS: i64 = 300;
const HEADS_UP_WAIT_MS: i64 = 100;

/// Text "i:len" lasts `len` ms.
fn synth(text: &str) -> Result<Vec<i16>, String> {
    let len: usize = text
        .rsplit(':')
        .next()
        .and_then(|n| n.parse().ok())
        .ok_or("bad text")?;
    Ok(vec![1; len])
}

fn arb_utts() -> impl Strategy<Value = Vec<Utterance>> {
    let one = (0u8..3, 0u64..4, 1usize..400, 0i64..300, any::<bool>());
    prop::collection::vec(one, 1..30).prop_map(|v| {
        let mut t = 0;
        v.into_iter()
            .enumerate()
            .map(|(i, (p, req, len, gap, urgent))| {
                t += gap;
                Utterance {
                    text: format!("{i}:{len}"),
                    priority: [Priority::Alert, Priority::Answer, Priority::Ambient][p as usize],
                    request_id: req,
                    capture: DeviceTime(i as i64),
                    decided: HostTime(t * MS),
                    earcon: None,
                    cue: None,
                    pan: vista::speech::Pan::CENTRE,
                    urgent,
                }
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn timeline_invariants(utts in arb_utts()) {
        let config = QueueConfig {
            ambient_max_age_ns: MAX_AGE_MS * MS,
            heads_up_wait_ns: HEADS_UP_WAIT_MS * MS,
        };
        let mut s = Scheduler::new(config, TL);
        let mut out = Collect::default();
        for u in &utts {
            s.advance(TL.index_of(u.decided), 0, &mut synth, &mut out);
            s.push(u.clone(), &mut out);
        }
        s.drain(&mut synth, &mut out);

        // Audio runs are contiguous or move forward; never overlap.
        for w in out.runs.windows(2) {
            prop_assert!(w[1].0 >= w[0].0 + w[0].1 as u64);
        }
        // One final entry per utterance; before it, an answer clause may have been cut
        // part-way by alerts (it resumes after them), and only that.
        let mut finals: Vec<&str> = Vec::new();
        for (i, e) in out.entries.iter().enumerate() {
            let again = out.entries.iter().skip(i + 1).any(|f| f.text == e.text);
            if again {
                prop_assert!(
                    e.priority == Priority::Answer && e.interrupted && e.first_audio_ns.is_some(),
                    "entered twice: {:?}",
                    e
                );
            } else {
                finals.push(e.text.as_str());
            }
        }
        finals.sort_unstable();
        let mut sent: Vec<&str> = utts.iter().map(|u| u.text.as_str()).collect();
        sent.sort_unstable();
        prop_assert_eq!(finals, sent);

        let decisions: Vec<i64> = utts.iter().map(|u| u.decided.ns()).collect();
        let mut spans = Vec::new();
        for e in &out.entries {
            let len_ms = synth(&e.text).unwrap().len() as i64;
            if e.priority == Priority::Alert {
                // Only a newer alert (a higher request id) cuts or drops an alert.
                let superseded = utts
                    .iter()
                    .any(|u| u.priority == Priority::Alert && u.request_id > e.request_id);
                prop_assert!(
                    superseded || (e.dropped.is_none() && !e.interrupted),
                    "alert lost: {:?}",
                    e
                );
            }
            if let Some(first) = e.first_audio_ns {
                prop_assert!(first >= e.decided_ns);
                prop_assert!(e.end_ns > first);
                spans.push((first, e.end_ns));
                if e.interrupted {
                    // Cut exactly when a later utterance was decided.
                    prop_assert!(decisions.contains(&e.end_ns), "cut at {}", e.end_ns);
                    prop_assert!(e.end_ns - first < len_ms * MS);
                    // An answer clause ending within the wait is cut only by something
                    // else than a heads-up decided then.
                    let left_ms = len_ms - (e.end_ns - first) / MS;
                    if e.priority == Priority::Answer && left_ms <= HEADS_UP_WAIT_MS {
                        prop_assert!(
                            utts.iter().any(|u| u.decided.ns() == e.end_ns
                                && (u.priority != Priority::Alert || u.urgent)),
                            "a heads-up cut {:?} with {} ms left",
                            e,
                            left_ms
                        );
                    }
                } else {
                    prop_assert_eq!(e.end_ns - first, len_ms * MS);
                }
                if e.priority == Priority::Ambient {
                    prop_assert!(first - e.decided_ns <= MAX_AGE_MS * MS);
                }
            } else {
                prop_assert!(e.interrupted || e.dropped.is_some());
            }
        }
        // An alert no newer alert supersedes plays: from the moment it is decided, or
        // after the alert before it (an older one still speaking, or one of the same id).
        for e in out.entries.iter().filter(|e| e.priority == Priority::Alert) {
            let superseded = utts
                .iter()
                .any(|u| u.priority == Priority::Alert && u.request_id > e.request_id);
            if !superseded {
                prop_assert!(
                    e.first_audio_ns.is_some_and(|f| f >= e.decided_ns),
                    "alert not played {:?}",
                    e
                );
            }
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            prop_assert!(w[1].0 >= w[0].1, "overlapping speech {:?}", w);
        }
        // Audio covers exactly the spoken spans.
        let audio: u64 = out.runs.iter().map(|r| r.1 as u64).sum();
        let spoken: i64 = spans.iter().map(|(a, b)| (b - a) / MS).sum();
        prop_assert_eq!(audio as i64, spoken);
    }
}

/// The scheduler's output for `utts` with a tick cue at each of `cues_ms` (request ids
/// from 1000 up), driven as a timeline sink drives it.
fn run_with_cues(utts: &[Utterance], cues_ms: &[i64]) -> Collect {
    let config = QueueConfig {
        ambient_max_age_ns: MAX_AGE_MS * MS,
        heads_up_wait_ns: HEADS_UP_WAIT_MS * MS,
    };
    let mut s = Scheduler::new(config, TL);
    let mut out = Collect::default();
    let cues = cues_ms.iter().enumerate().map(|(i, &t)| Utterance {
        text: String::new(),
        priority: Priority::Alert,
        request_id: 1_000 + i as u64,
        capture: DeviceTime(0),
        decided: HostTime(t * MS),
        earcon: Some(vista::speech::Earcon::Tick),
        cue: None,
        pan: vista::speech::Pan::of_clock_hour(3),
        urgent: true,
    });
    let mut all: Vec<(bool, Utterance)> = utts
        .iter()
        .cloned()
        .map(|u| (false, u))
        .chain(cues.map(|c| (true, c)))
        .collect();
    all.sort_by_key(|(_, u)| u.decided);
    for (cue, u) in all {
        s.advance(TL.index_of(u.decided), 0, &mut synth, &mut out);
        if cue {
            s.cue(u, &mut out);
        } else {
            s.push(u, &mut out);
        }
    }
    s.drain(&mut synth, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Cues change nothing that is said or when: each plays whole (40 ms), at its decision
    /// or where the cue before it ends, over speech or alone; too many at once are dropped
    /// and said so.
    #[test]
    fn cues_neither_delay_nor_cut_speech(
        utts in arb_utts(),
        cues_ms in prop::collection::vec(0i64..3_000, 0..12),
    ) {
        let plain = run_with_cues(&utts, &[]);
        let cued = run_with_cues(&utts, &cues_ms);
        // (What was never heard is stamped with the audio's end then, which a cue may
        // have moved.)
        let speech = |c: &Collect| -> Vec<TranscriptEntry> {
            c.entries
                .iter()
                .filter(|e| e.request_id < 1_000)
                .map(|e| TranscriptEntry {
                    end_ns: if e.first_audio_ns.is_some() { e.end_ns } else { 0 },
                    ..e.clone()
                })
                .collect()
        };
        prop_assert_eq!(speech(&plain), speech(&cued));
        let mut last_end = i64::MIN;
        let mut played = 0;
        for e in cued.entries.iter().filter(|e| e.request_id >= 1_000) {
            match e.first_audio_ns {
                Some(first) => {
                    prop_assert!(first >= e.decided_ns);
                    prop_assert_eq!(e.end_ns - first, 40 * MS);
                    prop_assert!(!e.interrupted);
                    prop_assert!(first >= last_end, "cues overlap: {:?}", e);
                    last_end = e.end_ns;
                    played += 1;
                }
                None => prop_assert_eq!(e.dropped, Some(DropReason::CuesFull)),
            }
        }
        prop_assert!(played >= cues_ms.len().min(vista::speech::cue::MAX_CUES));
        // Runs never overlap, with or without cues.
        for w in cued.runs.windows(2) {
            prop_assert!(w[1].0 >= w[0].0 + w[0].1 as u64);
        }
    }
}
