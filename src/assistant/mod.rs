//! The assistant: turns user requests and the environment state into short, grounded,
//! spoken answers, and hazard events into immediate alerts.
//!
//! * [`requests`]: where requests come from (`requests.jsonl`, standard input, a loopback
//!   socket, periodic scene updates) and the one bounded queue they share.
//! * [`request_pump`]: in real time, live requests answered the moment they are made, from
//!   the newest state (not at the next perception tick).
//! * [`forms`]: the three response forms with their system prompts and length budgets.
//! * [`render`]: the environment state as compact, deterministic text for a language model.
//! * [`phrase`]: how directions, distances and steps are said.
//! * [`turn_words`]: how the wearer's recent turns are said.
//! * [`corridor`]: which things lie on a straight walk in a clock direction.
//! * [`flight`]: stairs from floor edges in a row (a single edge is a step, not stairs).
//! * [`goal`]: which place a goal request names (a door under a sign, a door, a thing).
//! * [`sign_wall`]: the wall a sign hangs on, where a way to the sign ends.
//! * [`intent`]: which tracked thing a request names.
//! * [`understand`]: a request's text, however phrased, to a typed [`understand::Ask`].
//! * [`request_words`]: the words of requests (handling verbs, stop words).
//! * [`template`]: the template generator, grounded by construction.
//! * [`text_wait`]: requests that need text the state does not hold wait for a whole-frame
//!   read (bounded), then are answered from the new facts.
//! * [`alerts`]: hazard events to alert utterances, deduplicated and rate limited.
//! * [`guard`]: the safety guard that checks generated text sentence by sentence.
//! * [`degenerate`]: model output that loops or stops mid-sentence, caught before speech.
//! * [`verbosity`]: how much the assistant says (alerts always; answers whole or brief).
//! * [`control`]: settings asked for by voice ("faster", "less talking").
//! * [`settings`]: the wearer's standing settings (rate, verbosity) from a config file.
//! * [`decisions`]: the `decisions.jsonl` writer.
//! * [`explain`]: the assistant's view of one state and request (`vista answer`).
//! * [`run_start`]: one call that starts the speaker and the assistant for a run.
//! * [`lm`]: the language model's side: which requests it answers, which model a run uses
//!   (a GGUF or a bundle), how many threads it gets, its prompt prefilled ahead, sensor
//!   tokens, and camera frames in the answers of a bundle with a vision projector.
//! * [`assistant`]: the [`Assistant`], which implements [`crate::state::PerceptionSink`]
//!   (answers are produced in the private `answer` module, counted in `counters`).

pub mod alerts;
mod answer;
#[allow(clippy::module_inception)]
pub mod assistant;
pub mod control;
pub mod corridor;
mod counters;
pub mod decisions;
pub mod degenerate;
pub mod explain;
pub mod flight;
pub mod forms;
pub mod goal;
pub mod guard;
pub mod intent;
pub mod lm;
pub mod objects;
pub mod phrase;
pub mod render;
pub mod request_pump;
pub mod request_words;
pub mod requests;
pub mod run_start;
pub mod settings;
pub mod sign_wall;
pub mod template;
pub mod text_wait;
pub mod turn_words;
pub mod understand;
pub mod verbosity;

pub use alerts::{Alerter, AlerterConfig};
pub use assistant::{Assistant, AssistantConfig, AssistantCounters, AssistantError, AssistantMode};
pub use decisions::{DecisionError, DecisionWriter};
pub use forms::{Form, FormSpec};
pub use guard::{Guard, GuardConfig, Guarded, Verdict};
pub use render::render_state;
pub use requests::{Request, RequestError, RequestQueue, RequestTime};
pub use run_start::{start_assistant, AssistantSession, SessionOptions};
pub use template::{TemplateAnswer, TemplateGenerator};
pub use verbosity::Verbosity;
