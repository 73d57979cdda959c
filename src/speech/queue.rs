//! Speech priorities: who speaks next, and who is cut off.
//!
//! * [`Priority::Alert`] interrupts everything but another alert, and clears the lower
//!   queues, except the answer the wearer has begun to hear ([`SpeechQueue::note_heard`]):
//!   that one waits behind the alert and resumes from the clause the alert cut
//!   ([`SpeechQueue::resume`]), so an answer is heard whole, however many alerts come. A
//!   heads-up (an alert not [`Utterance::urgent`]) lets the answer clause being said end
//!   first when it ends soon ([`QueueConfig::heads_up_wait_ns`], applied by the scheduler).
//! * [`Priority::Answer`]: a reply to the user, spoken clause by clause under one request
//!   id. A newer request id cancels the older answer, queued or playing (barge-in); clauses
//!   of an older request that arrive late are dropped. Answers interrupt ambient speech.
//! * [`Priority::Ambient`]: periodic updates; only the latest is kept, and it is dropped when
//!   it has waited longer than [`QueueConfig::ambient_max_age_ns`].
//!
//! Pure: no threads, no clocks; the caller says what is playing and what time it is.

use std::collections::VecDeque;

use super::earcon::Earcon;
use super::pan::Pan;
use crate::time::{DeviceTime, HostTime};

/// How urgent an utterance is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// A hazard: interrupts everything else.
    Alert,
    /// A reply to the user's request.
    Answer,
    /// A periodic, low-priority update.
    Ambient,
}

/// Something to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utterance {
    /// The text (one clause or sentence).
    pub text: String,
    /// How urgent it is.
    pub priority: Priority,
    /// The user request it answers (answers), or any id (alerts, ambient).
    pub request_id: u64,
    /// Capture time of the newest sample the utterance rests on.
    pub capture: DeviceTime,
    /// When it was decided, on the session clock.
    pub decided: HostTime,
    /// A short tone played before the text (the text may then be empty).
    pub earcon: Option<Earcon>,
    /// An alert's tone that stands for it while its words wait for the answer clause being
    /// said (a heads-up lets a clause that ends soon end first): heard at once over that
    /// clause as a cue ([`crate::speech::cue`]), from the same side; the words follow
    /// without a tone of their own.
    pub cue: Option<Earcon>,
    /// Where it is heard between the ears (an alert from its thing's side).
    pub pan: Pan,
    /// An alert that must be heard at once (something close or soon reached): it cuts the
    /// answer clause being said. A heads-up (`false`) follows that clause when it ends soon
    /// ([`crate::speech::schedule::Scheduler`]): an answer is not cut for a less urgent
    /// alert. Meaningless for answers and ambient updates.
    pub urgent: bool,
}

/// Why an utterance was dropped unspoken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// An alert cleared the lower queues.
    ClearedByAlert,
    /// A newer request cancelled this answer (barge-in).
    Superseded,
    /// The clause belongs to a request older than the newest answer.
    StaleRequest,
    /// A newer ambient update replaced it.
    Replaced,
    /// The ambient update waited too long.
    Stale,
    /// The assistant withdrew the rest of its answer (guidance an alert made stale).
    Withdrawn,
    /// Too many cues waited to sound over speech ([`super::cue::MAX_CUES`]).
    CuesFull,
}

/// Queue settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    /// An ambient update older than this (from decision to start) is dropped.
    pub ambient_max_age_ns: i64,
    /// A heads-up alert ([`Utterance::urgent`] false) waits for the answer clause being
    /// said when that clause ends within this long, ns; a clause with more left is cut as
    /// by an urgent alert. A heads-up is for something at least 2.5 m and 2.5 s away
    /// (`AlerterConfig::urgent_m`, `urgent_ttc_s`): waiting 1 s still leaves it said
    /// before the wearer is within 1.5 m of it at a walking pace.
    pub heads_up_wait_ns: i64,
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            ambient_max_age_ns: 3_000_000_000,
            heads_up_wait_ns: 1_000_000_000,
        }
    }
}

