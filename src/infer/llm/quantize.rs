//! Re-quantising a GGUF with `llama_model_quantize` (Q4_1 → Q4_0 roughly doubles prompt
//! speed on AVX2, see `shared/reference/engines.md`). The output goes into the model cache
//! next to its source, never into the repository; it is written to a temporary name and
//! renamed, so a half-written file is never picked up.

use std::ffi::CString;
use std::path::{Path, PathBuf};

use llama_cpp_sys_2 as sys;

use super::backend::backend;
use super::error::LmError;
use super::model::check_gguf;

/// Target formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantType {
    /// 4-bit, one scale per 32 values.
    Q4_0,
    /// 4-bit, scale and minimum per 32 values.
    Q4_1,
}

impl QuantType {
    fn ftype(self) -> sys::llama_ftype {
        match self {
            Self::Q4_0 => sys::LLAMA_FTYPE_MOSTLY_Q4_0,
            Self::Q4_1 => sys::LLAMA_FTYPE_MOSTLY_Q4_1,
        }
    }

    /// The tag used in file names (`Q4_0`).
    pub fn tag(self) -> &'static str {
        match self {
            Self::Q4_0 => "Q4_0",
            Self::Q4_1 => "Q4_1",
        }
    }
}

/// Where the `quant` version of `source` lives: same folder, the quantisation tag in the
/// name replaced (`X.Q4_1.gguf` → `X.Q4_0.gguf`) or added (`X.gguf` → `X.Q4_0.gguf`).
pub fn quantized_path(source: &Path, quant: QuantType) -> PathBuf {
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model");
    let base = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "F16", "F32"]
        .iter()
        .find_map(|tag| stem.strip_suffix(&format!(".{tag}")))
        .unwrap_or(stem);
    source.with_file_name(format!("{base}.{}.gguf", quant.tag()))
}

/// Quantises `input` to `output` (overwriting it) with `threads` threads.
pub fn quantize(
    input: &Path,
    output: &Path,
    quant: QuantType,
    threads: u32,
) -> Result<(), LmError> {
    check_gguf(input)?;
    let err = |reason: String| LmError::Quantize {
        input: input.to_path_buf(),
        output: output.to_path_buf(),
        reason,
    };
    backend().map_err(err)?;
    let c_in = CString::new(input.to_string_lossy().as_bytes())
        .map_err(|_| err("path holds a NUL byte".into()))?;
    let tmp = output.with_extension("gguf.partial");
    let c_tmp = CString::new(tmp.to_string_lossy().as_bytes())
        .map_err(|_| err("path holds a NUL byte".into()))?;
    // SAFETY: plain value constructor.
    let mut params = unsafe { sys::llama_model_quantize_default_params() };
    params.nthread = i32::try_from(threads.max(1)).unwrap_or(1);
    params.ftype = quant.ftype();
    params.allow_requantize = true;
    // SAFETY: valid C strings and params for the duration of the call.
    let rc = unsafe { sys::llama_model_quantize(c_in.as_ptr(), c_tmp.as_ptr(), &params) };
    if rc != 0 {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(format!("llama_model_quantize returned {rc}")));
    }
    if let Err(e) = check_gguf(&tmp) {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(format!("output does not check: {e}")));
    }
    std::fs::rename(&tmp, output).map_err(|e| err(format!("rename: {e}")))
}

/// The `quant` version of `source`, made on first use (and reused while it checks).
pub fn ensure_quantized(source: &Path, quant: QuantType, threads: u32) -> Result<PathBuf, LmError> {
    let out = quantized_path(source, quant);
    if out == source || check_gguf(&out).is_ok() {
        return Ok(out);
    }
    log::info!(
        "quantising {} to {} (once)",
        source.display(),
        out.display()
    );
    quantize(source, &out, quant, threads)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_names() {
        assert_eq!(
            quantized_path(
                Path::new("/m/SmolLM2-135M-Instruct.Q4_1.gguf"),
                QuantType::Q4_0
            ),
            Path::new("/m/SmolLM2-135M-Instruct.Q4_0.gguf")
        );
        assert_eq!(
            quantized_path(Path::new("/m/x.gguf"), QuantType::Q4_0),
            Path::new("/m/x.Q4_0.gguf")
        );
    }
}
