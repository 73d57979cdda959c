//! [`Moonshine`]: speech recognition with Moonshine base-en (MIT, the `moonshine-cpp` wheel)
//! on ONNX Runtime — the audio encoder once per utterance, then greedy decoding with the
//! merged decoder's key/value cache. A hint (the tokens recognised from the same utterance
//! while it was still being spoken) is checked in one decoder pass and the part the model
//! still agrees with is kept, so the text is ready soon after the wearer stops: decoding
//! costs one pass plus the tokens that changed, instead of one pass per token.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ort::session::{Session, SessionInputValue};
use ort::value::{DynValue, Tensor, TensorRef};

use super::error::ListenError;
use super::tokenizer::{Vocab, END_ID, START_ID};
use crate::infer::ModelFile;

/// Tokens allowed per second of audio (English speech runs about 3–4; Moonshine's own limit).
pub const TOKENS_PER_S: f64 = 6.5;
/// Most tokens in one utterance.
pub const MAX_TOKENS: usize = 160;
/// Shortest audio the encoder takes, samples (0.1 s).
pub const MIN_SAMPLES: usize = 1_600;
/// A run of the same n-gram (n ≤ 4) this many times over ends decoding (the model looping
/// on noise).
const MAX_REPEATS: usize = 4;
/// Heads and width of one cached key/value.
const HEADS: usize = 8;
const HEAD_DIM: usize = 52;

/// What was recognised in one stretch of audio.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Recognised {
    /// The text.
    pub text: String,
    /// Its tokens (without start and end).
    pub tokens: Vec<u32>,
    /// Mean log-probability of each token chosen, end of text included (0 is certain).
    pub mean_logprob: f32,
    /// Decoder passes run.
    pub passes: usize,
    /// Tokens of the hint kept.
    pub reused: usize,
    /// Decoding stopped at the length limit or on a loop, not at end of text.
    pub cut: bool,
    /// After a cut, the text was trimmed to its whole sentences, each said once (the model
    /// repeats itself on the noise after the words: "Where am I? Where am I").
    pub trimmed: bool,
    /// Encoder time, ms.
    pub encoder_ms: f64,
    /// Decoder time, ms.
    pub decoder_ms: f64,
}

/// Audio to text (the port the listener recognises through).
pub trait Recogniser {
    /// Recognises `audio` (16 kHz mono); `hint`: tokens recognised from an earlier part of
    /// the same utterance, checked and reused where the model agrees.
    fn recognise(&mut self, audio: &[f32], hint: &[u32]) -> Result<Recognised, ListenError>;
}

/// Where Moonshine's files are, and how many threads it runs on.
#[derive(Clone, Debug)]
pub struct MoonshineConfig {
    /// The encoder (`encoder_model.ort`).
    pub encoder: PathBuf,
    /// The merged decoder (`decoder_model_merged.ort`).
    pub decoder: PathBuf,
    /// The token pieces (`tokenizer.bin`).
    pub tokenizer: PathBuf,
    /// ONNX Runtime intra-op threads.
    pub threads: usize,
}

impl Default for MoonshineConfig {
    fn default() -> Self {
        Self {
            encoder: ModelFile::MoonshineEncoder.path(),
            decoder: ModelFile::MoonshineDecoder.path(),
            tokenizer: ModelFile::MoonshineTokenizer.path(),
            threads: 1,
        }
    }
}

/// The loaded recogniser.
pub struct Moonshine {
    encoder: Session,
    decoder: Session,
    vocab: Vocab,
    config: MoonshineConfig,
    /// `past_key_values.{l}.{decoder,encoder}.{key,value}` per layer, in that order.
    past_names: Vec<[String; 4]>,
    present_names: Vec<[String; 4]>,
}

impl std::fmt::Debug for Moonshine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Moonshine")
            .field("decoder", &self.config.decoder)
            .finish()
    }
}

/// One layer's cached key and value.
type KeyValue = [DynValue; 2];