/// What is audible now: its priority and request id.
pub type Playing = (Priority, u64);

/// The outcome of [`SpeechQueue::push`].
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// The utterance playing now must stop.
    pub interrupt_current: bool,
    /// Utterances dropped unspoken (possibly the pushed one itself).
    pub dropped: Vec<(Utterance, DropReason)>,
}

/// Three queues, one per priority.
#[derive(Debug, Default)]
pub struct SpeechQueue {
    config: QueueConfig,
    alerts: VecDeque<Utterance>,
    answers: VecDeque<Utterance>,
    ambient: Option<Utterance>,
    newest_request: Option<u64>,
    /// The newest answer of which the wearer has heard something.
    heard_request: Option<u64>,
}

impl SpeechQueue {
    /// An empty queue.
    pub fn new(config: QueueConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// Its settings.
    pub fn config(&self) -> QueueConfig {
        self.config
    }

    /// Utterances waiting.
    pub fn len(&self) -> usize {
        self.alerts.len() + self.answers.len() + usize::from(self.ambient.is_some())
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The wearer has begun to hear answer `request_id` (its first audio reached the sink).
    pub fn note_heard(&mut self, request_id: u64) {
        self.heard_request = self.heard_request.max(Some(request_id));
    }

    /// Whether an answer clause of `request_id` cut (or not yet started) when an alert came
    /// is resumed after it: its answer is the newest, and the wearer has begun to hear it.
    pub fn resumes(&self, request_id: u64) -> bool {
        self.heard_request == Some(request_id) && self.newest_request == Some(request_id)
    }

    /// The answer whose clauses wait in the queue, if any (the newest request's).
    pub fn waiting_answer(&self) -> Option<u64> {
        self.answers.front().map(|a| a.request_id)
    }

    /// Puts an answer clause an alert cut back at the head of the answers, to be said again
    /// after the alert; `false` (and nothing kept) when its answer does not resume
    /// ([`Self::resumes`]).
    pub fn resume(&mut self, u: Utterance) -> bool {
        let kept = u.priority == Priority::Answer && self.resumes(u.request_id);
        if kept {
            self.answers.push_front(u);
        }
        kept
    }

    /// Drops every queued clause of answer `request_id` (the assistant withdrew it) and
    /// returns them.
    pub fn withdraw(&mut self, request_id: u64) -> Vec<Utterance> {
        let (gone, keep): (Vec<_>, Vec<_>) = self
            .answers
            .drain(..)
            .partition(|a| a.request_id == request_id);
        self.answers = keep.into();
        gone
    }

    /// Admits `u`, given what is playing now.
    pub fn push(&mut self, u: Utterance, playing: Option<Playing>) -> Admission {
        let mut adm = Admission::default();
        match u.priority {
            Priority::Alert => {
                // The answer being heard waits behind the alert; what nothing was heard of
                // yet goes (the assistant answers it again from a newer state).
                let heard = self.heard_request;
                let (keep, cleared): (Vec<_>, Vec<_>) = self
                    .answers
                    .drain(..)
                    .partition(|a| heard == Some(a.request_id));
                self.answers = keep.into();
                adm.dropped.extend(
                    cleared
                        .into_iter()
                        .chain(self.ambient.take())
                        .map(|d| (d, DropReason::ClearedByAlert)),
                );
                // A newer alert (higher request id) cuts an older one still speaking, and
                // the older ones' clauses still waiting go, whatever plays: evidence -> audio
                // never waits behind an earlier alert (the alerter says what the older one
                // named again in the newer, when it still matters). Clauses of the same
                // alert share an id.
                let id = u.request_id;
                adm.interrupt_current =
                    playing.is_some_and(|(p, playing_id)| p != Priority::Alert || playing_id < id);
                let (old, keep): (Vec<_>, Vec<_>) =
                    self.alerts.drain(..).partition(|a| a.request_id < id);
                self.alerts = keep.into();
                adm.dropped
                    .extend(old.into_iter().map(|d| (d, DropReason::Superseded)));
                self.alerts.push_back(u);
            }
            Priority::Answer => {
                let id = u.request_id;
                match self.newest_request {
                    Some(newest) if id < newest => {
                        adm.dropped.push((u, DropReason::StaleRequest));
                        return adm;
                    }
                    Some(newest) if id == newest => {}
                    _ => {
                        self.newest_request = Some(id);
                        let (old, keep): (Vec<_>, Vec<_>) =
                            self.answers.drain(..).partition(|a| a.request_id < id);
                        self.answers = keep.into();
                        adm.dropped
                            .extend(old.into_iter().map(|d| (d, DropReason::Superseded)));
                    }
                }
                adm.interrupt_current = match playing {
                    Some((Priority::Ambient, _)) => true,
                    Some((Priority::Answer, playing_id)) => playing_id < id,
                    _ => false,
                };
                self.answers.push_back(u);
            }
            Priority::Ambient => {
                if let Some(old) = self.ambient.replace(u) {
                    adm.dropped.push((old, DropReason::Replaced));
                }
            }
        }
        adm
    }

    /// The next utterance to speak at `now`, and the ambient update dropped as stale, if any.
    pub fn pop(&mut self, now: HostTime) -> (Option<Utterance>, Option<Utterance>) {
        if let Some(a) = self.alerts.pop_front() {
            return (Some(a), None);
        }
        if let Some(a) = self.answers.pop_front() {
            return (Some(a), None);
        }
        match self.ambient.take() {
            Some(a) if now.since(a.decided) > self.config.ambient_max_age_ns => (None, Some(a)),
            other => (other, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(priority: Priority, request_id: u64, text: &str, decided_ns: i64) -> Utterance {
        Utterance {
            text: text.into(),
            priority,
            request_id,
            capture: DeviceTime(0),
            decided: HostTime(decided_ns),
            earcon: None,
            cue: None,
            pan: Pan::CENTRE,
            urgent: false,
        }
    }

    fn texts(q: &mut SpeechQueue) -> Vec<String> {
        std::iter::from_fn(|| q.pop(HostTime(0)).0.map(|u| u.text)).collect()
    }

    #[test]
    fn alert_clears_lower_queues_and_interrupts_answers() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        q.push(u(Priority::Answer, 1, "a1", 0), None);
        q.push(u(Priority::Ambient, 0, "amb", 0), None);
        let adm = q.push(
            u(Priority::Alert, 0, "stop", 0),
            Some((Priority::Answer, 1)),
        );
        assert!(adm.interrupt_current);
        assert_eq!(adm.dropped.len(), 2);
        assert!(adm
            .dropped
            .iter()
            .all(|d| d.1 == DropReason::ClearedByAlert));
        assert_eq!(texts(&mut q), ["stop"]);
    }

    #[test]
    fn the_answer_being_heard_waits_behind_an_alert_and_resumes_at_the_cut_clause() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        q.push(u(Priority::Answer, 1, "a1", 0), None);
        q.push(u(Priority::Answer, 1, "a2", 0), None);
        q.push(u(Priority::Answer, 1, "a3", 0), None);
        assert_eq!(q.pop(HostTime(0)).0.map(|u| u.text).as_deref(), Some("a1"));
        assert!(!q.resumes(1), "nothing heard yet");
        q.note_heard(1);
        let playing = q.pop(HostTime(0)).0.unwrap();
        assert_eq!(playing.text, "a2");
        let adm = q.push(
            u(Priority::Alert, 2, "stop", 0),
            Some((Priority::Answer, 1)),
        );
        assert!(adm.interrupt_current);
        assert!(adm.dropped.is_empty(), "{adm:?}");
        // The cut clause goes back at the head of the answer; the clause heard whole does not.
        assert!(q.resume(playing));
        assert_eq!(texts(&mut q), ["stop", "a2", "a3"]);
        // A newer request supersedes it: no longer resumed.
        q.push(u(Priority::Answer, 3, "b1", 0), None);
        assert!(!q.resumes(1));
        assert!(!q.resume(u(Priority::Answer, 1, "a3", 0)));
        assert_eq!(texts(&mut q), ["b1"]);
    }

    #[test]
    fn a_withdrawn_answer_leaves_the_queue() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        q.push(u(Priority::Answer, 1, "a1", 0), None);
        q.push(u(Priority::Answer, 1, "a2", 0), None);
        q.note_heard(1);
        q.push(u(Priority::Alert, 2, "stop", 0), None);
        assert_eq!(q.waiting_answer(), Some(1));
        assert_eq!(q.withdraw(1).len(), 2);
        assert_eq!(q.waiting_answer(), None);
        assert_eq!(texts(&mut q), ["stop"]);
    }

    #[test]
    fn a_clause_does_not_interrupt_its_own_alert() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        let adm = q.push(u(Priority::Alert, 0, "b", 0), Some((Priority::Alert, 0)));
        assert!(!adm.interrupt_current);
    }

    #[test]
    fn a_newer_alert_cuts_an_older_one_and_its_remaining_clauses() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        q.push(u(Priority::Alert, 3, "pole ahead,", 0), None);
        q.push(u(Priority::Alert, 3, "2 metres.", 0), None);
        assert_eq!(
            q.pop(HostTime(0)).0.map(|u| u.text).as_deref(),
            Some("pole ahead,")
        );
        let adm = q.push(
            u(Priority::Alert, 4, "stop, drop-off", 0),
            Some((Priority::Alert, 3)),
        );
        assert!(adm.interrupt_current);
        assert_eq!(adm.dropped.len(), 1);
        assert_eq!(adm.dropped[0].1, DropReason::Superseded);
        assert_eq!(texts(&mut q), ["stop, drop-off"]);
        // An older alert arriving late does not cut a newer one.
        let late = q.push(u(Priority::Alert, 2, "late", 0), Some((Priority::Alert, 4)));
        assert!(!late.interrupt_current);
    }

