//! [`PiperVoice`]: a Piper neural voice (a VITS model exported to ONNX, with its `.onnx.json`
//! configuration) on ONNX Runtime, beside eSpeak NG.
//!
//! Text becomes IPA phonemes through eSpeak NG on its one engine thread ([`Tts::phonemes`]),
//! the phonemes become ids through the voice's `phoneme_id_map` (as Piper's
//! `phonemes_to_ids`: `^ _ p1 _ p2 _ … pn _ $`), and the model turns the ids of one sentence
//! into audio at the voice's sample rate. As Piper does, each clause keeps its terminal
//! punctuation (`.`, `?`, `!`, `,`, `:`, `;`) as a phoneme, clauses of a sentence are joined by
//! a space, and each sentence is one inference, sentences 0.2 s apart.
//! Piper reads the clause terminators from eSpeak NG (a function eSpeak NG 1.51 lacks); here
//! the text is cut at that punctuation first ([`split_clauses`]) and each piece phonemised
//! on its own. Unlike Piper, the phonemes are not NFD-normalised (eSpeak NG's English IPA
//! needs none) and the audio is not scaled to full scale: samples in [-1, 1] are clamped to
//! 16 bits as they come.
//!
//! The VITS graph draws random noise unless both noise scales are zero
//! ([`PiperScales::deterministic`]): only then is the same text the same samples each run.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;

use super::tts::{Tts, TtsError, VoiceParams};
use crate::infer::engine::{ElemType, EngineError};
use crate::infer::ort_engine::{build_session, spec, OrtOptions};
use crate::infer::ModelFile;

/// The longest text [`PiperVoice::synthesize`] accepts, in characters.
pub const MAX_TEXT_CHARS: usize = 2000;
/// The largest configuration file read, in bytes.
const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Silence between two sentences of one text, seconds (Piper's default).
const SENTENCE_SILENCE_S: f64 = 0.2;
/// The padding phoneme, put after every phoneme.
const PAD: char = '_';
/// The beginning-of-sentence phoneme.
const BOS: char = '^';
/// The end-of-sentence phoneme.
const EOS: char = '$';
/// Clause punctuation that ends a sentence.
const SENTENCE_END: [char; 3] = ['.', '?', '!'];

/// A Piper voice that could not be loaded or could not speak.
#[derive(Debug, thiserror::Error)]
pub enum PiperError {
    /// The model or configuration file is not there.
    #[error("Piper voice file {path} not found (run models/fetch)")]
    NotFound {
        /// The file.
        path: PathBuf,
    },
    /// The configuration file could not be read.
    #[error("Piper voice configuration {path} could not be read: {source}")]
    ConfigIo {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The configuration file is larger than any Piper configuration.
    #[error("Piper voice configuration {path} is larger than {max_bytes} bytes")]
    ConfigTooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        max_bytes: u64,
    },
    /// The configuration file is not the JSON of a Piper configuration.
    #[error("Piper voice configuration {path} is not valid JSON: {source}")]
    ConfigJson {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        source: serde_json::Error,
    },
    /// The configuration parses but lacks something the voice needs.
    #[error("Piper voice configuration {path}: {problem}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is missing or wrong.
        problem: String,
    },
    /// ONNX Runtime could not load the model.
    #[error("Piper voice model {path}: {source}")]
    Model {
        /// The file.
        path: PathBuf,
        /// What the engine said.
        source: Box<EngineError>,
    },
    /// The model does not have the inputs or output of a Piper voice.
    #[error("Piper voice model {path}: {problem}")]
    ModelInputs {
        /// The file.
        path: PathBuf,
        /// What is missing or of the wrong type.
        problem: String,
    },
    /// The model failed while running.
    #[error("Piper voice model {path}: synthesis failed: {reason}")]
    Run {
        /// The file.
        path: PathBuf,
        /// What ONNX Runtime said.
        reason: String,
    },
    /// The text is longer than [`MAX_TEXT_CHARS`].
    #[error("Piper: a text of {chars} characters is longer than the {max} accepted")]
    TextTooLong {
        /// The text's length in characters.
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// A scale is not a finite number in its range.
    #[error("Piper: {scale} = {value} is outside {min}..={max}")]
    Scale {
        /// Which scale.
        scale: &'static str,
        /// The rejected value.
        value: f32,
        /// Smallest accepted value.
        min: f32,
        /// Largest accepted value.
        max: f32,
    },
    /// eSpeak NG could not phonemise the text.
    #[error("Piper: phonemes: {0}")]
    Phonemes(#[from] TtsError),
}

/// The three scales of a Piper (VITS) voice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PiperScales {
    /// Noise in the sound (`noise_scale`; 0: none).
    pub noise: f32,
    /// Phoneme durations (`length_scale`; above 1 is slower).
    pub length: f32,
    /// Noise in the durations (`noise_w`; 0: none).
    pub noise_w: f32,
}

impl PiperScales {
    /// The voice's own defaults (its configuration's `inference` section).
    pub fn from_config(config: &PiperConfig) -> Self {
        config.scales
    }

    /// No noise and the natural length: the same text gives the same samples on every run.
    pub fn deterministic() -> Self {
        Self {
            noise: 0.0,
            length: 1.0,
            noise_w: 0.0,
        }
    }

    /// These scales with the durations scaled by `factor` (above 1 is slower).
    pub fn with_length_factor(self, factor: f32) -> Self {
        Self {
            length: self.length * factor,
            ..self
        }
    }

    fn check(self) -> Result<Self, PiperError> {
        for (scale, value, min, max) in [
            ("noise", self.noise, 0.0, 2.0),
            ("length", self.length, 0.05, 20.0),
            ("noise_w", self.noise_w, 0.0, 2.0),
        ] {
            if !(value.is_finite() && (min..=max).contains(&value)) {
                return Err(PiperError::Scale {
                    scale,
                    value,
                    min,
                    max,
                });
            }
        }
        Ok(self)
    }
}

/// What vista uses of a voice's `.onnx.json` configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PiperConfig {
    /// Output sample rate (`audio.sample_rate`).
    pub sample_rate_hz: u32,
    /// The eSpeak NG voice that phonemises for it (`espeak.voice`; `en-us` when absent).
    pub espeak_voice: String,
    /// The default scales (`inference`; Piper's 0.667, 1, 0.8 for those absent).
    pub scales: PiperScales,
    /// Phoneme (one codepoint) to ids (`phoneme_id_map`), with `_`, `^` and `$`.
    pub phoneme_ids: HashMap<char, Vec<i64>>,
}

