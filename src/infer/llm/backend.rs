//! The process-wide llama.cpp backend: initialised once (llama.cpp allows one), never freed,
//! with llama.cpp's own logging silenced unless `VISTA_LLAMA_LOG` is set.

use std::sync::OnceLock;

use llama_cpp_2::llama_backend::LlamaBackend;

static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

/// The llama.cpp backend, initialised on first use.
pub fn backend() -> Result<&'static LlamaBackend, String> {
    BACKEND
        .get_or_init(|| {
            let mut b = LlamaBackend::init().map_err(|e| e.to_string())?;
            if std::env::var_os("VISTA_LLAMA_LOG").is_none() {
                b.void_logs();
            }
            Ok(b)
        })
        .as_ref()
        .map_err(Clone::clone)
}
