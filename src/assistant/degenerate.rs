//! Degenerate model output, caught before it is spoken (pure). Small language models fall
//! into loops ("The obstacle - The obstacle - The obstacle -" spoken for ten seconds) and
//! stop mid-sentence when their token budget runs out ("The exit door is at 2 o'clock,
//! about"). A wearer hears both as noise, and a loop holds the speech channel a walker
//! needs. Words are compared without case and punctuation, so "The obstacle -" and "the
//! obstacle," are one phrase.

/// A phrase said this many times back to back is a loop.
pub const LOOP_REPEATS: usize = 3;
/// The longest phrase looked for, in words.
pub const MAX_LOOP_WORDS: usize = 8;

fn norm(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The index of the first word of the first loop in `text` (a phrase of 1 to
/// [`MAX_LOOP_WORDS`] words repeated [`LOOP_REPEATS`] times back to back), if there is one.
/// Words that are only punctuation ("-") do not count.
pub fn loop_start(text: &str) -> Option<usize> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(norm)
        .filter(|w| !w.is_empty())
        .collect();
    (0..words.len()).find(|&i| {
        (1..=MAX_LOOP_WORDS).any(|n| {
            let Some(first) = words.get(i..i + n) else {
                return false;
            };
            (1..LOOP_REPEATS).all(|k| words.get(i + k * n..i + (k + 1) * n) == Some(first))
        })
    })
}

/// Whether `text` holds a loop.
pub fn loops(text: &str) -> bool {
    loop_start(text).is_some()
}

/// Whether `text` ends a sentence (its last character, quotes aside, is `.`, `!` or `?`).
pub fn finished(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches(['"', '\'', '\u{201d}', '\u{2019}', ')'])
        .ends_with(['.', '!', '?'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_said_three_times_running_is_a_loop() {
        assert_eq!(
            loop_start("The obstacle - The obstacle - The obstacle -"),
            Some(0)
        );
        assert_eq!(
            loop_start("Careful: the bin is at 12 o'clock, the bin is at 12 o'clock, the bin is at 12 o'clock"),
            Some(1)
        );
        assert!(loops("Go go go"));
        // Twice is speech, not a loop; nor is a word that comes back later.
        assert!(!loops("Very, very close: the bin is at 12 o'clock."));
        assert!(!loops(
            "The door is at 2 o'clock. The bin is at 12 o'clock. The sign is at 1 o'clock."
        ));
        assert!(!loops(""));
    }

    #[test]
    fn a_loop_longer_than_the_longest_phrase_looked_for_is_not_found() {
        let nine = "one two three four five six seven eight nine ";
        assert!(!loops(&nine.repeat(3)));
        let eight = "one two three four five six seven eight ";
        assert!(loops(&eight.repeat(3)));
    }

    #[test]
    fn finished_sentences_end_in_sentence_punctuation() {
        assert!(finished("The door is at 2 o'clock."));
        assert!(finished("It says \"EXIT.\""));
        assert!(finished("Is it? "));
        assert!(!finished("The exit door is at 2 o'clock, about"));
        assert!(!finished("The obstacle -"));
    }
}