/// The configuration file as written by Piper's training (only the fields used).
#[derive(serde::Deserialize)]
struct ConfigFile {
    audio: Option<AudioSection>,
    espeak: Option<EspeakSection>,
    inference: Option<InferenceSection>,
    phoneme_id_map: Option<HashMap<String, Vec<i64>>>,
}

#[derive(serde::Deserialize)]
struct AudioSection {
    sample_rate: Option<u32>,
}

#[derive(serde::Deserialize)]
struct EspeakSection {
    voice: Option<String>,
}

#[derive(serde::Deserialize)]
struct InferenceSection {
    noise_scale: Option<f32>,
    length_scale: Option<f32>,
    noise_w: Option<f32>,
}

impl PiperConfig {
    /// Reads and checks `path` (at most 1 MB of JSON).
    pub fn load(path: &Path) -> Result<Self, PiperError> {
        let file = std::fs::File::open(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                PiperError::NotFound {
                    path: path.to_path_buf(),
                }
            } else {
                PiperError::ConfigIo {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
        let mut bytes = Vec::new();
        file.take(MAX_CONFIG_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| PiperError::ConfigIo {
                path: path.to_path_buf(),
                source,
            })?;
        if bytes.len() as u64 > MAX_CONFIG_BYTES {
            return Err(PiperError::ConfigTooLarge {
                path: path.to_path_buf(),
                max_bytes: MAX_CONFIG_BYTES,
            });
        }
        Self::parse(path, &bytes)
    }

    /// Parses and checks the JSON `bytes` of the configuration file `path`.
    fn parse(path: &Path, bytes: &[u8]) -> Result<Self, PiperError> {
        let file: ConfigFile =
            serde_json::from_slice(bytes).map_err(|source| PiperError::ConfigJson {
                path: path.to_path_buf(),
                source,
            })?;
        let problem = |problem: String| PiperError::Config {
            path: path.to_path_buf(),
            problem,
        };
        let sample_rate_hz = file
            .audio
            .and_then(|a| a.sample_rate)
            .ok_or_else(|| problem("no audio.sample_rate".into()))?;
        if !(8_000..=96_000).contains(&sample_rate_hz) {
            return Err(problem(format!(
                "audio.sample_rate {sample_rate_hz} is outside 8000..=96000"
            )));
        }
        let map = file
            .phoneme_id_map
            .ok_or_else(|| problem("no phoneme_id_map".into()))?;
        let mut phoneme_ids = HashMap::with_capacity(map.len());
        for (phoneme, ids) in map {
            let mut chars = phoneme.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => {
                    phoneme_ids.insert(c, ids);
                }
                _ => {
                    return Err(problem(format!(
                        "phoneme_id_map key {phoneme:?} is not one codepoint"
                    )))
                }
            }
        }
        for special in [PAD, BOS, EOS] {
            if phoneme_ids.get(&special).is_none_or(Vec::is_empty) {
                return Err(problem(format!("phoneme_id_map has no id for {special:?}")));
            }
        }
        let inference = file.inference;
        let scale = |pick: fn(&InferenceSection) -> Option<f32>, default: f32| {
            inference.as_ref().and_then(pick).unwrap_or(default)
        };
        let scales = PiperScales {
            noise: scale(|i| i.noise_scale, 0.667),
            length: scale(|i| i.length_scale, 1.0),
            noise_w: scale(|i| i.noise_w, 0.8),
        }
        .check()
        .map_err(|e| problem(format!("inference: {e}")))?;
        Ok(Self {
            sample_rate_hz,
            espeak_voice: file
                .espeak
                .and_then(|e| e.voice)
                .unwrap_or_else(|| "en-us".to_string()),
            scales,
            phoneme_ids,
        })
    }
}

/// Phoneme ids for one sentence, and the phonemes the map lacked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhonemeIds {
    /// `^ _ p1 _ p2 _ … pn _ $` as ids.
    pub ids: Vec<i64>,
    /// Codepoints of the phonemes that have no id (left out).
    pub skipped: usize,
}

