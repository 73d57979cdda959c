//! After a run with the assistant: writes `session_clock.json`, `run.json`, `trace.json`,
//! `latency.svg`, `profile.json` (with the stream profile) and, with ground truth,
//! `score.json`; returns the terminal report (latency, text reads, score, CPU).

use std::fmt::Write as _;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use serde::Serialize;

use crate::assistant::AssistantCounters;
use crate::detect::SeerReport;
use crate::ocr::text_reads::TextReadReport;
use crate::profile::timeline::{self, TimelineStats};

use super::assemble::AssistantRun;
use super::PipelineError;

/// What the assistant did, for `profile.json`.
#[derive(Debug, Serialize)]
pub struct AssistantSummary {
    /// Counters.
    pub counters: AssistantCountersJson,
    /// Whether text was read.
    pub ocr: bool,
    /// What the session lacked.
    pub notes: Vec<String>,
    /// Text reading: per-read latency and counts (absent when text was not read).
    pub text_reads: Option<TextReadReport>,
    /// The object detector: per-frame latency and counts (absent when it did not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objects: Option<SeerReport>,
    /// Perception's counters: the engine's (ticks, the live map's among them), the depth
    /// filter's, stereo depth's and the motion detector's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub perception: Option<crate::perception::consumer::PerceptionReport>,
    /// Hearing the wearer: utterances, "not caught", own voice shut out, latencies (absent
    /// when not listening).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voice: Option<crate::listen::consumer::VoiceReport>,
    /// The trace's stage spans and counter samples: held and dropped.
    pub trace: TimelineStats,
    /// The prefill ahead of requests (real time with a language model only): states
    /// offered, prefills run and cut short, and requests answered over a prefilled state.
    #[cfg(feature = "llm")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lm_prefill: Option<crate::assistant::lm::prefill::PrefillCounters>,
    /// Camera frames in the answers (a bundle with a vision projector): counters and the
    /// per-frame encode time.
    #[cfg(feature = "llm")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<crate::assistant::lm::vision::VisionReport>,
}

/// [`AssistantCounters`] as JSON.
#[derive(Debug, Serialize)]
pub struct AssistantCountersJson {
    /// Alerts spoken.
    pub alerts: u64,
    /// Hazard events not alerted (duplicates, rate limit).
    pub alerts_suppressed: u64,
    /// Answers given.
    pub answers: u64,
    /// Scene updates.
    pub ambient: u64,
    /// Sentences the guard blocked.
    pub guard_interventions: u64,
    /// Requests the evidence could not answer.
    pub unanswerable: u64,
    /// Requests dropped (queues full).
    pub dropped_requests: u64,
    /// Answers cancelled.
    pub cancelled: u64,
    /// Generator failures.
    pub generator_failures: u64,
    /// Model text not spoken as degenerate (a loop, or unfinished at the token limit).
    pub degenerate: u64,
    /// Requests no rule typed, typed by likeness to labelled examples.
    pub by_likeness: u64,
}

impl From<AssistantCounters> for AssistantCountersJson {
    fn from(c: AssistantCounters) -> Self {
        Self {
            alerts: c.alerts,
            alerts_suppressed: c.alerts_suppressed,
            answers: c.answers,
            ambient: c.ambient,
            guard_interventions: c.guard_interventions,
            unanswerable: c.unanswerable,
            dropped_requests: c.dropped_requests,
            cancelled: c.cancelled,
            generator_failures: c.generator_failures,
            degenerate: c.degenerate,
            by_likeness: c.by_likeness,
        }
    }
}

/// The trace process holding the runtime's stage spans and counters (the utterance tracks
/// are process 1).
const STAGES_PID: u32 = 2;

/// `profile.json` of a spoken run.
#[derive(Serialize)]
struct SpokenProfile<'a, R: Serialize> {
    replay: &'a R,
    assistant: AssistantSummary,
    utterances: crate::report::utterance::UtteranceReport,
    /// The language model's answers, stage by stage (absent when it answered none).
    #[serde(skip_serializing_if = "Option::is_none")]
    lm_answers: Option<crate::report::utterance_lm::LmBreakdownReport>,
    /// Requests said aloud, from the end of speech to the answer's first audio (absent
    /// when none was).
    #[serde(skip_serializing_if = "Option::is_none")]
    spoken_requests: Option<crate::report::utterance_voice::VoiceBreakdownReport>,
    cpu: crate::profile::cpu::CpuReport,
    /// The CPU budget and what keeping it did.
    budget: crate::budget::BudgetReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<&'a crate::eval::Scorecard>,
}

/// The language model's answers in `dir`'s decisions and transcript (logged, not fatal,
/// when they cannot be read).
fn lm_answers(dir: &Path) -> Option<crate::report::utterance_lm::LmBreakdownReport> {
    let read = || -> Result<_, PipelineError> {
        let d = crate::assistant::decisions::read_decisions(&dir.join("decisions.jsonl"))?;
        let t = crate::speech::transcript::read_transcript(&dir.join("transcript.jsonl"))?;
        Ok(crate::report::utterance_lm::lm_breakdown(&d, &t))
    };
    read().unwrap_or_else(|e| {
        log::warn!("language model breakdown: {e}");
        None
    })
}

