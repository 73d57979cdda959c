//! A local GGUF judge through vista's own llama.cpp (cargo feature `llm`): the model's chat
//! template, then greedy decoding constrained to the verdict's shape ([`VerdictGrammar`]:
//! at each step the most likely token whose text keeps the reply a valid verdict prefix),
//! so even a small model returns a verdict the rubric can read. Text only: it is shown no
//! frames (the prompt says so).

use std::path::Path;

use super::grammar::VerdictGrammar;
use super::judging::Judge;
use crate::infer::llm::{ContextConfig, LmEngine, LmError};

/// The most tokens of one verdict (its keys, four numbers, four booleans and two short
/// texts of at most 500 characters).
pub const MAX_VERDICT_TOKENS: usize = 400;

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
            order.clear();
            order.extend((0..logits.len()).filter(|&i| logits[i].is_finite()));
            order.sort_unstable_by(|&a, &b| logits[b].total_cmp(&logits[a]));
            let pick = order.iter().copied().find(|&t| {
                self.vocab
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

    fn reply(&mut self, system: &str, user: &str) -> Result<String, String> {
        let out = self.constrained(system, user).map_err(|e| e.to_string());
        // The cache holds this item's prompt: start the next one clean.
        self.engine.reset();
        out
    }
}
