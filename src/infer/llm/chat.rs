//! Building the prompt text: the system prompt as a stable prefix (kept in the KV cache)
//! and the user turn after it. The chat template comes from the GGUF
//! (`tokenizer.chat_template`, applied by llama.cpp's built-in template engine); when the file
//! has none or llama.cpp does not recognise it, ChatML is used ([`chatml`]), which is what
//! SmolLM2 and Qwen models expect.

use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate};

use super::error::LmError;
use super::model::LmModel;

/// The two texts a request needs: the system prefix and the whole prompt (which starts with
/// the prefix when the template is prefix-stable, as ChatML is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatText {
    /// The system turn alone.
    pub prefix: String,
    /// System turn, user turn and the opening of the assistant turn.
    pub full: String,
}

/// ChatML: `<|im_start|>role\ncontent<|im_end|>\n` per message, then
/// `<|im_start|>assistant\n` when `add_assistant`.
pub fn chatml(messages: &[(&str, &str)], add_assistant: bool) -> String {
    let mut s = String::new();
    for (role, content) in messages {
        s.push_str("<|im_start|>");
        s.push_str(role);
        s.push('\n');
        s.push_str(content);
        s.push_str("<|im_end|>\n");
    }
    if add_assistant {
        s.push_str("<|im_start|>assistant\n");
    }
    s
}

/// How prompts are rendered for one model.
#[derive(Clone, Debug)]
pub enum ChatFormat {
    /// The GGUF's own template.
    Template(String),
    /// ChatML (the documented fallback).
    ChatMl,
}

impl ChatFormat {
    /// The model's template when it has one that llama.cpp can apply, else ChatML.
    pub fn for_model(model: &LmModel) -> Self {
        match model.chat_template() {
            Some(t) => {
                let probe = Self::Template(t.clone());
                if probe
                    .render(model, &[("system", "s"), ("user", "u")], true)
                    .is_ok()
                {
                    probe
                } else {
                    log::warn!(
                        "{}: chat template not recognised; using ChatML",
                        model.name()
                    );
                    Self::ChatMl
                }
            }
            None => {
                log::warn!(
                    "{}: no chat template in the GGUF; using ChatML",
                    model.name()
                );
                Self::ChatMl
            }
        }
    }

    fn render(
        &self,
        model: &LmModel,
        messages: &[(&str, &str)],
        add_assistant: bool,
    ) -> Result<String, LmError> {
        match self {
            Self::ChatMl => Ok(chatml(messages, add_assistant)),
            Self::Template(t) => {
                let tmpl = LlamaChatTemplate::new(t)
                    .map_err(|e| LmError::Prompt(format!("chat template: {e}")))?;
                let msgs = messages
                    .iter()
                    .map(|(r, c)| LlamaChatMessage::new((*r).to_string(), without_nul(c)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| LmError::Prompt(format!("message: {e}")))?;
                model
                    .llama()
                    .apply_chat_template(&tmpl, &msgs, add_assistant)
                    .map_err(|e| LmError::Prompt(format!("applying the chat template: {e}")))
            }
        }
    }

    /// The system prefix and the whole prompt for one request.
    pub fn chat(&self, model: &LmModel, system: &str, user: &str) -> Result<ChatText, LmError> {
        let prefix = self.render(model, &[("system", system)], false)?;
        let full = self.render(model, &[("system", system), ("user", user)], true)?;
        Ok(ChatText { prefix, full })
    }
}

/// `text` with every NUL made a space: llama.cpp takes messages as C strings, and a NUL in
/// one request failed its prompt (which turned the language model off for the run).
pub fn without_nul(text: &str) -> String {
    text.replace('\0', " ")
}

/// Length of the longest common prefix of two token sequences.
pub fn common_prefix(a: &[i32], b: &[i32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatml_layout() {
        let s = chatml(
            &[("system", "Be brief."), ("user", "Where is the door?")],
            true,
        );
        assert_eq!(
            s,
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhere is the door?<|im_end|>\n<|im_start|>assistant\n"
        );
        let p = chatml(&[("system", "Be brief.")], false);
        assert!(s.starts_with(&p));
    }

    #[test]
    fn common_prefix_lengths() {
        assert_eq!(common_prefix(&[1, 2, 3], &[1, 2, 4]), 2);
        assert_eq!(common_prefix(&[], &[1]), 0);
        assert_eq!(common_prefix(&[5, 6], &[5, 6, 7]), 2);
    }
}