/// The decoder's cache: per layer, its own keys and values (growing a position per pass)
/// and the encoder's (made by the first pass, then only read).
struct Cache {
    decoder: Vec<KeyValue>,
    encoder: Vec<KeyValue>,
}

impl Moonshine {
    /// Loads the three files; a missing or different file is an error naming it.
    pub fn load(config: &MoonshineConfig) -> Result<Self, ListenError> {
        let vocab = Vocab::load(&config.tokenizer)?;
        let encoder = super::session::open(&config.encoder, config.threads)?;
        super::session::require_inputs(&config.encoder, &encoder, &["input_values"])?;
        let decoder = super::session::open(&config.decoder, config.threads)?;
        super::session::require_inputs(
            &config.decoder,
            &decoder,
            &["input_ids", "encoder_hidden_states", "use_cache_branch"],
        )?;
        let layers = (0..64)
            .take_while(|l| {
                let name = format!("past_key_values.{l}.decoder.key");
                decoder.inputs().iter().any(|i| i.name() == name)
            })
            .count();
        if layers == 0 {
            return Err(ListenError::Model {
                path: config.decoder.clone(),
                what: "no key/value cache inputs: not a merged decoder".into(),
            });
        }
        let names = |prefix: &str| -> Vec<[String; 4]> {
            (0..layers)
                .map(|l| {
                    [
                        format!("{prefix}.{l}.decoder.key"),
                        format!("{prefix}.{l}.decoder.value"),
                        format!("{prefix}.{l}.encoder.key"),
                        format!("{prefix}.{l}.encoder.value"),
                    ]
                })
                .collect()
        };
        Ok(Self {
            encoder,
            decoder,
            vocab,
            config: config.clone(),
            past_names: names("past_key_values"),
            present_names: names("present"),
        })
    }

    /// Loads the files `models/fetch` put in the model cache.
    pub fn load_default() -> Result<Self, ListenError> {
        Self::load(&MoonshineConfig::default())
    }

    /// The token pieces.
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    fn err(path: &Path, what: impl std::fmt::Display) -> ListenError {
        ListenError::Model {
            path: path.to_path_buf(),
            what: what.to_string(),
        }
    }

    fn encode(&mut self, audio: &[f32]) -> Result<DynValue, ListenError> {
        let path = self.config.encoder.clone();
        let input = TensorRef::from_array_view(([1usize, audio.len()], audio))
            .map_err(|e| Self::err(&path, e))?;
        let mut outs = self
            .encoder
            .run(vec![("input_values", SessionInputValue::from(input))])
            .map_err(|e| Self::err(&path, e))?;
        outs.remove("last_hidden_state")
            .ok_or_else(|| Self::err(&path, "no output `last_hidden_state`"))
    }

