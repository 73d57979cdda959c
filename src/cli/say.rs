//! `vista say "text" [--engine espeak|piper] [--rate WPM] [--voice V] [--out FILE.wav]
//! [--audio device|wav|null]`: speaks one text (or standard input, as it arrives), clause by
//! clause, with eSpeak NG or the Piper neural voice, on the sound device or into a WAV file.

use std::path::PathBuf;

use anyhow::bail;

use vista::pipeline::speak_text::{speak_text, SpeakInput, SpeakTextOptions};
use vista::speech::sink::AudioChoice;
use vista::speech::{PiperFiles, VoiceParams};

/// Which text-to-speech engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// eSpeak NG (formant synthesis: small, fast, robotic).
    Espeak,
    /// The Piper neural voice (`en_US-joe-medium` from `models/fetch`, or --piper-model).
    Piper,
}

/// Arguments of `vista say`.
#[derive(Debug, clap::Args)]
pub struct SayArgs {
    /// The text to speak, or `-` to speak standard input as it arrives.
    pub text: String,
    /// The text-to-speech engine. Piper follows --rate only (not --voice, --pitch, --volume).
    #[arg(long, value_enum, default_value_t = Engine::Espeak)]
    pub engine: Engine,
    /// The Piper voice's ONNX model (default: the one `models/fetch` provides).
    #[arg(long)]
    pub piper_model: Option<PathBuf>,
    /// The Piper voice's configuration (default: the model's path with `.json` added).
    #[arg(long, requires = "piper_model")]
    pub piper_config: Option<PathBuf>,
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
    let piper = match args.engine {
        Engine::Espeak => {
            if args.piper_model.is_some() {
                bail!("--piper-model needs --engine piper");
            }
            None
        }
        Engine::Piper => Some(match &args.piper_model {
            None => PiperFiles::fetched(),
            Some(model) => PiperFiles {
                model: model.clone(),
                config: args.piper_config.clone().unwrap_or_else(|| {
                    let mut c = model.clone().into_os_string();
                    c.push(".json");
                    PathBuf::from(c)
                }),
            },
        }),
    };
    let options = SpeakTextOptions {
        voice,
        piper,
        audio: choice,
        out: args.out.clone(),
        transcript: args.transcript.clone(),
    };
    let mut stdin = std::io::stdin().lock();
    let input = if args.text == "-" {
        // Speak standard input as it arrives, clause by clause (e.g. piped from a model).
        SpeakInput::Stream(&mut stdin)
    } else {
        SpeakInput::Text(&args.text)
    };
    let spoken = speak_text(&options, input)?;
    println!(
        "spoke {} clause(s), {:.2} s of audio, to {}{}",
        spoken.spoken,
        spoken.audio_s,
        spoken.sink,
        match (&spoken.sink[..], &args.out) {
            ("wav", Some(p)) => format!(" ({})", p.display()),
            _ => String::new(),
        }
    );
    if spoken.failed > 0 {
        bail!(
            "{} clause(s) could not be synthesised (see the log)",
            spoken.failed
        );
    }
    Ok(())
}
