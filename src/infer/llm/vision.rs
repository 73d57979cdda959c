//! The vision encoder through llama.cpp's multimodal library (mtmd, `llama-cpp-sys-2`):
//! a bundle's `mmproj` loaded over the language model, frames (RGB pixels) turned into
//! image embeddings, once per frame ([`super::frame_cache`]).
//!
//! The raw calls live here (the safe `llama-cpp-2` wrapper does not expose the encoder's
//! output): `mtmd_init_from_file`, `mtmd_bitmap_init`, `mtmd_tokenize` of the media marker
//! alone, `mtmd_encode_chunk`, `mtmd_get_output_embd`. An image becomes [`ImagePiece`]s —
//! the model's own wrapper tokens, if any, and embedding rows — which the language model
//! decodes at the prompt's image placeholder ([`super::image_prompt`]). Everything is
//! checked before a C call: the file ([`super::mmproj::check_mmproj`], including the
//! projector's output width against the language model's), the pixel buffer's size; and
//! models whose image tokens need M-RoPE positions or non-causal attention (Qwen-VL,
//! Gemma 3) are refused with a typed error, since the embeddings path decodes with plain
//! causal positions.

use std::ffi::{c_char, c_void, CString};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Instant;

use llama_cpp_2::model::LlamaModel;
use llama_cpp_sys_2 as sys;

use super::backend::backend;
use super::error::LmError;
use super::frame_cache::{fingerprint, CacheStats, FrameCache};
use super::mmproj::{check_mmproj, check_projector_width, MmprojSummary};
use super::model::LmModel;
use super::raw_ctx::model_ptr;

/// Largest image side accepted (pixels).
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// Frames kept by default in the per-frame embedding cache.
pub const DEFAULT_CACHE_FRAMES: usize = 8;

/// An RGB image, rows top to bottom, 3 bytes per pixel, tightly packed.
#[derive(Clone, Copy, Debug)]
pub struct RgbImage<'a> {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `width × height × 3` bytes.
    pub pixels: &'a [u8],
}

impl RgbImage<'_> {
    /// Checks the size before any C call.
    pub fn check(&self) -> Result<(), LmError> {
        if self.width == 0
            || self.height == 0
            || self.width > MAX_IMAGE_SIDE
            || self.height > MAX_IMAGE_SIDE
        {
            return Err(LmError::Image(format!(
                "{} x {} pixels (each side must be 1..={MAX_IMAGE_SIDE})",
                self.width, self.height
            )));
        }
        let need = self.width as usize * self.height as usize * 3;
        if self.pixels.len() != need {
            return Err(LmError::Image(format!(
                "{} bytes for {} x {} RGB pixels, expected {need}",
                self.pixels.len(),
                self.width,
                self.height
            )));
        }
        Ok(())
    }
}

/// Grey or RGB pixels (1 or 3 channels) as RGB.
pub fn to_rgb(channels: u8, pixels: &[u8]) -> Result<Vec<u8>, LmError> {
    match channels {
        3 => Ok(pixels.to_vec()),
        1 => Ok(pixels.iter().flat_map(|&v| [v, v, v]).collect()),
        c => Err(LmError::Image(format!("{c} channels (1 or 3 supported)"))),
    }
}

/// One piece of an encoded image, in prompt order.
#[derive(Clone, Debug, PartialEq)]
pub enum ImagePiece {
    /// Text tokens the model wraps image embeddings in (none for LLaVA-style projectors).
    Tokens(Vec<i32>),
    /// Embedding rows, row-major, [`ImageEmbedding::width`] floats each.
    Embeddings(Vec<f32>),
}

/// A frame as the language model takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageEmbedding {
    /// The pieces, in order.
    pub pieces: Vec<ImagePiece>,
    /// Floats per embedding row (the language model's input width).
    pub width: usize,
    /// Positions the image takes in the context (tokens plus rows).
    pub n_positions: usize,
    /// Time spent encoding, ns.
    pub encode_ns: i64,
}