/// The ids of `phonemes` (one phoneme per codepoint) as Piper's `phonemes_to_ids` writes
/// them: the ids of `^` and `_`, then each phoneme's ids followed by `_`'s, then `$`'s.
/// Codepoints the map lacks are left out and counted.
pub fn phoneme_ids(phonemes: &str, map: &HashMap<char, Vec<i64>>) -> PhonemeIds {
    let id_of = |c: char| map.get(&c).map(Vec::as_slice).unwrap_or(&[]);
    let mut out = PhonemeIds {
        ids: Vec::with_capacity(2 * phonemes.len() + 3),
        skipped: 0,
    };
    out.ids.extend_from_slice(id_of(BOS));
    out.ids.extend_from_slice(id_of(PAD));
    for c in phonemes.chars() {
        match map.get(&c) {
            Some(ids) => {
                out.ids.extend_from_slice(ids);
                out.ids.extend_from_slice(id_of(PAD));
            }
            None => out.skipped += 1,
        }
    }
    out.ids.extend_from_slice(id_of(EOS));
    out
}

/// One clause of a text: its words and the punctuation that ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextClause<'a> {
    /// The clause without its terminal punctuation, trimmed.
    pub text: &'a str,
    /// `.`, `?`, `!`, `,`, `:` or `;` (an ellipsis counts as `.`, a dash as `,`); `None`
    /// at the end of a text without punctuation.
    pub terminator: Option<char>,
}

impl TextClause<'_> {
    /// Whether the clause ends a sentence (`.`, `?`, `!`, or the end of the text).
    pub fn ends_sentence(&self) -> bool {
        self.terminator.is_none_or(|t| SENTENCE_END.contains(&t))
    }
}

/// Piper's clause punctuation for a character of the text, if it is one.
fn terminator_of(c: char) -> Option<char> {
    match c {
        '.' | '?' | '!' | ',' | ':' | ';' => Some(c),
        '…' => Some('.'),
        '—' | '–' => Some(','),
        _ => None,
    }
}

/// Closing quotes and brackets that may follow a clause's punctuation.
fn is_closing(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '}' | '”' | '’' | '»')
}

