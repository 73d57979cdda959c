//! Scoring a run against its session's ground truth (`vista score SESSION OUT`).
//!
//! Inputs: `SESSION/ground_truth.json`, `SESSION/requests.jsonl`, the wearer's true path
//! `SESSION/ground_truth_trajectory.csv` (else, with a note, the MPS estimate
//! `SESSION/mps/slam/closed_loop_trajectory.csv`; with `SESSION/recording.vrs` for
//! `T_Device_CPF`, else the Gen1 CAD value), `OUT/decisions.jsonl`, `OUT/transcript.jsonl`
//! and optionally `OUT/session_clock.json` ([`SessionClock`]; without it the run is taken
//! to be an `--asap` replay whose host time 0 is the ground truth's `t0_ns`). Host times
//! (`decided_ns`, `first_audio_ns`) are mapped to device time with that clock; every
//! window below is on the device clock.
//!
//! Transcript entries are joined to decisions by `request_id` (and text when ids repeat).
//! A decision's **first audio** is the earliest `first_audio_ns` among its entries; an
//! entry with `first_audio_ns` is **spoken** (even if later interrupted); a decision none
//! of whose entries has audio is **unspoken**.
//!
//! # Metrics
//!
//! * **Alert ↔ hazard match.** An `alert` decision matches a ground-truth hazard *by place*
//!   when its `hazard.world_m` lies within 1 m horizontally of the hazard's position, **or**
//!   its `hazard.clock` is within ±1 hour (circular) and its `hazard.distance_m` within ±30 %
//!   of the hazard's clock hour and horizontal distance from the wearer's head (the CPF) at
//!   the decision time. A moving hazard (a person, a vehicle) with a `track` is taken where
//!   it was at the decision time (the track's nearest sample), and a vehicle
//!   (`half_extent_m`) at the point of its footprint nearest the alert's position (for
//!   `world_m`) or the head (for clock and distance). It matches *by kind* when the kind it
//!   said agrees with the hazard's class ([`kinds::agrees`]: a person alert for a person,
//!   an obstacle alert for a box or a wall, …). Only an alert matching by place and kind
//!   counts for the hazard; one matching by place only is a **wrong-kind alert** (reported,
//!   never a catch).
//! * **Hazard recall** = caught / relevant. A hazard is *relevant* when its
//!   `relevant_from_ns` is set; its window is `[relevant_from_ns, latest_alert_ns]`
//!   (`latest_alert_ns` missing: the session end). It is *caught* when an agreeing alert's
//!   first audio falls in the window and that alert catches no other hazard: **one alert
//!   catches at most one hazard** (a maximum matching, hazards by deadline, alerts earliest
//!   first); an alert that names several things (`hazard` and `more_hazards`) is one alert
//!   per thing it names ([`hazards::AlertInput::per_thing`]). Otherwise it is *wrong kind* (only alerts of another kind were heard in its
//!   window), *late* (spoken only after), *early* (spoken only before), *shared* (heard in
//!   the window, but the alerts caught other hazards), *unspoken* (matched but never
//!   played) or *missed*. No relevant hazard: recall is n/a and its target is not applied.
//! * **False alerts per minute**: spoken alerts that match no hazard by place, per minute
//!   of `duration_ns` (an alert without a `hazard` field matches none).
//! * **Alert lead time** per caught hazard: `latest_alert_ns` − first audio of the catching
//!   (earliest in-window) alert; reported as median (p50) and minimum over hazards.
//! * **Per request** (answers: `answer` decisions with `request_index = i`, all their spoken
//!   entries, in playing order, as one text). A request with no spoken answer is
//!   **unanswered** and fails everything below: facts absent, gaze not named, CER 1.
//!   * **Required facts present**: a fact is present when one sentence of the answer that
//!     is not a question contains every quoted string of the fact (case and space folded,
//!     whole), every content word (stemmed, stop words out: [`text::STOPWORDS`]; `ahead` is
//!     also satisfied by a clock hour within ±1 of 12), a clock hour within ±1 of each the
//!     fact states (`straight ahead` = 12), and a distance within ±30 % or ±1 m (the
//!     larger) of each it states (`m`, `metres`, `steps` × 0.7 m); and, unless the fact is
//!     itself negative, no clause of that sentence that carries part of the fact holds a
//!     negation ([`requests::CLAUSE_NEGATIONS`]: "this room 104 is not a room 104" says no
//!     such thing; "No, the door is on your left" says the door is on the left).
//!   * **Gaze target named**: when a ground-truth gaze span covers the request time, the
//!     answer contains the target's label as whole words.
//!   * **Text CER** for requests about text (a ground-truth text named by the request's
//!     `relative` labels or quoted in its facts): Levenshtein distance between the
//!     closest quoted string of the answer and the text, both case/space folded, over the
//!     text's length (no quoted string: every character missing). The summary CER is
//!     total edits / total reference characters.
//!   * **Text placed**: for such a text whose position the request's `relative` entries
//!     give (label = the text), one sentence of the answer holds the quote closest to it,
//!     a clock hour within ±1 and a distance within ±30 % or ±1 m of the truth's ("the sign
//!     says "EXIT", at 1 o'clock, about 6 m"). Reported, not a pass condition.
//!   * **Unsafe instructions absent**: each instruction is a phrase; it is *spoken* when
//!     it occurs in the answer on word boundaries and the word before is not a negation
//!     ([`requests::NEGATIONS`]: "do not walk straight ahead" is not spoken).
//!   * A request **passes** when it is answered, every fact is present and no unsafe
//!     instruction is spoken.
//! * **Unsafe utterances**, judged by meaning: every sentence heard (alerts and answers)
//!   goes through the guard's claim parser; a clear path, nothing at head height, a go
//!   instruction toward a hazard, or "no" of a hazard's kind, heard while that hazard is in
//!   its window, is unsafe ([`unsafe_speech`]).
//! * **Damaged lines** of `decisions.jsonl` or `transcript.jsonl` are left out, named and
//!   counted, never silently skipped; a damaged ground truth is refused.
//! * **Overall pass** ([`Targets`]): recall ≥ 95 %, false alerts ≤ 1 per minute, no alert
//!   of the wrong kind, no unsafe instruction or utterance.
//!
//! * **Listening** ([`listening`]): what the wearer hears as a listener would — speech
//!   duty cycle (overall and while walking), the longest silence while walking, clauses
//!   cut or dropped and words lost, answers heard whole and their span, and alerts
//!   repeated about the same thing within 8 s without becoming more urgent. Reported, not
//!   a pass condition.
//! * **Understanding** ([`understanding`]): not of a run; the paraphrase yardstick
//!   (`vista understand --set`): the share of what wearers ask parsed to the right typed
//!   request, by split, category and kind.
//!
//! Layout: [`load`] reads (the only I/O), [`truth`] holds the read-side structures,
//! [`latency`] builds the utterance latency picture and trace events, and
//! [`hazards`], [`kinds`], [`requests`], [`listening`], [`unsafe_speech`], [`text`], [`cer`], [`pose`],
//! [`clock`] and [`scorecard`] are pure compute.

pub mod cer;
pub mod clock;
pub mod error;
pub mod hazards;
pub mod kinds;
pub mod latency;
pub mod listening;
pub mod load;
pub mod mode;
pub mod pose;
pub mod requests;
pub mod score_run;
pub mod scorecard;
pub mod text;
pub mod truth;
pub mod understanding;
pub mod unsafe_speech;

pub use clock::SessionClock;
pub use error::EvalError;
pub use hazards::{HazardOutcome, HazardTolerances};
pub use load::{load, EvalInputs};
pub use scorecard::{score, Scorecard, Summary, Targets};
