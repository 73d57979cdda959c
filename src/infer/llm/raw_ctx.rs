//! One llama.cpp context (KV cache, threads) over a loaded model, driven through
//! `llama-cpp-sys-2` so that token batches and embedding batches ([`super::embd_batch`])
//! share one KV cache. Every C call is checked; positions are tracked by the caller.

use std::ptr::NonNull;
use std::sync::Arc;

use llama_cpp_2::model::LlamaModel;
use llama_cpp_sys_2 as sys;

use super::error::LmError;

/// How a context is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextConfig {
    /// Context window, tokens.
    pub n_ctx: u32,
    /// Largest batch handed to one `llama_decode`, tokens.
    pub n_batch: u32,
    /// Threads for generation and prompt processing (OpenMP keeps its default active
    /// waiting: do not run more threads than free cores).
    pub threads: u32,
    /// llama.cpp's flash attention (its default, `auto`, turns it on for the CPU). Off by
    /// default here: on this AVX2 CPU with SmolLM2-135M it made every decode after a few
    /// hundred cached tokens slower — one token at depth 325 about 1.9x, a 16-token question
    /// after a 325-token system turn about 6x — and only an empty-cache prompt faster
    /// (~1.3x); the assistant always decodes after its system turn (`benches/llama_bench.sh`,
    /// `vista bench lm --flash-attn`).
    pub flash_attention: bool,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            n_ctx: 2048,
            n_batch: 512,
            threads: 2,
            flash_attention: false,
        }
    }
}

// `LlamaModel` is `#[repr(transparent)]` over `Ptr<llama_model>`, itself
// `#[repr(transparent)]` over `NonNull<llama_model>` (llama-cpp-2 =0.1.160, pinned).
const _: () =
    assert!(std::mem::size_of::<LlamaModel>() == std::mem::size_of::<*mut sys::llama_model>());

/// The raw `llama_model` pointer of a loaded model.
pub(crate) fn model_ptr(model: &LlamaModel) -> *mut sys::llama_model {
    // SAFETY: see the layout assertion above; the pointer is non-null for a loaded model and
    // stays valid while `model` lives.
    unsafe { *(model as *const LlamaModel).cast::<*mut sys::llama_model>() }
}

/// A llama.cpp context holding one sequence (id 0).
pub struct RawContext {
    ctx: NonNull<sys::llama_context>,
    model: Arc<LlamaModel>,
    n_ctx: u32,
    n_batch: u32,
    n_vocab: usize,
    n_embd: usize,
}

// SAFETY: a llama_context is not bound to the thread that made it; `RawContext` is not
// `Sync` and every call takes `&mut self` or reads after the last decode.
unsafe impl Send for RawContext {}

impl std::fmt::Debug for RawContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawContext")
            .field("n_ctx", &self.n_ctx)
            .field("n_batch", &self.n_batch)
            .finish()
    }
}

impl RawContext {
    /// Makes a context over `model`.
    pub fn new(
        model: Arc<LlamaModel>,
        cfg: &ContextConfig,
        path: &std::path::Path,
    ) -> Result<Self, LmError> {
        let threads = i32::try_from(cfg.threads.max(1)).unwrap_or(1);
        let n_batch = cfg.n_batch.clamp(1, cfg.n_ctx.max(1));
        // SAFETY: plain value constructor.
        let mut p = unsafe { sys::llama_context_default_params() };
        p.n_ctx = cfg.n_ctx;
        p.n_batch = n_batch;
        p.n_ubatch = n_batch;
        p.n_seq_max = 1;
        p.n_threads = threads;
        p.n_threads_batch = threads;
        p.no_perf = true;
        p.flash_attn_type = if cfg.flash_attention {
            sys::LLAMA_FLASH_ATTN_TYPE_ENABLED
        } else {
            sys::LLAMA_FLASH_ATTN_TYPE_DISABLED
        };
        let mp = model_ptr(&model);
        // SAFETY: `mp` is a live model (kept alive by the Arc stored below).
        let raw = unsafe { sys::llama_init_from_model(mp, p) };
        let ctx = NonNull::new(raw).ok_or_else(|| LmError::Llama {
            path: path.to_path_buf(),
            reason: format!("could not create a context of {} tokens", cfg.n_ctx),
        })?;
        // SAFETY: live context and model.
        let (n_ctx, n_vocab, n_embd) = unsafe {
            let vocab = sys::llama_model_get_vocab(mp);
            (
                sys::llama_n_ctx(ctx.as_ptr()),
                sys::llama_vocab_n_tokens(vocab),
                sys::llama_model_n_embd(mp),
            )
        };
        Ok(Self {
            ctx,
            model,
            n_ctx,
            n_batch,
            n_vocab: usize::try_from(n_vocab).unwrap_or(0),
            n_embd: usize::try_from(n_embd).unwrap_or(0),
        })
    }

