//! Number words (pure): the one list the speaker, the guard, the answer checks and the scorer
//! read and say numbers with.

/// The number words zero to twenty, each at its value's index.
pub const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

/// The value of a number word of [`NUMBER_WORDS`] ("six" → 6).
pub fn word_value(word: &str) -> Option<u32> {
    NUMBER_WORDS
        .iter()
        .position(|w| *w == word)
        .and_then(|i| u32::try_from(i).ok())
}

/// A number as the guard reads it: digits ("2.5"), a word of [`NUMBER_WORDS`], and the
/// quantities "a"/"an" (one), "half" and "thirty".
pub fn number(word: &str) -> Option<f32> {
    if let Ok(v) = word.parse::<f32>() {
        return v.is_finite().then_some(v);
    }
    match word {
        "a" | "an" => Some(1.0),
        "half" => Some(0.5),
        "thirty" => Some(30.0),
        _ => word_value(word).map(|v| v as f32),
    }
}

/// A count as said: "no" for none, a word up to ten, digits above.
pub fn count_word(n: usize) -> String {
    match n {
        0 => "no".to_string(),
        1..=10 => NUMBER_WORDS
            .get(n)
            .map_or_else(|| n.to_string(), |w| (*w).to_string()),
        _ => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_digits_read_as_numbers() {
        assert_eq!(number("six"), Some(6.0));
        assert_eq!(number("twenty"), Some(20.0));
        assert_eq!(number("2.5"), Some(2.5));
        assert_eq!(number("a"), Some(1.0));
        assert_eq!(number("door"), None);
        assert_eq!(number("NaN"), None);
        assert_eq!(word_value("zero"), Some(0));
        assert_eq!(word_value("a"), None);
        assert_eq!(count_word(0), "no");
        assert_eq!(count_word(3), "three");
        assert_eq!(count_word(10), "ten");
        assert_eq!(count_word(11), "11");
    }
}
