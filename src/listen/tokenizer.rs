//! [`Vocab`]: Moonshine's token pieces (`tokenizer.bin`: for each id in order, one length byte
//! then that many bytes of the piece; ids 3–258 are the raw bytes 0x00–0xFF, `▁` marks a
//! space) and turning ids back into text.

use std::path::Path;

use super::error::ListenError;

/// The largest tokenizer file read, bytes (the real one is 242 kB).
const MAX_FILE_BYTES: u64 = 4 << 20;
/// Start-of-text id.
pub const START_ID: u32 = 1;
/// End-of-text id.
pub const END_ID: u32 = 2;

/// The token pieces, by id.
#[derive(Clone, Debug)]
pub struct Vocab {
    pieces: Vec<Vec<u8>>,
}

impl Vocab {
    /// Reads `tokenizer.bin`.
    pub fn load(path: &Path) -> Result<Self, ListenError> {
        let bad = |what: String| ListenError::Model {
            path: path.to_path_buf(),
            what,
        };
        let meta = std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
        if meta.len() > MAX_FILE_BYTES {
            return Err(bad(format!(
                "{} bytes; a tokenizer is under 4 MB",
                meta.len()
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
        Self::parse(&bytes).map_err(bad)
    }

    /// Parses the file's bytes.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let mut pieces = Vec::new();
        let mut at = 0usize;
        while at < bytes.len() {
            let n = usize::from(bytes[at]);
            if n >= 128 {
                return Err(format!(
                    "byte {at}: a piece length of {n} (this reader takes one-byte lengths below 128)"
                ));
            }
            let piece = bytes
                .get(at + 1..at + 1 + n)
                .ok_or_else(|| format!("byte {at}: piece of {n} bytes runs past the end"))?;
            pieces.push(piece.to_vec());
            at += 1 + n;
        }
        if pieces.len() <= END_ID as usize {
            return Err(format!("{} pieces; not a tokenizer", pieces.len()));
        }
        Ok(Self { pieces })
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether there are none (never, once parsed).
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Whether the piece of `id` ends a sentence (`.`, `?` or `!` last).
    pub fn ends_sentence(&self, id: u32) -> bool {
        self.pieces
            .get(id as usize)
            .and_then(|p| p.last())
            .is_some_and(|b| matches!(b, b'.' | b'?' | b'!'))
    }

    /// The text of `ids` (start/end ids and ids beyond the vocabulary skipped), spaces
    /// collapsed and trimmed.
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            if id == START_ID || id == END_ID || id == 0 {
                continue;
            }
            if let Some(p) = self.pieces.get(id as usize) {
                bytes.extend_from_slice(p);
            }
        }
        let text = String::from_utf8_lossy(&bytes).replace('\u{2581}', " ");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(pieces: &[&[u8]]) -> Vec<u8> {
        let mut b = Vec::new();
        for p in pieces {
            b.push(p.len() as u8);
            b.extend_from_slice(p);
        }
        b
    }

    #[test]
    fn decodes_pieces_bytes_and_spaces() {
        let mut pieces: Vec<&[u8]> = vec![b"<unk>", b"<s>", b"</s>"];
        let bytes: Vec<[u8; 1]> = (0..=255u8).map(|b| [b]).collect();
        pieces.extend(bytes.iter().map(|b| &b[..]));
        pieces.push("\u{2581}where".as_bytes());
        pieces.push("\u{2581}is".as_bytes());
        pieces.push(b"?");
        let v = Vocab::parse(&file(&pieces)).unwrap();
        assert_eq!(v.len(), 262);
        // "é" as two byte pieces (0xC3 0xA9) inside a word.
        let e = [3 + 0xC3, 3 + 0xA9];
        assert_eq!(
            v.decode(&[1, 259, 260, e[0], e[1], 261, 2, 99_999]),
            "where isé?"
        );
    }

    #[test]
    fn damaged_files_are_refused() {
        assert!(Vocab::parse(&[5, b'a'])
            .unwrap_err()
            .contains("past the end"));
        assert!(Vocab::parse(&[200, 1, 2]).unwrap_err().contains("length"));
        assert!(Vocab::parse(&file(&[b"a"]))
            .unwrap_err()
            .contains("not a tokenizer"));
    }
}
