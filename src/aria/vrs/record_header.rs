//! The 32-byte VRS record header (`vrs/FileFormat.h` `RecordHeader`): parse and encode.

use super::cursor::Cursor;
use super::error::ParseError;
use super::types::{Compression, RecordType, VrsStreamId};

/// Size of a record header as this crate writes it.
pub const RECORD_HEADER_SIZE: usize = 32;

/// Recordable type id of the index record.
pub const INDEX_TYPE_ID: i32 = 1;
/// Recordable type id of the description record.
pub const DESCRIPTION_TYPE_ID: i32 = 2;

/// One record header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordHeader {
    /// Header + payload, as stored on disk (compressed size).
    pub record_size: u32,
    /// Size of the previous record in the file.
    pub previous_record_size: u32,
    /// The stream the record belongs to.
    pub stream: VrsStreamId,
    /// The producer's record format version.
    pub format_version: u32,
    /// Timestamp in seconds (for Aria: device capture time).
    pub timestamp_s: f64,
    /// Kind of record.
    pub record_type: RecordType,
    /// Payload compression.
    pub compression: Compression,
    /// Payload size before compression (0 when stored uncompressed).
    pub uncompressed_size: u32,
}

impl RecordHeader {
    /// Parses a header from its first 32 bytes (larger headers: the extra bytes are ignored).
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(bytes);
        let record_size = c.u32("recordSize")?;
        let previous_record_size = c.u32("previousRecordSize")?;
        let type_id = c.i32("recordableTypeId")?;
        let format_version = c.u32("formatVersion")?;
        let timestamp_s = c.f64("timestamp")?;
        let instance = c.u16("recordableInstanceId")?;
        let rt = c.u8("recordType")?;
        let comp = c.u8("compressionType")?;
        let uncompressed_size = c.u32("uncompressedSize")?;
        let record_type = RecordType::from_u8(rt)
            .ok_or_else(|| ParseError::new(26, format!("unknown record type {rt}")))?;
        let compression = Compression::from_u8(comp)
            .ok_or_else(|| ParseError::new(27, format!("unknown compression type {comp}")))?;
        Ok(Self {
            record_size,
            previous_record_size,
            stream: VrsStreamId::new(type_id, instance),
            format_version,
            timestamp_s,
            record_type,
            compression,
            uncompressed_size,
        })
    }

    /// Encodes the header (32 bytes).
    pub fn encode(&self) -> [u8; RECORD_HEADER_SIZE] {
        let mut v = [0u8; RECORD_HEADER_SIZE];
        let mut put = |at: usize, b: &[u8]| {
            if let Some(dst) = v.get_mut(at..at + b.len()) {
                dst.copy_from_slice(b);
            }
        };
        put(0, &self.record_size.to_le_bytes());
        put(4, &self.previous_record_size.to_le_bytes());
        put(8, &self.stream.type_id.to_le_bytes());
        put(12, &self.format_version.to_le_bytes());
        put(16, &self.timestamp_s.to_le_bytes());
        put(24, &self.stream.instance.to_le_bytes());
        put(26, &[self.record_type.as_u8(), self.compression.as_u8()]);
        put(28, &self.uncompressed_size.to_le_bytes());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_sample_index_header() {
        // Bytes 33165..33197 of the Aria sample: the index record header.
        let mut b = Vec::new();
        for v in [2354u32, 33085, 1, 2] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&f64::MAX.to_le_bytes());
        b.extend_from_slice(&[0, 0, 3, 2]);
        b.extend_from_slice(&6205u32.to_le_bytes());
        let h = RecordHeader::parse(&b).unwrap();
        assert_eq!(h.record_size, 2354);
        assert_eq!(h.stream, VrsStreamId::new(INDEX_TYPE_ID, 0));
        assert_eq!(h.record_type, RecordType::Data);
        assert_eq!(h.compression, Compression::Zstd);
        assert_eq!(h.encode().as_slice(), b.as_slice());
    }

    #[test]
    fn rejects_unknown_enums() {
        let mut b = [0u8; 32];
        b[26] = 9;
        assert!(RecordHeader::parse(&b).is_err());
        b[26] = 3;
        b[27] = 7;
        assert!(RecordHeader::parse(&b).is_err());
    }
}