/// Cuts `text` into clauses where eSpeak NG (and so Piper) would: after a run of clause
/// punctuation (and any closing quotes or brackets) followed by white space or the end of
/// the text; `3.5` or `3–5` are not cut. The run's last mark is the terminator. Clauses
/// with no words (punctuation alone) are dropped.
pub fn split_clauses(text: &str) -> Vec<TextClause<'_>> {
    let mut clauses = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let Some(mut terminator) = terminator_of(c) else {
            continue;
        };
        let mut end = i + c.len_utf8();
        // The whole punctuation run, then closing quotes and brackets.
        while let Some(&(j, d)) = chars.peek() {
            if let Some(t) = terminator_of(d) {
                terminator = t;
            } else if !is_closing(d) {
                break;
            }
            end = j + d.len_utf8();
            chars.next();
        }
        if !chars.peek().is_none_or(|&(_, d)| d.is_whitespace()) {
            continue;
        }
        let words = text
            .get(start..i)
            .unwrap_or("")
            .trim_matches(|ch: char| ch.is_whitespace() || terminator_of(ch).is_some());
        if words.chars().any(char::is_alphanumeric) {
            clauses.push(TextClause {
                text: words,
                terminator: Some(terminator),
            });
        }
        start = end;
    }
    let rest = text.get(start..).unwrap_or("").trim();
    if rest.chars().any(char::is_alphanumeric) {
        clauses.push(TextClause {
            text: rest,
            terminator: None,
        });
    }
    clauses
}

/// eSpeak NG's language-switch marks, e.g. `(fr)` … `(en)`, which are no phonemes.
fn strip_language_flags(phonemes: &str) -> String {
    let mut out = String::with_capacity(phonemes.len());
    let mut depth = 0usize;
    for c in phonemes.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A loaded Piper voice. Synthesis runs on the caller's thread (one ONNX Runtime session);
/// phonemisation on eSpeak NG's engine thread.
pub struct PiperVoice {
    model: PathBuf,
    config: PiperConfig,
    session: Session,
    /// The model's audio output.
    output: String,
    /// Whether the model takes a speaker id (`sid`; multi-speaker voices).
    takes_speaker: bool,
    tts: Tts,
    skipped: u64,
}

impl std::fmt::Debug for PiperVoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PiperVoice")
            .field("model", &self.model)
            .field("sample_rate_hz", &self.config.sample_rate_hz)
            .field("espeak_voice", &self.config.espeak_voice)
            .finish()
    }
}

impl PiperVoice {
    /// Loads the voice `models/fetch` provides (`en_US-joe-medium`).
    pub fn load_default() -> Result<Self, PiperError> {
        Self::load(
            &ModelFile::PiperVoice.path(),
            &ModelFile::PiperVoiceConfig.path(),
        )
    }

    /// Loads `model` (ONNX) with its configuration `config` (`.onnx.json`), inference on one
    /// thread.
    pub fn load(model: &Path, config: &Path) -> Result<Self, PiperError> {
        Self::load_with(model, config, OrtOptions::default())
    }

    /// [`Self::load`] with ONNX Runtime options (threads).
    pub fn load_with(model: &Path, config: &Path, options: OrtOptions) -> Result<Self, PiperError> {
        let config = PiperConfig::load(config)?;
        let session = build_session(model, options).map_err(|source| match source {
            EngineError::NotFound { path } => PiperError::NotFound { path },
            source => PiperError::Model {
                path: model.to_path_buf(),
                source: Box::new(source),
            },
        })?;
        let (output, takes_speaker) = check_model(model, &session)?;
        let tts = Tts::new(VoiceParams {
            voice: config.espeak_voice.clone(),
            ..VoiceParams::default()
        })?;
        // An unknown eSpeak NG voice fails here rather than at the first sentence.
        tts.phonemes("")?;
        Ok(Self {
            model: model.to_path_buf(),
            config,
            session,
            output,
            takes_speaker,
            tts,
            skipped: 0,
        })
    }

    /// The output sample rate (mono, signed 16-bit).
    pub fn sample_rate_hz(&self) -> u32 {
        self.config.sample_rate_hz
    }

    /// The voice's configuration.
    pub fn config(&self) -> &PiperConfig {
        &self.config
    }

    /// Phoneme codepoints left out so far because the voice has no id for them.
    pub fn skipped_phonemes(&self) -> u64 {
        self.skipped
    }

