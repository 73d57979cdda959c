//! `vista listen AUDIO.wav [--json]`: what vista hears in an audio file — each utterance the
//! voice detector finds, the words recognised (Moonshine base-en), and the typed request they
//! parse to, with the times from the file's start and the time from the end of the voice to
//! the text. Any WAV (8–32-bit, any rate from 8 to 192 kHz, any channel count).
//!
//! `vista listen --mic [--mic-device NAME] [--seconds S]`: the same from the host's
//! microphone, printed as each utterance ends (a desk test without glasses; Ctrl-C stops).
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
use vista::listen::mic::Microphone;
use vista::listen::resample::To16k;
use vista::listen::spoken::{read_spoken, run_spoken, totals};
use vista::listen::{
    hear_clip, read_wav_16k, Heard, ListenConfig, Listener, Moonshine, MoonshineConfig, SileroVad,
};
use vista::listen::{Addressed, Addressing};
use vista::speech::{PiperScales, PiperVoice, Tts, VoiceParams};

/// Arguments of `vista listen`.
#[derive(Debug, clap::Args)]
pub struct ListenArgs {
    /// A WAV file.
    #[arg(required_unless_present_any = ["spoken", "mic"])]
    pub audio: Option<PathBuf>,
    /// Listen to the host's microphone instead (the default input device, at 16 kHz mono
    /// when it offers that); each utterance is printed when it ends.
    #[arg(long, conflicts_with_all = ["audio", "spoken"])]
    pub mic: bool,
    /// --mic: the input device whose name contains this (default: the default device).
    #[arg(long, value_name = "NAME", requires = "mic")]
    pub mic_device: Option<String>,
    /// --mic: stop after this many seconds (default: at Ctrl-C).
    #[arg(long, value_name = "S", requires = "mic")]
    pub seconds: Option<f64>,
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
    /// --mic --requests: what starts a request (default "hey vista"; `none`: every
    /// utterance).
    #[arg(long, value_name = "PHRASE", value_parser = vista::listen::Wake::parse)]
    pub wake: Option<vista::listen::Wake>,
    /// --mic: print only the requests said to the assistant, one per line as each is heard
    /// (everything else goes to standard error), to pipe into a run's
    /// `--stdin-requests`: a desk test of the assistant by voice.
    #[arg(long, requires = "mic", conflicts_with = "json")]
    pub requests: bool,
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

/// Prints one utterance heard: a JSON line, or a line of text.
fn print_heard(h: &Heard, likeness: Option<&SimilarAsks>, json: bool) -> anyhow::Result<()> {
    let request = h.text().and_then(|t| parse(t, likeness));
    if json {
        let line = Line {
            start_s: h.start_s(),
            end_s: h.end_s(),
            end_to_text_ms: h.end_to_text_ms(),
            heard: h,
            request,
        };
        println!("{}", serde_json::to_string(&line)?);
        return Ok(());
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
    Ok(())
}

/// Polls the microphone this often.
const MIC_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// `vista listen --mic`: the host's microphone through the listener until `--seconds` or
/// Ctrl-C, each utterance printed when it ends.
fn from_mic(
    args: &ListenArgs,
    vad: SileroVad,
    asr: Moonshine,
    config: ListenConfig,
    likeness: Option<&SimilarAsks>,
) -> anyhow::Result<()> {
    if let Some(s) = args.seconds {
        anyhow::ensure!(
            s.is_finite() && s > 0.0,
            "--seconds {s} is not a positive number"
        );
    }
    let stop = vista::stop::ctrl_c_flag();
    let mut mic = Microphone::open(args.mic_device.as_deref())?;
    eprintln!(
        "listening on {} ({} Hz, {}){}",
        mic.device(),
        mic.rate_hz(),
        mic.capture(),
        args.seconds
            .map_or(" until Ctrl-C".to_string(), |s| format!(" for {s} s"))
    );
    let mut to16k = To16k::new(mic.rate_hz())?;
    let mut listener = Listener::new(vad, asr, config);
    let mut out = MicOut {
        likeness,
        json: args.json,
        requests: args
            .requests
            .then(|| Addressing::new(args.wake.clone().unwrap_or_default())),
    };
    let (mut raw, mut pcm) = (Vec::new(), Vec::new());
    let mut captured = 0u64;
    let t0 = std::time::Instant::now();
    loop {
        let stopped = stop
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Acquire));
        let done = args
            .seconds
            .is_some_and(|s| t0.elapsed().as_secs_f64() >= s);
        raw.clear();
        captured += mic.take(&mut raw) as u64;
        pcm.clear();
        to16k.push(&raw, &mut pcm)?;
        for h in listener.push(&pcm)? {
            out.heard(&h)?;
        }
        anyhow::ensure!(
            !mic.failed(),
            "microphone {}: capture stopped",
            mic.device()
        );
        if stopped || done {
            break;
        }
        std::thread::sleep(MIC_POLL);
    }
    pcm.clear();
    to16k.flush(&mut pcm)?;
    for h in listener.push(&pcm)?.into_iter().chain(listener.finish()?) {
        out.heard(&h)?;
    }
    let s = listener.stats();
    let secs = captured as f64 / f64::from(mic.rate_hz().max(1));
    if args.requests {
        eprintln!(
            "{}: {secs:.1} s: {} heard, {} not caught",
            mic.device(),
            s.heard,
            s.not_caught
        );
    } else if args.json {
        let summary = serde_json::json!({
            "device": mic.device(),
            "rate_hz": mic.rate_hz(),
            "duration_s": secs,
            "dropped_samples": mic.dropped(),
            "stats": s,
        });
        println!("{summary}");
    } else {
        println!(
            "{}: {secs:.1} s at {} Hz: {} heard, {} not caught, {} too short, {} cut; {} samples dropped",
            mic.device(),
            mic.rate_hz(),
            s.heard,
            s.not_caught,
            s.dropped,
            s.cut,
            mic.dropped()
        );
    }
    Ok(())
}

