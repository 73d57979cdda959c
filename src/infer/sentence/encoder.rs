//! A BERT sentence encoder (all-MiniLM-L6-v2: 6 layers, 384 wide, 12 heads), read from its
//! `safetensors` weights and run on the CPU: token, position and segment embeddings, then
//! per layer self-attention and a GELU feed-forward, each with a residual and LayerNorm;
//! the sentence is the mean of its tokens' last states, scaled to unit length, so the dot
//! product of two sentences is their cosine similarity.
//!
//! Written here rather than run by ONNX Runtime because the registry package carries the
//! weights only as `safetensors` (an export needs PyTorch), and the whole model is a few
//! matrix products (`matrixmultiply`'s `sgemm`, already under `nalgebra`): ~2 ms for a
//! spoken request on one core. Checked against an independent NumPy forward pass
//! (`models/minilm/reference.py`, `tests/data/sentence/`).

use std::path::{Path, PathBuf};

use safetensors::{Dtype, SafeTensors};

use super::wordpiece::{VocabError, WordPiece};

/// Most tokens in one sentence (the model was trained with 256 at most).
pub const MAX_TOKENS: usize = 256;

/// Largest weights file read (all-MiniLM-L6-v2's is 91 MB).
pub const MAX_WEIGHTS_BYTES: u64 = 512 << 20;