    /// One decoder pass over `ids` after `cache` (none: the first pass). Returns, for each
    /// position, the best next token and its log-probability, and the new cache.
    fn pass(
        &mut self,
        hidden: &DynValue,
        ids: &[i64],
        cache: Option<Cache>,
    ) -> Result<(Vec<(u32, f32)>, Cache), ListenError> {
        let path = self.config.decoder.clone();
        let e = |x: &dyn std::fmt::Display| Self::err(&path, x);
        let empty: Vec<f32> = Vec::new();
        let layers = self.past_names.len();
        let mut values: Vec<(&str, SessionInputValue<'_>)> = Vec::with_capacity(3 + 4 * layers);
        let id_tensor =
            TensorRef::from_array_view(([1usize, ids.len()], ids)).map_err(|x| e(&x))?;
        values.push(("input_ids", id_tensor.into()));
        values.push(("encoder_hidden_states", SessionInputValue::from(hidden)));
        let flag = [cache.is_some()];
        let flag_tensor = TensorRef::from_array_view(([1usize], &flag[..])).map_err(|x| e(&x))?;
        values.push(("use_cache_branch", flag_tensor.into()));
        for (l, names) in self.past_names.iter().enumerate() {
            for (k, name) in names.iter().enumerate() {
                let cached = cache.as_ref().and_then(|c| {
                    if k < 2 {
                        c.decoder.get(l).map(|kv| &kv[k])
                    } else {
                        c.encoder.get(l).map(|kv| &kv[k - 2])
                    }
                });
                let v: SessionInputValue<'_> = match cached {
                    Some(c) => SessionInputValue::from(c),
                    None => TensorRef::from_array_view(([1usize, HEADS, 0, HEAD_DIM], &empty[..]))
                        .map_err(|x| e(&x))?
                        .into(),
                };
                values.push((name.as_str(), v));
            }
        }
        let mut outs = self.decoder.run(values).map_err(|x| e(&x))?;
        let best = {
            let (shape, logits) = outs["logits"]
                .try_extract_tensor::<f32>()
                .map_err(|x| e(&x))?;
            let vocab = usize::try_from(shape.last().copied().unwrap_or(0)).unwrap_or(0);
            if vocab == 0 || logits.len() != vocab * ids.len() {
                return Err(e(&format!(
                    "logits of shape {shape:?} for {} ids",
                    ids.len()
                )));
            }
            logits.chunks_exact(vocab).map(best_token).collect()
        };
        let mut take = |name: &String| {
            outs.remove(name)
                .ok_or_else(|| e(&format!("no output `{name}`")))
        };
        let mut decoder = Vec::with_capacity(layers);
        let mut encoder = Vec::with_capacity(layers);
        for names in &self.present_names {
            decoder.push([take(&names[0])?, take(&names[1])?]);
            if cache.is_none() {
                encoder.push([take(&names[2])?, take(&names[3])?]);
            }
        }
        // The encoder's keys and values are made on the first pass and then only passed
        // through: keep the first pass's.
        let encoder = match cache {
            Some(c) => c.encoder,
            None => encoder,
        };
        Ok((best, Cache { decoder, encoder }))
    }
}

/// The best token of one position's logits and its log-probability.
fn best_token(logits: &[f32]) -> (u32, f32) {
    let (mut best, mut max) = (0usize, f32::NEG_INFINITY);
    for (i, &v) in logits.iter().enumerate() {
        if v > max {
            (best, max) = (i, v);
        }
    }
    let sum: f64 = logits.iter().map(|&v| f64::from(v - max).exp()).sum();
    (best as u32, -(sum.ln() as f32))
}

/// The first `keep` positions of a cached decoder key or value `[1, heads, len, dim]`.
fn truncate(v: &DynValue, keep: usize, path: &Path) -> Result<DynValue, ListenError> {
    let e = |x: &dyn std::fmt::Display| Moonshine::err(path, x);
    let (shape, data) = v.try_extract_tensor::<f32>().map_err(|x| e(&x))?;
    let dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    let [1, heads, len, dim] = dims[..] else {
        return Err(e(&format!("cache of shape {dims:?}")));
    };
    let keep = keep.min(len);
    let mut out = Vec::with_capacity(heads * keep * dim);
    for h in 0..heads {
        let start = h * len * dim;
        out.extend_from_slice(&data[start..start + keep * dim]);
    }
    Tensor::from_array(([1usize, heads, keep, dim], out))
        .map(|t| t.into_dyn())
        .map_err(|x| e(&x))
}

/// The whole sentences of `tokens` (up to the last sentence end), a sentence said again
/// straight after itself dropped; empty when no sentence ended.
fn whole_sentences(tokens: &[u32], ends: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut sentences: Vec<&[u32]> = Vec::new();
    let mut start = 0;
    for (i, &t) in tokens.iter().enumerate() {
        if ends(t) {
            let s = &tokens[start..=i];
            if sentences.last() != Some(&s) {
                sentences.push(s);
            }
            start = i + 1;
        }
    }
    sentences.concat()
}

