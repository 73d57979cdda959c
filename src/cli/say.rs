//! `vista say "text" [--rate WPM] [--voice V] [--out FILE.wav] [--audio device|wav|null]`:
//! speaks one text (or standard input, as it arrives), clause by clause, on the sound device
//! or into a WAV file.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context};

use vista::speech::chunker::ChunkerConfig;
use vista::speech::sink::{open_sink, AudioChoice};
use vista::speech::{AnswerStream, Speaker, SpeakerConfig, VoiceParams};
use vista::time::{Clock, DeviceTime, WallClock};

/// Arguments of `vista say`.
#[derive(Debug, clap::Args)]
pub struct SayArgs {
    /// The text to speak, or `-` to speak standard input as it arrives.
    pub text: String,
    /// Speaking rate in words per minute (80–900).
    #[arg(long, default_value_t = 175)]
    pub rate: u32,
    /// eSpeak NG voice, e.g. `en-us`, `en-gb`, `de`.
    #[arg(long, default_value = "en-us")]
    pub voice: String,
    /// Base pitch, 0–100.
    #[arg(long, default_value_t = 50)]
    pub pitch: u32,
    /// Volume, 0–200.
    #[arg(long, default_value_t = 100)]
    pub volume: u32,
    /// Write the speech to this WAV file (the default sink when given).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Where audio goes: the sound device (falling back to --out or nothing), a WAV file,
    /// or nowhere at real-time pace. Default: `wav` with --out, else `device`.
    #[arg(long, value_enum)]
    pub audio: Option<AudioChoice>,
    /// Also write the transcript (JSON lines) here.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
}

/// Runs `vista say`.
pub fn run(args: SayArgs) -> anyhow::Result<()> {
    let choice = args.audio.unwrap_or(if args.out.is_some() {
        AudioChoice::Wav
    } else {
        AudioChoice::Device
    });
    if choice == AudioChoice::Wav && args.out.is_none() {
        bail!("--audio wav needs --out FILE.wav");
    }
    let voice = VoiceParams {
        voice: args.voice.clone(),
        rate_wpm: args.rate,
        pitch: args.pitch,
        volume: args.volume,
        end_pause: false,
    };
    let opened = open_sink(choice, args.out.as_deref(), 22_050).with_context(|| {
        format!(
            "opening the {choice:?} sink{}",
            args.out
                .as_ref()
                .map(|p| format!(" ({})", p.display()))
                .unwrap_or_default()
        )
    })?;
    let clock: Arc<dyn Clock> = Arc::new(WallClock);
    let sink_name = opened.sink.name().to_string();
    let speaker = Speaker::start(
        SpeakerConfig {
            voice,
            transcript: args.transcript.clone(),
            ..SpeakerConfig::default()
        },
        opened.sink,
        Arc::clone(&clock),
    )
    .context("starting the speaker")?;
    if speaker.sample_rate_hz() != 22_050 {
        log::warn!(
            "speech: eSpeak NG speaks at {} Hz",
            speaker.sample_rate_hz()
        );
    }
    let mut stream = AnswerStream::new(&speaker, ChunkerConfig::default(), 1, DeviceTime(0));
    if args.text == "-" {
        // Speak standard input as it arrives, clause by clause (e.g. piped from a model).
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 4096];
        let mut pending = Vec::new();
        loop {
            let n = stdin.read(&mut buf).context("reading standard input")?;
            if n == 0 {
                break;
            }
            pending.extend_from_slice(buf.get(..n).unwrap_or(&[]));
            // Hand over the longest valid UTF-8 prefix; keep a split character for later.
            let valid = match std::str::from_utf8(&pending) {
                Ok(s) => s.len(),
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(e) => bail!("standard input is not UTF-8 (byte {})", e.valid_up_to()),
            };
            let text: String = String::from_utf8_lossy(pending.get(..valid).unwrap_or(&[])).into();
            pending.drain(..valid);
            // A full speaker queue holds standard input back (no clause is dropped).
            stream.push_waiting(&text, clock.now());
        }
    } else {
        stream.push_waiting(&args.text, clock.now());
    }
    let (_, refused) = stream.finish_waiting(clock.now());
    if refused > 0 {
        log::warn!("speech: {refused} clause(s) refused (the speaker stopped)");
    }
    let report = speaker.finish(None).context("speaking")?;
    let secs = report.speech_samples as f64 / 22_050.0;
    println!(
        "spoke {} clause(s), {secs:.2} s of audio, to {}{}",
        report.spoken,
        sink_name,
        match (&sink_name[..], &args.out) {
            ("wav", Some(p)) => format!(" ({})", p.display()),
            _ => String::new(),
        }
    );
    if report.failed > 0 {
        bail!(
            "{} clause(s) could not be synthesised (see the log)",
            report.failed
        );
    }
    Ok(())
}