/// The encoder could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The vocabulary is not usable.
    #[error(transparent)]
    Vocab(#[from] VocabError),
    /// The weights are not a BERT encoder of the expected shape.
    #[error("{path}: {reason}")]
    Weights {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A dense layer: `y = x Wᵀ + b`, `W` stored `out × in` (PyTorch's layout).
#[derive(Clone, Debug)]
struct Linear {
    w: Vec<f32>,
    b: Vec<f32>,
    n_in: usize,
    n_out: usize,
}

/// LayerNorm's scale and shift.
#[derive(Clone, Debug)]
struct Norm {
    g: Vec<f32>,
    b: Vec<f32>,
}

#[derive(Clone, Debug)]
struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    attn_out: Linear,
    attn_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

/// all-MiniLM-L6-v2, loaded.
#[derive(Clone, Debug)]
pub struct SentenceEncoder {
    vocab: WordPiece,
    word: Vec<f32>,
    position: Vec<f32>,
    segment: Vec<f32>,
    embed_norm: Norm,
    layers: Vec<Layer>,
    width: usize,
    heads: usize,
    max_positions: usize,
}

/// LayerNorm's epsilon in BERT.
const LN_EPS: f32 = 1e-12;

struct Weights<'a> {
    st: SafeTensors<'a>,
    path: &'a Path,
}

impl Weights<'_> {
    fn bad(&self, reason: String) -> EncoderError {
        EncoderError::Weights {
            path: self.path.to_path_buf(),
            reason,
        }
    }

    /// Tensor `name` as f32, checked to have `shape`.
    fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EncoderError> {
        let t = self
            .st
            .tensor(name)
            .map_err(|e| self.bad(format!("{name}: {e}")))?;
        if t.dtype() != Dtype::F32 {
            return Err(self.bad(format!("{name}: {:?}, not F32", t.dtype())));
        }
        if t.shape() != shape {
            return Err(self.bad(format!("{name}: shape {:?}, expected {shape:?}", t.shape())));
        }
        Ok(t.data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    fn linear(&self, name: &str, n_in: usize, n_out: usize) -> Result<Linear, EncoderError> {
        Ok(Linear {
            w: self.get(&format!("{name}.weight"), &[n_out, n_in])?,
            b: self.get(&format!("{name}.bias"), &[n_out])?,
            n_in,
            n_out,
        })
    }

    fn norm(&self, name: &str, width: usize) -> Result<Norm, EncoderError> {
        Ok(Norm {
            g: self.get(&format!("{name}.weight"), &[width])?,
            b: self.get(&format!("{name}.bias"), &[width])?,
        })
    }

    /// The shape of tensor `name`.
    fn shape(&self, name: &str) -> Result<Vec<usize>, EncoderError> {
        self.st
            .tensor(name)
            .map(|t| t.shape().to_vec())
            .map_err(|e| self.bad(format!("{name}: {e}")))
    }
}

impl SentenceEncoder {
    /// Loads the encoder from its weights (`model.safetensors`) and vocabulary
    /// (`vocab.txt`); the sizes (width, layers, feed-forward) are read from the weights,
    /// the head count is the width over 32 (MiniLM's head size).
    pub fn load(weights: &Path, vocab: &Path) -> Result<Self, EncoderError> {
        let vocab = WordPiece::load(vocab)?;
        let io = |source| EncoderError::Io {
            path: weights.to_path_buf(),
            source,
        };
        let size = std::fs::metadata(weights).map_err(io)?.len();
        if size > MAX_WEIGHTS_BYTES {
            return Err(EncoderError::Weights {
                path: weights.to_path_buf(),
                reason: format!("{size} bytes, more than {MAX_WEIGHTS_BYTES}"),
            });
        }
        let bytes = std::fs::read(weights).map_err(io)?;
        let st = SafeTensors::deserialize(&bytes).map_err(|e| EncoderError::Weights {
            path: weights.to_path_buf(),
            reason: e.to_string(),
        })?;
        let w = Weights { st, path: weights };
        let word_shape = w.shape("embeddings.word_embeddings.weight")?;
        let [n_vocab, width] = word_shape[..] else {
            return Err(w.bad(format!("word embeddings of shape {word_shape:?}")));
        };
        if n_vocab <= vocab.max_id() as usize || width == 0 || width % 32 != 0 {
            return Err(w.bad(format!(
                "word embeddings {n_vocab} × {width} for a vocabulary of {}",
                vocab.len()
            )));
        }
        let pos_shape = w.shape("embeddings.position_embeddings.weight")?;
        let max_positions = pos_shape.first().copied().unwrap_or(0).min(MAX_TOKENS);
        let ff = w
            .shape("encoder.layer.0.intermediate.dense.weight")?
            .first()
            .copied()
            .unwrap_or(0);
        let mut layers = Vec::new();
        while w
            .st
            .tensor(&format!(
                "encoder.layer.{}.attention.self.query.weight",
                layers.len()
            ))
            .is_ok()
        {
            let p = format!("encoder.layer.{}", layers.len());
            layers.push(Layer {
                q: w.linear(&format!("{p}.attention.self.query"), width, width)?,
                k: w.linear(&format!("{p}.attention.self.key"), width, width)?,
                v: w.linear(&format!("{p}.attention.self.value"), width, width)?,
                attn_out: w.linear(&format!("{p}.attention.output.dense"), width, width)?,
                attn_norm: w.norm(&format!("{p}.attention.output.LayerNorm"), width)?,
                up: w.linear(&format!("{p}.intermediate.dense"), width, ff)?,
                down: w.linear(&format!("{p}.output.dense"), ff, width)?,
                out_norm: w.norm(&format!("{p}.output.LayerNorm"), width)?,
            });
        }
        if layers.is_empty() || max_positions < 8 {
            return Err(w.bad("no encoder layers, or too few positions".into()));
        }
        Ok(Self {
            word: w.get("embeddings.word_embeddings.weight", &[n_vocab, width])?,
            position: w.get(
                "embeddings.position_embeddings.weight",
                &[pos_shape[0], width],
            )?,
            segment: w.get(
                "embeddings.token_type_embeddings.weight",
                &w.shape("embeddings.token_type_embeddings.weight")?,
            )?,
            embed_norm: w.norm("embeddings.LayerNorm", width)?,
            heads: width / 32,
            layers,
            width,
            max_positions,
            vocab,
        })
    }

    /// Width of a sentence's vector.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The token ids `text` is encoded as (with `[CLS]` and `[SEP]`).
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        self.vocab.encode(text, self.max_positions)
    }

    /// The sentence vector of `text` (unit length).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let ids = self.tokens(text);
        let n = ids.len();
        let d = self.width;
        let mut x = vec![0.0f32; n * d];
        for (i, &id) in ids.iter().enumerate() {
            let row = &mut x[i * d..(i + 1) * d];
            let word = &self.word[id as usize * d..(id as usize + 1) * d];
            let pos = &self.position[i * d..(i + 1) * d];
            for (j, r) in row.iter_mut().enumerate() {
                *r = word[j] + pos[j] + self.segment[j];
            }
        }
        layer_norm(&mut x, d, &self.embed_norm);
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            self.layer(layer, &mut x, n, &mut scratch);
        }
        let mut mean = vec![0.0f32; d];
        for row in x.chunks_exact(d) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            for m in &mut mean {
                *m /= norm;
            }
        }
        mean
    }

    fn layer(&self, l: &Layer, x: &mut [f32], n: usize, s: &mut Scratch) {
        let d = self.width;
        let hd = d / self.heads;
        linear(&l.q, x, n, &mut s.q);
        linear(&l.k, x, n, &mut s.k);
        linear(&l.v, x, n, &mut s.v);
        s.ctx.clear();
        s.ctx.resize(n * d, 0.0);
        s.att.resize(n, 0.0);
        let scale = 1.0 / (hd as f32).sqrt();
        for h in 0..self.heads {
            let off = h * hd;
            for i in 0..n {
                let qi = &s.q[i * d + off..i * d + off + hd];
                let mut max = f32::NEG_INFINITY;
                for j in 0..n {
                    let kj = &s.k[j * d + off..j * d + off + hd];
                    let dot: f32 = qi.iter().zip(kj).map(|(a, b)| a * b).sum();
                    s.att[j] = dot * scale;
                    max = max.max(s.att[j]);
                }
                let mut sum = 0.0;
                for a in &mut s.att[..n] {
                    *a = (*a - max).exp();
                    sum += *a;
                }
                let out = &mut s.ctx[i * d + off..i * d + off + hd];
                for j in 0..n {
                    let p = s.att[j] / sum;
                    let vj = &s.v[j * d + off..j * d + off + hd];
                    for (o, v) in out.iter_mut().zip(vj) {
                        *o += p * v;
                    }
                }
            }
        }
        linear(&l.attn_out, &s.ctx, n, &mut s.q);
        add_norm(x, &s.q, d, &l.attn_norm);
        linear(&l.up, x, n, &mut s.ff);
        for v in &mut s.ff {
            *v = gelu(*v);
        }
        linear(&l.down, &s.ff, n, &mut s.q);
        add_norm(x, &s.q, d, &l.out_norm);
    }
}