impl ImageEmbedding {
    /// Embedding rows in all pieces.
    pub fn n_rows(&self) -> usize {
        self.pieces
            .iter()
            .map(|p| match p {
                ImagePiece::Embeddings(r) => r.len() / self.width.max(1),
                ImagePiece::Tokens(_) => 0,
            })
            .sum()
    }
}

unsafe extern "C" fn quiet_log(_level: sys::ggml_log_level, _text: *const c_char, _u: *mut c_void) {
}

struct Guard<T, F: FnMut(*mut T)>(*mut T, F);

impl<T, F: FnMut(*mut T)> Drop for Guard<T, F> {
    fn drop(&mut self) {
        if !self.0.is_null() {
            (self.1)(self.0);
        }
    }
}

/// A loaded vision projector over a language model, with its frame cache.
pub struct VisionEncoder {
    ctx: NonNull<sys::mtmd_context>,
    // The mtmd context refers to the text model (vocabulary, width): kept alive here.
    _model: Arc<LlamaModel>,
    path: PathBuf,
    summary: MmprojSummary,
    n_embd: usize,
    marker: CString,
    cache: FrameCache<ImageEmbedding>,
}

// SAFETY: an mtmd context is not bound to the thread that made it; every call that uses it
// takes `&mut self`, and `VisionEncoder` is not `Sync`.
unsafe impl Send for VisionEncoder {}

impl std::fmt::Debug for VisionEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisionEncoder")
            .field("path", &self.path)
            .field("projector", &self.summary.projector)
            .field("n_embd", &self.n_embd)
            .field("cached_frames", &self.cache.len())
            .finish()
    }
}

