//! Everything that can go wrong with the language model, as one typed error naming the file
//! and position (byte offset in the GGUF, token position in the context) where it applies.

use std::path::PathBuf;

/// A language-model operation failed.
#[derive(Debug, thiserror::Error)]
pub enum LmError {
    /// The model file is not there.
    #[error("language model {path} not found (run models/fetch)")]
    NotFound {
        /// The file looked for.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("language model {path}: read failed: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a usable GGUF (bad magic, truncated, inconsistent header).
    #[error("language model {path}: not a valid GGUF at byte {offset}: {reason}")]
    BadGguf {
        /// The file.
        path: PathBuf,
        /// Byte offset where the problem was found.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The GGUF holds a model architecture this runtime does not run.
    #[error("language model {path}: architecture `{architecture}` is not supported (supported: {supported})")]
    UnsupportedArchitecture {
        /// The file.
        path: PathBuf,
        /// `general.architecture` from the file.
        architecture: String,
        /// The architectures accepted.
        supported: String,
    },
    /// llama.cpp refused the file or a context (after our own checks passed).
    #[error("language model {path}: llama.cpp: {reason}")]
    Llama {
        /// The file.
        path: PathBuf,
        /// What failed.
        reason: String,
    },
    /// `llama_decode` returned a non-zero code.
    #[error("llama_decode failed with code {code} at position {position} ({n_tokens} tokens)")]
    Decode {
        /// The return code.
        code: i32,
        /// The first position of the batch.
        position: u32,
        /// The batch size.
        n_tokens: usize,
    },
    /// An embeddings batch had the wrong width for the model.
    #[error("embedding rows have width {given}, but the model's n_embd is {expected}")]
    EmbeddingWidth {
        /// Width given (floats per row).
        given: usize,
        /// `llama_model_n_embd`.
        expected: usize,
    },
    /// The input does not fit the context window, even after trimming.
    #[error("{what} needs {needed} tokens, but the context holds {n_ctx}")]
    ContextFull {
        /// What did not fit.
        what: &'static str,
        /// Tokens needed.
        needed: usize,
        /// The context size.
        n_ctx: u32,
    },
    /// A prompt could not be built (template failure, interior NUL byte).
    #[error("prompt: {0}")]
    Prompt(String),
    /// Re-quantisation failed.
    #[error("quantising {input} to {output}: {reason}")]
    Quantize {
        /// Source GGUF.
        input: PathBuf,
        /// Destination GGUF.
        output: PathBuf,
        /// What failed.
        reason: String,
    },
    /// The vision projector (`mmproj`) file is not there.
    #[error("vision projector {path} not found")]
    MmprojNotFound {
        /// The file looked for.
        path: PathBuf,
    },
    /// The vision projector file is not one this runtime can hand to llama.cpp (not a GGUF,
    /// not a CLIP projector, no vision encoder, missing tensors, inconsistent sizes), or
    /// llama.cpp refused it.
    #[error("vision projector {path}: {reason}")]
    Mmproj {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The projector's output width differs from the language model's embedding width.
    #[error(
        "vision projector {path} outputs embeddings of width {projector}, but the language \
         model's embedding width is {lm}"
    )]
    ProjectorWidth {
        /// The projector file.
        path: PathBuf,
        /// Its output width.
        projector: usize,
        /// The language model's `n_embd`.
        lm: usize,
    },
    /// An image could not be used (size, pixel count, decoding).
    #[error("image: {0}")]
    Image(String),
}
