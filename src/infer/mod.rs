//! Inference engines: ONNX Runtime through `ort` (loaded at run time from the library that
//! `models/fetch` unpacks from the `onnxruntime` wheel) and where the model files live.

pub mod llm;
pub mod model_paths;
pub mod ort_env;

pub use model_paths::{models_dir, ModelFile};
pub use ort_env::{init_ort, ort_library_path, OrtEnvError};