/// Whether `tokens` ends in one n-gram (n ≤ 4) said [`MAX_REPEATS`] times over.
fn looping(tokens: &[u32]) -> bool {
    (1..=4).any(|n| {
        let need = n * MAX_REPEATS;
        tokens.len() >= need && {
            let tail = &tokens[tokens.len() - need..];
            tail.chunks_exact(n).all(|c| c == &tail[..n])
        }
    })
}

impl Recogniser for Moonshine {
    fn recognise(&mut self, audio: &[f32], hint: &[u32]) -> Result<Recognised, ListenError> {
        let mut out = Recognised::default();
        if audio.len() < MIN_SAMPLES {
            return Ok(out);
        }
        let t0 = Instant::now();
        let hidden = self.encode(audio)?;
        out.encoder_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let seconds = audio.len() as f64 / f64::from(super::resample::RATE_HZ);
        let limit = ((seconds * TOKENS_PER_S).ceil() as usize).clamp(4, MAX_TOKENS);
        let hint = &hint[..hint.len().min(limit)];
        // First pass: start token and the hint, all at once.
        let ids: Vec<i64> = std::iter::once(START_ID)
            .chain(hint.iter().copied())
            .map(i64::from)
            .collect();
        let (best, mut cache) = self.pass(&hidden, &ids, None)?;
        out.passes = 1;
        let mut logprob_sum = 0.0f64;
        let mut kept = 0;
        while kept < hint.len() && best[kept].0 == hint[kept] {
            logprob_sum += f64::from(best[kept].1);
            kept += 1;
        }
        out.reused = kept;
        out.tokens.extend_from_slice(&hint[..kept]);
        if kept < hint.len() {
            let path = self.config.decoder.clone();
            for layer in &mut cache.decoder {
                layer[0] = truncate(&layer[0], 1 + kept, &path)?;
                layer[1] = truncate(&layer[1], 1 + kept, &path)?;
            }
        }
        let (mut next, mut lp) = best[kept];
        loop {
            logprob_sum += f64::from(lp);
            if next == END_ID {
                break;
            }
            out.tokens.push(next);
            if out.tokens.len() >= limit || looping(&out.tokens) {
                out.cut = true;
                break;
            }
            let (b, c) = self.pass(&hidden, &[i64::from(next)], Some(cache))?;
            out.passes += 1;
            cache = c;
            (next, lp) = b.first().copied().unwrap_or((END_ID, 0.0));
        }
        out.decoder_ms = t1.elapsed().as_secs_f64() * 1e3;
        if out.cut {
            let kept = whole_sentences(&out.tokens, |t| self.vocab.ends_sentence(t));
            out.trimmed = !kept.is_empty();
            out.tokens = kept;
        }
        let counted = out.tokens.len() + usize::from(!out.cut);
        out.mean_logprob = (logprob_sum / counted.max(1) as f64) as f32;
        out.text = self.vocab.decode(&out.tokens);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_token_and_its_log_probability() {
        let (t, lp) = best_token(&[0.0, 2.0, 0.0]);
        assert_eq!(t, 1);
        let p = 2f32.exp() / (2.0 + 2f32.exp());
        assert!((lp - p.ln()).abs() < 1e-5);
    }

    #[test]
    fn a_cut_keeps_whole_sentences_once() {
        let ends = |t: u32| t == 0;
        assert_eq!(whole_sentences(&[5, 6, 0, 5, 6, 0, 5], ends), vec![5, 6, 0]);
        assert_eq!(
            whole_sentences(&[5, 6, 0, 7, 0, 7], ends),
            vec![5, 6, 0, 7, 0]
        );
        assert!(whole_sentences(&[5, 6, 5, 6], ends).is_empty());
    }

    #[test]
    fn loops_are_seen_and_ordinary_text_is_not() {
        assert!(looping(&[5, 7, 7, 7, 7]));
        assert!(looping(&[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]));
        assert!(!looping(&[1, 2, 3, 1, 2, 3, 1, 2, 3]));
        assert!(!looping(&[10, 11, 12, 13, 14, 15, 10, 11]));
    }
}
