//! `vista listen AUDIO.wav [--json]`: what vista hears in an audio file — each utterance the
//! voice detector finds, the words recognised (Moonshine base-en), and the typed request they
//! parse to, with the times from the file's start and the time from the end of the voice to
//! the text. Any WAV (8–32-bit, any rate from 8 to 192 kHz, any channel count).
//!
//! `vista listen --spoken FILE [--voice piper|espeak] [--snr-db DB]`: each request of a
//! spoken-requests file (`tests/data/spoken/requests.tsv`) said by a voice in room noise,
//! heard, and scored as word error rate, as a Markdown table (`docs/listening.md`).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use serde::Serialize;
use vista::assistant::forms::Form;
use vista::assistant::requests::parse_live_line;
use vista::assistant::understand::ask_for;
use vista::assistant::understand::similar::{understand_with, SimilarAsks};
use vista::infer::sentence::{load_minilm, minilm_cache_dir};
use vista::listen::spoken::{read_spoken, run_spoken, totals};
use vista::listen::{
    hear_clip, read_wav_16k, Heard, ListenConfig, Moonshine, MoonshineConfig, SileroVad,
};
use vista::speech::{PiperScales, PiperVoice, Tts, VoiceParams};

/// Arguments of `vista listen`.
#[derive(Debug, clap::Args)]
pub struct ListenArgs {
    /// A WAV file.
    #[arg(required_unless_present = "spoken")]
    pub audio: Option<PathBuf>,
    /// Measure on the requests of this file instead, each spoken by --voice.
    #[arg(long, value_name = "FILE", conflicts_with = "audio")]
    pub spoken: Option<PathBuf>,
    /// The voice that speaks the --spoken requests.
    #[arg(long, value_enum, default_value_t = SpokenVoice::Piper)]
    pub voice: SpokenVoice,
    /// Room noise this many dB below the speech (--spoken; default: none).
    #[arg(long, value_name = "DB", allow_negative_numbers = true)]
    pub snr_db: Option<f32>,
    /// --spoken: say each request after this wake phrase (scoring what follows it, and
    /// whether it was taken as a request), and once more without it (counting false wakes).
    #[arg(long, value_name = "PHRASE", value_parser = vista::listen::Wake::parse, requires = "spoken")]
    pub wake: Option<vista::listen::Wake>,
    /// One JSON object per utterance, then one for the whole file, instead of lines of text.
    #[arg(long)]
    pub json: bool,
    /// Silence that ends an utterance, ms.
    #[arg(long, value_name = "MS")]
    pub end_silence_ms: Option<u32>,
    /// Recognise only when an utterance ends (no partial results while it goes on).
    #[arg(long)]
    pub no_partials: bool,
    /// ONNX Runtime threads for the recogniser.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// Voices for `--spoken`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SpokenVoice {
    /// The Piper neural voice (en_US joe, deterministic: no sampling noise).
    Piper,
    /// eSpeak NG (en-us, 175 words per minute).
    Espeak,
}

/// The typed request one utterance parses to.
#[derive(Debug, Serialize)]
struct Parsed {
    /// `question`, `scene` or `goal`.
    form: String,
    /// The typed request, written (`where_is cup`, `setting faster`).
    ask: String,
}

/// What the assistant makes of `text`: the rules, then likeness for a question they leave
/// open (when the sentence encoder loaded).
fn parse(text: &str, likeness: Option<&SimilarAsks>) -> Option<Parsed> {
    let (form, text) = parse_live_line(text)?;
    let ask = match form {
        Form::Question => understand_with(likeness, &text),
        _ => ask_for(form, &text),
    };
    Some(Parsed {
        form: form.name().to_string(),
        ask: ask.to_string(),
    })
}

#[derive(Serialize)]
struct Line<'a> {
    start_s: f64,
    end_s: f64,
    end_to_text_ms: f64,
    #[serde(flatten)]
    heard: &'a Heard,
    request: Option<Parsed>,
}

