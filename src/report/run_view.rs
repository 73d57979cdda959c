//! The latency picture and the trace tracks of any spoken run, with or without ground truth
//! (pure compute over decisions, transcript and utterance timings): per-kind stage
//! distributions and the hazard alert latency, a timeline of utterances and answered
//! requests, the speech queue as counter samples, and one span per alert from the hazard's
//! evidence to its first audio. Runs scored against ground truth add hazard windows and
//! the requests' own times (`crate::eval::latency`).

use std::io::Write;

use super::plot::{Distribution, Picture, Tick, UtteranceBar};
use super::utterance::{kind_name, UtteranceLatency, UtteranceTiming, UTTERANCE_STAGES};
use crate::profile::trace::TraceWriter;
use crate::profile::{LatencyHistogram, Span};
use crate::speech::transcript::TranscriptEntry;
use crate::state::{Decision, DecisionKind};

/// Per-kind stage distributions (stages with values) and the hazard alert latencies.
pub fn stage_distributions(latency: &UtteranceLatency) -> Vec<Distribution> {
    let mut stages = Vec::new();
    for (kind, k) in &latency.kinds {
        for (name, h) in UTTERANCE_STAGES.iter().zip(&k.stages) {
            if h.count() > 0 {
                stages.push(Distribution::from_percentiles(
                    &format!("{kind}: {name}"),
                    &h.percentiles(),
                    Some(h.min_us()),
                ));
            }
        }
    }
    for (name, h) in [
        (
            "hazard: evidence_to_first_audio",
            &latency.alert_from_evidence,
        ),
        (
            "hazard: in_range_to_first_audio",
            &latency.alert_from_in_range,
        ),
    ] {
        if h.count() > 0 {
            stages.push(Distribution::from_percentiles(
                name,
                &h.percentiles(),
                Some(h.min_us()),
            ));
        }
    }
    stages
}

