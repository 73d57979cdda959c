//! The assistant's flags, shared by `vista replay`, `vista profile` and `vista live`:
//! [`AssistantFlags`] (speech, requests, senses, language model) and, for `replay` and
//! `live`, [`SpeakArgs`] (`--speak DIR` and live requests). They become the pipeline's
//! [`AssistantOptions`].

use std::path::PathBuf;

use vista::assistant::control::{RATE_MAX_WPM, RATE_MIN_WPM};
use vista::assistant::lm::setup::LmChoice;
use vista::assistant::lm::threads::ThreadPolicy;
use vista::assistant::settings::{Settings, SettingsError};
use vista::assistant::Verbosity;
use vista::pipeline::{AssistantOptions, LmOptions, SightOptions};
use vista::speech::sink::AudioChoice;
use vista::speech::{AnswerVoice, VoiceParams};

/// What the assistant sees with, how it answers and where it speaks.
#[derive(Debug, Clone, clap::Args)]
pub struct AssistantFlags {
    /// Where speech plays: `wav` (the file only), `device` (the sound card, recorded into
    /// the WAV; falls back to the WAV when none plays), `null` (paced, recorded).
    #[arg(long, value_enum, default_value = "wav")]
    pub audio: AudioChoice,
    /// Scripted requests (default: the session's `requests.jsonl`, when present).
    #[arg(long, value_name = "FILE")]
    pub requests: Option<PathBuf>,
    /// Do not read text (skip PP-OCR even when its models are present).
    #[arg(long)]
    pub no_ocr: bool,
    /// Do not look for what things are (skip the object detector even when its model is
    /// present).
    #[arg(long)]
    pub no_objects: bool,
    /// Leave the questions no rule understands to the language model (or refused) instead
    /// of typing them by likeness to labelled examples with the sentence encoder.
    #[arg(long)]
    pub no_likeness: bool,
    /// Do not compute stereo depth from the two SLAM cameras. It is on by default: it is
    /// what shows people and other things the static map does not hold (its points are
    /// filtered first: band, static map, temporal consistency).
    #[arg(long)]
    pub no_depth: bool,
    /// Stereo depth is on by default; `--depth` is still accepted (no effect).
    #[arg(long, hide = true, conflicts_with = "no_depth")]
    pub depth: bool,
    /// Do not look for vehicles moving in the SLAM cameras' images. On by default: it is
    /// what sees a car coming from the side, beyond stereo depth's reach.
    #[arg(long)]
    pub no_movers: bool,
    /// Where the input has no device pose (live glasses, `--recorded-only`): take the
    /// position from visual odometry on the SLAM cameras (counted steps while it has no
    /// track) instead of counted steps alone. Experimental: off by default.
    #[arg(long)]
    pub odometry: bool,
    /// Where the input has no semi-dense map (live glasses, `--recorded-only`): build a map
    /// around the wearer from stereo depth. Experimental: off by default (it catches more
    /// hazards and raises more false alerts; best with `--odometry`).
    #[arg(long)]
    pub live_map: bool,
    /// The language model for scene descriptions and open questions: SmolLM2 from the model
    /// cache by default (templates, with one warning, when it is missing or corrupt), or a
    /// GGUF path. Goals and safety questions stay with the grounded templates; alerts never
    /// wait for the model; every generated sentence passes the safety guard.
    #[arg(long, value_name = "GGUF|default")]
    pub lm: Option<String>,
    /// Answer with the grounded templates only (no language model).
    #[arg(long, conflicts_with = "lm")]
    pub no_lm: bool,
    /// A model bundle (`models/<name>/`, a folder with `bundle.toml`): its language model
    /// and, when it has one, its sensor-fusion network, whose tokens go into the prompts.
    /// Checked before the run starts (a fusion width that is not the model's embedding
    /// width is an error).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["lm", "no_lm"])]
    pub bundle: Option<String>,
    /// llama.cpp threads for the language model (default: from the cores and the load
    /// average, per request, at most cores − 1; recorded in every decision).
    #[arg(long, value_name = "N")]
    pub lm_threads: Option<u32>,
    /// How fast the voice speaks, in words per minute (150 to 450; screen-reader users
    /// often listen at 300 or more). Default: the settings file's `speech.rate_wpm`, else
    /// 175.
    #[arg(long, value_name = "WPM",
          value_parser = clap::value_parser!(u32)
              .range(i64::from(RATE_MIN_WPM)..=i64::from(RATE_MAX_WPM)))]
    pub speech_rate: Option<u32>,
    /// How much is said: `full` answers, `brief` (one-sentence) answers, or `alerts` (and
    /// one-sentence answers to what is asked; no scene updates). Alerts are never held back.
    /// Default: the settings file's `speech.verbosity`, else `full`.
    #[arg(long, value_enum)]
    pub verbosity: Option<Verbosity>,
    /// The voice answers are said in: `espeak` (eSpeak NG, first audio at once) or `piper`
    /// (the Piper neural voice from `models/fetch`: more natural, each clause synthesised
    /// before it starts). Alerts are always said by eSpeak NG. Default: the settings file's
    /// `speech.answer_voice`, else `espeak`.
    #[arg(long, value_enum)]
    pub answer_voice: Option<AnswerVoice>,
    /// Hear the wearer's spoken requests in the microphones' audio stream (voice activity
    /// with Silero VAD, words with Moonshine); live, the microphones are shut while the
    /// assistant's own voice plays. The session's own `requests.jsonl` is then not read
    /// (`--requests FILE` still is).
    // Not `--listen`: `live` has `--listen ADDR` for its link.
    #[arg(long)]
    pub voice_requests: bool,
    /// With --voice-requests: what starts a spoken request. An utterance is a request when it
    /// begins with this phrase (its greeting optional: "Vista, …" for "hey vista"), or
    /// within 8 s of the end of one that was (a conversation); the phrase alone makes the
    /// assistant answer "Yes?" and listen. Other speech (passers-by, the wearer's own
    /// conversations) is left. `none`: every utterance is a request (a desk test alone).
    #[arg(long, value_name = "PHRASE|none", default_value = "hey vista", value_parser = vista::listen::Wake::parse, requires = "voice_requests")]
    pub wake: vista::listen::Wake,
    /// Keep the whole process within this many cores (CPU seconds per second) at real time:
    /// optional work gives way in a fixed order (the language model's prefill ahead of
    /// requests, then text read around the gaze and the object detector, down to a quarter
    /// of their rates); alerts and what feeds them never do. `none`: no budget. A lock-step
    /// run keeps every stage at its own rate.
    #[arg(long, value_name = "CORES|none", default_value = "0.5", value_parser = parse_budget)]
    pub cpu_budget: Budget,
    /// The wearer's settings file (TOML, `[speech]` with `rate_wpm` and `verbosity`).
    /// Default: `$VISTA_CONFIG`, else `~/.config/vista/config.toml` when it exists. The
    /// command line wins over it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl AssistantFlags {
    /// The assistant's options, writing into `out_dir`; the settings file fills in what the
    /// command line leaves out.
    pub fn options(&self, out_dir: PathBuf) -> Result<AssistantOptions, SettingsError> {
        let (settings, from) = Settings::find(self.config.as_deref())?;
        if let Some(path) = from {
            log::info!("settings from {}", path.display());
        }
        let speech_rate_wpm = self
            .speech_rate
            .or(settings.speech.rate_wpm)
            .unwrap_or(VoiceParams::default().rate_wpm);
        let verbosity = self
            .verbosity
            .or(settings.speech.verbosity)
            .unwrap_or_default();
        let answer_voice = self
            .answer_voice
            .or(settings.speech.answer_voice)
            .unwrap_or_default();
        log::info!(
            "speech at {speech_rate_wpm} words a minute, verbosity {}, answers by {answer_voice:?}",
            verbosity.name()
        );
        Ok(AssistantOptions {
            audio: self.audio,
            requests: self.requests.clone(),
            listen: self.voice_requests,
            wake: self.wake.clone(),
            sight: SightOptions {
                read_text: !self.no_ocr,
                objects: !self.no_objects,
                stereo_depth: !self.no_depth,
                movers: !self.no_movers,
                odometry: self.odometry,
                live_map: self.live_map,
            },
            lm: LmOptions {
                choice: LmChoice::from_args_with_bundle(
                    self.lm.as_deref(),
                    self.no_lm,
                    self.bundle.as_deref(),
                ),
                threads: ThreadPolicy::from_arg(self.lm_threads),
            },
            speech_rate_wpm,
            verbosity,
            answer_voice,
            likeness: !self.no_likeness,
            cpu_budget_cores: self.cpu_budget.0,
            ..AssistantOptions::new(out_dir)
        })
    }
}

