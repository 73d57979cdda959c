//! Positional, bounds-checked reads from a VRS file (or an in-memory image of one, for
//! fuzzing and tests). `&self` reads only, so one reader serves many threads.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::error::VrsError;

#[derive(Debug)]
enum Backing {
    File(File),
    Memory(bytes::Bytes),
}

/// A file opened for positional reads.
#[derive(Debug)]
pub struct FileAt {
    path: PathBuf,
    backing: Backing,
    len: u64,
}

impl FileAt {
    /// Opens `path` for reading.
    pub fn open(path: &Path) -> Result<Self, VrsError> {
        let io = |source| VrsError::Io {
            path: path.to_path_buf(),
            offset: 0,
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        Ok(Self {
            path: path.to_path_buf(),
            backing: Backing::File(file),
            len,
        })
    }

    /// Serves `bytes` as if they were a file named `name`.
    pub fn from_bytes(name: &Path, bytes: bytes::Bytes) -> Self {
        Self {
            path: name.to_path_buf(),
            len: bytes.len() as u64,
            backing: Backing::Memory(bytes),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }
    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A `Truncated` error unless `[offset, offset + n)` lies inside the file.
    pub fn check_range(&self, offset: u64, n: u64, what: &str) -> Result<(), VrsError> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(VrsError::Truncated {
                path: self.path.clone(),
                offset,
                what: what.to_string(),
                needed: n,
                file_len: self.len,
            }),
        }
    }

    /// Fills `buf` from `offset`; the range must lie inside the file.
    pub fn read_exact_at(&self, offset: u64, buf: &mut [u8], what: &str) -> Result<(), VrsError> {
        self.check_range(offset, buf.len() as u64, what)?;
        match &self.backing {
            Backing::File(f) => f.read_exact_at(buf, offset).map_err(|source| VrsError::Io {
                path: self.path.clone(),
                offset,
                source,
            }),
            Backing::Memory(b) => {
                let start = usize::try_from(offset).unwrap_or(usize::MAX);
                let src = start
                    .checked_add(buf.len())
                    .and_then(|end| b.get(start..end))
                    .ok_or_else(|| VrsError::Truncated {
                        path: self.path.clone(),
                        offset,
                        what: what.to_string(),
                        needed: buf.len() as u64,
                        file_len: self.len,
                    })?;
                buf.copy_from_slice(src);
                Ok(())
            }
        }
    }

    /// Reads `n` bytes at `offset` into `buf` (resized to `n`, its allocation reused).
    pub fn read_into(
        &self,
        offset: u64,
        n: usize,
        buf: &mut Vec<u8>,
        what: &str,
    ) -> Result<(), VrsError> {
        self.check_range(offset, n as u64, what)?;
        buf.clear();
        buf.resize(n, 0);
        self.read_exact_at(offset, buf, what)
    }
}