/// One distribution per runtime stage (ingest, perception, OCR, TTS, ...) over the stage
/// `spans` held for the trace (the newest ones when a long run overflowed the ring), named
/// `stage: NAME`, in order of first appearance.
pub fn runtime_distributions(spans: &[Span]) -> Vec<Distribution> {
    let mut stages: Vec<(&'static str, LatencyHistogram)> = Vec::new();
    for s in spans {
        let i = match stages.iter().position(|(n, _)| *n == s.stage) {
            Some(i) => i,
            None => {
                stages.push((s.stage, LatencyHistogram::default()));
                stages.len() - 1
            }
        };
        if let Some((_, h)) = stages.get_mut(i) {
            h.record_ns(s.duration_ns());
        }
    }
    stages
        .iter()
        .map(|(name, h)| {
            Distribution::from_percentiles(
                &format!("stage: {name}"),
                &h.percentiles(),
                Some(h.min_us()),
            )
        })
        .collect()
}

/// One timeline bar per decision; `host_to_s` maps a session-clock time (host ns) to
/// seconds from the session start.
pub fn utterance_bars(
    timings: &[UtteranceTiming],
    host_to_s: &dyn Fn(i64) -> f64,
) -> Vec<UtteranceBar> {
    timings
        .iter()
        .map(|t| UtteranceBar {
            kind: kind_name(t.kind).to_string(),
            decided_s: host_to_s(t.decided_ns),
            spoken_s: t
                .spoken
                .iter()
                .map(|(a, e)| (host_to_s(*a), host_to_s(*e)))
                .collect(),
            label: t.text.clone(),
        })
        .collect()
}

/// The picture of a run without ground truth: the stage distributions, one bar per
/// decision and a tick per answered request (at its decision: without ground truth the
/// request's own time is not recorded). The timeline spans what it shows.
pub fn picture_without_truth(
    title: &str,
    decisions: &[Decision],
    timings: &[UtteranceTiming],
    latency: &UtteranceLatency,
    host_to_s: &dyn Fn(i64) -> f64,
) -> Picture {
    let ticks = decisions
        .iter()
        .filter(|d| d.kind == DecisionKind::Answer)
        .map(|d| Tick {
            label: d
                .request
                .as_ref()
                .map_or_else(|| d.text.clone(), |(_, text)| text.clone()),
            at_s: host_to_s(d.decided_ns),
        })
        .collect();
    Picture {
        title: title.to_string(),
        stages: stage_distributions(latency),
        bars: utterance_bars(timings, host_to_s),
        windows: Vec::new(),
        ticks,
        duration_s: None,
    }
}

/// Writes the `speech` counter track on `pid`: utterances decided but not yet playing (or
/// ended, when they never play) and utterances dropped unspoken so far, one sample per
/// change (host ns on the session clock).
pub fn write_speech_counters<W: Write>(
    w: &mut TraceWriter<W>,
    pid: u32,
    transcript: &[TranscriptEntry],
) {
    let mut steps: Vec<(i64, i64, i64)> = Vec::new();
    for e in transcript {
        steps.push((e.decided_ns, 1, 0));
        steps.push((
            e.first_audio_ns.unwrap_or(e.end_ns).max(e.decided_ns),
            -1,
            0,
        ));
        if e.dropped.is_some() {
            steps.push((e.end_ns, 0, 1));
        }
    }
    steps.sort_unstable();
    let (mut waiting, mut dropped) = (0i64, 0i64);
    for (i, (at, dw, dd)) in steps.iter().enumerate() {
        waiting += dw;
        dropped += dd;
        if steps.get(i + 1).is_none_or(|n| n.0 != *at) {
            w.counter(
                "speech",
                pid,
                *at,
                &[("waiting", waiting as f64), ("dropped", dropped as f64)],
            );
        }
    }
}

/// Writes one span per spoken alert on the `hazards` track (`tid`) of `pid`: from the
/// capture of the hazard's evidence to the alert's first audio, named by what the alert is
/// about, with its direction and distance as arguments.
pub fn write_alert_spans<W: Write>(
    w: &mut TraceWriter<W>,
    pid: u32,
    tid: u32,
    decisions: &[Decision],
    timings: &[UtteranceTiming],
) {
    w.thread_name(pid, tid, "hazards (evidence → first alert audio)");
    for (d, t) in decisions.iter().zip(timings) {
        if d.kind != DecisionKind::Alert {
            continue;
        }
        let Some(audio) = t.first_audio_ns else {
            continue;
        };
        let name = d
            .hazard
            .as_ref()
            .map_or_else(|| "hazard".to_string(), |h| format!("{:?}", h.kind));
        let args = serde_json::json!({
            "text": d.text,
            "clock": d.hazard.as_ref().map(|h| h.clock.get()),
            "distance_m": d.hazard.as_ref().map(|h| h.distance_m),
        });
        w.complete(
            &name,
            "hazard",
            pid,
            tid,
            t.capture_ns,
            audio.saturating_sub(t.capture_ns),
            Some(&args),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plot::render_svg;
    use crate::report::utterance::latency_without_truth;
    use crate::state::{ClockHour, DecisionHazard, GuardAction, ThingKind};

    const MS: i64 = 1_000_000;

    fn decision(kind: DecisionKind, id: u64, text: &str, capture: i64, decided: i64) -> Decision {
        Decision {
            kind,
            request_id: id,
            request_index: (kind == DecisionKind::Answer).then_some(0),
            request: (kind == DecisionKind::Answer)
                .then(|| ("question".to_string(), "What is ahead?".to_string())),
            text: text.into(),
            hazard: (kind == DecisionKind::Alert).then(|| DecisionHazard {
                thing_id: 3,
                kind: ThingKind::Obstacle,
                clock: ClockHour::new(1),
                distance_m: 2.5,
                world_m: None,
            }),
            more_hazards: Vec::new(),
            capture_ns: capture,
            decided_ns: decided,
            state_at_ns: capture,
            generator: "template".into(),
            guard: GuardAction::Passed,
            first_token_ns: (kind == DecisionKind::Answer).then_some(decided + 80 * MS),
            lm: None,
            text_read: None,
            voice: None,
            ask: None,
        }
    }

    fn entry(id: u64, text: &str, decided: i64, audio: Option<i64>, end: i64) -> TranscriptEntry {
        serde_json::from_value(serde_json::json!({
            "request_id": id, "text": text, "priority": "alert", "capture_ns": 0,
            "decided_ns": decided, "first_audio_ns": audio, "end_ns": end, "interrupted": false,
        }))
        .unwrap()
    }

    /// A run without ground truth: an alert (evidence at 1.00 s, decided 1.01 s, audio at
    /// 1.012 s) and an answer (decided 2 s, first token 2.08 s, audio 2.1 s).
    fn run() -> (Vec<Decision>, Vec<TranscriptEntry>) {
        let d = vec![
            decision(
                DecisionKind::Alert,
                1,
                "Obstacle at 1 o'clock.",
                1000 * MS,
                1010 * MS,
            ),
            decision(
                DecisionKind::Answer,
                2,
                "The path is clear.",
                1900 * MS,
                2000 * MS,
            ),
        ];
        let t = vec![
            entry(
                1,
                "Obstacle at 1 o'clock.",
                1010 * MS,
                Some(1012 * MS),
                1500 * MS,
            ),
            entry(
                2,
                "The path is clear.",
                2000 * MS,
                Some(2100 * MS),
                2600 * MS,
            ),
        ];
        (d, t)
    }

    #[test]
    fn a_run_without_truth_gets_its_distributions_bars_and_request_ticks() {
        let (d, t) = run();
        let (timings, lat) = latency_without_truth(&d, &t, &|x| x);
        // The answer's first token is taken from its decision.
        assert_eq!(timings[1].first_token_ns, Some(2080 * MS));
        let p = picture_without_truth("gen1", &d, &timings, &lat, &|ns| ns as f64 / 1e9);
        let names: Vec<&str> = p.stages.iter().map(|s| s.name.as_str()).collect();
        assert!(
            names.contains(&"alert: capture_to_first_audio"),
            "{names:?}"
        );
        assert!(
            names.contains(&"answer: decision_to_first_token"),
            "{names:?}"
        );
        assert!(
            names.contains(&"hazard: evidence_to_first_audio"),
            "{names:?}"
        );
        let hazard = p
            .stages
            .iter()
            .find(|s| s.name == "hazard: evidence_to_first_audio")
            .unwrap();
        assert!((hazard.max_ms - 12.0).abs() < 0.1, "{hazard:?}");
        assert_eq!(p.bars.len(), 2);
        assert_eq!(p.bars[0].kind, "alert");
        assert_eq!(p.bars[1].spoken_s, vec![(2.1, 2.6)]);
        assert_eq!(p.ticks.len(), 1);
        assert_eq!(p.ticks[0].label, "What is ahead?");
        assert!((p.ticks[0].at_s - 2.0).abs() < 1e-9);
        assert!(p.windows.is_empty());
        let svg = render_svg(&p);
        assert!(svg.contains("<svg") && svg.contains("What is ahead?"));
    }

    #[test]
    fn runtime_stages_get_one_distribution_each() {
        use crate::time::{DeviceTime, HostTime};
        let span = |stage: &'static str, start_ms: i64, dur_ms: i64| Span {
            stage,
            capture: DeviceTime(0),
            start: HostTime(start_ms * MS),
            end: HostTime((start_ms + dur_ms) * MS),
        };
        let spans = [
            span("ingest", 0, 1),
            span("perception", 1, 4),
            span("ingest", 5, 3),
            span("ocr read", 6, 500),
        ];
        let d = runtime_distributions(&spans);
        let names: Vec<&str> = d.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            names,
            ["stage: ingest", "stage: perception", "stage: ocr read"]
        );
        assert_eq!(d[0].count, 2);
        assert!((d[0].max_ms - 3.0).abs() < 0.01, "{:?}", d[0]);
        assert!((d[0].min_ms.unwrap() - 1.0).abs() < 0.01, "{:?}", d[0]);
        assert!((d[2].p50_ms - 500.0).abs() < 1.0, "{:?}", d[2]);
        assert!(runtime_distributions(&[]).is_empty());
    }

    #[test]
    fn alert_spans_and_speech_counters_are_traced() {
        let (d, t) = run();
        let (timings, _) = latency_without_truth(&d, &t, &|x| x);
        let mut buf = Vec::new();
        let mut w = TraceWriter::new(&mut buf).unwrap();
        write_alert_spans(&mut w, 1, 1, &d, &timings);
        write_speech_counters(&mut w, 1, &t);
        w.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        let spans: Vec<&serde_json::Value> = ev
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == "hazard")
            .collect();
        // One span, for the alert only: evidence at 1.000 s to audio at 1.012 s.
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0]["name"], "Obstacle");
        assert_eq!(spans[0]["args"]["clock"], 1);
        assert!((spans[0]["dur"].as_f64().unwrap() - 12_000.0).abs() < 1.0);
        // The speech queue: 1 waiting from each decision to its first audio, then 0.
        let waiting: Vec<f64> = ev
            .iter()
            .filter(|e| e["ph"] == "C" && e["name"] == "speech")
            .map(|e| e["args"]["waiting"].as_f64().unwrap())
            .collect();
        assert_eq!(waiting, vec![1.0, 0.0, 1.0, 0.0]);
    }
}
