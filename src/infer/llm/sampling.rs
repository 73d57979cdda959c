//! Pure pieces of decoding: greedy choice over logits and turning a stream of token bytes
//! into text without splitting a UTF-8 character across pieces.

/// The index of the largest finite logit (the lowest index on ties), or `None` when there is
/// no finite logit.
pub fn greedy(logits: &[f32]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, &l) in logits.iter().enumerate() {
        if !l.is_finite() {
            continue;
        }
        match best {
            Some((_, b)) if l <= b => {}
            _ => best = Some((i, l)),
        }
    }
    best.map(|(i, _)| i)
}

/// Accumulates token bytes and releases the longest valid UTF-8 text, keeping an incomplete
/// trailing character (at most 3 bytes) for the next push. Invalid bytes become U+FFFD.
#[derive(Debug, Default)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `bytes`; returns the text now complete (possibly empty).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out.push_str(s);
                    self.pending.clear();
                    return out;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.pending[..valid]));
                    match e.error_len() {
                        // Incomplete character at the end: keep it for the next push.
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            self.pending.drain(..valid + bad);
                        }
                    }
                }
            }
        }
    }

    /// Ends the stream: whatever is pending becomes U+FFFD-replaced text.
    pub fn finish(&mut self) -> String {
        let s = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_picks_max_and_skips_nan() {
        assert_eq!(greedy(&[0.1, 3.0, -1.0, 2.9]), Some(1));
        assert_eq!(greedy(&[f32::NAN, 1.0, f32::INFINITY, 0.5]), Some(1));
        assert_eq!(greedy(&[1.0, 1.0]), Some(0));
        assert_eq!(greedy(&[]), None);
        assert_eq!(greedy(&[f32::NAN]), None);
    }

    #[test]
    fn utf8_split_across_pushes() {
        let text = "é€😀 ok";
        let bytes = text.as_bytes();
        for split in 0..=bytes.len() {
            let mut s = Utf8Stream::new();
            let mut out = s.push(&bytes[..split]);
            out.push_str(&s.push(&bytes[split..]));
            out.push_str(&s.finish());
            assert_eq!(out, text, "split {split}");
        }
    }

    #[test]
    fn byte_at_a_time_matches_std() {
        let text = "Walk 3 m — the door is on your left. 🚪";
        let mut s = Utf8Stream::new();
        let mut out = String::new();
        for b in text.as_bytes() {
            out.push_str(&s.push(std::slice::from_ref(b)));
        }
        out.push_str(&s.finish());
        assert_eq!(out, text);
    }

    #[test]
    fn invalid_bytes_replaced_like_std_lossy() {
        let bytes = b"a\xffb\xe2\x82";
        let mut s = Utf8Stream::new();
        let mut out = s.push(bytes);
        out.push_str(&s.finish());
        assert_eq!(out, String::from_utf8_lossy(bytes));
    }
}
