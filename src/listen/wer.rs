//! Word error rate: how far recognised text is from what was said, in word edits
//! (substitutions, insertions, deletions) per word said, after both are normalised the same
//! way (lower case, punctuation dropped, digits and number words kept as they are).

use serde::Serialize;

/// Edits between a reference and a hypothesis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WordErrors {
    /// Words in the reference.
    pub words: usize,
    /// Word edits needed.
    pub edits: usize,
}

impl WordErrors {
    /// Edits per reference word (0 for an empty reference with no hypothesis words).
    pub fn rate(&self) -> f64 {
        if self.words == 0 {
            return if self.edits == 0 { 0.0 } else { 1.0 };
        }
        self.edits as f64 / self.words as f64
    }

    /// The sum of two counts (a corpus rate is total edits over total words).
    pub fn plus(self, other: WordErrors) -> WordErrors {
        WordErrors {
            words: self.words + other.words,
            edits: self.edits + other.edits,
        }
    }
}

/// The words of `text`, lower case, without punctuation ("Where's" → "where's").
pub fn normalised_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect::<String>()
                .trim_matches('\'')
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Word edits between `reference` (what was said) and `hypothesis` (what was heard).
pub fn word_errors(reference: &str, hypothesis: &str) -> WordErrors {
    let r = normalised_words(reference);
    let h = normalised_words(hypothesis);
    let mut prev: Vec<usize> = (0..=h.len()).collect();
    let mut cur = vec![0; h.len() + 1];
    for (i, rw) in r.iter().enumerate() {
        cur[0] = i + 1;
        for (j, hw) in h.iter().enumerate() {
            let sub = prev[j] + usize::from(rw != hw);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    WordErrors {
        words: r.len(),
        edits: prev[h.len()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_kind_of_edit_once() {
        assert_eq!(
            word_errors("Where is the car?", "where is the car").edits,
            0
        );
        assert_eq!(word_errors("where is the car", "where is a car").edits, 1);
        assert_eq!(word_errors("where is the car", "where the car").edits, 1);
        assert_eq!(
            word_errors("where is the car", "where is the red car").edits,
            1
        );
        let e = word_errors("take me to the exit", "take meat on the egg lid");
        assert_eq!((e.words, e.edits), (5, 4));
        assert!((e.rate() - 0.8).abs() < 1e-9);
        assert_eq!(word_errors("", "").rate(), 0.0);
        assert_eq!(word_errors("", "noise").rate(), 1.0);
        assert_eq!(
            normalised_words("Where's the (red) car?!"),
            ["where's", "the", "red", "car"]
        );
    }
}
