//! The assistant's view of one environment state (`vista answer`): the state as a language
//! model sees it, the template answer to a request, and the safety guard's verdict on a
//! generated text, sentence by sentence.

use std::path::{Path, PathBuf};

use crate::assistant::forms::Form;
use crate::assistant::guard::claims::split_sentences;
use crate::assistant::guard::{Guard, Verdict};
use crate::assistant::intent::{goal_target, resolve};
use crate::assistant::render::render_state;
use crate::assistant::template::{answer, TemplateAnswer};
use crate::assistant::understand::{ask_for, Ask};
use crate::state::EnvironmentState;

/// What can go wrong reading a state file.
#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    /// The file could not be read.
    #[error("reading {path}", path = path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not an environment state.
    #[error("{path}: not an environment state", path = path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
}

/// An `EnvironmentState` read from a JSON file.
pub fn load_state(path: &Path) -> Result<EnvironmentState, StateFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| StateFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| StateFileError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// The assistant's view of one state and one request.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The state as text, as a language model sees it.
    pub state_text: String,
    /// The template answer.
    pub answer: TemplateAnswer,
    /// Each sentence of the checked text with the guard's verdict (empty without one).
    pub verdicts: Vec<(String, Verdict)>,
}

/// The state as text, the template answer to `request` in `form`, and, with `check`, the
/// guard's verdict on each of its sentences (against the thing the request names, for a
/// goal or a where-is question).
pub fn explain(
    form: Form,
    request: &str,
    state: &EnvironmentState,
    check: Option<&str>,
) -> Explanation {
    let state_text = render_state(state);
    let answer = answer(form, request, state);
    let mut verdicts = Vec::new();
    if let Some(check) = check {
        let target = match ask_for(form, request) {
            _ if matches!(form, Form::Scene | Form::Ambient) => None,
            Ask::Goal(_) => goal_target(request, state),
            Ask::WhereIs(t) => resolve(&t.words, state),
            _ => None,
        };
        let guard = Guard::default();
        for s in split_sentences(check) {
            let v = guard.check_sentence(&s, state, target);
            verdicts.push((s, v));
        }
    }
    Explanation {
        state_text,
        answer,
        verdicts,
    }
}