/// Buffers reused across layers.
#[derive(Default)]
struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    ctx: Vec<f32>,
    att: Vec<f32>,
    ff: Vec<f32>,
}

/// `y = x Wᵀ + b` for `n` rows of `x`.
fn linear(l: &Linear, x: &[f32], n: usize, y: &mut Vec<f32>) {
    y.clear();
    for _ in 0..n {
        y.extend_from_slice(&l.b);
    }
    debug_assert_eq!(x.len(), n * l.n_in);
    // SAFETY: `x` holds n × n_in floats (row-major, row stride n_in), `l.w` holds n_out × n_in
    // (read transposed: element (k, j) at j·n_in + k), `y` holds n × n_out (row stride
    // n_out), all checked by construction above and in `load`; the three do not overlap
    // (`y` is a distinct, exclusively borrowed buffer).
    unsafe {
        matrixmultiply::sgemm(
            n,
            l.n_in,
            l.n_out,
            1.0,
            x.as_ptr(),
            l.n_in as isize,
            1,
            l.w.as_ptr(),
            1,
            l.n_in as isize,
            1.0,
            y.as_mut_ptr(),
            l.n_out as isize,
            1,
        );
    }
}

fn layer_norm(x: &mut [f32], d: usize, norm: &Norm) {
    for row in x.chunks_exact_mut(d) {
        let mean = row.iter().sum::<f32>() / d as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
        let inv = 1.0 / (var + LN_EPS).sqrt();
        for (j, v) in row.iter_mut().enumerate() {
            *v = (*v - mean) * inv * norm.g[j] + norm.b[j];
        }
    }
}

/// `x = LayerNorm(x + y)`.
fn add_norm(x: &mut [f32], y: &[f32], d: usize, norm: &Norm) {
    for (a, b) in x.iter_mut().zip(y) {
        *a += b;
    }
    layer_norm(x, d, norm);
}

/// GELU with the error function (BERT's `gelu`, not the tanh approximation).
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

/// The error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7).
fn erf(x: f32) -> f32 {
    let s = x.signum();
    let x = f64::from(x.abs());
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    s * y as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
        ] {
            assert!((erf(x) - want).abs() < 1e-6, "erf({x}) = {}", erf(x));
        }
    }

    #[test]
    fn a_linear_layer_is_x_times_w_transposed_plus_b() {
        let l = Linear {
            w: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            b: vec![0.5, -0.5],
            n_in: 3,
            n_out: 2,
        };
        let mut y = Vec::new();
        linear(&l, &[1.0, 0.0, -1.0, 2.0, 1.0, 0.0], 2, &mut y);
        assert_eq!(
            y,
            [
                1.0 - 3.0 + 0.5,
                4.0 - 6.0 - 0.5,
                2.0 + 2.0 + 0.5,
                8.0 + 5.0 - 0.5
            ]
        );
    }

    #[test]
    fn a_file_that_is_not_safetensors_is_refused_naming_it() {
        let dir = std::env::temp_dir().join(format!("vista-enc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let vocab = dir.join("vocab.txt");
        std::fs::write(&vocab, "[PAD]\n[UNK]\n[CLS]\n[SEP]\n").unwrap();
        let weights = dir.join("model.safetensors");
        std::fs::write(&weights, b"\xff\xff\xff\xff\xff\xff\xff\x7fnot json").unwrap();
        let err = SentenceEncoder::load(&weights, &vocab)
            .unwrap_err()
            .to_string();
        assert!(err.contains("model.safetensors"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