/// The requests said aloud in `dir`'s decisions and transcript (logged, not fatal, when
/// they cannot be read).
fn spoken_requests(dir: &Path) -> Option<crate::report::utterance_voice::VoiceBreakdownReport> {
    let read = || -> Result<_, PipelineError> {
        let d = crate::assistant::decisions::read_decisions(&dir.join("decisions.jsonl"))?;
        let t = crate::speech::transcript::read_transcript(&dir.join("transcript.jsonl"))?;
        Ok(crate::report::utterance_voice::voice_breakdown(&d, &t))
    };
    read().unwrap_or_else(|e| {
        log::warn!("spoken requests: {e}");
        None
    })
}

/// Writes `text` to `path`.
fn write(path: &Path, text: impl AsRef<[u8]>) -> Result<(), PipelineError> {
    std::fs::write(path, text).map_err(PipelineError::write(path))
}

/// `value` as pretty JSON with a final newline.
fn pretty(what: &'static str, value: &impl Serialize) -> Result<String, PipelineError> {
    Ok(serde_json::to_string_pretty(value).map_err(PipelineError::json(what))? + "\n")
}

/// A trace writer on a new `path`.
fn trace_writer(
    path: &Path,
) -> Result<crate::profile::trace::TraceWriter<BufWriter<File>>, PipelineError> {
    let file = File::create(path).map_err(PipelineError::write(path))?;
    crate::profile::trace::TraceWriter::new(BufWriter::new(file))
        .map_err(PipelineError::write(path))
}