/// Where `vista listen --mic` puts what it hears.
struct MicOut<'a> {
    likeness: Option<&'a SimilarAsks>,
    json: bool,
    /// `--requests`: only what is said to the assistant, as lines of request text.
    requests: Option<Addressing>,
}

impl MicOut<'_> {
    fn heard(&mut self, h: &Heard) -> anyhow::Result<()> {
        let Some(addressing) = self.requests.as_mut() else {
            return print_heard(h, self.likeness, self.json);
        };
        let ns = |s: f64| (s * 1e9) as i64;
        let caught = h.text().is_some();
        match addressing.hear(&h.recognised.text, caught, ns(h.start_s()), ns(h.end_s())) {
            Addressed::Request { text } => {
                use std::io::Write;
                let mut stdout = std::io::stdout().lock();
                writeln!(stdout, "{text}")?;
                stdout.flush()?;
                eprintln!("request: {text:?}");
            }
            Addressed::Called => eprintln!("called: say the request"),
            Addressed::NotCaught => eprintln!("not caught: {:?}", h.recognised.text),
            Addressed::NotAddressed => {
                eprintln!("not said to the assistant: {:?}", h.recognised.text)
            }
        }
        Ok(())
    }
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
    anyhow::ensure!(
        args.wake.is_none() || args.spoken.is_some() || args.requests,
        "--wake goes with --spoken or with --mic --requests"
    );
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
    let vad = SileroVad::load_default().context("loading the voice detector (models/fetch)")?;
    let asr =
        Moonshine::load(&moonshine).context("loading the speech recogniser (models/fetch)")?;
    let likeness = load_minilm()
        .map(|e| SimilarAsks::new(Arc::new(e), Some(&minilm_cache_dir())).0)
        .inspect_err(|e| log::warn!("requests typed by the rules alone: {e}"))
        .ok();
    if args.mic {
        return from_mic(&args, vad, asr, config, likeness.as_ref());
    }
    let Some(audio) = &args.audio else {
        anyhow::bail!("give an audio file, --mic or --spoken FILE");
    };
    let clip = read_wav_16k(audio)?;
    let t = std::time::Instant::now();
    let result = hear_clip(&clip.samples, vad, asr, config)?;
    let wall_s = t.elapsed().as_secs_f64();
    for h in &result.heard {
        print_heard(h, likeness.as_ref(), args.json)?;
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
