//! The 80-byte VRS file header (`vrs/FileFormat.h` `FileHeader`): parse and encode.

use super::cursor::Cursor;
use super::error::ParseError;

/// Size of the file header this crate writes.
pub const FILE_HEADER_SIZE: usize = 80;
/// `fileFormatVersion` of files with the index at the end.
pub const VRS1: u32 = u32::from_le_bytes(*b"VRS1");
/// `fileFormatVersion` of files with a pre-allocated index in front.
pub const VRS2: u32 = u32::from_le_bytes(*b"VRS2");
/// `fileFormatVersion` used briefly with zstd records.
pub const VRS3: u32 = u32::from_le_bytes(*b"VRS3");

const MAGIC1: u32 = u32::from_le_bytes(*b"Visi");
const MAGIC2: u32 = u32::from_le_bytes(*b"onRe");
const MAGIC3: u32 = u32::from_le_bytes(*b"cord");

/// Largest header sizes a reader accepts (VRS allows growth by up to 200 bytes).
const MAX_HEADER_GROWTH: u32 = 200;

/// Why a file header was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderProblem {
    /// The magic fields do not spell "VisionRecord".
    BadMagic,
    /// Other fields are impossible.
    Invalid(ParseError),
}

/// The VRS file header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    /// Creation id (approximate ns since the epoch, low bits random).
    pub creation_id: u64,
    /// Size of this header on disk (80; larger values are tolerated).
    pub file_header_size: u32,
    /// Size of every record header (32; larger values are tolerated).
    pub record_header_size: u32,
    /// Absolute offset of the index record (0 = none).
    pub index_record_offset: i64,
    /// Absolute offset of the description record (normally 80).
    pub description_record_offset: i64,
    /// Absolute offset of the first user record (0 = right after the description record).
    pub first_user_record_offset: i64,
    /// `fileFormatVersion` as a little-endian four-character code (`VRS1`, `VRS2`, …).
    pub file_format_version: u32,
}

impl FileHeader {
    /// A fresh VRS1 header with the index offset still unknown.
    pub fn new_vrs1(creation_id: u64) -> Self {
        Self {
            creation_id,
            file_header_size: FILE_HEADER_SIZE as u32,
            record_header_size: super::record_header::RECORD_HEADER_SIZE as u32,
            index_record_offset: 0,
            description_record_offset: FILE_HEADER_SIZE as i64,
            first_user_record_offset: 0,
            file_format_version: VRS1,
        }
    }

    /// Parses the first 80 bytes of a file.
    pub fn parse(bytes: &[u8]) -> Result<Self, HeaderProblem> {
        let inv = HeaderProblem::Invalid;
        let mut c = Cursor::new(bytes);
        let m1 = c.u32("magicHeader1").map_err(inv)?;
        let m2 = c.u32("magicHeader2").map_err(inv)?;
        let creation_id = c.u64("creationId").map_err(inv)?;
        let file_header_size = c.u32("fileHeaderSize").map_err(inv)?;
        let record_header_size = c.u32("recordHeaderSize").map_err(inv)?;
        let index_record_offset = c.i64("indexRecordOffset").map_err(inv)?;
        let description_record_offset = c.i64("descriptionRecordOffset").map_err(inv)?;
        let first_user_record_offset = c.i64("firstUserRecordOffset").map_err(inv)?;
        c.bytes(24, "future fields").map_err(inv)?;
        let m3 = c.u32("magicHeader3").map_err(inv)?;
        let file_format_version = c.u32("fileFormatVersion").map_err(inv)?;
        if m1 != MAGIC1 || m2 != MAGIC2 || m3 != MAGIC3 {
            return Err(HeaderProblem::BadMagic);
        }
        let h = Self {
            creation_id,
            file_header_size,
            record_header_size,
            index_record_offset,
            description_record_offset,
            first_user_record_offset,
            file_format_version,
        };
        h.check().map_err(inv)?;
        Ok(h)
    }

    fn check(&self) -> Result<(), ParseError> {
        let fh = FILE_HEADER_SIZE as u32;
        let rh = super::record_header::RECORD_HEADER_SIZE as u32;
        if self.file_header_size < fh || self.file_header_size > fh + MAX_HEADER_GROWTH {
            return Err(ParseError::new(
                16,
                format!("fileHeaderSize {}", self.file_header_size),
            ));
        }
        if self.record_header_size < rh || self.record_header_size > rh + MAX_HEADER_GROWTH {
            return Err(ParseError::new(
                20,
                format!("recordHeaderSize {}", self.record_header_size),
            ));
        }
        if self.description_record_offset < i64::from(self.file_header_size) {
            return Err(ParseError::new(
                32,
                format!("descriptionRecordOffset {}", self.description_record_offset),
            ));
        }
        if self.index_record_offset < 0 || self.first_user_record_offset < 0 {
            return Err(ParseError::new(24, "negative record offset"));
        }
        Ok(())
    }

    /// The version as text, e.g. "VRS2" (non-printable bytes as `?`).
    pub fn version_str(&self) -> String {
        self.file_format_version
            .to_le_bytes()
            .iter()
            .map(|&b| if b.is_ascii_graphic() { b as char } else { '?' })
            .collect()
    }

    /// Encodes the header (always 80 bytes).
    pub fn encode(&self) -> [u8; FILE_HEADER_SIZE] {
        let mut out = [0u8; FILE_HEADER_SIZE];
        let mut v = Vec::with_capacity(FILE_HEADER_SIZE);
        v.extend_from_slice(&MAGIC1.to_le_bytes());
        v.extend_from_slice(&MAGIC2.to_le_bytes());
        v.extend_from_slice(&self.creation_id.to_le_bytes());
        v.extend_from_slice(&(FILE_HEADER_SIZE as u32).to_le_bytes());
        v.extend_from_slice(&self.record_header_size.to_le_bytes());
        v.extend_from_slice(&self.index_record_offset.to_le_bytes());
        v.extend_from_slice(&self.description_record_offset.to_le_bytes());
        v.extend_from_slice(&self.first_user_record_offset.to_le_bytes());
        v.extend_from_slice(&[0u8; 24]);
        v.extend_from_slice(&MAGIC3.to_le_bytes());
        v.extend_from_slice(&self.file_format_version.to_le_bytes());
        out.copy_from_slice(&v);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_parse_round_trip() {
        let mut h = FileHeader::new_vrs1(42);
        h.index_record_offset = 1234;
        let b = h.encode();
        assert_eq!(&b[0..8], b"VisionRe");
        assert_eq!(&b[72..80], b"cordVRS1");
        assert_eq!(FileHeader::parse(&b), Ok(h));
    }

    #[test]
    fn rejects_bad_magic_and_short_input() {
        let mut b = FileHeader::new_vrs1(1).encode();
        b[1] = b'X';
        assert_eq!(FileHeader::parse(&b), Err(HeaderProblem::BadMagic));
        assert!(matches!(
            FileHeader::parse(&b[..40]),
            Err(HeaderProblem::Invalid(_))
        ));
    }
}