/// Runs `vista listen`.
pub fn run(args: ListenArgs) -> anyhow::Result<()> {
    let mut config = ListenConfig::default();
    if let Some(ms) = args.end_silence_ms {
        anyhow::ensure!(
            (64..=3000).contains(&ms),
            "--end-silence-ms {ms} is outside 64-3000"
        );
        config.segment.end_silence_ms = ms;
    }
    if args.no_partials {
        config.partial_every_ms = 0;
    }
    let moonshine = MoonshineConfig {
        threads: args.threads.max(1),
        ..MoonshineConfig::default()
    };
    if let Some(file) = &args.spoken {
        return spoken(
            file,
            args.voice,
            args.snr_db,
            args.wake.as_ref(),
            &moonshine,
            config,
            args.json,
        );
    }
    let Some(audio) = &args.audio else {
        anyhow::bail!("give an audio file or --spoken FILE");
    };
    let clip = read_wav_16k(audio)?;
    let vad = SileroVad::load_default().context("loading the voice detector (models/fetch)")?;
    let asr =
        Moonshine::load(&moonshine).context("loading the speech recogniser (models/fetch)")?;
    let likeness = load_minilm()
        .map(|e| SimilarAsks::new(Arc::new(e), Some(&minilm_cache_dir())).0)
        .inspect_err(|e| log::warn!("requests typed by the rules alone: {e}"))
        .ok();
    let t = std::time::Instant::now();
    let result = hear_clip(&clip.samples, vad, asr, config)?;
    let wall_s = t.elapsed().as_secs_f64();
    for h in &result.heard {
        let request = h.text().and_then(|t| parse(t, likeness.as_ref()));
        if args.json {
            let line = Line {
                start_s: h.start_s(),
                end_s: h.end_s(),
                end_to_text_ms: h.end_to_text_ms(),
                heard: h,
                request,
            };
            println!("{}", serde_json::to_string(&line)?);
            continue;
        }
        let what = match (&h.outcome, request) {
            (vista::listen::Outcome::Text, Some(p)) => format!("→ {} · {}", p.form, p.ask),
            (vista::listen::Outcome::Text, None) => String::new(),
            (vista::listen::Outcome::NotCaught { why }, _) => {
                format!("→ not caught ({why:?}; \"I didn't catch that\")")
            }
        };
        println!(
            "{:6.2}–{:6.2} s  \"{}\"  {}  (end→text {:.0} ms: {} partials)",
            h.start_s(),
            h.end_s(),
            h.recognised.text,
            what,
            h.end_to_text_ms(),
            h.partials
        );
    }
    let s = &result.stats;
    if args.json {
        let summary = serde_json::json!({
            "file": clip.path,
            "source_rate_hz": clip.source_rate_hz,
            "channels": clip.channels,
            "duration_s": result.duration_s,
            "stats": s,
            "wall_s": wall_s,
            "real_time_factor": wall_s / result.duration_s.max(1e-9),
        });
        println!("{summary}");
    } else {
        println!(
            "{}: {:.1} s ({} Hz, {} ch): {} heard, {} not caught, {} too short, {} cut; {:.2} s to listen (real-time factor {:.2})",
            clip.path.display(),
            result.duration_s,
            clip.source_rate_hz,
            clip.channels,
            s.heard,
            s.not_caught,
            s.dropped,
            s.cut,
            wall_s,
            wall_s / result.duration_s.max(1e-9)
        );
    }
    Ok(())
}

/// `--spoken`: the requests of `file` said by `voice`, heard and scored.
fn spoken(
    file: &std::path::Path,
    voice: SpokenVoice,
    snr_db: Option<f32>,
    wake: Option<&vista::listen::Wake>,
    moonshine: &MoonshineConfig,
    config: ListenConfig,
    json: bool,
) -> anyhow::Result<()> {
    let requests = read_spoken(file)?;
    let mut piper = None;
    let mut espeak = None;
    match voice {
        SpokenVoice::Piper => {
            piper =
                Some(PiperVoice::load_default().context("loading the Piper voice (models/fetch)")?)
        }
        SpokenVoice::Espeak => espeak = Some(Tts::new(VoiceParams::default())?),
    }
    let speak = |text: &str| -> Result<(Vec<i16>, u32), String> {
        if let Some(p) = piper.as_mut() {
            let rate = p.sample_rate_hz();
            return p
                .synthesize(text, PiperScales::deterministic())
                .map(|pcm| (pcm, rate))
                .map_err(|e| e.to_string());
        }
        let t = espeak.as_ref().ok_or("no voice")?;
        let rate = t.sample_rate_hz();
        t.synthesize_to_vec(text)
            .map(|pcm| (pcm, rate))
            .map_err(|e| e.to_string())
    };
    let models = || -> Result<(SileroVad, Moonshine), vista::listen::ListenError> {
        Ok((SileroVad::load_default()?, Moonshine::load(moonshine)?))
    };
    let results = run_spoken(&requests, speak, models, config, snr_db, wake)?;
    if json {
        for r in &results {
            println!("{}", serde_json::to_string(r)?);
        }
        return Ok(());
    }
    let noise = snr_db.map_or("no noise".to_string(), |d| {
        format!("room noise {d} dB below")
    });
    let called = wake.and_then(vista::listen::Wake::spoken);
    match &called {
        Some(p) => println!(
            "Voice: {voice:?}; {noise}; each request said after \"{p}\" (its words after it are \
             scored), and once more without it.\n"
        ),
        None => println!("Voice: {voice:?}; {noise}.\n"),
    }
    let wake_cols = if called.is_some() {
        (
            " taken as a request | false wakes without it |",
            "---:|---:|",
        )
    } else {
        ("", "")
    };
    println!(
        "| set | requests | exact | split or missed | words | word error rate |{}",
        wake_cols.0
    );
    println!("|---|---:|---:|---:|---:|---:|{}", wake_cols.1);
    for (name, t) in totals(&results) {
        let extra = if called.is_some() {
            format!(" {} | {} |", t.called, t.false_wakes)
        } else {
            String::new()
        };
        println!(
            "| {name} | {} | {} | {} | {} | {:.1} % |{extra}",
            t.requests,
            t.exact,
            t.split_or_missed,
            t.errors.words,
            100.0 * t.errors.rate()
        );
    }
    let mut ms: Vec<f64> = results.iter().filter_map(|r| r.end_to_text_ms).collect();
    ms.sort_by(f64::total_cmp);
    if !ms.is_empty() {
        println!(
            "\nEnd of voice to text: median {:.0} ms, slowest {:.0} ms (silence that ends a turn: {} ms).",
            ms[ms.len() / 2],
            ms[ms.len() - 1],
            config.segment.end_silence_ms
        );
    }
    println!("\nHeard wrong:\n");
    for r in results.iter().filter(|r| r.errors.edits > 0) {
        println!(
            "- ({}, {}) \"{}\" → \"{}\"",
            r.request.category, r.request.split, r.request.text, r.heard
        );
    }
    Ok(())
}
