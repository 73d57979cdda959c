//! `.vten`: a few named `f32` tensors in one small binary file — the fixed inputs and
//! reference outputs that `models/export/export.py` writes beside an exported model.
//!
//! Layout (little-endian): magic `VTENSOR1`; `u32` count; per tensor: `u16` name length, the
//! UTF-8 name, `u8` rank, rank × `u32` dims, then the product of the dims × `f32`, row-major.
//! Parsing is bounded: every length is checked against the bytes left before anything is
//! allocated.

use std::path::{Path, PathBuf};

use crate::infer::engine::Tensor;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"VTENSOR1";

/// Most dimensions a tensor may have.
pub const MAX_RANK: usize = 8;

/// A `.vten` file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TensorFileError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The bytes are not a valid `.vten` file.
    #[error("{path}: byte {offset}: {reason}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Where the problem was found.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Reads every tensor of a `.vten` file, in file order.
pub fn read_tensors(path: &Path) -> Result<Vec<Tensor>, TensorFileError> {
    let bytes = std::fs::read(path).map_err(|source| TensorFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_tensors(&bytes).map_err(|(offset, reason)| TensorFileError::Format {
        path: path.to_path_buf(),
        offset,
        reason,
    })
}

/// Writes tensors as a `.vten` file.
pub fn write_tensors(path: &Path, tensors: &[Tensor]) -> Result<(), TensorFileError> {
    std::fs::write(path, encode_tensors(tensors)).map_err(|source| TensorFileError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The `.vten` bytes of `tensors` (names longer than `u16::MAX` bytes are truncated).
pub fn encode_tensors(tensors: &[Tensor]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(tensors.len() as u32).to_le_bytes());
    for t in tensors {
        let name = t.name.as_bytes();
        let name = &name[..name.len().min(usize::from(u16::MAX))];
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(name);
        out.push(t.shape.len() as u8);
        for &d in &t.shape {
            out.extend_from_slice(&(d as u32).to_le_bytes());
        }
        for &v in &t.data {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], (usize, String)> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end.and_then(|e| self.bytes.get(self.pos..e).map(|s| (e, s))) {
            Some((e, s)) => {
                self.pos = e;
                Ok(s)
            }
            None => Err((
                self.pos,
                format!(
                    "truncated: {what} needs {n} bytes, {} left",
                    self.bytes.len().saturating_sub(self.pos)
                ),
            )),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], (usize, String)> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
}

/// Parses `.vten` bytes; an error is `(byte offset, reason)`.
pub fn parse_tensors(bytes: &[u8]) -> Result<Vec<Tensor>, (usize, String)> {
    let mut c = Cursor { bytes, pos: 0 };
    let magic = c.take(MAGIC.len(), "magic")?;
    if magic != MAGIC {
        return Err((0, "not a .vten file (bad magic)".to_string()));
    }
    let count = u32::from_le_bytes(c.array("tensor count")?) as usize;
    let mut out = Vec::new();
    for index in 0..count {
        let at = c.pos;
        let name_len = usize::from(u16::from_le_bytes(c.array("name length")?));
        let name = std::str::from_utf8(c.take(name_len, "name")?)
            .map_err(|_| (at, format!("tensor {index}: name is not UTF-8")))?
            .to_string();
        let [rank] = c.array::<1>("rank")?;
        let rank = usize::from(rank);
        if rank > MAX_RANK {
            return Err((at, format!("tensor `{name}`: rank {rank} > {MAX_RANK}")));
        }
        let mut shape = Vec::with_capacity(rank);
        for _ in 0..rank {
            shape.push(u32::from_le_bytes(c.array("dimension")?) as usize);
        }
        let n = shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .and_then(|n| n.checked_mul(4).map(|b| (n, b)));
        let Some((n, n_bytes)) = n else {
            return Err((at, format!("tensor `{name}`: shape {shape:?} overflows")));
        };
        let raw = c.take(n_bytes, &format!("tensor `{name}` data"))?;
        let data = raw
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect::<Vec<_>>();
        debug_assert_eq!(data.len(), n);
        out.push(Tensor { name, shape, data });
    }
    if c.pos != bytes.len() {
        return Err((
            c.pos,
            format!(
                "{} trailing bytes after the last tensor",
                bytes.len() - c.pos
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Tensor> {
        vec![
            Tensor {
                name: "a".into(),
                shape: vec![2, 3],
                data: vec![1.0, -2.5, 3.25, f32::MIN_POSITIVE, 0.0, 7.0],
            },
            Tensor {
                name: "scalar".into(),
                shape: vec![],
                data: vec![42.0],
            },
        ]
    }

    #[test]
    fn bytes_follow_the_documented_layout() {
        let b = encode_tensors(&sample()[..1]);
        let mut want = b"VTENSOR1".to_vec();
        want.extend_from_slice(&[1, 0, 0, 0, 1, 0, b'a', 2, 2, 0, 0, 0, 3, 0, 0, 0]);
        for v in [1.0f32, -2.5, 3.25, f32::MIN_POSITIVE, 0.0, 7.0] {
            want.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(b, want);
        assert_eq!(parse_tensors(&b).unwrap(), sample()[..1].to_vec());
    }

    #[test]
    fn round_trip_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.vten");
        write_tensors(&p, &sample()).unwrap();
        assert_eq!(read_tensors(&p).unwrap(), sample());
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let b = encode_tensors(&sample());
        for cut in 0..b.len() {
            let e = parse_tensors(&b[..cut]).unwrap_err();
            assert!(e.0 <= cut, "offset {} beyond cut {cut}", e.0);
        }
        let mut long = b.clone();
        long.push(0);
        assert!(parse_tensors(&long).unwrap_err().1.contains("trailing"));
    }

    #[test]
    fn bad_headers_are_named() {
        assert!(parse_tensors(b"VTENSOR2\0\0\0\0")
            .unwrap_err()
            .1
            .contains("magic"));
        // A shape claiming 2^32 x 2^32 values must not allocate.
        let mut b = b"VTENSOR1".to_vec();
        b.extend_from_slice(&[1, 0, 0, 0, 1, 0, b'x', 3]);
        b.extend_from_slice(&[255; 12]);
        let e = parse_tensors(&b).unwrap_err();
        assert!(
            e.1.contains("overflows") || e.1.contains("truncated"),
            "{}",
            e.1
        );
        let mut r = b"VTENSOR1".to_vec();
        r.extend_from_slice(&[1, 0, 0, 0, 1, 0, b'x', 9]);
        assert!(parse_tensors(&r).unwrap_err().1.contains("rank 9"));
        let e = read_tensors(Path::new("/nonexistent/x.vten")).unwrap_err();
        assert!(matches!(e, TensorFileError::Io { .. }));
    }
}