    /// The phonemes of `text`, one string per sentence (clauses with their punctuation,
    /// joined by spaces), as the model will read them.
    pub fn phonemize(&self, text: &str) -> Result<Vec<String>, PiperError> {
        let mut sentences = Vec::new();
        let mut sentence = String::new();
        for clause in split_clauses(text) {
            let phonemes = strip_language_flags(&self.tts.phonemes(clause.text)?.join(" "));
            let phonemes = phonemes.trim();
            if !phonemes.is_empty() {
                sentence.push_str(phonemes);
                if let Some(t) = clause.terminator {
                    sentence.push(t);
                }
            }
            if clause.ends_sentence() {
                let done = std::mem::take(&mut sentence);
                let done = done.trim_end();
                if !done.is_empty() {
                    sentences.push(done.to_string());
                }
            } else if !sentence.is_empty() {
                sentence.push(' ');
            }
        }
        let rest = sentence.trim_end();
        if !rest.is_empty() {
            sentences.push(rest.to_string());
        }
        Ok(sentences)
    }

    /// Speaks `text` (at most [`MAX_TEXT_CHARS`] characters): one inference per sentence,
    /// sentences 0.2 s apart, samples clamped to 16 bits. A text without words gives no
    /// samples.
    pub fn synthesize(&mut self, text: &str, scales: PiperScales) -> Result<Vec<i16>, PiperError> {
        let chars = text.chars().count();
        if chars > MAX_TEXT_CHARS {
            return Err(PiperError::TextTooLong {
                chars,
                max: MAX_TEXT_CHARS,
            });
        }
        let scales = scales.check()?;
        let gap = (SENTENCE_SILENCE_S * f64::from(self.config.sample_rate_hz)).round() as usize;
        let mut audio = Vec::new();
        for (n, sentence) in self.phonemize(text)?.iter().enumerate() {
            let ids = phoneme_ids(sentence, &self.config.phoneme_ids);
            if ids.skipped > 0 {
                log::debug!(
                    "piper: {} phoneme(s) without an id in {sentence:?}",
                    ids.skipped
                );
                self.skipped += ids.skipped as u64;
            }
            if n > 0 {
                audio.resize(audio.len() + gap, 0);
            }
            self.infer(&ids.ids, scales, &mut audio)?;
        }
        Ok(audio)
    }

    /// Runs the model on one sentence's ids, appending its samples to `audio`.
    fn infer(
        &mut self,
        ids: &[i64],
        scales: PiperScales,
        audio: &mut Vec<i16>,
    ) -> Result<(), PiperError> {
        let path = self.model.clone();
        let err = |reason: String| PiperError::Run {
            path: path.clone(),
            reason,
        };
        let n = ids.len();
        let input =
            Tensor::from_array(([1usize, n], ids.to_vec())).map_err(|e| err(e.to_string()))?;
        let lengths =
            Tensor::from_array(([1usize], vec![n as i64])).map_err(|e| err(e.to_string()))?;
        let scale_values = vec![scales.noise, scales.length, scales.noise_w];
        let scales =
            Tensor::from_array(([3usize], scale_values)).map_err(|e| err(e.to_string()))?;
        let mut values: Vec<(&str, SessionInputValue<'_>)> = vec![
            ("input", input.into()),
            ("input_lengths", lengths.into()),
            ("scales", scales.into()),
        ];
        if self.takes_speaker {
            let sid = Tensor::from_array(([1usize], vec![0i64])).map_err(|e| err(e.to_string()))?;
            values.push(("sid", sid.into()));
        }
        let outs = self.session.run(values).map_err(|e| err(e.to_string()))?;
        let Some(out) = outs.get(self.output.as_str()) else {
            return Err(err(format!("output `{}` not produced", self.output)));
        };
        let (_, samples) = out
            .try_extract_tensor::<f32>()
            .map_err(|e| err(e.to_string()))?;
        audio.reserve(samples.len());
        audio.extend(samples.iter().map(|&s| to_i16(s)));
        Ok(())
    }
}

/// A float sample in about [-1, 1] as 16 bits, clamped (NaN is silence).
fn to_i16(s: f32) -> i16 {
    if s.is_nan() {
        0
    } else {
        (s.clamp(-1.0, 1.0) * 32767.0).round() as i16
    }
}

