//! Spoken requests as a yardstick for hearing: a file of what wearers say
//! (`tests/data/spoken/requests.tsv`: category, split, text), each spoken by a voice, set in
//! room noise at a chosen signal-to-noise ratio with silence around it, listened to as a
//! stream, and scored as word error rate per split and category.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::addressing::{Addressed, Addressing, Wake};
use super::error::ListenError;
use super::listener::{Heard, ListenConfig, Outcome};
use super::moonshine::Recogniser;
use super::resample::to_16k;
use super::vad::VoiceActivity;
use super::wer::{word_errors, WordErrors};

/// Largest requests file read, bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Silence before and after each request, seconds.
const PAD_S: f64 = 0.8;

/// One line of the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpokenRequest {
    /// What kind of request it is (hazard, object_location, text, navigation, …).
    pub category: String,
    /// `dev` or `held` (kept out of tuning).
    pub split: String,
    /// What is said.
    pub text: String,
}

/// Reads a requests file (`#` lines and blank lines skipped; a bad line is an error naming
/// its number).
pub fn read_spoken(path: &Path) -> Result<Vec<SpokenRequest>, ListenError> {
    let bad = |reason: String| ListenError::Audio {
        path: path.to_path_buf(),
        reason,
    };
    let len = std::fs::metadata(path)
        .map_err(|e| bad(e.to_string()))?
        .len();
    if len > MAX_FILE_BYTES {
        return Err(bad(format!("{len} bytes; a requests file is under 1 MB")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split('\t');
        match (cols.next(), cols.next(), cols.next(), cols.next()) {
            (Some(c), Some(s), Some(t), None) if !t.trim().is_empty() => {
                if s != "dev" && s != "held" {
                    return Err(bad(format!(
                        "line {}: split `{s}` is not dev or held",
                        i + 1
                    )));
                }
                out.push(SpokenRequest {
                    category: c.to_string(),
                    split: s.to_string(),
                    text: t.trim().to_string(),
                });
            }
            _ => {
                return Err(bad(format!(
                    "line {}: not category<TAB>split<TAB>text",
                    i + 1
                )))
            }
        }
    }
    Ok(out)
}

/// How one request was heard.
#[derive(Clone, Debug, Serialize)]
pub struct SpokenResult {
    /// The request.
    #[serde(flatten)]
    pub request: SpokenRequest,
    /// The text heard (utterances joined), empty when none.
    pub heard: String,
    /// Utterances the listener made of it.
    pub utterances: usize,
    /// Utterances not caught.
    pub not_caught: usize,
    /// Word edits.
    pub errors: WordErrors,
    /// End of voice to text, ms, of the last utterance.
    pub end_to_text_ms: Option<f64>,
    /// Each utterance's mean token log-probability (what "not caught" is judged by).
    pub mean_logprobs: Vec<f32>,
    /// Each utterance's outcome and recognised text (a guess, where not caught).
    pub utterance_texts: Vec<(super::listener::Outcome, String)>,
    /// With a wake phrase: what the request said after it was to the assistant (a request,
    /// when the phrase was heard as one; its text is what `heard` and `errors` score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub called: Option<Addressed>,
    /// With a wake phrase: what the same words said without it were (not said to the
    /// assistant, unless a false wake).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plain: Option<Addressed>,
}

/// Totals of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SpokenTotals {
    /// Requests.
    pub requests: usize,
    /// Requests heard exactly (no word edits).
    pub exact: usize,
    /// Requests heard as more than one utterance, or as none.
    pub split_or_missed: usize,
    /// Word edits over words.
    pub errors: WordErrors,
    /// With a wake phrase: requests said after it that were taken as requests.
    pub called: usize,
    /// With a wake phrase: the same words said without it that were taken as said to the
    /// assistant (false wakes).
    pub false_wakes: usize,
}

impl SpokenTotals {
    fn add(&mut self, r: &SpokenResult) {
        self.requests += 1;
        self.exact += usize::from(r.errors.edits == 0);
        self.split_or_missed += usize::from(r.utterances != 1 || r.not_caught > 0);
        self.errors = self.errors.plus(r.errors);
        self.called += usize::from(matches!(r.called, Some(Addressed::Request { .. })));
        self.false_wakes += usize::from(
            r.plain
                .as_ref()
                .is_some_and(|p| *p != Addressed::NotAddressed),
        );
    }
}

/// Deterministic room noise (low-passed xorshift noise), RMS 1.
fn room_noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    let mut lp = 0.0f32;
    let raw: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let w = (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0;
            lp += 0.15 * (w - lp);
            lp
        })
        .collect();
    let rms = (raw.iter().map(|v| v * v).sum::<f32>() / n.max(1) as f32).sqrt();
    raw.iter().map(|v| v / rms.max(1e-9)).collect()
}

/// `speech` (16 kHz) with [`PAD_S`] of silence around it and room noise `snr_db` below the
/// speech's level (`None`: no noise).
pub fn in_room(speech: &[f32], snr_db: Option<f32>, seed: u64) -> Vec<f32> {
    let pad = (PAD_S * 16_000.0) as usize;
    let mut out = vec![0.0f32; pad];
    out.extend_from_slice(speech);
    out.extend(std::iter::repeat_n(0.0, pad));
    if let Some(snr) = snr_db {
        let voiced: Vec<f32> = speech.iter().copied().filter(|v| v.abs() > 1e-3).collect();
        let rms = (voiced.iter().map(|v| v * v).sum::<f32>() / voiced.len().max(1) as f32).sqrt();
        let level = rms / 10f32.powf(snr / 20.0);
        let noise = room_noise(out.len(), seed);
        for (o, n) in out.iter_mut().zip(noise) {
            *o = (*o + n * level).clamp(-1.0, 1.0);
        }
    }
    out
}