    #[test]
    fn newer_request_barges_in() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        q.push(u(Priority::Answer, 1, "one a", 0), None);
        q.push(u(Priority::Answer, 1, "one b", 0), None);
        let adm = q.push(
            u(Priority::Answer, 2, "two", 0),
            Some((Priority::Answer, 1)),
        );
        assert!(adm.interrupt_current);
        assert_eq!(adm.dropped.len(), 2);
        // A late clause of request 1 is dropped; more of request 2 queues up.
        let late = q.push(u(Priority::Answer, 1, "one c", 0), None);
        assert_eq!(late.dropped[0].1, DropReason::StaleRequest);
        let more = q.push(
            u(Priority::Answer, 2, "two b", 0),
            Some((Priority::Answer, 2)),
        );
        assert!(!more.interrupt_current);
        assert_eq!(texts(&mut q), ["two", "two b"]);
    }

    #[test]
    fn only_the_latest_fresh_ambient_is_spoken() {
        let mut q = SpeechQueue::new(QueueConfig {
            ambient_max_age_ns: 100,
            ..QueueConfig::default()
        });
        q.push(u(Priority::Ambient, 0, "old", 0), None);
        let adm = q.push(u(Priority::Ambient, 0, "new", 10), None);
        assert_eq!(adm.dropped[0].1, DropReason::Replaced);
        assert_eq!(q.pop(HostTime(110)).0.unwrap().text, "new");
        q.push(u(Priority::Ambient, 0, "late", 0), None);
        let (next, stale) = q.pop(HostTime(101));
        assert!(next.is_none());
        assert_eq!(stale.unwrap().text, "late");
    }

    #[test]
    fn answers_interrupt_ambient_and_go_before_it() {
        let mut q = SpeechQueue::new(QueueConfig::default());
        q.push(u(Priority::Ambient, 0, "amb", 0), None);
        let adm = q.push(
            u(Priority::Answer, 1, "ans", 0),
            Some((Priority::Ambient, 0)),
        );
        assert!(adm.interrupt_current);
        assert_eq!(texts(&mut q), ["ans", "amb"]);
    }
}
