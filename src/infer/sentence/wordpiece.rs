//! BERT's uncased WordPiece tokenizer (pure), as the sentence encoder was trained with it:
//! text lower-cased, accents stripped (NFD, combining marks dropped), control characters
//! removed, split at whitespace and around every punctuation character (ASCII punctuation,
//! and any other character that is neither a letter, a digit nor a space), then each word
//! cut greedily into the longest pieces of the vocabulary (continuations spelt `##…`); a
//! word with no cut, or longer than [`MAX_WORD_CHARS`], is `[UNK]`.
//!
//! Checked against the ids Hugging Face's tokenizer gives (`tests/data/sentence/`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

/// Longer words are one `[UNK]` (BERT's `max_input_chars_per_word`).
pub const MAX_WORD_CHARS: usize = 100;

/// Most pieces in a vocabulary file (BERT's has 30 522).
pub const MAX_VOCAB: usize = 1 << 20;

/// The vocabulary could not be read.
#[derive(Debug, thiserror::Error)]
pub enum VocabError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a WordPiece vocabulary.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A WordPiece vocabulary: piece → id, with the special tokens' ids.
#[derive(Clone, Debug)]
pub struct WordPiece {
    ids: HashMap<String, u32>,
    /// `[CLS]`, which starts every sequence.
    pub cls: u32,
    /// `[SEP]`, which ends it.
    pub sep: u32,
    /// `[UNK]`, for a word with no pieces.
    pub unk: u32,
}

impl WordPiece {
    /// Reads `vocab.txt` (one piece per line; the line number is its id).
    pub fn load(path: &Path) -> Result<Self, VocabError> {
        let text = std::fs::read_to_string(path).map_err(|source| VocabError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_lines(&text).map_err(|reason| VocabError::Format {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// A vocabulary from the text of `vocab.txt`.
    pub fn from_lines(text: &str) -> Result<Self, String> {
        let mut ids = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if i >= MAX_VOCAB {
                return Err(format!("more than {MAX_VOCAB} pieces"));
            }
            // Ids fit: i < MAX_VOCAB.
            ids.entry(line.to_string()).or_insert(i as u32);
        }
        let special = |name: &str| {
            ids.get(name)
                .copied()
                .ok_or_else(|| format!("no {name} piece"))
        };
        Ok(Self {
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            unk: special("[UNK]")?,
            ids,
        })
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// The largest id (each id indexes a row of the encoder's word embeddings).
    pub fn max_id(&self) -> u32 {
        self.ids.values().copied().max().unwrap_or(0)
    }

    /// Whether the vocabulary is empty (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ids of `text`: `[CLS]`, its pieces (at most `max_len - 2`), `[SEP]`.
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let room = max_len.saturating_sub(2);
        let mut out = vec![self.cls];
        'words: for word in basic_words(text) {
            for id in self.pieces(&word) {
                if out.len() > room {
                    break 'words;
                }
                out.push(id);
            }
        }
        out.push(self.sep);
        out
    }

    /// The pieces of one word (greedy longest match first).
    fn pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            return vec![self.unk];
        }
        let mut out = Vec::new();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let mut found = None;
            for end in (start + 1..=chars.len()).rev() {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(&piece) {
                    found = Some((id, end));
                    break;
                }
            }
            match found {
                Some((id, end)) => {
                    out.push(id);
                    start = end;
                }
                None => return vec![self.unk],
            }
        }
        out
    }
}

/// Whether BERT splits around `c`: ASCII punctuation (`$`, `+`, `^`, `` ` `` included), and
/// any other character that is neither alphanumeric nor a space (Unicode punctuation and
/// symbols; BERT splits at punctuation only, which differs for a few rare symbols).
fn splits_at(c: char) -> bool {
    c.is_ascii_punctuation() || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
}

/// The words of `text` before WordPiece: cleaned, lower-cased, accents stripped, split at
/// spaces and around punctuation.
pub fn basic_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let lowered = text.to_lowercase();
    for c in lowered.nfd() {
        if unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        if c.is_whitespace() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        } else if c == '\0' || c == '\u{fffd}' || c.is_control() {
            continue;
        } else if splits_at(c) {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            words.push(c.to_string());
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let pieces = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "where", "is", "the", "door", "?", "'", "s", "un",
            "##believ", "##able", "cafe", ",",
        ];
        WordPiece::from_lines(&pieces.join("\n")).unwrap()
    }

    #[test]
    fn words_are_lowered_stripped_of_accents_and_split_at_punctuation() {
        assert_eq!(
            basic_words("Where's the  Café,\tplease?"),
            ["where", "'", "s", "the", "cafe", ",", "please", "?"]
        );
        assert_eq!(basic_words("a\u{7}b"), ["ab"]);
        assert!(basic_words(" \n ").is_empty());
    }

    #[test]
    fn pieces_are_the_longest_matches_and_unknown_words_one_unk() {
        let v = vocab();
        assert_eq!(v.encode("Where is the door?", 64), [2, 4, 5, 6, 7, 8, 3]);
        assert_eq!(v.encode("unbelievable", 64), [2, 11, 12, 13, 3]);
        assert_eq!(v.encode("unbelievably", 64), [2, 1, 3]);
        let long = "a".repeat(MAX_WORD_CHARS + 1);
        assert_eq!(v.encode(&long, 64), [2, 1, 3]);
    }

    #[test]
    fn a_long_text_is_cut_to_the_length_with_its_end_marker() {
        let v = vocab();
        let ids = v.encode(&"door ".repeat(100), 8);
        assert_eq!(ids.len(), 8);
        assert_eq!(ids[0], v.cls);
        assert_eq!(ids[7], v.sep);
    }

    #[test]
    fn a_vocabulary_without_its_special_pieces_is_refused() {
        assert!(WordPiece::from_lines("a\nb").is_err());
    }
}