impl VisionEncoder {
    /// Checks and loads the projector at `path` over `model`, with `threads` threads and a
    /// cache of `cache_frames` frames. The projector's output width must equal the model's
    /// embedding width ([`LmError::ProjectorWidth`] names both).
    pub fn load(
        path: &Path,
        model: &LmModel,
        threads: u32,
        cache_frames: usize,
    ) -> Result<Self, LmError> {
        let summary = check_mmproj(path)?;
        let llama = Arc::clone(model.llama());
        let mp = model_ptr(&llama);
        // SAFETY: a live model.
        let n_embd_inp = unsafe { sys::llama_model_n_embd_inp(mp) };
        let n_embd = usize::try_from(n_embd_inp).unwrap_or(0);
        if n_embd == 0 {
            return Err(LmError::Mmproj {
                path: path.to_path_buf(),
                reason: "the language model reports no input embedding width".into(),
            });
        }
        check_projector_width(path, &summary, n_embd)?;
        backend().map_err(|reason| LmError::Mmproj {
            path: path.to_path_buf(),
            reason,
        })?;
        if std::env::var_os("VISTA_LLAMA_LOG").is_none() {
            // SAFETY: a plain function pointer that ignores its arguments.
            unsafe { sys::mtmd_log_set(Some(quiet_log), std::ptr::null_mut()) };
        }
        let cpath =
            CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| LmError::Mmproj {
                path: path.to_path_buf(),
                reason: "path contains a NUL byte".into(),
            })?;
        // SAFETY: a plain value constructor; the marker string is static inside mtmd.
        let mut params = unsafe { sys::mtmd_context_params_default() };
        params.use_gpu = false;
        params.print_timings = false;
        params.n_threads = i32::try_from(threads.max(1)).unwrap_or(1);
        params.warmup = false;
        // SAFETY: mtmd_default_marker returns a static NUL-terminated string.
        let marker = unsafe { std::ffi::CStr::from_ptr(sys::mtmd_default_marker()) }.to_owned();
        params.media_marker = marker.as_ptr();
        // SAFETY: the path and marker outlive the call (mtmd copies the marker); `mp` is a
        // live model kept alive by `llama` stored below. mtmd catches its own exceptions and
        // returns null.
        let raw = unsafe { sys::mtmd_init_from_file(cpath.as_ptr(), mp, params) };
        let ctx = NonNull::new(raw).ok_or_else(|| LmError::Mmproj {
            path: path.to_path_buf(),
            reason: "llama.cpp could not load it (set VISTA_LLAMA_LOG=1 for its log)".into(),
        })?;
        let enc = Self {
            ctx,
            _model: llama,
            path: path.to_path_buf(),
            summary,
            n_embd,
            marker,
            cache: FrameCache::new(cache_frames),
        };
        // SAFETY: a live context.
        let (vision, mrope) = unsafe {
            (
                sys::mtmd_support_vision(enc.ctx.as_ptr()),
                sys::mtmd_decode_use_mrope(enc.ctx.as_ptr()),
            )
        };
        if !vision {
            return Err(enc.refuse("llama.cpp reports no vision support"));
        }
        if mrope {
            return Err(enc.refuse(
                "its image tokens need M-RoPE positions (Qwen-VL family), which vista's \
                 embeddings path does not provide yet",
            ));
        }
        Ok(enc)
    }

    fn refuse(&self, reason: &str) -> LmError {
        LmError::Mmproj {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// The projector file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What its header says.
    pub fn summary(&self) -> &MmprojSummary {
        &self.summary
    }

    /// Floats per embedding row (= the language model's input embedding width).
    pub fn n_embd(&self) -> usize {
        self.n_embd
    }

    /// The cache's counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Frames in the cache now.
    pub fn cached_frames(&self) -> usize {
        self.cache.len()
    }

    /// The frame captured at `capture_ns`, from the cache or encoded now (and cached).
    pub fn embed_frame(
        &mut self,
        capture_ns: i64,
        image: &RgbImage<'_>,
    ) -> Result<Arc<ImageEmbedding>, LmError> {
        image.check()?;
        let print = fingerprint(image.width, image.height, image.pixels);
        if let Some(hit) = self.cache.get(capture_ns, print) {
            return Ok(hit);
        }
        let e = self.encode(image)?;
        Ok(self.cache.insert(capture_ns, print, e))
    }

    /// Encodes `image` (no cache).
    pub fn encode(&mut self, image: &RgbImage<'_>) -> Result<ImageEmbedding, LmError> {
        image.check()?;
        let t0 = Instant::now();
        let ctx = self.ctx.as_ptr();
        // SAFETY: the size was checked above; mtmd copies the pixels.
        let bitmap = Guard(
            unsafe { sys::mtmd_bitmap_init(image.width, image.height, image.pixels.as_ptr()) },
            // SAFETY: a bitmap made above, freed once.
            |p| unsafe { sys::mtmd_bitmap_free(p) },
        );
        if bitmap.0.is_null() {
            return Err(LmError::Image("mtmd could not make a bitmap".into()));
        }
        // SAFETY: plain constructor, freed by the guard.
        let chunks = Guard(unsafe { sys::mtmd_input_chunks_init() }, |p| unsafe {
            sys::mtmd_input_chunks_free(p)
        });
        if chunks.0.is_null() {
            return Err(self.refuse("mtmd could not allocate input chunks"));
        }
        let text = sys::mtmd_input_text {
            text: self.marker.as_ptr(),
            text_len: self.marker.as_bytes().len(),
            add_special: false,
            parse_special: true,
        };
        let bitmaps: [*const sys::mtmd_bitmap; 1] = [bitmap.0];
        // SAFETY: live context, chunks, text and one bitmap for the one marker.
        let rc = unsafe { sys::mtmd_tokenize(ctx, chunks.0, &text, bitmaps.as_ptr(), 1) };
        if rc != 0 {
            return Err(LmError::Image(format!(
                "mtmd could not preprocess the {} x {} image (code {rc})",
                image.width, image.height
            )));
        }
        let mut pieces = Vec::new();
        let mut n_positions = 0usize;
        // SAFETY: live chunks.
        let n_chunks = unsafe { sys::mtmd_input_chunks_size(chunks.0) };
        for i in 0..n_chunks {
            // SAFETY: `i` < size; the chunk is owned by `chunks`.
            let chunk = unsafe { sys::mtmd_input_chunks_get(chunks.0, i) };
            if chunk.is_null() {
                return Err(self.refuse("mtmd returned a null chunk"));
            }
            // SAFETY: a live chunk.
            match unsafe { sys::mtmd_input_chunk_get_type(chunk) } {
                sys::MTMD_INPUT_CHUNK_TYPE_TEXT => {
                    let mut n = 0usize;
                    // SAFETY: a text chunk; the pointer is valid for `n` tokens while
                    // `chunks` lives.
                    let p = unsafe { sys::mtmd_input_chunk_get_tokens_text(chunk, &mut n) };
                    if n > 0 && !p.is_null() {
                        // SAFETY: as above.
                        let toks = unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
                        n_positions += toks.len();
                        pieces.push(ImagePiece::Tokens(toks));
                    }
                }
                sys::MTMD_INPUT_CHUNK_TYPE_IMAGE => {
                    // SAFETY: a live image chunk.
                    let (n_tok, n_pos, non_causal) = unsafe {
                        (
                            sys::mtmd_input_chunk_get_n_tokens(chunk),
                            sys::mtmd_input_chunk_get_n_pos(chunk),
                            sys::mtmd_decode_use_non_causal(ctx, chunk),
                        )
                    };
                    if non_causal {
                        return Err(self.refuse(
                            "its image tokens need non-causal attention (Gemma 3 family), \
                             which vista's embeddings path does not provide yet",
                        ));
                    }
                    if usize::try_from(n_pos).ok() != Some(n_tok) || n_tok == 0 {
                        return Err(self.refuse(&format!(
                            "an image of {n_tok} embeddings takes {n_pos} positions; vista \
                             decodes one position per embedding"
                        )));
                    }
                    // SAFETY: live context and chunk.
                    let rc = unsafe { sys::mtmd_encode_chunk(ctx, chunk) };
                    if rc != 0 {
                        return Err(self.refuse(&format!("image encoding failed (code {rc})")));
                    }
                    // SAFETY: after a successful encode the output holds n_tok rows of the
                    // text model's input width (mtmd.h), valid until the next encode.
                    let rows = unsafe {
                        let p = sys::mtmd_get_output_embd(ctx);
                        if p.is_null() {
                            return Err(self.refuse("no encoder output"));
                        }
                        std::slice::from_raw_parts(p, n_tok * self.n_embd).to_vec()
                    };
                    if let Some(i) = rows.iter().position(|v| !v.is_finite()) {
                        return Err(self.refuse(&format!(
                            "the encoder produced a non-finite value (row {})",
                            i / self.n_embd
                        )));
                    }
                    n_positions += n_tok;
                    pieces.push(ImagePiece::Embeddings(rows));
                }
                t => {
                    return Err(self.refuse(&format!("unexpected chunk type {t} for an image")));
                }
            }
        }
        if !pieces
            .iter()
            .any(|p| matches!(p, ImagePiece::Embeddings(_)))
        {
            return Err(self.refuse("mtmd produced no image embeddings"));
        }
        Ok(ImageEmbedding {
            pieces,
            width: self.n_embd,
            n_positions,
            encode_ns: i64::try_from(t0.elapsed().as_nanos()).unwrap_or(i64::MAX),
        })
    }
}

impl Drop for VisionEncoder {
    fn drop(&mut self) {
        // SAFETY: made by mtmd_init_from_file, freed once; the model outlives it (field
        // order: `ctx` is dropped here before `_model`).
        unsafe { sys::mtmd_free(self.ctx.as_ptr()) };
    }
}
