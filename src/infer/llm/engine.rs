//! [`LmEngine`]: one model, one context, greedy decoding streamed to a callback, with the
//! system prompt kept prefilled in the KV cache between requests.
//!
//! The engine knows exactly what the KV cache holds (`cached`, positions `0..n`): tokens,
//! and embedding rows named by their source's key and row index ([`Unit`]), so a prefix with
//! a camera frame or sensor tokens in it is reused as exactly as a text prefix
//! ([`super::pieces`]).
//! A request reuses the longest common prefix of that and its own tokens, prefills only the
//! rest, generates, and trims the cache back to the stable prefix (the system turn) when it
//! is done, so the cache never grows past one request and hours-long sessions do not
//! overflow; a changed system prompt is re-prefilled from the first differing token.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::chat::{common_prefix, ChatFormat};
use super::embd_batch::decode_embeddings;
use super::error::LmError;
use super::model::LmModel;
use super::raw_ctx::{ContextConfig, RawContext};
use super::sampling::{greedy, Utf8Stream};

/// Why generation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The model produced an end-of-generation token.
    EndOfGeneration,
    /// `max_tokens` were generated.
    MaxTokens,
    /// The cancel flag was set.
    Cancelled,
    /// The text callback asked to stop.
    CallerStopped,
}

/// What one request cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LmStats {
    /// Prompt tokens found already in the KV cache.
    pub reused_tokens: u32,
    /// Prompt tokens (or embedding rows) prefilled by this request.
    pub prefill_tokens: u32,
    /// Tokens generated (the end-of-generation token not counted).
    pub generated_tokens: u32,
    /// Prefill time, ns.
    pub prefill_ns: i64,
    /// From the call to the first generated token, ns (0 when none).
    pub first_token_ns: i64,
    /// The whole call, ns.
    pub total_ns: i64,
    /// Why it stopped.
    pub stop: StopReason,
}

impl LmStats {
    /// A call that has done nothing yet (stopped as cancelled unless it goes on).
    pub(super) fn nothing_yet() -> Self {
        Self {
            reused_tokens: 0,
            prefill_tokens: 0,
            generated_tokens: 0,
            prefill_ns: 0,
            first_token_ns: 0,
            total_ns: 0,
            stop: StopReason::Cancelled,
        }
    }
}

/// Decoding options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
    /// Stop at an end-of-generation token (benchmarks turn this off to time a fixed count).
    pub stop_at_eog: bool,
}

impl GenOptions {
    /// Up to `max_tokens`, stopping at end of generation.
    pub fn new(max_tokens: u32) -> Self {
        Self {
            max_tokens,
            stop_at_eog: true,
        }
    }
}

/// A piece of a prompt: text, or embedding rows standing in for tokens.
#[derive(Clone, Copy, Debug)]
pub enum Segment<'a> {
    /// Text, tokenised with special tokens parsed.
    Text(&'a str),
    /// Tokens as they are (e.g. a vision model's image wrapper tokens).
    Tokens(&'a [i32]),
    /// Row-major embedding rows of `width` floats.
    Embeddings {
        /// The rows.
        rows: &'a [f32],
        /// Floats per row (must equal the model's `n_embd`).
        width: usize,
    },
}

/// A language model ready to answer.
pub struct LmEngine {
    pub(super) model: LmModel,
    pub(super) ctx: RawContext,
    format: ChatFormat,
    pub(super) cached: Vec<Unit>,
    /// When the KV cache holds a prefix decoded from segments (not plain tokens): its key
    /// and length. `cached` is then empty.
    segment_prefix: Option<(u64, usize)>,
    /// What the KV cache's backup sequence holds ([`Self::backup_cache`]).
    backup: Option<Vec<Unit>>,
}

impl std::fmt::Debug for LmEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmEngine")
            .field("model", &self.model.path())
            .field("cached", &self.cached.len())
            .finish()
    }
}

/// Tokens decoded between checks of the stop flag in [`LmEngine::prepare_prefix_until`]
/// (~70 ms of one core at the prompt speed measured here: the longest a request waits for a
/// prefill to stop).
pub const PREFIX_CHUNK_TOKENS: usize = 16;

pub(super) fn ns_since(t0: Instant) -> i64 {
    i64::try_from(t0.elapsed().as_nanos()).unwrap_or(i64::MAX)
}