    /// The context window, tokens.
    pub fn n_ctx(&self) -> u32 {
        self.n_ctx
    }

    /// The largest batch per decode call, tokens.
    pub fn n_batch(&self) -> u32 {
        self.n_batch
    }

    /// The model's embedding width (`llama_model_n_embd`).
    pub fn n_embd(&self) -> usize {
        self.n_embd
    }

    /// The vocabulary size.
    pub fn n_vocab(&self) -> usize {
        self.n_vocab
    }

    /// The model this context runs.
    pub fn model(&self) -> &Arc<LlamaModel> {
        &self.model
    }

    /// Changes the thread counts (generation and batch).
    pub fn set_threads(&mut self, threads: u32) {
        let t = i32::try_from(threads.max(1)).unwrap_or(1);
        // SAFETY: live context.
        unsafe { sys::llama_set_n_threads(self.ctx.as_ptr(), t, t) };
    }

    /// Decodes `tokens` at positions `pos0..`, in batches of at most `n_batch`; the logits of
    /// the last token are kept when `logits_last`.
    pub fn decode_tokens(
        &mut self,
        tokens: &[i32],
        pos0: u32,
        logits_last: bool,
    ) -> Result<(), LmError> {
        if tokens.is_empty() {
            return Ok(());
        }
        let end = u64::from(pos0) + tokens.len() as u64;
        if end > u64::from(self.n_ctx) {
            return Err(LmError::ContextFull {
                what: "decode",
                needed: end as usize,
                n_ctx: self.n_ctx,
            });
        }
        if let Some(bad) = tokens
            .iter()
            .find(|&&t| t < 0 || t as usize >= self.n_vocab)
        {
            return Err(LmError::Prompt(format!(
                "token id {bad} outside the vocabulary of {}",
                self.n_vocab
            )));
        }
        let chunk = self.n_batch as usize;
        let n_chunks = tokens.len().div_ceil(chunk);
        for (ci, part) in tokens.chunks(chunk).enumerate() {
            let start = pos0 + (ci * chunk) as u32;
            let last = logits_last && ci + 1 == n_chunks;
            let mut batch = Batch::new(part.len(), 0)?;
            batch.fill_tokens(part, start, last);
            self.decode(&batch, start)?;
        }
        Ok(())
    }

    /// Runs `llama_decode` on a filled batch.
    pub(crate) fn decode(&mut self, batch: &Batch, pos0: u32) -> Result<(), LmError> {
        // SAFETY: live context; the batch is fully initialised for `n_tokens` entries.
        let rc = unsafe { sys::llama_decode(self.ctx.as_ptr(), batch.raw) };
        if rc != 0 {
            return Err(LmError::Decode {
                code: rc,
                position: pos0,
                n_tokens: batch.raw.n_tokens as usize,
            });
        }
        Ok(())
    }

    /// The logits of the last token decoded with logits requested.
    pub fn last_logits(&mut self) -> Result<&[f32], LmError> {
        // SAFETY: live context; index -1 is the last output, NULL when there is none.
        let p = unsafe { sys::llama_get_logits_ith(self.ctx.as_ptr(), -1) };
        if p.is_null() {
            return Err(LmError::Prompt(
                "no logits: nothing decoded with logits".into(),
            ));
        }
        // SAFETY: llama.cpp holds n_vocab floats per output row, valid until the next decode
        // (which needs `&mut self`, so the borrow ends first).
        Ok(unsafe { std::slice::from_raw_parts(p, self.n_vocab) })
    }

    /// Removes positions `from..` of the sequence from the KV cache.
    pub fn truncate(&mut self, from: u32) -> Result<(), LmError> {
        let p0 = i32::try_from(from).unwrap_or(i32::MAX);
        // SAFETY: live context; the memory handle belongs to it.
        let ok = unsafe {
            let mem = sys::llama_get_memory(self.ctx.as_ptr());
            sys::llama_memory_seq_rm(mem, 0, p0, -1)
        };
        if ok {
            Ok(())
        } else {
            Err(LmError::Prompt(format!(
                "could not trim the KV cache from position {from}"
            )))
        }
    }

