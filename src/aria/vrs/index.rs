//! The index record (`vrs/IndexRecord.cpp`): classic (v2, with a stream prelude) and split
//! (v3) payloads, parsed and encoded; file offsets come from a prefix sum of record sizes.

use super::cursor::Cursor;
use super::decompress::{zstd_frame, MAX_PAYLOAD_BYTES};
use super::error::ParseError;
use super::types::{RecordType, VrsStreamId};

/// Index format version with the stream prelude.
pub const CLASSIC_INDEX_VERSION: u32 = 2;
/// Index format version of split-head files (records only).
pub const SPLIT_INDEX_VERSION: u32 = 3;
/// Size of one packed `DiskRecordInfo`.
pub const DISK_RECORD_INFO_SIZE: usize = 19;

/// One user record of the file, where it is and what it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexEntry {
    /// Absolute offset of the record header.
    pub offset: u64,
    /// Record size on disk (header + stored payload).
    pub size: u32,
    /// Record timestamp in seconds.
    pub timestamp_s: f64,
    /// Kind of record.
    pub record_type: RecordType,
    /// The stream.
    pub stream: VrsStreamId,
}

/// One index entry as stored (no offset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiskRecordInfo {
    /// Record timestamp in seconds.
    pub timestamp_s: f64,
    /// Record size on disk.
    pub record_size: u32,
    /// Kind of record.
    pub record_type: RecordType,
    /// The stream.
    pub stream: VrsStreamId,
}

impl DiskRecordInfo {
    fn parse(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        let timestamp_s = c.f64("record timestamp")?;
        let record_size = c.u32("record size")?;
        let at = c.pos();
        let rt = c.u8("record type")?;
        let type_id = c.i32("record type id")?;
        let instance = c.u16("record instance")?;
        Ok(Self {
            timestamp_s,
            record_size,
            record_type: RecordType::from_u8(rt)
                .ok_or_else(|| ParseError::new(at, format!("unknown record type {rt}")))?,
            stream: VrsStreamId::new(type_id, instance),
        })
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.timestamp_s.to_le_bytes());
        out.extend_from_slice(&self.record_size.to_le_bytes());
        out.push(self.record_type.as_u8());
        out.extend_from_slice(&self.stream.type_id.to_le_bytes());
        out.extend_from_slice(&self.stream.instance.to_le_bytes());
    }
}

fn parse_infos(
    bytes: &[u8],
    count: usize,
    compressed: Option<usize>,
    base: usize,
    max_records: usize,
) -> Result<Vec<DiskRecordInfo>, ParseError> {
    let need = count
        .checked_mul(DISK_RECORD_INFO_SIZE)
        .filter(|&n| n <= MAX_PAYLOAD_BYTES && count <= max_records)
        .ok_or_else(|| {
            ParseError::new(
                base,
                format!("record count {count} is impossible (at most {max_records})"),
            )
        })?;
    let owned;
    let raw: &[u8] = match compressed {
        Some(_) => {
            let mut out = Vec::new();
            zstd_frame(bytes, need, &mut out)
                .map_err(|e| ParseError::new(base, format!("compressed index: {e}")))?;
            owned = out;
            &owned
        }
        None => bytes,
    };
    if raw.len() < need {
        return Err(ParseError::new(
            base,
            format!(
                "{count} records need {need} bytes, index holds {}",
                raw.len()
            ),
        ));
    }
    let mut c = Cursor::new(raw);
    (0..count)
        .map(|_| DiskRecordInfo::parse(&mut c).map_err(|e| ParseError::new(base + e.at, e.what)))
        .collect()
}

/// Parses a classic (v2) index payload as stored on disk. `uncompressed_size` > 0 means the
/// record array is a zstd frame (the prelude never is).
pub fn parse_classic(
    payload: &[u8],
    uncompressed_size: u32,
) -> Result<(Vec<VrsStreamId>, Vec<DiskRecordInfo>), ParseError> {
    parse_classic_within(payload, uncompressed_size, usize::MAX)
}

