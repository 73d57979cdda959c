//! Checking a vision projector (llama.cpp `mmproj` GGUF) before llama.cpp sees it: the
//! GGUF header ([`super::gguf_check`]), `general.architecture = "clip"`, a vision encoder,
//! the projector type, image and patch sizes, and — for the projector types whose output
//! width can be read from the tensor table — that width, so that a projector made for
//! another language model is a clear error naming both widths. For the LLaVA-style `mlp`
//! projector the tensors clip.cpp would dereference without checking are required too.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use super::error::LmError;
use super::gguf_check::{parse_header, GgufSummary};

/// Largest image or patch side accepted from a projector's metadata.
const MAX_SIDE: u64 = 8192;

/// What a checked projector file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmprojSummary {
    /// `clip.projector_type` (or `clip.vision.projector_type`), e.g. `mlp`, `idefics3`.
    pub projector: String,
    /// `clip.vision.image_size`, pixels.
    pub image_size: u32,
    /// `clip.vision.patch_size`, pixels.
    pub patch_size: u32,
    /// The width of the embeddings it outputs, when the tensor table tells it (known
    /// projector types); `None` leaves the check to llama.cpp.
    pub output_width: Option<usize>,
    /// The header.
    pub header: GgufSummary,
}

fn bad(path: &Path, reason: impl Into<String>) -> LmError {
    LmError::Mmproj {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// The dimension `i` (innermost first) of tensor `name`, when present.
fn dim(h: &GgufSummary, name: &str, i: usize) -> Option<usize> {
    h.tensor(name)
        .and_then(|t| t.dims.get(i))
        .and_then(|&d| usize::try_from(d).ok())
}

/// The projector's output width, read from the tensor clip.cpp reads it from
/// (`clip_n_mmproj_embd`), for the projector types listed there that this check knows.
pub fn projector_output_width(projector: &str, h: &GgufSummary) -> Option<usize> {
    match projector {
        "mlp" if h.tensor("mm.3.weight").is_some() => dim(h, "mm.3.bias", 0),
        "mlp" => dim(h, "mm.2.weight", 1),
        "idefics3" => dim(h, "mm.model.fc.weight", 1),
        "gemma3" => dim(h, "mm.input_projection.weight", 0),
        "internvl" => dim(h, "mm.3.weight", 1),
        _ => None,
    }
}

/// Checks the `mmproj` file at `path` without llama.cpp.
pub fn check_mmproj(path: &Path) -> Result<MmprojSummary, LmError> {
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            LmError::MmprojNotFound {
                path: path.to_path_buf(),
            }
        } else {
            bad(path, format!("read failed: {e}"))
        }
    })?;
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    let f = File::open(path).map_err(|e| bad(path, format!("read failed: {e}")))?;
    let h = parse_header(BufReader::with_capacity(1 << 16, f), meta.len()).map_err(|e| {
        bad(
            path,
            format!("not a valid GGUF at byte {}: {}", e.offset, e.reason),
        )
    })?;
    if h.architecture != "clip" {
        return Err(bad(
            path,
            format!(
                "architecture `{}`, expected `clip` (a vision projector, not a language model)",
                h.architecture
            ),
        ));
    }
    if h.meta_bool("clip.has_vision_encoder") != Some(true) {
        return Err(bad(path, "no vision encoder (clip.has_vision_encoder)"));
    }
    let projector = h
        .meta_str("clip.projector_type")
        .or_else(|| h.meta_str("clip.vision.projector_type"))
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| bad(path, "no clip.projector_type"))?
        .to_string();
    let side = |key: &str| -> Result<u32, LmError> {
        match h.meta_u64(key) {
            Some(v) if (1..=MAX_SIDE).contains(&v) => Ok(v as u32),
            Some(v) => Err(bad(path, format!("{key} = {v}, expected 1..={MAX_SIDE}"))),
            None => Err(bad(path, format!("no {key}"))),
        }
    };
    let image_size = side("clip.vision.image_size")?;
    let patch_size = side("clip.vision.patch_size")?;
    for key in [
        "clip.vision.embedding_length",
        "clip.vision.attention.head_count",
        "clip.vision.block_count",
    ] {
        if h.meta_u64(key).is_none() {
            return Err(bad(path, format!("no {key}")));
        }
    }
    if projector == "mlp" {
        check_llava(path, &h, image_size, patch_size)?;
    }
    let output_width = projector_output_width(&projector, &h);
    if output_width == Some(0) {
        return Err(bad(path, "projector output width 0"));
    }
    Ok(MmprojSummary {
        projector,
        image_size,
        patch_size,
        output_width,
        header: h,
    })
}

