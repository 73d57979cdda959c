//! Clause chunker: turns a stream of language-model tokens into speakable clauses as soon as
//! each is complete, so speech starts long before the answer ends.
//!
//! Pure: time comes from the caller ([`HostTime`] on whatever clock drives the session), so
//! the same tokens at the same times always give the same chunks. A chunk ends at sentence
//! punctuation (`. ! ? …`) or clause punctuation (`, ; : —`) once it is at least
//! [`ChunkerConfig::min_chars`] long; a run with no punctuation is split at a space once it
//! passes [`ChunkerConfig::max_chars`]; and text that has waited
//! [`ChunkerConfig::timeout_ns`] is spoken up to its last complete word. Chunks are trimmed;
//! concatenated, they give back the input text without its whitespace.

use crate::time::HostTime;

/// Chunker settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkerConfig {
    /// Shortest chunk (in characters, after trimming) cut at punctuation or length.
    pub min_chars: usize,
    /// A punctuation-free run longer than this is cut at its last space.
    pub max_chars: usize,
    /// Pending text older than this is spoken up to its last complete word.
    pub timeout_ns: i64,
}

impl Default for ChunkerConfig {
    fn default() -> Self {
        Self {
            min_chars: 12,
            max_chars: 160,
            timeout_ns: 600_000_000,
        }
    }
}

/// Why a chunk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkReason {
    /// Sentence punctuation.
    Sentence,
    /// Clause punctuation.
    Clause,
    /// The text ran past `max_chars` without punctuation.
    Length,
    /// The text waited longer than `timeout_ns`.
    Timeout,
    /// The stream ended ([`Chunker::finish`]).
    End,
}

/// One speakable piece of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The text, trimmed, never empty.
    pub text: String,
    /// Why it ended.
    pub reason: ChunkReason,
}

/// Words ending in `.` that do not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "st", "vs", "etc", "e.g", "i.e", "approx", "no", "jr", "sr", "prof",
];

/// Splits streamed text into clauses. See the module documentation.
#[derive(Clone, Debug)]
pub struct Chunker {
    config: ChunkerConfig,
    pending: String,
    /// When the oldest unspoken non-whitespace text arrived.
    pending_since: Option<HostTime>,
}

impl Chunker {
    /// A chunker with `config`.
    pub fn new(config: ChunkerConfig) -> Self {
        Self {
            config,
            pending: String::new(),
            pending_since: None,
        }
    }

    /// Text received but not yet emitted.
    pub fn pending(&self) -> &str {
        &self.pending
    }

    /// When [`Chunker::poll`] will next emit by timeout, if text is pending.
    pub fn deadline(&self) -> Option<HostTime> {
        self.pending_since
            .map(|t| HostTime(t.0.saturating_add(self.config.timeout_ns)))
    }

    /// Adds a token received at `now`; returns the chunks it completes.
    pub fn push(&mut self, token: &str, now: HostTime) -> Vec<Chunk> {
        if self.pending_since.is_none() && !token.trim().is_empty() {
            self.pending_since = Some(now);
        }
        self.pending.push_str(token);
        let mut out = Vec::new();
        while let Some((end, reason)) = self.next_cut() {
            self.emit(end, reason, now, &mut out);
        }
        self.poll_into(now, &mut out);
        out
    }

    /// Emits pending text that has waited past the timeout (up to its last complete word).
    pub fn poll(&mut self, now: HostTime) -> Vec<Chunk> {
        let mut out = Vec::new();
        self.poll_into(now, &mut out);
        out
    }

    /// The stream ended: emits whatever is pending.
    pub fn finish(&mut self) -> Option<Chunk> {
        let text = self.pending.trim().to_string();
        self.pending.clear();
        self.pending_since = None;
        (!text.is_empty()).then_some(Chunk {
            text,
            reason: ChunkReason::End,
        })
    }

    fn poll_into(&mut self, now: HostTime, out: &mut Vec<Chunk>) {
        let Some(deadline) = self.deadline() else {
            return;
        };
        if now < deadline {
            return;
        }
        // Up to the last whitespace that follows some text: complete words only.
        let trimmed_start = self.pending.len() - self.pending.trim_start().len();
        if let Some(ws) = self.pending[trimmed_start..]
            .rfind(char::is_whitespace)
            .map(|i| i + trimmed_start)
        {
            self.emit(ws, ChunkReason::Timeout, now, out);
        }
    }

    fn emit(&mut self, end: usize, reason: ChunkReason, now: HostTime, out: &mut Vec<Chunk>) {
        let end = end.min(self.pending.len());
        let text = self.pending.get(..end).unwrap_or("").trim().to_string();
        self.pending.drain(..end);
        self.pending_since = if self.pending.trim().is_empty() {
            None
        } else {
            Some(now)
        };
        if !text.is_empty() {
            out.push(Chunk { text, reason });
        }
    }