/// A CPU budget from the command line (`None`: none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget(pub Option<f64>);

/// `--cpu-budget`: a number of cores at least the safety path's, or `none`.
fn parse_budget(s: &str) -> Result<Budget, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(Budget(None));
    }
    let cores: f64 = s
        .parse()
        .map_err(|_| format!("{s}: not a number of cores (or `none`)"))?;
    match vista::pipeline::budget_too_low(cores) {
        Some(why) => Err(why),
        None => Ok(Budget(Some(cores))),
    }
}

/// The assistant on a `replay` or `live` run.
#[derive(Debug, Clone, clap::Args)]
pub struct SpeakArgs {
    /// Run the assistant and write its speech, transcript, decisions, profile, trace and
    /// latency picture into DIR.
    #[arg(long, value_name = "DIR")]
    pub speak: Option<PathBuf>,
    /// Also take requests typed on standard input, one per line, phrased as the wearer likes
    /// ("Take me to the exit" is guidance; a `scene:`, `goal:` or `question:` prefix still
    /// forces the form).
    #[arg(long)]
    pub stdin_requests: bool,
    /// Also take requests from a local TCP socket (loopback only), one per line.
    #[arg(long, value_name = "ADDR")]
    pub requests_listen: Option<String>,
    /// Describe the scene every this many seconds of device time, while the wearer is still
    /// (off by default).
    #[arg(long, value_name = "SECONDS")]
    pub scene_every: Option<f64>,
    /// What the assistant sees with, how it answers and where it speaks.
    #[command(flatten)]
    pub assistant: AssistantFlags,
}

impl SpeakArgs {
    /// The assistant's options, when `--speak DIR` asks for it.
    pub fn options(&self) -> Result<Option<AssistantOptions>, SettingsError> {
        let Some(dir) = self.speak.clone() else {
            return Ok(None);
        };
        Ok(Some(AssistantOptions {
            stdin_requests: self.stdin_requests,
            requests_listen: self.requests_listen.clone(),
            scene_every_s: self.scene_every,
            ..self.assistant.options(dir)?
        }))
    }
}
