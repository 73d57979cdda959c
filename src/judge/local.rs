//! A local GGUF judge through vista's own llama.cpp (cargo feature `llm`): the model's chat
//! template, then greedy decoding constrained to the verdict's shape ([`VerdictGrammar`]:
//! at each step the most likely token whose text keeps the reply a valid verdict prefix),
//! so even a small model returns a verdict the rubric can read. Text only: it is shown no
//! frames (the prompt says so).

use std::path::Path;

use super::frames::JudgeFrame;
use super::grammar::{VerdictGrammar, MAX_VERDICT_TOKENS};
use super::judging::Judge;
use crate::infer::llm::{ContextConfig, LmEngine, LmError};

/// Context for the rubric (≈1.1 k tokens), the item and the verdict.
const N_CTX: u32 = 4096;

/// A GGUF model as a judge.
pub struct LocalJudge {
    engine: LmEngine,
    /// Each token's text (`None`: not valid UTF-8 alone, or empty).
    vocab: Vec<Option<String>>,
}

impl LocalJudge {
    /// Loads `model` with `threads` threads.
    pub fn load(model: &Path, threads: u32) -> Result<Self, LmError> {
        let cfg = ContextConfig {
            n_ctx: N_CTX,
            threads,
            ..ContextConfig::default()
        };
        let mut engine = LmEngine::load(model, &cfg)?;
        let n_vocab = engine.context_mut().n_vocab();
        let vocab = (0..n_vocab)
            .map(|t| {
                String::from_utf8(engine.model().token_bytes(t as i32))
                    .ok()
                    .filter(|s| !s.is_empty())
            })
            .collect();
        Ok(Self { engine, vocab })
    }

    fn constrained(&mut self, system: &str, user: &str) -> Result<String, LmError> {
        let chat = self
            .engine
            .format()
            .chat(self.engine.model(), system, user)?;
        let prompt = self.engine.model().tokenize(&chat.full)?;
        self.engine.reset();
        let ctx = self.engine.context_mut();
        ctx.decode_tokens(&prompt, 0, true)?;
        let mut grammar = VerdictGrammar::new();
        let mut text = String::new();
        let mut order: Vec<usize> = Vec::with_capacity(self.vocab.len());
        for pos in (prompt.len() as u32..).take(MAX_VERDICT_TOKENS) {
            let logits = ctx.last_logits()?;
            let vocab = &self.vocab;
            let pick = best_allowed(logits, &mut order, |t| {
                vocab
                    .get(t)
                    .and_then(Option::as_deref)
                    .is_some_and(|s| grammar.allows(s))
            });
            let Some(token) = pick else {
                return Err(LmError::Prompt(format!(
                    "no token continues the verdict after {text:?}"
                )));
            };
            let piece = self.vocab[token].as_deref().unwrap_or_default();
            grammar.push(piece);
            text.push_str(piece);
            if grammar.is_complete() {
                break;
            }
            ctx.decode_tokens(&[token as i32], pos, true)?;
        }
        Ok(text)
    }
}

/// Tokens looked at first, best first, before the whole vocabulary is scanned.
const TOP_K: usize = 64;

/// The token of highest finite logit that `allowed` accepts: among the [`TOP_K`] best
/// first (sorted, usually enough), else by a scan of all the others. `order` is scratch.
fn best_allowed(
    logits: &[f32],
    order: &mut Vec<usize>,
    mut allowed: impl FnMut(usize) -> bool,
) -> Option<usize> {
    order.clear();
    order.extend((0..logits.len()).filter(|&i| logits[i].is_finite()));
    // Highest logit first; the lower token first on a tie.
    let by_logit = |a: &usize, b: &usize| logits[*b].total_cmp(&logits[*a]).then(a.cmp(b));
    let k = TOP_K.min(order.len());
    if k < order.len() {
        order.select_nth_unstable_by(k, by_logit);
    }
    let (top, rest) = order.split_at_mut(k);
    top.sort_unstable_by(by_logit);
    if let Some(&t) = top.iter().find(|&&t| allowed(t)) {
        return Some(t);
    }
    // The rest all come after the top K: the first of them allowed in the same order.
    rest.iter()
        .copied()
        .filter(|&t| allowed(t))
        .min_by(by_logit)
}

impl Judge for LocalJudge {
    fn name(&self) -> String {
        format!(
            "{} (local, greedy, constrained to the verdict, no frames)",
            self.engine.name()
        )
    }

    fn sees_frames(&self) -> bool {
        false
    }

    fn reply(&mut self, system: &str, user: &str, _: &[JudgeFrame]) -> Result<String, String> {
        let out = self.constrained(system, user).map_err(|e| e.to_string());
        // The cache holds this item's prompt: start the next one clean.
        self.engine.reset();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pick is the best allowed token, whether it is among the top K or far below, and
    /// the same as sorting the whole vocabulary would give.
    #[test]
    fn best_allowed_is_the_full_sort_s_first_allowed() {
        let n = 5000usize;
        // A fixed pseudo-random spread of logits with ties and a NaN.
        let mut logits: Vec<f32> = (0..n)
            .map(|i| ((i * 7919 % 1013) as f32 / 10.0).round())
            .collect();
        logits[17] = f32::NAN;
        let mut order = Vec::new();
        let full = |allowed: &dyn Fn(usize) -> bool| {
            let mut all: Vec<usize> = (0..n).filter(|&i| logits[i].is_finite()).collect();
            all.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
            all.into_iter().find(|&t| allowed(t))
        };
        for modulus in [1usize, 3, 97, 1001, 4999] {
            let allowed = |t: usize| t % modulus == modulus - 1;
            let got = best_allowed(&logits, &mut order, allowed);
            assert_eq!(got, full(&allowed), "tokens allowed every {modulus}");
            assert!(got.is_some());
        }
        assert_eq!(best_allowed(&logits, &mut order, |_| false), None);
        assert_eq!(best_allowed(&logits, &mut order, |t| t == 17), None);
    }
}