/// Checks the model declares Piper's inputs (`input` and `input_lengths` int64, `scales`
/// float, optionally `sid` int64) and a float output; returns the output's name and whether
/// it takes a speaker id.
fn check_model(path: &Path, session: &Session) -> Result<(String, bool), PiperError> {
    let problem = |problem: String| PiperError::ModelInputs {
        path: path.to_path_buf(),
        problem,
    };
    let inputs: Vec<_> = session
        .inputs()
        .iter()
        .map(|o| spec(o.name(), o.dtype()))
        .collect();
    for (name, dtype) in [
        ("input", ElemType::I64),
        ("input_lengths", ElemType::I64),
        ("scales", ElemType::F32),
    ] {
        match inputs.iter().find(|s| s.name == name) {
            Some(s) if s.dtype == dtype => {}
            Some(s) => {
                return Err(problem(format!(
                    "input `{name}` is {:?}, not {dtype:?}",
                    s.dtype
                )))
            }
            None => {
                let declared: Vec<&str> = inputs.iter().map(|s| s.name.as_str()).collect();
                return Err(problem(format!(
                    "no input `{name}` (a Piper voice takes input, input_lengths and scales; \
                     this model takes {declared:?})"
                )));
            }
        }
    }
    let takes_speaker = inputs.iter().any(|s| s.name == "sid");
    if let Some(other) = inputs.iter().find(|s| {
        !matches!(
            s.name.as_str(),
            "input" | "input_lengths" | "scales" | "sid"
        )
    }) {
        return Err(problem(format!("unexpected input `{}`", other.name)));
    }
    let output = session
        .outputs()
        .iter()
        .map(|o| spec(o.name(), o.dtype()))
        .find(|s| s.dtype == ElemType::F32)
        .ok_or_else(|| problem("no float output".into()))?;
    Ok((output.name, takes_speaker))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> HashMap<char, Vec<i64>> {
        [
            ('_', 0),
            ('^', 1),
            ('$', 2),
            (' ', 3),
            ('?', 13),
            ('a', 14),
            ('ˈ', 120),
        ]
        .into_iter()
        .map(|(c, id)| (c, vec![id]))
        .collect()
    }

    #[test]
    fn ids_are_bos_pad_then_each_phoneme_and_a_pad_then_eos() {
        let ids = phoneme_ids("ˈa a?", &map());
        assert_eq!(
            ids.ids,
            vec![1, 0, 120, 0, 14, 0, 3, 0, 14, 0, 13, 0, 2],
            "^ _ ˈ _ a _ ' ' _ a _ ? _ $"
        );
        assert_eq!(ids.skipped, 0);
    }

    #[test]
    fn unknown_codepoints_are_skipped_and_counted() {
        let ids = phoneme_ids("aXa\u{301}", &map());
        assert_eq!(ids.ids, vec![1, 0, 14, 0, 14, 0, 2]);
        assert_eq!(ids.skipped, 2);
    }

    #[test]
    fn an_empty_text_is_bos_pad_eos() {
        assert_eq!(phoneme_ids("", &map()).ids, vec![1, 0, 2]);
    }

    #[test]
    fn a_phoneme_with_several_ids_keeps_them_all() {
        let mut m = map();
        m.insert('b', vec![7, 8]);
        assert_eq!(phoneme_ids("b", &m).ids, vec![1, 0, 7, 8, 0, 2]);
    }

    fn clauses(text: &str) -> Vec<(&str, Option<char>)> {
        split_clauses(text)
            .into_iter()
            .map(|c| (c.text, c.terminator))
            .collect()
    }

    #[test]
    fn clauses_end_at_punctuation_before_a_space() {
        assert_eq!(
            clauses("Where is the car? I think, it is near 3.5 doors; go: now!"),
            vec![
                ("Where is the car", Some('?')),
                ("I think", Some(',')),
                ("it is near 3.5 doors", Some(';')),
                ("go", Some(':')),
                ("now", Some('!')),
            ]
        );
        assert_eq!(clauses("Hello world"), vec![("Hello world", None)]);
        assert_eq!(clauses("  "), vec![]);
        assert_eq!(clauses("!!!"), vec![]);
    }

    #[test]
    fn a_run_of_marks_and_closing_quotes_is_one_terminator() {
        assert_eq!(
            clauses("He said \"stop.\" Really?! Wait... ok…"),
            vec![
                ("He said \"stop", Some('.')),
                ("Really", Some('!')),
                ("Wait", Some('.')),
                ("ok", Some('.')),
            ]
        );
        assert_eq!(
            clauses("left — then pages 3–5"),
            vec![("left", Some(',')), ("then pages 3–5", None)]
        );
    }

    #[test]
    fn sentences_end_at_full_stops_and_the_end_of_the_text() {
        let ends: Vec<bool> = split_clauses("a, b. c? d! e: f")
            .iter()
            .map(TextClause::ends_sentence)
            .collect();
        assert_eq!(ends, vec![false, true, true, true, false, true]);
    }

    #[test]
    fn language_flags_are_removed() {
        assert_eq!(strip_language_flags("(fr)bɔ̃ʒuʁ(en) hˈaɪ"), "bɔ̃ʒuʁ hˈaɪ");
    }

    #[test]
    fn samples_are_clamped() {
        assert_eq!(to_i16(2.0), 32767);
        assert_eq!(to_i16(-2.0), -32767);
        assert_eq!(to_i16(0.5), 16384);
        assert_eq!(to_i16(f32::NAN), 0);
    }

    fn parse(json: &str) -> Result<PiperConfig, PiperError> {
        PiperConfig::parse(Path::new("voice.onnx.json"), json.as_bytes())
    }

    #[test]
    fn a_config_gives_rate_voice_scales_and_map() {
        let c = parse(
            r#"{"audio":{"sample_rate":22050},"espeak":{"voice":"en-gb"},
                "inference":{"noise_scale":0.5,"length_scale":1.2,"noise_w":0.7},
                "phoneme_id_map":{"_":[0],"^":[1],"$":[2],"a":[14]}}"#,
        )
        .unwrap();
        assert_eq!(c.sample_rate_hz, 22_050);
        assert_eq!(c.espeak_voice, "en-gb");
        assert_eq!(
            PiperScales::from_config(&c),
            PiperScales {
                noise: 0.5,
                length: 1.2,
                noise_w: 0.7
            }
        );
        assert_eq!(c.phoneme_ids.get(&'a'), Some(&vec![14]));
    }

    #[test]
    fn a_config_without_what_the_voice_needs_is_a_clear_error() {
        let map = r#""phoneme_id_map":{"_":[0],"^":[1],"$":[2]}"#;
        let e = parse(&format!("{{{map}}}")).unwrap_err();
        assert!(e.to_string().contains("audio.sample_rate"), "{e}");
        let e = parse(r#"{"audio":{"sample_rate":22050}}"#).unwrap_err();
        assert!(e.to_string().contains("phoneme_id_map"), "{e}");
        let e = parse(r#"{"audio":{"sample_rate":22050},"phoneme_id_map":{"_":[0],"^":[1]}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("'$'"), "{e}");
        let e = parse(
            r#"{"audio":{"sample_rate":22050},
                "phoneme_id_map":{"ab":[5],"_":[0],"^":[1],"$":[2]}}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("one codepoint"), "{e}");
        let e = parse("{not json").unwrap_err();
        assert!(matches!(e, PiperError::ConfigJson { .. }), "{e}");
        assert!(e.to_string().contains("voice.onnx.json"), "{e}");
    }

    #[test]
    fn scales_out_of_range_are_refused() {
        let bad = PiperScales {
            length: 0.0,
            ..PiperScales::deterministic()
        };
        assert!(matches!(
            bad.check(),
            Err(PiperError::Scale {
                scale: "length",
                ..
            })
        ));
        let nan = PiperScales {
            noise: f32::NAN,
            ..PiperScales::deterministic()
        };
        assert!(nan.check().is_err());
        assert!(PiperScales::deterministic().check().is_ok());
        assert_eq!(
            PiperScales::deterministic().with_length_factor(2.0).length,
            2.0
        );
    }

    #[test]
    fn a_config_larger_than_the_cap_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.onnx.json");
        std::fs::write(&p, vec![b' '; (MAX_CONFIG_BYTES + 10) as usize]).unwrap();
        assert!(matches!(
            PiperConfig::load(&p),
            Err(PiperError::ConfigTooLarge { .. })
        ));
        assert!(matches!(
            PiperConfig::load(&dir.path().join("none.json")),
            Err(PiperError::NotFound { .. })
        ));
    }
}
