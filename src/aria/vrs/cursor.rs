//! A bounds-checked little-endian reader over a byte slice (no panics, no unchecked indexing).

use super::error::ParseError;

/// Reads little-endian values from a slice, front to back.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// The current position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], ParseError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| {
                ParseError::new(
                    self.pos,
                    format!("{what}: needs {n} bytes, {} left", self.remaining()),
                )
            })?;
        let out = self.buf.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ParseError> {
        let b = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// A `u8`.
    pub fn u8(&mut self, what: &str) -> Result<u8, ParseError> {
        let [b] = self.array::<1>(what)?;
        Ok(b)
    }
    /// A little-endian `u16`.
    pub fn u16(&mut self, what: &str) -> Result<u16, ParseError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    /// A little-endian `u32`.
    pub fn u32(&mut self, what: &str) -> Result<u32, ParseError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    /// A little-endian `i32`.
    pub fn i32(&mut self, what: &str) -> Result<i32, ParseError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }
    /// A little-endian `u64`.
    pub fn u64(&mut self, what: &str) -> Result<u64, ParseError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    /// A little-endian `i64`.
    pub fn i64(&mut self, what: &str) -> Result<i64, ParseError> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }
    /// A little-endian `f64`.
    pub fn f64(&mut self, what: &str) -> Result<f64, ParseError> {
        Ok(f64::from_le_bytes(self.array(what)?))
    }
    /// A length-prefixed string whose invalid UTF-8 (a flipped bit in a tag) becomes U+FFFD
    /// instead of an error: one damaged character spoils one tag, not the whole record.
    pub fn string_lossy(&mut self, what: &str) -> Result<String, ParseError> {
        let n = self.u32(what)? as usize;
        let b = self.bytes(n, what)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }

    /// A VRS string: `u32` length, then UTF-8 bytes (no NUL).
    pub fn string(&mut self, what: &str) -> Result<String, ParseError> {
        let at = self.pos;
        let n = self.u32(what)? as usize;
        let b = self.bytes(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| ParseError::new(at, format!("{what}: not UTF-8")))
    }
}

/// Appends VRS-encoded values to a byte vector (writer side).
pub fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}