/// The LLaVA `mlp` projector: clip.cpp's graph uses the patch and position embeddings and
/// `mm.0`/`mm.2` without null checks, and indexes the position table by patch.
fn check_llava(path: &Path, h: &GgufSummary, image_size: u32, patch: u32) -> Result<(), LmError> {
    if image_size % patch != 0 {
        return Err(bad(
            path,
            format!("image size {image_size} is not a multiple of the patch size {patch}"),
        ));
    }
    for name in [
        "v.patch_embd.weight",
        "v.position_embd.weight",
        "mm.0.weight",
        "mm.0.bias",
        "mm.2.weight",
        "mm.2.bias",
    ] {
        if h.tensor(name).is_none() {
            return Err(bad(
                path,
                format!("no tensor {name} (needed by the mlp projector)"),
            ));
        }
    }
    let n_embd = h.meta_u64("clip.vision.embedding_length").unwrap_or(0) as usize;
    let n_head = h.meta_u64("clip.vision.attention.head_count").unwrap_or(0) as usize;
    if n_embd == 0 || n_head == 0 || n_embd % n_head != 0 {
        return Err(bad(
            path,
            format!("embedding length {n_embd} is not a positive multiple of {n_head} heads"),
        ));
    }
    let n_layer = h.meta_u64("clip.vision.block_count").unwrap_or(0);
    if !(1..=1024).contains(&n_layer) {
        return Err(bad(path, format!("clip.vision.block_count = {n_layer}")));
    }
    // The LLaVA graph multiplies by these without checking (the loader lets them be absent).
    for il in 0..n_layer {
        for t in ["attn_q", "attn_k", "attn_v"] {
            let name = format!("v.blk.{il}.{t}.weight");
            if h.tensor(&name).is_none() {
                return Err(bad(
                    path,
                    format!("no tensor {name} (needed by the mlp projector)"),
                ));
            }
        }
    }
    let side = (image_size / patch) as usize;
    let n_pos = side * side + usize::from(h.tensor("v.class_embd").is_some());
    let pos = (
        dim(h, "v.position_embd.weight", 0),
        dim(h, "v.position_embd.weight", 1),
    );
    if pos != (Some(n_embd), Some(n_pos)) {
        return Err(bad(
            path,
            format!(
                "v.position_embd.weight is {:?} x {:?}, expected {n_embd} x {n_pos} \
                 (embedding length x positions)",
                pos.0, pos.1
            ),
        ));
    }
    let pe = h
        .tensor("v.patch_embd.weight")
        .map(|t| t.dims.clone())
        .unwrap_or_default();
    let want = [u64::from(patch), u64::from(patch), 3, n_embd as u64];
    if pe != want {
        return Err(bad(
            path,
            format!("v.patch_embd.weight has dimensions {pe:?}, expected {want:?}"),
        ));
    }
    if dim(h, "mm.0.weight", 0) != Some(n_embd) {
        return Err(bad(
            path,
            format!("mm.0.weight does not take the encoder's width {n_embd}"),
        ));
    }
    if dim(h, "mm.2.weight", 0) != dim(h, "mm.0.weight", 1) {
        return Err(bad(path, "mm.2.weight does not take mm.0's output width"));
    }
    Ok(())
}

/// Checks that the projector's output width (when known) equals the language model's.
pub fn check_projector_width(
    path: &Path,
    summary: &MmprojSummary,
    lm_width: usize,
) -> Result<(), LmError> {
    match summary.output_width {
        Some(w) if w != lm_width => Err(LmError::ProjectorWidth {
            path: path.to_path_buf(),
            projector: w,
            lm: lm_width,
        }),
        _ => Ok(()),
    }
}
