//! The recogniser's character list and greedy CTC decoding, as RapidOCR's `CTCLabelDecode`:
//! classes are `blank` + the list from the model's `character` metadata + a space; per time
//! step take the most likely class, merge repeats, drop blanks; the line's confidence is the
//! mean probability of the kept steps (0 when none).
//!
//! Word gaps: PP-OCRv4's recogniser was trained mostly on Chinese text, where spaces are rare,
//! so on small or distant Latin text it gives the gap between two words to the blank and
//! greedy decoding joins them ("ROOM12" for "ROOM 12"). The space class still takes a share
//! of those steps (measured on synthetic signs: 11–38 % over a gap; inside words at most 3 %).
//! So between two kept characters with no space kept, a space is put when the probability
//! that some step of the gap is a space, `1 − Π (1 − p_space)` over the steps from the first
//! step of the character before to the step before the next one, reaches
//! [`WORD_GAP_SPACE_P`]. RapidOCR's own word boxes (`get_word_info`) split words only on
//! a kept space or a gap of more than 4 steps; the step count alone does not tell a word gap
//! from a wide letter ("Platfor" and "m" are 5 steps apart) nor find one in small text (the
//! gap in "CAFE OPEN" 20 px high is 2 steps, as between its letters), the space's share does.

/// A space is put between two kept characters when the probability that the gap between
/// them holds a space reaches this (see the module doc).
pub const WORD_GAP_SPACE_P: f64 = 0.1;

/// Splits the `character` metadata into lines as Python's `str.splitlines` does.
pub fn split_lines_like_python(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur));
            }
            '\n' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The recogniser's classes: index 0 is the CTC blank, the last one a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Charset {
    classes: Vec<String>,
}

impl Charset {
    /// From the model's `character` metadata.
    pub fn from_metadata(character: &str) -> Self {
        let mut classes = vec![String::new()];
        classes.extend(split_lines_like_python(character));
        classes.push(" ".to_string());
        Self { classes }
    }

