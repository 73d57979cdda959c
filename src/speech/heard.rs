//! The answer clauses the wearer heard whole, per answer (request id), for the newest
//! [`HEARD_KEPT`] answers: an answer an alert cut and that is asked again goes on from where
//! the wearer was instead of repeating what they heard ([`crate::speech::AnswerStream`]).
//! Pure and bounded.

use std::collections::VecDeque;

/// Answers remembered (the oldest are forgotten).
pub const HEARD_KEPT: usize = 16;
/// Clauses remembered per answer (later ones are not).
pub const CLAUSES_KEPT: usize = 64;

/// Per answer, its clauses heard whole, in the order they played.
#[derive(Debug, Default)]
pub struct HeardClauses {
    answers: VecDeque<(u64, Vec<String>)>,
}

impl HeardClauses {
    /// Clause `text` of answer `request_id` played to its end.
    pub fn heard(&mut self, request_id: u64, text: &str) {
        let i = match self.answers.iter().position(|(id, _)| *id == request_id) {
            Some(i) => i,
            None => {
                if self.answers.len() >= HEARD_KEPT {
                    self.answers.pop_front();
                }
                self.answers.push_back((request_id, Vec::new()));
                self.answers.len() - 1
            }
        };
        if let Some((_, clauses)) = self.answers.get_mut(i) {
            if clauses.len() < CLAUSES_KEPT {
                clauses.push(text.trim().to_string());
            }
        }
    }

    /// The clauses of answer `request_id` heard whole, in order (none when forgotten).
    pub fn of(&self, request_id: u64) -> Vec<String> {
        self.answers
            .iter()
            .find(|(id, _)| *id == request_id)
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_are_kept_per_answer_in_order_and_bounded() {
        let mut h = HeardClauses::default();
        h.heard(1, "The exit door is at 1 o'clock, ");
        h.heard(2, "Stop.");
        h.heard(1, "about 5 metres,");
        assert_eq!(
            h.of(1),
            ["The exit door is at 1 o'clock,", "about 5 metres,"]
        );
        assert!(h.of(3).is_empty());
        for id in 10..10 + HEARD_KEPT as u64 {
            h.heard(id, "x");
        }
        assert!(h.of(1).is_empty());
        for _ in 0..CLAUSES_KEPT + 5 {
            h.heard(99, "y");
        }
        assert_eq!(h.of(99).len(), CLAUSES_KEPT);
    }
}
