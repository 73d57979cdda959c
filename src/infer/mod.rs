//! Inference engines: ONNX Runtime through `ort` (loaded at run time from the library that
//! `models/fetch` unpacks from the `onnxruntime` wheel) and where the model files live.

pub mod bundle;
pub mod engine;
pub mod fusion;
#[cfg(feature = "llm")]
pub mod llm;
pub mod model_paths;
pub mod ort_engine;
pub mod ort_env;
pub mod sentence;
pub mod tensor_file;
#[cfg(feature = "tract")]
pub mod tract_engine;

pub use model_paths::{models_dir, ModelFile};
pub use ort_env::{init_ort, ort_environment, ort_library_path, OrtEnvError};
