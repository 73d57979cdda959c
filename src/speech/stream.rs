//! Streaming an answer: tokens from the language model go through the clause [`Chunker`]
//! and each complete clause goes to the [`Speaker`] at once, so speech begins with the first
//! clause while the model is still generating.

use super::chunker::{Chunk, Chunker, ChunkerConfig};
use super::queue::{Priority, Utterance};
use super::speaker::{SayError, Speaker};
use crate::time::{DeviceTime, HostTime};

/// How often [`AnswerStream::push_waiting`] looks again for room in the speaker's queue.
pub const WAIT_FOR_ROOM: std::time::Duration = std::time::Duration::from_millis(10);

/// One answer being streamed to a speaker.
#[derive(Debug)]
pub struct AnswerStream<'a> {
    speaker: &'a Speaker,
    chunker: Chunker,
    request_id: u64,
    capture: DeviceTime,
    said: usize,
    refused: usize,
    /// Clauses of an earlier answer to the same request that the wearer heard whole, in
    /// order; the ones this answer begins with are not said again.
    heard_before: Vec<String>,
    /// How many of its first clauses matched them (and were left out): the next one to
    /// compare.
    skipped: usize,
}

impl<'a> AnswerStream<'a> {
    /// Starts answer `request_id`, resting on samples captured up to `capture`.
    pub fn new(
        speaker: &'a Speaker,
        config: ChunkerConfig,
        request_id: u64,
        capture: DeviceTime,
    ) -> Self {
        Self {
            speaker,
            chunker: Chunker::new(config),
            request_id,
            capture,
            said: 0,
            refused: 0,
            heard_before: Vec::new(),
            skipped: 0,
        }
    }

    /// The wearer heard `clauses` (in order) whole in an earlier answer to the same request,
    /// which an alert then cut: as long as this answer begins with the same clauses, they
    /// are left out, and it goes on from where the wearer was. From its first clause that
    /// differs (something changed since) it is said whole.
    pub fn with_heard_before(mut self, clauses: Vec<String>) -> Self {
        self.heard_before = clauses;
        self
    }

    /// Whether clause `text`, the next to say, was heard before: only while every clause
    /// before it was (the first that was not ends the comparison for good).
    fn heard_already(&mut self, text: &str) -> bool {
        let again = self
            .heard_before
            .get(self.skipped)
            .is_some_and(|h| h.as_str() == text.trim());
        if again {
            self.skipped += 1;
        } else {
            self.heard_before.clear();
        }
        again
    }

    /// Adds a token generated at `now` (session clock); speaks the clauses it completes.
    /// Never blocks. Returns how many clauses went to the speaker.
    pub fn push(&mut self, token: &str, now: HostTime) -> usize {
        let chunks = self.chunker.push(token, now);
        self.say_all(chunks, now)
    }

    /// Like [`Self::push`], but a clause the speaker has no room for waits (polling every
    /// [`WAIT_FOR_ROOM`]) until the queue drains, instead of being refused: for a reader
    /// that can hold its input back (`vista say -` on a pipe), so no clause is dropped.
    /// Refuses only when the speaker has stopped.
    pub fn push_waiting(&mut self, token: &str, now: HostTime) -> usize {
        let chunks = self.chunker.push(token, now);
        self.say_all_waiting(chunks, now)
    }

    /// Like [`Self::finish`], waiting for room as [`Self::push_waiting`] does.
    pub fn finish_waiting(mut self, now: HostTime) -> (usize, usize) {
        let rest: Vec<Chunk> = self.chunker.finish().into_iter().collect();
        self.say_all_waiting(rest, now);
        (self.said, self.refused)
    }

    fn say_all_waiting(&mut self, chunks: Vec<Chunk>, now: HostTime) -> usize {
        let mut n = 0;
        for c in chunks {
            let u = Utterance {
                text: c.text,
                priority: Priority::Answer,
                request_id: self.request_id,
                capture: self.capture,
                decided: now,
                earcon: None,
                cue: None,
                pan: super::pan::Pan::CENTRE,
                urgent: false,
            };
            loop {
                match self.speaker.say(u.clone()) {
                    Ok(()) => {
                        n += 1;
                        break;
                    }
                    Err(SayError::Full) => std::thread::sleep(WAIT_FOR_ROOM),
                    Err(SayError::Closed) => {
                        self.refused += 1;
                        break;
                    }
                }
            }
        }
        self.said += n;
        n
    }

    /// Speaks pending text that has waited past the chunker's timeout.
    pub fn poll(&mut self, now: HostTime) -> usize {
        let chunks = self.chunker.poll(now);
        self.say_all(chunks, now)
    }

    /// The answer is complete: speaks the rest. Returns (clauses said, clauses refused by a
    /// full speaker queue).
    pub fn finish(mut self, now: HostTime) -> (usize, usize) {
        let rest: Vec<Chunk> = self.chunker.finish().into_iter().collect();
        self.say_all(rest, now);
        (self.said, self.refused)
    }

    /// When [`AnswerStream::poll`] should next be called, if text is pending.
    pub fn deadline(&self) -> Option<HostTime> {
        self.chunker.deadline()
    }

    fn say_all(&mut self, chunks: Vec<Chunk>, now: HostTime) -> usize {
        let mut n = 0;
        for c in chunks {
            if self.heard_already(&c.text) {
                continue;
            }
            match self.speaker.say(Utterance {
                text: c.text,
                priority: Priority::Answer,
                request_id: self.request_id,
                capture: self.capture,
                decided: now,
                earcon: None,
                cue: None,
                pan: super::pan::Pan::CENTRE,
                urgent: false,
            }) {
                Ok(()) => n += 1,
                Err(SayError::Full) | Err(SayError::Closed) => self.refused += 1,
            }
        }
        self.said += n;
        n
    }
}
