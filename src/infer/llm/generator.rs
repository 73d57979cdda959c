//! [`LmEngine`] as the assistant's [`Generator`]. The prompt is laid out for prefix reuse:
//! the system turn holds the standing system prompt ([`super::DEFAULT_SYSTEM_PROMPT`]) and
//! then the surroundings (the environment state as text), so it changes only when the state
//! does and can be prefilled ahead of a request ([`LmEngine::prefill_context`]); the user turn
//! holds the response form's instructions and the request, the only tokens a request pays
//! for. When the prompt and the answer would not fit the context window, the surroundings
//! are shortened (their end is cut, the request is always kept whole) — see
//! [`context_budget`].

use std::sync::atomic::AtomicBool;

use super::engine::{GenOptions, LmEngine, LmStats, StopReason};
use super::error::LmError;
use super::DEFAULT_SYSTEM_PROMPT;
use crate::state::{Continue, GenerationPrompt, GenerationStats, Generator, GeneratorError};

/// Fewest answer tokens a request is given before its context is shortened instead.
pub const MIN_ANSWER_TOKENS: usize = 32;

/// Tokens kept free after the system turn for the user turn and the answer when the
/// surroundings are fitted to the window ahead of a request.
pub const RESERVED_REQUEST_TOKENS: usize = 192;

/// The system turn: the standing system prompt, then the surroundings.
pub fn system_turn(base: &str, context: &str) -> String {
    let mut s = base.trim().to_string();
    if !context.trim().is_empty() {
        s.push_str("\n\nSurroundings:\n");
        s.push_str(context.trim());
    }
    s
}

/// The user turn: the response form's instructions, then the request.
pub fn user_turn(instructions: &str, request: &str) -> String {
    let mut s = String::new();
    if !instructions.trim().is_empty() {
        s.push_str(instructions.trim());
        s.push('\n');
    }
    s.push_str("Request: ");
    s.push_str(request.trim());
    s
}

/// How many context tokens to keep and how many tokens to generate, for a window of `n_ctx`
/// tokens, a prompt of `prompt_tokens` of which `context_tokens` are the context, and a
/// request for `max_tokens`: the answer gets `max_tokens` when everything fits, else at
/// least `min(max_tokens, MIN_ANSWER_TOKENS)`, and the context is cut to make room. `None`
/// when even an empty context leaves no room.
pub fn context_budget(
    n_ctx: usize,
    prompt_tokens: usize,
    context_tokens: usize,
    max_tokens: usize,
) -> Option<(usize, usize)> {
    let context_tokens = context_tokens.min(prompt_tokens);
    if prompt_tokens + max_tokens <= n_ctx {
        return Some((context_tokens, max_tokens));
    }
    let answer = max_tokens.clamp(1, MIN_ANSWER_TOKENS);
    let fixed = prompt_tokens - context_tokens;
    let room = n_ctx.checked_sub(fixed + answer)?;
    let keep = context_tokens.min(room);
    let answer = (n_ctx - fixed - keep).min(max_tokens);
    Some((keep, answer))
}

impl LmEngine {
    /// `context` cut to its first `keep` tokens (a few fewer: re-tokenising the cut text can
    /// merge differently), marked with an ellipsis.
    fn cut_context(&self, ctx_tokens: &[i32], keep: usize) -> String {
        let keep = keep.saturating_sub(8);
        let mut bytes = Vec::new();
        for &t in ctx_tokens.get(..keep).unwrap_or(&[]) {
            bytes.extend_from_slice(&self.model().token_bytes(t));
        }
        format!("{}…", String::from_utf8_lossy(&bytes))
    }

    /// The surroundings as they go into the system turn: `context` whole when it leaves
    /// [`RESERVED_REQUEST_TOKENS`] of the window free, else cut. Depends on the context
    /// alone, so a prefill ahead of a request and the request agree on the text.
    pub fn fitted_context(&self, context: &str) -> Result<String, LmError> {
        let context = context.trim();
        let ctx_tokens = self.model().tokenize(context)?;
        let (_, total) = self.prompt_lengths(&system_turn(DEFAULT_SYSTEM_PROMPT, context), "")?;
        let n_ctx = self.n_ctx() as usize;
        if total + RESERVED_REQUEST_TOKENS <= n_ctx {
            return Ok(context.to_string());
        }
        let fixed = total.saturating_sub(ctx_tokens.len());
        let keep = n_ctx.saturating_sub(fixed + RESERVED_REQUEST_TOKENS);
        log::debug!(
            "context cut from {} to {keep} tokens to fit {n_ctx} tokens",
            ctx_tokens.len()
        );
        Ok(self.cut_context(&ctx_tokens, keep))
    }

    /// Prefills the system turn for `context` (fitted as [`Self::fitted_context`] does), so
    /// that a request over the same context pays only for its own tokens. Returns the
    /// fitted context and the tokens prefilled.
    pub fn prefill_context(&mut self, context: &str) -> Result<(String, u32), LmError> {
        let fitted = self.fitted_context(context)?;
        let n = self.prepare_prefix(&system_turn(DEFAULT_SYSTEM_PROMPT, &fitted))?;
        Ok((fitted, n))
    }