/// After the run: writes `session_clock.json`, `run.json`, the latency report,
/// `trace.json`, `latency.svg`, `profile.json` (with `replay` = the stream profile), and
/// `score.json` when the session has ground truth; returns the terminal report.
pub fn finish(mut run: AssistantRun, replay: &impl Serialize) -> Result<String, PipelineError> {
    let mut out = String::new();
    let budget = run
        .budget
        .take()
        .and_then(super::budget::BudgetKeeper::finish)
        .unwrap_or_else(|| super::budget::ungoverned(run.budget_cores));
    let cpu = crate::profile::cpu::snapshot();
    let dir = &run.dir;
    write(
        &dir.join("session_clock.json"),
        pretty("the session clock", &run.clock)?,
    )?;
    write(
        &dir.join(crate::eval::mode::RUN_FILE),
        pretty("the run's inputs", &run.inputs)?,
    )?;
    let _ = writeln!(out, "mode: {}", run.inputs.mode);
    let counters = run
        .assistant
        .lock()
        .map(|a| a.counters())
        .unwrap_or_default();
    let mut notes = run.notes.clone();
    if let Some(n) = run.assistant.lock().ok().and_then(|a| a.lm_failure()) {
        notes.push(n);
    }
    // The run is over: stop copying spans (the trace is written from `run.timeline`).
    let _ = timeline::uninstall();
    let text_reads = run.text_stats.as_ref().map(|t| t.report());
    let objects = run.object_stats.as_ref().map(|t| t.report());
    let voice = run.voice_stats.as_ref().map(|t| t.report());
    if let Some(v) = &voice {
        let _ = writeln!(
            out,
            "heard: {} request(s), {} not caught, {} call(s) of the assistant alone, {} \
             utterance(s) not said to it, {:.1} s of own voice shut out{}",
            v.requests,
            v.not_caught,
            v.called,
            v.not_addressed,
            v.own_voice_s,
            v.end_to_text_ms
                .map_or(String::new(), |[p50, p90, _]| format!(
                    "; end of voice to text p50 {p50:.0} ms, p90 {p90:.0} ms"
                ))
        );
    }
    let summary = AssistantSummary {
        counters: counters.into(),
        ocr: run.ocr,
        notes,
        text_reads: text_reads.clone(),
        objects: objects.clone(),
        perception: run.perception_report.lock().ok().and_then(|r| r.clone()),
        voice,
        trace: run.timeline.stats(),
        #[cfg(feature = "llm")]
        lm_prefill: run.lm.prefill.as_ref().map(|p| p.counters()),
        #[cfg(feature = "llm")]
        images: run.lm.vision_report(),
    };
    #[cfg(feature = "llm")]
    if let Some(r) = &summary.images {
        let _ = writeln!(out, "{}", r.line());
    }
    let trace_path = dir.join("trace.json");
    let svg_path = dir.join("latency.svg");
    let (utterances, card) = if let Some(session) = &run.truth {
        let inputs = crate::eval::load(session, dir).map_err(|source| PipelineError::ReadBack {
            path: dir.clone(),
            source: Box::new(source),
        })?;
        let card = crate::eval::score(
            &inputs,
            &crate::eval::HazardTolerances::default(),
            &crate::eval::Targets::default(),
        );
        let lat = crate::eval::latency::run_latency(&inputs, &card);
        let mut picture = crate::eval::latency::picture(&inputs, &card, &lat);
        picture
            .stages
            .extend(crate::report::run_view::runtime_distributions(
                &run.timeline.spans(),
            ));
        let svg = card
            .listening
            .with_panel(&crate::report::plot::render_svg(&picture));
        let svg = crate::report::cpu_view::with_cpu_panel(&svg, &cpu);
        write(&svg_path, svg)?;
        let mut w = trace_writer(&trace_path)?;
        crate::eval::latency::write_trace(&mut w, &inputs, &card, &lat);
        run.timeline
            .write_trace(&mut w, STAGES_PID, &format!("runtime: {}", run.label));
        w.finish().map_err(PipelineError::write(&trace_path))?;
        write(&dir.join("score.json"), pretty("the score", &card)?)?;
        (lat.latency.report(), Some(card))
    } else {
        let decisions = crate::assistant::decisions::read_decisions(&dir.join("decisions.jsonl"))?;
        let transcript = crate::speech::transcript::read_transcript(&dir.join("transcript.jsonl"))?;
        let clock = run.clock;
        let (timings, lat) =
            crate::report::utterance::latency_without_truth(&decisions, &transcript, &|d| {
                clock.to_host_ns(d)
            });
        let mut w = trace_writer(&trace_path)?;
        crate::report::utterance::write_timings_trace(&mut w, &run.label, &timings);
        // The hazard and speech-queue tracks and the picture, without ground truth too.
        crate::report::run_view::write_alert_spans(&mut w, 1, 1, &decisions, &timings);
        crate::report::run_view::write_speech_counters(&mut w, 1, &transcript);
        run.timeline
            .write_trace(&mut w, STAGES_PID, &format!("runtime: {}", run.label));
        w.finish().map_err(PipelineError::write(&trace_path))?;
        let to_s =
            |h: i64| clock.to_device_ns(h).saturating_sub(clock.origin_device_ns) as f64 / 1e9;
        let mut picture = crate::report::run_view::picture_without_truth(
            &format!("{} (no ground truth)", run.label),
            &decisions,
            &timings,
            &lat,
            &to_s,
        );
        picture
            .stages
            .extend(crate::report::run_view::runtime_distributions(
                &run.timeline.spans(),
            ));
        write(
            &svg_path,
            crate::report::cpu_view::with_cpu_panel(
                &crate::report::plot::render_svg(&picture),
                &cpu,
            ),
        )?;
        log::info!("no ground truth for {}: no score", run.label);
        (lat.report(), None)
    };
    out.push_str(&utterances.to_table());
    let lm_answers = lm_answers(dir);
    if let Some(b) = &lm_answers {
        out.push_str(&b.to_table());
    }
    let spoken_requests = spoken_requests(dir);
    if let Some(b) = &spoken_requests {
        out.push_str(&b.to_table());
    }
    #[cfg(feature = "llm")]
    if let Some(c) = &summary.lm_prefill {
        let _ = writeln!(
            out,
            "prefill ahead of requests: {} state(s) offered, {} superseded, {} prefill(s) \
             ({} token(s)), {} cut short by a request, {} failed; {} of {} request(s) over a \
             prefilled state",
            c.offered,
            c.superseded,
            c.prefills,
            c.prefill_tokens,
            c.interrupted,
            c.failures,
            c.on_prefilled,
            c.requests
        );
    }
    if let Some(t) = &text_reads {
        out.push_str(&t.to_table());
    }
    if let Some(o) = &objects {
        out.push_str(&o.to_line());
        out.push('\n');
    }
    if let Some(card) = &card {
        out.push_str(&card.to_table());
    }
    out.push_str(&cpu.to_table());
    let _ = writeln!(out, "{}", super::budget::line(&budget));
    let profile = SpokenProfile {
        replay,
        assistant: summary,
        utterances,
        lm_answers,
        spoken_requests,
        cpu,
        budget,
        score: card.as_ref(),
    };
    write(&dir.join("profile.json"), pretty("the profile", &profile)?)?;
    let _ = writeln!(
        out,
        "assistant: {} alert(s), {} answer(s), {} guard intervention(s); output in {}",
        counters.alerts,
        counters.answers,
        counters.guard_interventions,
        dir.display()
    );
    Ok(out)
}

/// The end of every run: the stream table, `--profile FILE` when asked for, and with the
/// assistant every output of [`finish`].
pub(super) fn conclude<P: Serialize>(
    profile: P,
    stream_table: String,
    profile_file: Option<&Path>,
    spoken: Option<AssistantRun>,
    stop_reason: crate::runtime::StopReason,
    wrap: impl FnOnce(P) -> super::StreamProfile,
) -> Result<super::RunOutcome, PipelineError> {
    if let Some(path) = profile_file {
        super::stream_report::write_profile(path, &profile)?;
    }
    let assistant_report = match spoken {
        Some(run) => Some(finish(run, &profile)?),
        None => None,
    };
    Ok(super::RunOutcome {
        stream_table,
        assistant_report,
        stop_reason,
        profile: wrap(profile),
    })
}
