//! The recogniser's character list and greedy CTC decoding, as RapidOCR's `CTCLabelDecode`:
//! classes are `blank` + the list from the model's `character` metadata + a space; per time
//! step take the most likely class, merge repeats, drop blanks; the line's confidence is the
//! mean probability of the kept steps (0 when none).

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
    /// confidence. Rows shorter than the class count are ignored.
    pub fn decode(&self, probs: &[f32], steps: usize) -> (String, f32) {
        let n = self.classes.len();
        let mut text = String::new();
        let (mut sum, mut kept) = (0f64, 0usize);
        let mut prev = usize::MAX;
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
                if let Some(s) = self.classes.get(best) {
                    text.push_str(s);
                }
                sum += f64::from(p);
                kept += 1;
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
        let step = |k: usize, p: f32| {
            let mut r = vec![(1.0 - p) / 3.0; 4];
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
}
