//! [`LmEngine`] as the assistant's [`Generator`]: the system prompt is the cached prefix,
//! the environment context and the request make the user turn. When the prompt and the
//! answer would not fit the context window, the context text is shortened (its end is cut,
//! the request is always kept whole) — see [`context_budget`].

use std::sync::atomic::AtomicBool;

use super::engine::{GenOptions, LmEngine, StopReason};
use super::error::LmError;
use crate::state::{Continue, GenerationPrompt, GenerationStats, Generator, GeneratorError};

/// Fewest answer tokens a request is given before its context is shortened instead.
pub const MIN_ANSWER_TOKENS: usize = 32;

/// The user turn: context, then the request and its response form.
pub fn user_turn(context: &str, request: &str, form: &str) -> String {
    let mut s = String::new();
    if !context.trim().is_empty() {
        s.push_str("Surroundings:\n");
        s.push_str(context.trim());
        s.push_str("\n\n");
    }
    if !form.trim().is_empty() {
        s.push_str("Answer type: ");
        s.push_str(form.trim());
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
    fn generate_prompt(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, LmError> {
        let user = user_turn(&prompt.context, &prompt.request, &prompt.form);
        let (_, total) = self.prompt_lengths(&prompt.system, &user)?;
        let ctx_tokens = self.model().tokenize(prompt.context.trim())?;
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
        let user = if keep < ctx_tokens.len() {
            // Cut a little more than needed: re-tokenising the cut text can merge differently.
            let keep = keep.saturating_sub(8);
            let mut bytes = Vec::new();
            for &t in ctx_tokens.get(..keep).unwrap_or(&[]) {
                bytes.extend_from_slice(&self.model().token_bytes(t));
            }
            let cut = String::from_utf8_lossy(&bytes).into_owned();
            log::debug!(
                "context cut from {} to {keep} tokens to fit {} tokens",
                ctx_tokens.len(),
                self.n_ctx()
            );
            user_turn(&format!("{cut}…"), &prompt.request, &prompt.form)
        } else {
            user
        };
        let mut forward = |s: &str| on_text(s) == Continue::Yes;
        let st = self.chat(
            &prompt.system,
            &user,
            GenOptions::new(answer as u32),
            &mut forward,
            cancel,
        )?;
        Ok(GenerationStats {
            prefill_tokens: st.prefill_tokens,
            generated_tokens: st.generated_tokens,
            first_token_ns: st.first_token_ns,
            total_ns: st.total_ns,
            cancelled: st.stop == StopReason::Cancelled,
        })
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
        self.generate_prompt(prompt, on_text, cancel)
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
    fn user_turn_layout() {
        assert_eq!(
            user_turn(" door 3 m ahead ", "where is the door?", "question"),
            "Surroundings:\ndoor 3 m ahead\n\nAnswer type: question\nRequest: where is the door?"
        );
        assert_eq!(user_turn("", "hi", ""), "Request: hi");
    }
}
