//! The paper's judge (`vista judge`): every spoken answer of a run scored with the VISTA
//! rubric — the judge prompt of its appendix B.4, a verdict read strictly, the score
//! software computes (sum of four components, capped at 1.95 on a critical error) — and
//! tables per response form and task category in the shape of its Tables 2–3.
//!
//! Layout: [`prompt`] (the prompt, verbatim), [`verdict`] (the rubric's arithmetic),
//! [`item`] (a run's requests as items), [`grammar`] (the verdict's shape, for
//! constrained decoding), [`judging`] (the [`judging::Judge`] port and the
//! bounded retries) and [`table`] are pure; [`local`] is a GGUF judge through llama.cpp,
//! [`http`] one behind an OpenAI-compatible endpoint, shown the clip's eight frames
//! ([`frames`]) when it is a vision-language model.

pub mod frames;
pub mod grammar;
pub mod http;
pub mod item;
pub mod judging;
#[cfg(feature = "llm")]
pub mod local;
pub mod prompt;
pub mod table;
pub mod verdict;

pub use item::{items_from_run, JudgeItem};
pub use judging::{judge_item, Judge, Judged};
pub use table::{tables, JudgeTables};
pub use verdict::{parse_verdict, Score, Verdict};