    /// As [`Self::prefill_context`], stopping early (between chunks of
    /// [`super::engine::PREFIX_CHUNK_TOKENS`]) once `stop` is set. Returns the fitted context,
    /// the tokens prefilled and whether the whole system turn is now in the cache.
    pub fn prefill_context_until(
        &mut self,
        context: &str,
        stop: &AtomicBool,
    ) -> Result<(String, u32, bool), LmError> {
        let fitted = self.fitted_context(context)?;
        let (n, complete) =
            self.prepare_prefix_until(&system_turn(DEFAULT_SYSTEM_PROMPT, &fitted), stop)?;
        Ok((fitted, n, complete))
    }

    /// Answers `prompt` with `context` as the surroundings (the prompt's own context, or a
    /// slightly older one already prefilled), streaming text to `on_text`.
    pub fn generate_with_context(
        &mut self,
        prompt: &GenerationPrompt,
        context: &str,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let fitted = self.fitted_context(context)?;
        let user = user_turn(&prompt.system, &prompt.request);
        let (_, total) =
            self.prompt_lengths(&system_turn(DEFAULT_SYSTEM_PROMPT, &fitted), &user)?;
        let ctx_tokens = self.model().tokenize(&fitted)?;
        let (keep, answer) = context_budget(
            self.n_ctx() as usize,
            total,
            ctx_tokens.len(),
            prompt.max_tokens as usize,
        )
        .ok_or_else(|| LmError::ContextFull {
            what: "the system prompt and request",
            needed: total - ctx_tokens.len().min(total) + 1,
            n_ctx: self.n_ctx(),
        })?;
        let fitted = if keep < ctx_tokens.len() {
            self.cut_context(&ctx_tokens, keep)
        } else {
            fitted
        };
        let mut forward = |s: &str| on_text(s) == Continue::Yes;
        self.chat(
            &system_turn(DEFAULT_SYSTEM_PROMPT, &fitted),
            &user,
            GenOptions::new(answer as u32),
            &mut forward,
            cancel,
        )
    }
}

/// The port's statistics from the engine's.
pub fn port_stats(st: &LmStats) -> GenerationStats {
    GenerationStats {
        prefill_tokens: st.prefill_tokens,
        generated_tokens: st.generated_tokens,
        first_token_ns: st.first_token_ns,
        total_ns: st.total_ns,
        cancelled: st.stop == StopReason::Cancelled,
        prefill_ns: st.prefill_ns,
        ..GenerationStats::default()
    }
}

impl Generator for LmEngine {
    fn name(&self) -> &str {
        LmEngine::name(self)
    }

    fn generate(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        self.generate_with_context(prompt, &prompt.context, on_text, cancel)
            .map(|st| port_stats(&st))
            .map_err(|e| GeneratorError {
                generator: LmEngine::name(self).to_string(),
                message: e.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_fits() {
        assert_eq!(context_budget(2048, 300, 100, 64), Some((100, 64)));
        assert_eq!(context_budget(364, 300, 100, 64), Some((100, 64)));
    }

    #[test]
    fn context_is_cut_before_the_answer_shrinks_below_the_minimum() {
        // 300 prompt tokens (100 context), window 340, asking 64: fixed part 200, answer 32
        // minimum → 108 tokens of room for context: all 100 kept, answer gets 40.
        assert_eq!(context_budget(340, 300, 100, 64), Some((100, 40)));
        // Window 250: fixed 200 + answer 32 → 18 context tokens kept, answer 32.
        assert_eq!(context_budget(250, 300, 100, 64), Some((18, 32)));
        // Window 220: the fixed part and the minimum answer do not fit.
        assert_eq!(context_budget(220, 300, 100, 64), None);
    }

    #[test]
    fn results_always_fit() {
        for n_ctx in [64usize, 200, 512, 2048] {
            for prompt in [10usize, 100, 400, 1000] {
                for ctx in [0usize, 5, 90, 900] {
                    for max in [1usize, 16, 64, 256] {
                        if let Some((keep, ans)) = context_budget(n_ctx, prompt, ctx, max) {
                            let used = prompt - ctx.min(prompt) + keep + ans;
                            assert!(used <= n_ctx, "{n_ctx} {prompt} {ctx} {max}");
                            assert!(keep <= ctx && ans <= max && ans >= 1);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn turn_layouts() {
        assert_eq!(
            system_turn("Be brief.", " door 3 m ahead "),
            "Be brief.\n\nSurroundings:\ndoor 3 m ahead"
        );
        assert_eq!(system_turn("Be brief.", " "), "Be brief.");
        assert_eq!(
            user_turn(" Answer the question. ", "where is the door?"),
            "Answer the question.\nRequest: where is the door?"
        );
        assert_eq!(user_turn("", "hi"), "Request: hi");
    }
}
