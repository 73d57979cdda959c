//! Prompt prefixes with embedding rows in them, kept in the KV cache like text.
//!
//! A [`Piece`] is text, tokens, or embedding rows under a key that names their source (a
//! camera frame's capture time, a sensor window's end). The engine tracks every cached
//! position as a [`Unit`], so a prefix made of the system turn, sensor tokens and a camera
//! frame is reused exactly as far as it matches what the cache holds — a new frame costs its
//! own rows and what follows, a new state text what follows its first changed token — and a
//! prefill ahead of a request ([`LmEngine::prefill_pieces_until`]) leaves the cache so that
//! the request ([`LmEngine::generate_after_pieces`]) decodes only its own tokens.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::embd_batch::decode_embeddings;
use super::engine::{ns_since, GenOptions, LmEngine, LmStats, Unit, PREFIX_CHUNK_TOKENS};
use super::error::LmError;

/// A piece of a cached prompt prefix.
#[derive(Clone, Copy, Debug)]
pub enum Piece<'a> {
    /// Text, tokenised with special tokens parsed (each piece on its own).
    Text(&'a str),
    /// Tokens as they are (e.g. a vision model's image wrapper tokens).
    Tokens(&'a [i32]),
    /// Row-major embedding rows of `width` floats; rows with the same `key` and index are
    /// the same rows (the key must change whenever the rows do).
    Rows {
        /// Names the rows' source.
        key: u64,
        /// The rows.
        rows: &'a [f32],
        /// Floats per row (the model's `n_embd`).
        width: usize,
    },
}

/// What a piece decodes from.
enum Source<'a> {
    Tokens(Vec<i32>),
    Rows(&'a [f32], usize),
}

/// A prefix laid out as units, with where each piece's units start.
struct Plan<'a> {
    units: Vec<Unit>,
    parts: Vec<(usize, Source<'a>)>,
}

impl LmEngine {
    fn plan<'a>(&self, pieces: &[Piece<'a>]) -> Result<Plan<'a>, LmError> {
        let n_embd = self.model.n_embd();
        let mut units = Vec::new();
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in pieces {
            let start = units.len();
            match *piece {
                Piece::Text(t) => {
                    let toks = self.model.tokenize(t)?;
                    units.extend(toks.iter().map(|&t| Unit::Token(t)));
                    parts.push((start, Source::Tokens(toks)));
                }
                Piece::Tokens(t) => {
                    units.extend(t.iter().map(|&t| Unit::Token(t)));
                    parts.push((start, Source::Tokens(t.to_vec())));
                }
                Piece::Rows { key, rows, width } => {
                    if width != n_embd || width == 0 {
                        return Err(LmError::EmbeddingWidth {
                            given: width,
                            expected: n_embd,
                        });
                    }
                    if rows.len() % width != 0 {
                        return Err(LmError::Prompt(format!(
                            "{} floats are not a whole number of rows of width {width}",
                            rows.len()
                        )));
                    }
                    let n = rows.len() / width;
                    let n32 = u32::try_from(n)
                        .map_err(|_| LmError::Prompt(format!("{n} embedding rows")))?;
                    units.extend((0..n32).map(|index| Unit::Row { key, index }));
                    parts.push((start, Source::Rows(rows, width)));
                }
            }
        }
        Ok(Plan { units, parts })
    }

    /// Makes the cache hold exactly `plan`'s units, decoding what does not match in chunks
    /// of [`PREFIX_CHUNK_TOKENS`] positions and stopping after the chunk during which `stop`
    /// was set (the cache then holds a valid shorter prefix). Returns the units reused and
    /// decoded, and whether the whole plan is in the cache.
    fn sync_plan(
        &mut self,
        plan: &Plan<'_>,
        stop: Option<&AtomicBool>,
    ) -> Result<(usize, usize, bool), LmError> {
        self.leave_segment_prefix();
        let end = plan.units.len();
        let mut common = self
            .cached
            .iter()
            .zip(&plan.units)
            .take_while(|(a, b)| a == b)
            .count();
        if self.cached.len() > common && self.ctx.truncate(common as u32).is_err() {
            self.ctx.clear();
            common = 0;
        }
        self.cached.truncate(common);
        let mut done = common;
        for (i, (start, source)) in plan.parts.iter().enumerate() {
            let stop_at = plan.parts.get(i + 1).map_or(end, |(s, _)| *s);
            while done < stop_at {
                if stop.is_some_and(|s| s.load(Ordering::Acquire)) {
                    return Ok((common, done - common, false));
                }
                let upto = (done + PREFIX_CHUNK_TOKENS).min(stop_at);
                let (a, b) = (done - start, upto - start);
                let r = match source {
                    Source::Tokens(t) => self.ctx.decode_tokens(&t[a..b], done as u32, false),
                    Source::Rows(rows, w) => decode_embeddings(
                        &mut self.ctx,
                        &rows[a * w..b * w],
                        *w,
                        done as u32,
                        false,
                    )
                    .map(|_| ()),
                };
                if let Err(e) = r {
                    // The cache may hold part of the batch: start over next time.
                    self.reset();
                    return Err(e);
                }
                self.cached.extend_from_slice(&plan.units[done..upto]);
                done = upto;
            }
        }
        Ok((common, done - common, true))
    }

    /// Brings the cache up to `prefix` ahead of a request (only what differs from what it
    /// holds is decoded), stopping between chunks once `stop` is set. Returns the positions
    /// decoded and whether the whole prefix is now cached.
    pub fn prefill_pieces_until(
        &mut self,
        prefix: &[Piece<'_>],
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError> {
        let plan = self.plan(prefix)?;
        if plan.units.len() >= self.ctx.n_ctx() as usize {
            return Err(LmError::ContextFull {
                what: "the prompt prefix",
                needed: plan.units.len() + 1,
                n_ctx: self.ctx.n_ctx(),
            });
        }
        let (_, decoded, complete) = self.sync_plan(&plan, Some(stop))?;
        Ok((decoded as u32, complete))
    }

    /// Answers over `prefix` (reused from the cache as far as it matches, the rest decoded)
    /// and then `tail` text (the request; must not be empty), streaming text to `on_text`.
    /// Afterwards the cache holds the prefix again (the request and the answer are trimmed
    /// off), so the next request over the same prefix — or a prefill that extends it — pays
    /// only for what differs.
    pub fn generate_after_pieces(
        &mut self,
        prefix: &[Piece<'_>],
        tail: &str,
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let t0 = Instant::now();
        let mut stats = LmStats::nothing_yet();
        let plan = self.plan(prefix)?;
        let tail_tokens = self.model.tokenize(tail)?;
        if tail_tokens.is_empty() {
            return Err(LmError::Prompt("empty request after the prefix".into()));
        }
        let n_ctx = self.ctx.n_ctx() as usize;
        let n_prompt = plan.units.len() + tail_tokens.len();
        if n_prompt >= n_ctx {
            return Err(LmError::ContextFull {
                what: "the prompt",
                needed: n_prompt + 1,
                n_ctx: self.ctx.n_ctx(),
            });
        }
        if cancel.load(Ordering::Relaxed) {
            stats.total_ns = ns_since(t0);
            return Ok(stats);
        }
        // Whoever syncs the cache answers over it: a backup would only hold cells.
        self.drop_cache_backup();
        let (reused, decoded, _) = self.sync_plan(&plan, None)?;
        stats.reused_tokens = reused as u32;
        let keep = plan.units.len();
        let result = self
            .ctx
            .decode_tokens(&tail_tokens, keep as u32, true)
            .and_then(|()| {
                stats.prefill_tokens = (decoded + tail_tokens.len()) as u32;
                stats.prefill_ns = ns_since(t0);
                self.generate_at(
                    n_prompt,
                    (opts.max_tokens as usize).min(n_ctx - n_prompt),
                    opts.stop_at_eog,
                    on_text,
                    cancel,
                    t0,
                    &mut stats,
                )
            });
        // Back to the prefix, whatever happened.
        self.trim_to(keep);
        result?;
        stats.total_ns = ns_since(t0);
        Ok(stats)
    }

    /// Positions the cache now holds that are embedding rows (tests, diagnostics).
    pub fn cached_rows(&self) -> usize {
        self.cached
            .iter()
            .filter(|u| matches!(u, Unit::Row { .. }))
            .count()
    }
}