/// Speaks each request with `speak` (text → 16-bit samples at a rate), sets it in the room,
/// listens with fresh models from `models`, and scores it. With `wake`, each request is said
/// after the wake phrase (its text after the phrase is scored) and once more without it (to
/// count false wakes).
pub fn run_spoken<V, R>(
    requests: &[SpokenRequest],
    mut speak: impl FnMut(&str) -> Result<(Vec<i16>, u32), String>,
    mut models: impl FnMut() -> Result<(V, R), ListenError>,
    config: ListenConfig,
    snr_db: Option<f32>,
    wake: Option<&Wake>,
) -> Result<Vec<SpokenResult>, ListenError>
where
    V: VoiceActivity,
    R: Recogniser,
{
    let mut hear = |text: &str, seed: u64| -> Result<Vec<Heard>, ListenError> {
        let (pcm, rate) = speak(text).map_err(|reason| ListenError::Audio {
            path: format!("speaking {text:?}").into(),
            reason,
        })?;
        let x: Vec<f32> = pcm.iter().map(|&v| f32::from(v) / 32_768.0).collect();
        let speech = to_16k(&x, rate)?;
        let audio = in_room(&speech, snr_db, seed);
        let (vad, asr) = models()?;
        Ok(super::clip::hear_clip(&audio, vad, asr, config)?.heard)
    };
    // Each utterance as the assistant takes it, fresh (no conversation open).
    let addressed = |wake: &Wake, heard: &[Heard]| -> Addressed {
        let texts: Vec<&str> = heard.iter().filter_map(|h| h.text()).collect();
        let caught = heard.iter().all(|h| h.outcome == Outcome::Text);
        Addressing::new(wake.clone()).hear(&texts.join(" "), caught, 0, 1)
    };
    let mut out = Vec::with_capacity(requests.len());
    for (i, r) in requests.iter().enumerate() {
        let seed = 0x5eed + i as u64;
        let said = match wake.and_then(Wake::spoken) {
            Some(phrase) => format!("{phrase}, {}", r.text),
            None => r.text.clone(),
        };
        let heard = hear(&said, seed)?;
        let texts: Vec<&str> = heard.iter().filter_map(|h| h.text()).collect();
        let mut joined = texts.join(" ");
        let (mut called, mut plain) = (None, None);
        if let Some(w) = wake {
            let a = addressed(w, &heard);
            if let Addressed::Request { text } = &a {
                joined.clone_from(text);
            }
            called = Some(a);
            plain = Some(addressed(w, &hear(&r.text, seed)?));
        }
        out.push(SpokenResult {
            request: r.clone(),
            errors: word_errors(&r.text, &joined),
            called,
            plain,
            heard: joined,
            utterances: heard.len(),
            not_caught: heard
                .iter()
                .filter(|h| matches!(h.outcome, Outcome::NotCaught { .. }))
                .count(),
            end_to_text_ms: heard.last().map(|h| h.end_to_text_ms()),
            mean_logprobs: heard.iter().map(|h| h.recognised.mean_logprob).collect(),
            utterance_texts: heard
                .iter()
                .map(|h| (h.outcome.clone(), h.recognised.text.clone()))
                .collect(),
        });
    }
    Ok(out)
}

/// Totals by split (`all`, `dev`, `held`) and by category.
pub fn totals(results: &[SpokenResult]) -> BTreeMap<String, SpokenTotals> {
    let mut t: BTreeMap<String, SpokenTotals> = BTreeMap::new();
    for r in results {
        t.entry("all".into()).or_default().add(r);
        t.entry(format!("split {}", r.request.split))
            .or_default()
            .add(r);
        t.entry(r.request.category.clone()).or_default().add(r);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_file_and_refuses_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.tsv");
        std::fs::write(&p, "# c\tsplit\ttext\n\nscene\tdev\tWhat's around me?\n").unwrap();
        let r = read_spoken(&p).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].text, "What's around me?");
        std::fs::write(&p, "scene\tlater\tWhat?\n").unwrap();
        assert!(read_spoken(&p).unwrap_err().to_string().contains("line 1"));
        std::fs::write(&p, "scene dev What?\n").unwrap();
        assert!(read_spoken(&p).unwrap_err().to_string().contains("line 1"));
    }

    #[test]
    fn the_room_sets_the_noise_level_by_the_speech_level() {
        let speech: Vec<f32> = (0..16_000).map(|i| 0.3 * (i as f32 * 0.1).sin()).collect();
        let room = in_room(&speech, Some(10.0), 1);
        assert_eq!(room.len(), 16_000 + 2 * 12_800);
        let noise_rms = (room[..12_800].iter().map(|v| v * v).sum::<f32>() / 12_800.0).sqrt();
        let speech_rms = 0.3 / 2f32.sqrt();
        let snr = 20.0 * (speech_rms / noise_rms).log10();
        assert!((snr - 10.0).abs() < 0.5, "{snr}");
        assert_eq!(in_room(&speech, None, 1)[..12_800], [0.0; 12_800]);
    }
}