    /// Number of classes (blank and space included).
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there are no classes at all (never, once built).
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Greedy decoding of one line's `steps × classes` probabilities: the text and its
    /// confidence, with a space put at word gaps the greedy path gave to the blank (see the
    /// module doc; a put space is not a kept step, so the confidence is RapidOCR's). Rows
    /// shorter than the class count are ignored.
    pub fn decode(&self, probs: &[f32], steps: usize) -> (String, f32) {
        let n = self.classes.len();
        let space = n.saturating_sub(1);
        let mut text = String::new();
        let (mut sum, mut kept) = (0f64, 0usize);
        let mut prev = usize::MAX;
        // Probability that no step since the last kept character was a space.
        let mut no_space = 1f64;
        for t in 0..steps {
            let Some(row) = probs.get(t * n..(t + 1) * n) else {
                break;
            };
            let (mut best, mut p) = (0usize, f32::MIN);
            for (i, &v) in row.iter().enumerate() {
                if v > p {
                    best = i;
                    p = v;
                }
            }
            if best != 0 && best != prev {
                let gap_space = 1.0 - no_space;
                if best != space
                    && gap_space >= WORD_GAP_SPACE_P
                    && !text.is_empty()
                    && !text.ends_with(' ')
                {
                    text.push(' ');
                }
                if let Some(s) = self.classes.get(best) {
                    text.push_str(s);
                }
                sum += f64::from(p);
                kept += 1;
                no_space = 1.0;
            }
            let ps = row.get(space).copied().unwrap_or(0.0);
            if ps.is_finite() {
                no_space *= 1.0 - f64::from(ps.clamp(0.0, 1.0));
            }
            prev = best;
        }
        let conf = if kept == 0 {
            0.0
        } else {
            (sum / kept as f64) as f32
        };
        (text, conf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_as_python_does() {
        assert_eq!(
            split_lines_like_python("a\nb\r\nc\rd\n"),
            vec!["a", "b", "c", "d"]
        );
        assert_eq!(split_lines_like_python("x\u{2028}y"), vec!["x", "y"]);
    }

    #[test]
    fn greedy_ctc_merges_repeats_and_drops_blanks() {
        // Classes: blank, a, b, space.
        let cs = Charset::from_metadata("a\nb");
        assert_eq!(cs.len(), 4);
        // The rest of each step goes to the blank and the letters, none to the space
        // (a space's share in a gap is a word gap: see the next tests).
        let step = |k: usize, p: f32| {
            let mut r = vec![(1.0 - p) / 3.0; 4];
            r[3] = 0.0;
            r[k] = p;
            r
        };
        // a a blank a b space → "aab ", kept steps: a(0.9), a(0.7), b(0.8), space(0.6).
        let probs: Vec<f32> = [
            step(1, 0.9),
            step(1, 0.5),
            step(0, 0.99),
            step(1, 0.7),
            step(2, 0.8),
            step(3, 0.6),
        ]
        .concat();
        let (text, conf) = cs.decode(&probs, 6);
        assert_eq!(text, "aab ");
        assert!((conf - 0.75).abs() < 1e-6);
        let (empty, c0) = cs.decode(&step(0, 0.9), 1);
        assert_eq!((empty.as_str(), c0), ("", 0.0));
    }

    /// One step: `best` takes `p`, the space `ps`, the rest share what is left.
    fn row(best: usize, p: f32, ps: f32) -> Vec<f32> {
        let mut r = vec![(1.0 - p - ps).max(0.0) / 2.0; 4];
        r[3] = ps;
        r[best] = p;
        r
    }

    #[test]
    fn a_gap_the_space_shares_is_a_word_gap() {
        // Classes: blank, a, b, space. Measured on "ROOM 12" 30 px high: the space
        // takes 24 % and 15 % of two blank steps between "M" and "1".
        let cs = Charset::from_metadata("a\nb");
        let probs: Vec<f32> = [
            row(1, 0.99, 0.0),
            row(0, 0.99, 0.01),
            row(0, 0.75, 0.24),
            row(0, 0.84, 0.15),
            row(2, 0.99, 0.0),
        ]
        .concat();
        let (text, conf) = cs.decode(&probs, 5);
        assert_eq!(text, "a b");
        // The put space is not a kept step: the confidence is the two letters'.
        assert!((conf - 0.99).abs() < 1e-6);
        // In small text the space shares the letter's own step ("E" of "CAFE OPEN" 20 px
        // high: 63 % "E", 22 % space) and one blank step.
        let small: Vec<f32> = [row(1, 0.63, 0.22), row(0, 0.6, 0.14), row(2, 0.99, 0.0)].concat();
        assert_eq!(cs.decode(&small, 3).0, "a b");
    }

    #[test]
    fn letters_apart_without_the_space_stay_one_word() {
        let cs = Charset::from_metadata("a\nb");
        // A wide gap (a wide letter) where the space takes at most 3 %: one word.
        let probs: Vec<f32> = [
            row(1, 0.99, 0.0),
            row(0, 0.99, 0.0),
            row(0, 0.97, 0.03),
            row(0, 0.99, 0.01),
            row(0, 0.99, 0.0),
            row(2, 0.99, 0.0),
        ]
        .concat();
        assert_eq!(cs.decode(&probs, 6).0, "ab");
        // A kept space is not doubled, and nothing is put before the first letter or
        // after the last.
        let kept: Vec<f32> = [
            row(0, 0.6, 0.4),
            row(1, 0.99, 0.0),
            row(0, 0.7, 0.3),
            row(3, 0.8, 0.8),
            row(0, 0.7, 0.3),
            row(2, 0.99, 0.0),
            row(0, 0.6, 0.4),
        ]
        .concat();
        assert_eq!(cs.decode(&kept, 7).0, "a b");
    }
}