/// One position of the KV cache: a token, or an embedding row named by the key of its
/// source (a camera frame, a sensor window) and its index there. Two positions hold the
/// same thing exactly when their units are equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A token.
    Token(i32),
    /// Row `index` of the rows keyed `key`.
    Row {
        /// The source's key.
        key: u64,
        /// The row's index in its source.
        index: u32,
    },
}

/// How many leading `cached` units are the tokens `tokens` starts with.
pub(super) fn common_tokens(cached: &[Unit], tokens: &[i32]) -> usize {
    cached
        .iter()
        .zip(tokens)
        .take_while(|(u, &t)| **u == Unit::Token(t))
        .count()
}

impl LmEngine {
    /// Loads the GGUF at `path` (checked first, see [`super::model::check_gguf`]) and makes a
    /// context.
    pub fn load(path: &Path, cfg: &ContextConfig) -> Result<Self, LmError> {
        let model = LmModel::load(path)?;
        Self::with_model(model, cfg)
    }

    /// A new context over an already loaded model.
    pub fn with_model(model: LmModel, cfg: &ContextConfig) -> Result<Self, LmError> {
        let ctx = RawContext::new(model.llama().clone(), cfg, model.path())?;
        let format = ChatFormat::for_model(&model);
        Ok(Self {
            model,
            ctx,
            format,
            cached: Vec::new(),
            segment_prefix: None,
            backup: None,
        })
    }

    /// The model.
    pub fn model(&self) -> &LmModel {
        &self.model
    }

    /// The model's short name (e.g. `smollm2`).
    pub fn name(&self) -> &str {
        self.model.name()
    }

    /// The chat format in use.
    pub fn format(&self) -> &ChatFormat {
        &self.format
    }

    /// The context window, tokens.
    pub fn n_ctx(&self) -> u32 {
        self.ctx.n_ctx()
    }

    /// Tokens now held in the KV cache.
    pub fn cached_tokens(&self) -> usize {
        self.cached.len()
    }

    /// Changes the thread count.
    pub fn set_threads(&mut self, threads: u32) {
        self.ctx.set_threads(threads);
    }

    /// Empties the KV cache (and its backup).
    pub fn reset(&mut self) {
        self.ctx.clear();
        self.cached.clear();
        self.segment_prefix = None;
        self.backup = None;
    }

    /// Keeps what the cache holds now (tokens and keyed rows) so that [`Self::restore_cache`] can
    /// bring it back after the cache was changed (e.g. by a prefill cut short). Costs no
    /// tensor copy: the backup shares the cache's cells until they change.
    pub fn backup_cache(&mut self) {
        if self.segment_prefix.is_some() {
            return;
        }
        self.ctx.backup();
        self.backup = Some(self.cached.clone());
    }

    /// Brings back the cache kept by [`Self::backup_cache`]; `false` when there was none
    /// (the cache is unchanged) or it could not be restored (the cache is then empty).
    pub fn restore_cache(&mut self) -> bool {
        let Some(tokens) = self.backup.take() else {
            return false;
        };
        match self.ctx.restore_backup() {
            Ok(()) => {
                self.cached = tokens;
                true
            }
            Err(_) => {
                self.reset();
                false
            }
        }
    }

    /// Forgets the backup (its cells are freed).
    pub fn drop_cache_backup(&mut self) {
        if self.backup.take().is_some() {
            self.ctx.drop_backup();
        }
    }

    /// Whether a backup is kept.
    pub fn has_cache_backup(&self) -> bool {
        self.backup.is_some()
    }

    /// Empties the cache when it holds a segment prefix (token requests need plain tokens).
    pub(super) fn leave_segment_prefix(&mut self) {
        if self.segment_prefix.is_some() {
            self.reset();
        }
    }

    /// The raw context (for embedding experiments and benchmarks); the engine forgets what
    /// the cache holds, so the next request prefills from scratch.
    pub fn context_mut(&mut self) -> &mut RawContext {
        self.cached.clear();
        self.segment_prefix = None;
        self.backup = None;
        self.ctx.clear();
        &mut self.ctx
    }