/// [`parse_classic`] for a file that can hold at most `max_records` records (its length over
/// the record header size): a larger count is refused before the array is decompressed.
pub fn parse_classic_within(
    payload: &[u8],
    uncompressed_size: u32,
    max_records: usize,
) -> Result<(Vec<VrsStreamId>, Vec<DiskRecordInfo>), ParseError> {
    let mut c = Cursor::new(payload);
    let n = c.u32("stream count")? as usize;
    let mut streams = Vec::with_capacity(n.min(payload.len() / 6));
    for _ in 0..n {
        let t = c.i32("stream type id")?;
        let i = c.u16("stream instance")?;
        streams.push(VrsStreamId::new(t, i));
    }
    let count = c.u32("record count")? as usize;
    let base = c.pos();
    let rest = payload.get(base..).unwrap_or_default();
    let compressed = (uncompressed_size > 0).then_some(uncompressed_size as usize);
    let infos = parse_infos(rest, count, compressed, base, max_records)?;
    Ok((streams, infos))
}

/// Parses a split (v3) index payload: as many whole entries as it holds (it may have been
/// cut short by an interrupted recording).
pub fn parse_split(
    payload: &[u8],
    uncompressed_size: u32,
) -> Result<Vec<DiskRecordInfo>, ParseError> {
    parse_split_within(payload, uncompressed_size, usize::MAX)
}

/// [`parse_split`] for a file that can hold at most `max_records` records.
pub fn parse_split_within(
    payload: &[u8],
    uncompressed_size: u32,
    max_records: usize,
) -> Result<Vec<DiskRecordInfo>, ParseError> {
    if uncompressed_size > 0 {
        let n = uncompressed_size as usize / DISK_RECORD_INFO_SIZE;
        parse_infos(payload, n, Some(n * DISK_RECORD_INFO_SIZE), 0, max_records)
    } else {
        let n = payload.len() / DISK_RECORD_INFO_SIZE;
        parse_infos(payload, n, None, 0, max_records)
    }
}

/// Encodes an uncompressed classic index payload.
pub fn encode_classic(streams: &[VrsStreamId], records: &[DiskRecordInfo]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + streams.len() * 6 + records.len() * DISK_RECORD_INFO_SIZE);
    out.extend_from_slice(&(streams.len() as u32).to_le_bytes());
    for s in streams {
        out.extend_from_slice(&s.type_id.to_le_bytes());
        out.extend_from_slice(&s.instance.to_le_bytes());
    }
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for r in records {
        r.encode(&mut out);
    }
    out
}

/// Places index entries in the file: records are contiguous from `first_user_offset`.
pub fn place(first_user_offset: u64, infos: &[DiskRecordInfo]) -> Vec<IndexEntry> {
    let mut offset = first_user_offset;
    infos
        .iter()
        .map(|r| {
            let e = IndexEntry {
                offset,
                size: r.record_size,
                timestamp_s: r.timestamp_s,
                record_type: r.record_type,
                stream: r.stream,
            };
            offset = offset.saturating_add(u64::from(r.record_size));
            e
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infos() -> Vec<DiskRecordInfo> {
        (0..5)
            .map(|i| DiskRecordInfo {
                timestamp_s: i as f64 * 0.5,
                record_size: 32 + i,
                record_type: RecordType::Data,
                stream: VrsStreamId::new(1202, 1),
            })
            .collect()
    }

    #[test]
    fn classic_round_trip_and_placement() {
        let streams = vec![VrsStreamId::new(1202, 1)];
        let bytes = encode_classic(&streams, &infos());
        let (s, r) = parse_classic(&bytes, 0).unwrap();
        assert_eq!((s, r.clone()), (streams, infos()));
        let placed = place(100, &r);
        assert_eq!(placed[1].offset, 132);
        assert_eq!(placed[4].offset, 100 + 32 + 33 + 34 + 35);
        for cut in 0..bytes.len() {
            assert!(parse_classic(&bytes[..cut], 0).is_err());
        }
    }

    #[test]
    fn compressed_array_after_plain_prelude() {
        let streams = vec![VrsStreamId::new(1202, 1)];
        let plain = encode_classic(&streams, &infos());
        let prelude = 4 + 6 + 4;
        let mut bytes = plain[..prelude].to_vec();
        bytes.extend(zstd::bulk::compress(&plain[prelude..], 3).unwrap());
        bytes.extend_from_slice(&[0u8; 40]); // pre-allocation padding
        let (_, r) = parse_classic(&bytes, plain.len() as u32).unwrap();
        assert_eq!(r, infos());
    }

    #[test]
    fn split_index_takes_whole_entries() {
        let mut b = Vec::new();
        for r in infos() {
            r.encode(&mut b);
        }
        b.truncate(b.len() - 3);
        assert_eq!(parse_split(&b, 0).unwrap(), infos()[..4].to_vec());
    }
}