    /// The end (byte index) and reason of the first cut in `pending`, if any.
    fn next_cut(&self) -> Option<(usize, ChunkReason)> {
        let p = &self.pending;
        let start = p.len() - p.trim_start().len();
        let mut chars_so_far = 0usize;
        let mut prev: Option<char> = None;
        let mut iter = p[start..].char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            chars_so_far += 1;
            let reason = match c {
                '.' | '!' | '?' | '…' => Some(ChunkReason::Sentence),
                ',' | ';' | ':' | '—' => Some(ChunkReason::Clause),
                _ => None,
            };
            if let Some(reason) = reason {
                // Closing quotes and brackets stay with the clause they close.
                let mut end = start + i + c.len_utf8();
                let mut n = chars_so_far;
                while let Some(&(j, q)) = iter.peek() {
                    if matches!(q, '"' | '\'' | '”' | '’' | ')' | ']') {
                        end = start + j + q.len_utf8();
                        n += 1;
                        iter.next();
                    } else {
                        break;
                    }
                }
                chars_so_far = n;
                let next = p[end..].chars().next();
                let confirmed = match next {
                    Some(w) => w.is_whitespace(),
                    None => ends_clause_at_end(c, prev),
                } && !(c == '.' && is_abbreviation(&p[start..start + i]));
                if confirmed && chars_so_far >= self.config.min_chars {
                    return Some((end, reason));
                }
            }
            prev = Some(c);
        }
        if chars_so_far > self.config.max_chars {
            // Cut at the last space that keeps the chunk within `max_chars` and at least
            // `min_chars` long (or, failing that, the first space past `min_chars`).
            let body = &p[start..];
            let mut best = None;
            for (i, c) in body.char_indices() {
                if !c.is_whitespace() {
                    continue;
                }
                let n = body[..i].trim().chars().count();
                if n < self.config.min_chars {
                    continue;
                }
                if n <= self.config.max_chars || best.is_none() {
                    best = Some(start + i);
                }
                if n > self.config.max_chars {
                    break;
                }
            }
            return best.map(|b| (b, ChunkReason::Length));
        }
        None
    }
}

/// Whether punctuation `c` at the very end of the pending text already ends a clause (the
/// next token cannot turn it into a number or an abbreviation).
fn ends_clause_at_end(c: char, prev: Option<char>) -> bool {
    match c {
        '!' | '?' | '…' => true,
        _ => prev.is_some_and(char::is_alphabetic),
    }
}

/// Whether the word just before a `.` is a common abbreviation or a single letter.
fn is_abbreviation(before_dot: &str) -> bool {
    let word = before_dot
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or("")
        .trim_start_matches(['(', '"', '\'', '“', '‘'])
        .to_lowercase();
    word.chars().count() == 1 && word.chars().all(char::is_alphabetic)
        || ABBREVIATIONS.contains(&word.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunker() -> Chunker {
        Chunker::new(ChunkerConfig::default())
    }

    #[test]
    fn sentence_emitted_by_the_token_that_completes_it() {
        let mut c = chunker();
        let t = HostTime(0);
        assert!(c.push("Turn", t).is_empty());
        assert!(c.push(" left now", t).is_empty());
        let out = c.push(".", t);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].text, "Turn left now.");
        assert_eq!(out[0].reason, ChunkReason::Sentence);
        assert!(c.push(" Then", t).is_empty());
        assert_eq!(c.finish().unwrap().text, "Then");
    }

    #[test]
    fn numbers_and_abbreviations_do_not_end_clauses() {
        let mut c = chunker();
        let t = HostTime(0);
        assert!(c.push("It is 3.", t).is_empty());
        assert!(c.push("5 metres to Dr. Smith's door", t).is_empty());
        assert!(c.push(" and 1,000 steps", t).is_empty());
        let out = c.push(", then stop", t);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].text,
            "It is 3.5 metres to Dr. Smith's door and 1,000 steps,"
        );
    }

    #[test]
    fn short_clauses_wait_for_the_minimum() {
        let mut c = chunker();
        let t = HostTime(0);
        assert!(c.push("Yes, ", t).is_empty());
        let out = c.push("the bus is here. ", t);
        assert_eq!(out[0].text, "Yes, the bus is here.");
    }

    #[test]
    fn timeout_speaks_complete_words_only() {
        let mut c = chunker();
        assert!(c.push("walk towards the", HostTime(0)).is_empty());
        assert!(c.poll(HostTime(599_999_999)).is_empty());
        let out = c.poll(HostTime(600_000_000));
        assert_eq!(out[0].text, "walk towards");
        assert_eq!(out[0].reason, ChunkReason::Timeout);
        assert_eq!(c.pending().trim(), "the");
        // The rest restarts its own wait.
        assert!(c.poll(HostTime(700_000_000)).is_empty());
    }

    #[test]
    fn long_runs_split_at_spaces() {
        let mut c = Chunker::new(ChunkerConfig {
            min_chars: 5,
            max_chars: 20,
            timeout_ns: i64::MAX,
        });
        let out = c.push("one two three four five six seven", HostTime(0));
        assert!(!out.is_empty());
        assert!(out.iter().all(|c| c.reason == ChunkReason::Length));
        assert!(out.iter().all(|c| c.text.chars().count() <= 20));
    }
}
