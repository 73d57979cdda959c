//! Loading a GGUF language model: our own header check first ([`super::gguf_check`]: file
//! there, magic, header, data bounds, architecture), then llama.cpp; the model's name, width
//! and chat template.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use super::backend::backend;
use super::error::LmError;
use super::gguf_check::{check_architecture, parse_header, GgufSummary, SUPPORTED_ARCHITECTURES};

/// Checks a GGUF file without llama.cpp: exists, readable, valid header and data bounds,
/// supported architecture.
pub fn check_gguf(path: &Path) -> Result<GgufSummary, LmError> {
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            LmError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            LmError::Io {
                path: path.to_path_buf(),
                source: e,
            }
        }
    })?;
    if !meta.is_file() {
        return Err(LmError::BadGguf {
            path: path.to_path_buf(),
            offset: 0,
            reason: "not a regular file".into(),
        });
    }
    let f = File::open(path).map_err(|e| LmError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let summary = parse_header(BufReader::with_capacity(1 << 16, f), meta.len()).map_err(|e| {
        LmError::BadGguf {
            path: path.to_path_buf(),
            offset: e.offset,
            reason: e.reason,
        }
    })?;
    if !check_architecture(&summary.architecture) {
        return Err(LmError::UnsupportedArchitecture {
            path: path.to_path_buf(),
            architecture: summary.architecture,
            supported: SUPPORTED_ARCHITECTURES.join(", "),
        });
    }
    Ok(summary)
}

/// A loaded language model.
#[derive(Debug, Clone)]
pub struct LmModel {
    path: PathBuf,
    name: String,
    summary: GgufSummary,
    model: Arc<LlamaModel>,
}

impl LmModel {
    /// Checks and loads the GGUF at `path`.
    pub fn load(path: &Path) -> Result<Self, LmError> {
        let summary = check_gguf(path)?;
        let backend = backend().map_err(|reason| LmError::Llama {
            path: path.to_path_buf(),
            reason,
        })?;
        let params = LlamaModelParams::default();
        let model =
            LlamaModel::load_from_file(backend, path, &params).map_err(|e| LmError::Llama {
                path: path.to_path_buf(),
                reason: format!("load failed: {e}"),
            })?;
        let name = model_name(&summary, path);
        Ok(Self {
            path: path.to_path_buf(),
            name,
            summary,
            model: Arc::new(model),
        })
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Short lower-case name (`general.basename`, else the file stem up to the first `-`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the header said.
    pub fn summary(&self) -> &GgufSummary {
        &self.summary
    }

    /// The llama.cpp model.
    pub fn llama(&self) -> &Arc<LlamaModel> {
        &self.model
    }

    /// Embedding width.
    pub fn n_embd(&self) -> usize {
        usize::try_from(self.model.n_embd()).unwrap_or(0)
    }

    /// Tokenises `text`, parsing special tokens (`<|im_start|>`...), without adding BOS.
    pub fn tokenize(&self, text: &str) -> Result<Vec<i32>, LmError> {
        let toks = self.model.vocab().tokenize(text.as_bytes(), false, true);
        Ok(toks.into_iter().map(|t| t.0).collect())
    }

    /// The bytes of one token's text (special tokens render as empty).
    pub fn token_bytes(&self, token: i32) -> Vec<u8> {
        self.model
            .vocab()
            .token_to_piece(LlamaToken(token), false, None)
    }

    /// Whether `token` ends generation (EOS, EOT, `<|im_end|>`...).
    pub fn is_eog(&self, token: i32) -> bool {
        self.model.vocab().is_eog(LlamaToken(token))
    }

    /// The chat template stored in the GGUF, if any.
    pub fn chat_template(&self) -> Option<String> {
        self.model
            .chat_template(None)
            .ok()
            .and_then(|t| t.to_string().ok())
    }
}

fn model_name(summary: &GgufSummary, path: &Path) -> String {
    let from_meta = summary
        .basename
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_lowercase());
    from_meta.unwrap_or_else(|| {
        path.file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.split(['-', '.']).next())
            .unwrap_or("llm")
            .to_lowercase()
    })
}