    /// Prefills the system turn so the first request only pays for its own tokens.
    /// Returns the tokens prefilled.
    pub fn prepare_prefix(&mut self, system: &str) -> Result<u32, LmError> {
        let text = self.format.chat(&self.model, system, "")?.prefix;
        let tokens = self.model.tokenize(&text)?;
        let before = common_tokens(&self.cached, &tokens);
        self.sync_cache(&tokens, tokens.len())?;
        Ok((tokens.len() - before) as u32)
    }

    /// As [`Self::prepare_prefix`], in chunks of [`PREFIX_CHUNK_TOKENS`], stopping after the
    /// chunk during which `stop` was set: the cache then holds a valid, shorter prefix (a
    /// request that wants the model meanwhile waits one chunk, not the whole prefill).
    /// Returns the tokens prefilled and whether the whole prefix was.
    pub fn prepare_prefix_until(
        &mut self,
        system: &str,
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError> {
        let text = self.format.chat(&self.model, system, "")?.prefix;
        let tokens = self.model.tokenize(&text)?;
        self.leave_segment_prefix();
        let mut common = common_tokens(&self.cached, &tokens);
        if self.cached.len() > common && self.ctx.truncate(common as u32).is_err() {
            self.ctx.clear();
            common = 0;
        }
        self.cached.truncate(common);
        let mut done = common;
        for part in tokens[common..].chunks(PREFIX_CHUNK_TOKENS) {
            if stop.load(Ordering::Acquire) {
                break;
            }
            if let Err(e) = self.ctx.decode_tokens(part, done as u32, false) {
                self.reset();
                return Err(e);
            }
            self.cached.extend(part.iter().map(|&t| Unit::Token(t)));
            done += part.len();
        }
        Ok(((done - common) as u32, done == tokens.len()))
    }

    /// Token counts of the system prefix and the whole prompt for `system` and `user`.
    pub fn prompt_lengths(&self, system: &str, user: &str) -> Result<(usize, usize), LmError> {
        let chat = self.format.chat(&self.model, system, user)?;
        let p = self.model.tokenize(&chat.prefix)?;
        let f = self.model.tokenize(&chat.full)?;
        Ok((common_prefix(&p, &f), f.len()))
    }

    /// Answers `user` under the `system` prompt, streaming text to `on_text`.
    pub fn chat(
        &mut self,
        system: &str,
        user: &str,
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let t0 = Instant::now();
        let chat = self.format.chat(&self.model, system, user)?;
        let prefix = self.model.tokenize(&chat.prefix)?;
        let full = self.model.tokenize(&chat.full)?;
        let keep = common_prefix(&prefix, &full);
        self.complete_tokens(&full, keep, opts, on_text, cancel, t0)
    }

    /// Continues raw `prompt` text (no chat template), keeping nothing in the cache after.
    pub fn complete(
        &mut self,
        prompt: &str,
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let t0 = Instant::now();
        let tokens = self.model.tokenize(prompt)?;
        self.complete_tokens(&tokens, 0, opts, on_text, cancel, t0)
    }

    /// Makes the KV cache hold exactly `tokens[..upto]` (prefilling what is missing), with
    /// the logits of the last token when anything was decoded. Returns the tokens reused.
    /// Trims the cache back to its first `keep` tokens (emptied if llama.cpp refuses).
    pub(super) fn trim_to(&mut self, keep: usize) {
        if self.ctx.truncate(keep as u32).is_err() {
            self.reset();
        } else {
            self.cached.truncate(keep);
        }
    }

    fn sync_cache(&mut self, tokens: &[i32], upto: usize) -> Result<usize, LmError> {
        self.leave_segment_prefix();
        // Whoever syncs the cache answers over it: a backup would only hold cells (the
        // prefill keeps one by decoding in `prepare_prefix_until`, not here).
        self.drop_cache_backup();
        let upto = upto.min(tokens.len());
        let mut common = common_tokens(&self.cached, &tokens[..upto]);
        if common == upto && upto > 0 && self.cached.len() == upto {
            return Ok(common);
        }
        if self.cached.len() > common && self.ctx.truncate(common as u32).is_err() {
            self.ctx.clear();
            common = 0;
        }
        self.cached.truncate(common);
        if let Err(e) = self
            .ctx
            .decode_tokens(&tokens[common..upto], common as u32, true)
        {
            // The cache may hold part of the batch: start over next time.
            self.reset();
            return Err(e);
        }
        self.cached
            .extend(tokens[common..upto].iter().map(|&t| Unit::Token(t)));
        Ok(common)
    }

    fn complete_tokens(
        &mut self,
        tokens: &[i32],
        keep: usize,
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
        t0: Instant,
    ) -> Result<LmStats, LmError> {
        let mut stats = LmStats::nothing_yet();
        if tokens.is_empty() {
            return Err(LmError::Prompt("empty prompt".into()));
        }
        self.leave_segment_prefix();
        let n_ctx = self.ctx.n_ctx() as usize;
        if tokens.len() >= n_ctx {
            return Err(LmError::ContextFull {
                what: "the prompt",
                needed: tokens.len() + 1,
                n_ctx: self.ctx.n_ctx(),
            });
        }
        if cancel.load(Ordering::Relaxed) {
            stats.total_ns = ns_since(t0);
            return Ok(stats);
        }
        let max_tokens = (opts.max_tokens as usize).min(n_ctx - tokens.len());
        // At least the last prompt token is decoded, for its logits.
        let reusable = common_tokens(&self.cached, tokens).min(tokens.len() - 1);
        if self.cached.len() > reusable {
            if self.ctx.truncate(reusable as u32).is_err() {
                self.reset();
            }
            self.cached.truncate(reusable.min(self.cached.len()));
        }
        let reused = self.sync_cache(tokens, tokens.len())?;
        stats.reused_tokens = reused as u32;
        stats.prefill_tokens = (tokens.len() - reused) as u32;
        stats.prefill_ns = ns_since(t0);
        let result = self.generate(
            max_tokens,
            opts.stop_at_eog,
            on_text,
            cancel,
            t0,
            &mut stats,
        );
        // Back to the stable prefix, whatever happened.
        self.trim_to(keep.min(tokens.len()));
        result?;
        stats.total_ns = ns_since(t0);
        Ok(stats)
    }

    /// Prefills `segments` from an empty cache (text and embedding rows) and generates.
    /// The cache is emptied afterwards (embedding rows are not tokens it can reuse).
    pub fn generate_segments(
        &mut self,
        segments: &[Segment<'_>],
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let t0 = Instant::now();
        self.reset();
        let mut stats = LmStats::nothing_yet();
        let result = self.prefill_segments(segments).and_then(|n_past| {
            stats.prefill_tokens = n_past as u32;
            stats.prefill_ns = ns_since(t0);
            let room = (self.ctx.n_ctx() as usize).saturating_sub(n_past);
            self.generate_at(
                n_past,
                (opts.max_tokens as usize).min(room),
                opts.stop_at_eog,
                on_text,
                cancel,
                t0,
                &mut stats,
            )
        });
        self.reset();
        result?;
        stats.total_ns = ns_since(t0);
        Ok(stats)
    }

    /// Answers over `head` (text, kept in the KV cache under `key`: the next call with the
    /// same key reuses it), then `rows` of embeddings (`width` floats each, e.g. sensor
    /// tokens), then `tail` text (the request), streaming text to `on_text`. The cache is
    /// trimmed back to `head` afterwards.
    #[allow(clippy::too_many_arguments)]
    pub fn generate_after_embeddings(
        &mut self,
        key: u64,
        head: &str,
        rows: &[f32],
        width: usize,
        tail: &str,
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let t0 = Instant::now();
        let mut stats = LmStats::nothing_yet();
        let tail_tokens = self.model.tokenize(tail)?;
        if tail_tokens.is_empty() {
            return Err(LmError::Prompt("empty request after the embeddings".into()));
        }
        let n_head = match self.segment_prefix {
            Some((k, n)) if k == key && self.ctx.truncate(n as u32).is_ok() => {
                stats.reused_tokens = n as u32;
                n
            }
            _ => {
                self.reset();
                let head_tokens = self.model.tokenize(head)?;
                if let Err(e) = self.ctx.decode_tokens(&head_tokens, 0, false) {
                    self.reset();
                    return Err(e);
                }
                self.segment_prefix = Some((key, head_tokens.len()));
                stats.prefill_tokens = head_tokens.len() as u32;
                head_tokens.len()
            }
        };
        let result = self.rows_then_generate(
            n_head,
            (rows, width),
            &tail_tokens,
            opts,
            on_text,
            cancel,
            t0,
            &mut stats,
        );
        // Back to the head, whatever happened.
        if self.ctx.truncate(n_head as u32).is_err() {
            self.reset();
        }
        result?;
        stats.total_ns = ns_since(t0);
        Ok(stats)
    }

    /// Decodes `rows` at `n_head`, then `tail`, then generates.
    #[allow(clippy::too_many_arguments)]
    fn rows_then_generate(
        &mut self,
        n_head: usize,
        (rows, width): (&[f32], usize),
        tail: &[i32],
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
        t0: Instant,
        stats: &mut LmStats,
    ) -> Result<(), LmError> {
        let n_rows = decode_embeddings(&mut self.ctx, rows, width, n_head as u32, false)?;
        let pos = n_head + n_rows;
        let n_ctx = self.ctx.n_ctx() as usize;
        if pos + tail.len() >= n_ctx {
            return Err(LmError::ContextFull {
                what: "the prompt",
                needed: pos + tail.len() + 1,
                n_ctx: self.ctx.n_ctx(),
            });
        }
        self.ctx.decode_tokens(tail, pos as u32, true)?;
        let n_past = pos + tail.len();
        stats.prefill_tokens += (n_rows + tail.len()) as u32;
        stats.prefill_ns = ns_since(t0);
        self.generate_at(
            n_past,
            (opts.max_tokens as usize).min(n_ctx - n_past),
            opts.stop_at_eog,
            on_text,
            cancel,
            t0,
            stats,
        )
    }

    fn prefill_segments(&mut self, segments: &[Segment<'_>]) -> Result<usize, LmError> {
        let mut pos = 0usize;
        let last = segments.len().saturating_sub(1);
        for (i, seg) in segments.iter().enumerate() {
            match seg {
                Segment::Text(t) => {
                    let toks = self.model.tokenize(t)?;
                    self.ctx.decode_tokens(&toks, pos as u32, i == last)?;
                    pos += toks.len();
                }
                Segment::Tokens(toks) => {
                    self.ctx.decode_tokens(toks, pos as u32, i == last)?;
                    pos += toks.len();
                }
                Segment::Embeddings { rows, width } => {
                    pos += decode_embeddings(&mut self.ctx, rows, *width, pos as u32, i == last)?;
                }
            }
        }
        if pos == 0 {
            return Err(LmError::Prompt("empty prompt".into()));
        }
        Ok(pos)
    }

    fn generate(
        &mut self,
        max_tokens: usize,
        stop_at_eog: bool,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
        t0: Instant,
        stats: &mut LmStats,
    ) -> Result<(), LmError> {
        let n_past = self.cached.len();
        self.generate_at(n_past, max_tokens, stop_at_eog, on_text, cancel, t0, stats)
    }

    /// The decoding loop: the logits of position `n_past - 1` are ready.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn generate_at(
        &mut self,
        mut n_past: usize,
        max_tokens: usize,
        stop_at_eog: bool,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
        t0: Instant,
        stats: &mut LmStats,
    ) -> Result<(), LmError> {
        let mut utf8 = Utf8Stream::new();
        let track = self.cached.len() == n_past;
        stats.stop = StopReason::MaxTokens;
        let mut generated = 0usize;
        while generated < max_tokens {
            if cancel.load(Ordering::Relaxed) {
                stats.stop = StopReason::Cancelled;
                break;
            }
            let logits = self.ctx.last_logits()?;
            let token = greedy(logits)
                .ok_or_else(|| LmError::Prompt("no finite logit to choose from".into()))?
                as i32;
            if generated == 0 {
                stats.first_token_ns = ns_since(t0);
            }
            if stop_at_eog && self.model.is_eog(token) {
                stats.stop = StopReason::EndOfGeneration;
                break;
            }
            generated += 1;
            stats.generated_tokens = generated as u32;
            let text = utf8.push(&self.model.token_bytes(token));
            if !text.is_empty() && !on_text(&text) {
                stats.stop = StopReason::CallerStopped;
                break;
            }
            if generated == max_tokens {
                break;
            }
            if cancel.load(Ordering::Relaxed) {
                stats.stop = StopReason::Cancelled;
                break;
            }
            self.ctx.decode_tokens(&[token], n_past as u32, true)?;
            if track {
                self.cached.push(Unit::Token(token));
            }
            n_past += 1;
        }
        let rest = utf8.finish();
        if !rest.is_empty() {
            on_text(&rest);
        }
        Ok(())
    }
}