    /// Empties the KV cache.
    pub fn clear(&mut self) {
        // SAFETY: live context.
        unsafe {
            let mem = sys::llama_get_memory(self.ctx.as_ptr());
            sys::llama_memory_clear(mem, true);
        }
    }

    /// The highest position held for the sequence, or -1 when empty.
    pub fn pos_max(&mut self) -> i32 {
        // SAFETY: live context.
        unsafe {
            let mem = sys::llama_get_memory(self.ctx.as_ptr());
            sys::llama_memory_seq_pos_max(mem, 0)
        }
    }
}

impl Drop for RawContext {
    fn drop(&mut self) {
        // SAFETY: made by llama_init_from_model, freed once.
        unsafe { sys::llama_free(self.ctx.as_ptr()) };
    }
}

/// A `llama_batch` from `llama_batch_init`, freed on drop; tokens or embedding rows.
pub(crate) struct Batch {
    pub(crate) raw: sys::llama_batch,
    capacity: usize,
    n_embd: usize,
}

impl Batch {
    /// Allocates room for `n` entries: tokens when `n_embd == 0`, else rows of `n_embd`
    /// floats.
    pub(crate) fn new(n: usize, n_embd: usize) -> Result<Self, LmError> {
        let n_i = i32::try_from(n).map_err(|_| LmError::Prompt(format!("batch of {n}")))?;
        let e_i = i32::try_from(n_embd)
            .map_err(|_| LmError::Prompt(format!("embedding width {n_embd}")))?;
        // SAFETY: allocation only; every array is filled before use.
        let raw = unsafe { sys::llama_batch_init(n_i, e_i, 1) };
        let ok = !raw.pos.is_null()
            && !raw.n_seq_id.is_null()
            && !raw.seq_id.is_null()
            && !raw.logits.is_null()
            && if n_embd == 0 {
                !raw.token.is_null()
            } else {
                !raw.embd.is_null()
            };
        let b = Self {
            raw,
            capacity: n,
            n_embd,
        };
        if !ok {
            return Err(LmError::Prompt(
                "llama_batch_init returned null arrays".into(),
            ));
        }
        Ok(b)
    }

    /// Fills positions, sequence ids and logit flags for `n` entries from `pos0`.
    fn fill_common(&mut self, n: usize, pos0: u32, logits_last: bool) {
        let n = n.min(self.capacity);
        // SAFETY: each array was allocated for `capacity` entries (seq_id rows for 1 id).
        unsafe {
            let pos = std::slice::from_raw_parts_mut(self.raw.pos, n);
            let n_seq = std::slice::from_raw_parts_mut(self.raw.n_seq_id, n);
            let seq = std::slice::from_raw_parts_mut(self.raw.seq_id, n);
            let logits = std::slice::from_raw_parts_mut(self.raw.logits, n);
            let entries = pos
                .iter_mut()
                .zip(n_seq.iter_mut())
                .zip(seq.iter_mut())
                .zip(logits.iter_mut());
            for (i, (((p, ns), s), l)) in entries.enumerate() {
                *p = (pos0 as i32).saturating_add(i as i32);
                *ns = 1;
                **s = 0;
                *l = i8::from(logits_last && i + 1 == n);
            }
        }
        self.raw.n_tokens = n as i32;
    }

    /// Fills a token batch.
    pub(crate) fn fill_tokens(&mut self, tokens: &[i32], pos0: u32, logits_last: bool) {
        let n = tokens.len().min(self.capacity);
        if self.n_embd == 0 {
            // SAFETY: token array of `capacity` entries.
            unsafe { std::slice::from_raw_parts_mut(self.raw.token, n) }
                .copy_from_slice(&tokens[..n]);
        }
        self.fill_common(n, pos0, logits_last);
    }

    /// Fills an embeddings batch with `rows` (`n * n_embd` floats, checked by the caller).
    pub(crate) fn fill_embeddings(&mut self, rows: &[f32], pos0: u32, logits_last: bool) {
        if self.n_embd == 0 {
            return;
        }
        let n = (rows.len() / self.n_embd).min(self.capacity);
        // SAFETY: embd array of `capacity * n_embd` floats.
        unsafe { std::slice::from_raw_parts_mut(self.raw.embd, n * self.n_embd) }
            .copy_from_slice(&rows[..n * self.n_embd]);
        self.fill_common(n, pos0, logits_last);
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // SAFETY: made by llama_batch_init, freed once.
        unsafe { sys::llama_batch_free(self.raw) };
    }
}
