//! ONNX Runtime for `ort` (load-dynamic): find the shared library, load it once, and turn
//! every way that can fail into an [`OrtEnvError`] instead of `ort`'s panic at first use.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::environment::Environment;

use super::model_paths::ModelFile;

/// ONNX Runtime could not be made ready.
#[derive(Debug, Clone, thiserror::Error)]
pub enum OrtEnvError {
    /// The library file is not there.
    #[error("ONNX Runtime library not found at {path} (set ORT_DYLIB_PATH, or run models/fetch)")]
    NotFound {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The library is there but did not load (wrong file, wrong version, missing symbols).
    #[error("ONNX Runtime library {path} did not load: {reason}")]
    Load {
        /// The file.
        path: PathBuf,
        /// What `ort` said.
        reason: String,
    },
    /// The library loaded but the process environment could not be created.
    #[error("ONNX Runtime environment: {reason}")]
    Environment {
        /// What `ort` said.
        reason: String,
    },
}

/// The ONNX Runtime library to load: `ORT_DYLIB_PATH` when set, else the one
/// `models/fetch` unpacked into the model cache.
pub fn ort_library_path() -> PathBuf {
    match std::env::var_os("ORT_DYLIB_PATH").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => ModelFile::OnnxRuntime.path(),
    }
}

static INIT: OnceLock<Result<PathBuf, OrtEnvError>> = OnceLock::new();

/// Loads ONNX Runtime once per process (later calls return the first call's outcome).
/// Call it before creating any `ort` session.
pub fn init_ort() -> Result<&'static Path, OrtEnvError> {
    INIT.get_or_init(|| load(&ort_library_path()))
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(Clone::clone)
}

static ENV: OnceLock<Result<Environment, String>> = OnceLock::new();

/// The process's one ONNX Runtime environment (`ort` allows one per process and keeps it
/// private once built), created after [`init_ort`]. Every `ort` session in the crate is
/// built on it.
pub fn ort_environment() -> Result<&'static Environment, OrtEnvError> {
    init_ort()?;
    ENV.get_or_init(|| {
        ort::init()
            .with_name("vista")
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|reason| OrtEnvError::Environment {
        reason: reason.clone(),
    })
}

fn load(path: &Path) -> Result<PathBuf, OrtEnvError> {
    if !path.is_file() {
        return Err(OrtEnvError::NotFound {
            path: path.to_path_buf(),
        });
    }
    // Loading the library is all that is needed: sessions create the default environment.
    let _builder = ort::init_from(path).map_err(|e| OrtEnvError::Load {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    log::info!("ONNX Runtime loaded from {}", path.display());
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_a_clear_error() {
        let e = load(Path::new("/nonexistent/libonnxruntime.so")).unwrap_err();
        assert!(matches!(e, OrtEnvError::NotFound { .. }));
        assert!(e.to_string().contains("models/fetch"));
    }

    #[test]
    fn a_file_that_is_not_a_library_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("libonnxruntime.so");
        std::fs::write(&p, b"not an ELF file").unwrap();
        let e = load(&p).unwrap_err();
        assert!(matches!(e, OrtEnvError::Load { .. }), "{e}");
    }
}
