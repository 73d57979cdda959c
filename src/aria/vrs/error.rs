//! Errors of the VRS reader and writer.
//!
//! Pure parsers (header, description, index, data layout) return a [`ParseError`] that names
//! a position inside the bytes they were given; the I/O layer turns it into a [`VrsError`]
//! that names the file and the absolute byte offset.

use std::path::PathBuf;

/// A parse failure inside one buffer: what went wrong and where (offset into that buffer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} (at byte {at} of the block)")]
pub struct ParseError {
    /// Offset inside the parsed buffer.
    pub at: usize,
    /// What was wrong.
    pub what: String,
}

impl ParseError {
    /// A parse error at `at`.
    pub fn new(at: usize, what: impl Into<String>) -> Self {
        Self {
            at,
            what: what.into(),
        }
    }
}

/// Everything that can go wrong reading or writing a VRS file. Every variant names the file
/// and the byte offset where the problem was found.
#[derive(Debug, thiserror::Error)]
pub enum VrsError {
    /// The operating system failed a read or write.
    #[error("{}: I/O error at byte {offset}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Where the failed read or write started.
        offset: u64,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the VRS magic ("Visi" "onRe" … "cord").
    #[error("{}: not a VRS file (bad magic at byte {offset})", path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// Offset of the bad magic field.
        offset: u64,
    },
    /// A structure runs past the end of the file.
    #[error("{}: {what} at byte {offset} needs {needed} bytes but the file ends at {file_len}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Where the structure starts.
        offset: u64,
        /// What was being read.
        what: String,
        /// Bytes the structure needs.
        needed: u64,
        /// The file's length.
        file_len: u64,
    },
    /// A file or record header holds impossible values.
    #[error("{}: bad {what} at byte {offset}: {reason}", path.display())]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// Where the header starts.
        offset: u64,
        /// Which header.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// The description record (streams and tags) could not be parsed.
    #[error("{}: bad description record at byte {offset}: {reason}", path.display())]
    BadDescription {
        /// The file.
        path: PathBuf,
        /// Absolute offset of the problem (payload start + position).
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// The index record could not be parsed.
    #[error("{}: bad index record at byte {offset}: {reason}", path.display())]
    BadIndex {
        /// The file.
        path: PathBuf,
        /// Offset of the index record.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A record's payload could not be decompressed.
    #[error("{}: record at byte {offset}: {codec} payload does not decompress: {reason}", path.display())]
    Decompress {
        /// The file.
        path: PathBuf,
        /// Offset of the record.
        offset: u64,
        /// "zstd" or "lz4".
        codec: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The record found on disk is not the one the index describes.
    #[error("{}: record at byte {offset} does not match the index: {reason}", path.display())]
    IndexMismatch {
        /// The file.
        path: PathBuf,
        /// Offset of the record.
        offset: u64,
        /// What differs.
        reason: String,
    },
    /// A stream's record format (`RF:` tag) is missing or malformed.
    #[error("{}: stream {stream}: record format: {reason} (description record at byte {offset})", path.display())]
    BadRecordFormat {
        /// The file.
        path: PathBuf,
        /// Offset of the description record holding the tag (or of the record being split).
        offset: u64,
        /// The stream, e.g. "214-1".
        stream: String,
        /// What is wrong.
        reason: String,
    },
    /// A stream's DataLayout (`DL:` tag JSON) is missing or malformed.
    #[error("{}: stream {stream}: data layout: {reason} (byte {offset})", path.display())]
    BadDataLayout {
        /// The file.
        path: PathBuf,
        /// Offset of the description record holding the tag (or of the record being decoded).
        offset: u64,
        /// The stream, e.g. "214-1".
        stream: String,
        /// What is wrong.
        reason: String,
    },
    /// The writer was used out of order or given values VRS cannot store.
    #[error("{}: cannot write at byte {offset}: {reason}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Where the file's write position was.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
}

impl VrsError {
    /// The byte offset the error names.
    pub fn offset(&self) -> u64 {
        match self {
            VrsError::Io { offset, .. }
            | VrsError::BadMagic { offset, .. }
            | VrsError::Truncated { offset, .. }
            | VrsError::BadHeader { offset, .. }
            | VrsError::BadDescription { offset, .. }
            | VrsError::BadIndex { offset, .. }
            | VrsError::Decompress { offset, .. }
            | VrsError::IndexMismatch { offset, .. }
            | VrsError::BadRecordFormat { offset, .. }
            | VrsError::BadDataLayout { offset, .. }
            | VrsError::Write { offset, .. } => *offset,
        }
    }

    /// The file the error names.
    pub fn path(&self) -> &std::path::Path {
        match self {
            VrsError::Io { path, .. }
            | VrsError::BadMagic { path, .. }
            | VrsError::Truncated { path, .. }
            | VrsError::BadHeader { path, .. }
            | VrsError::BadDescription { path, .. }
            | VrsError::BadIndex { path, .. }
            | VrsError::Decompress { path, .. }
            | VrsError::IndexMismatch { path, .. }
            | VrsError::BadRecordFormat { path, .. }
            | VrsError::BadDataLayout { path, .. }
            | VrsError::Write { path, .. } => path,
        }
    }
}
