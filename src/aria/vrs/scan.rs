//! Linear scan of record headers: rebuilds the index of a file whose index is missing,
//! truncated or wrong. Records are contiguous, so each header leads to the next. At a header
//! that is unreadable, impossible or inconsistent, the scan stops — unless the file's own
//! (otherwise unusable) index places a record there whose end leads to a good header: then
//! that one damaged record is skipped and counted, and the scan goes on.

use super::error::VrsError;
use super::file_io::FileAt;
use super::index::IndexEntry;
use super::record_header::{RecordHeader, DESCRIPTION_TYPE_ID, INDEX_TYPE_ID};

/// What a scan found.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanResult {
    /// Every complete, readable user record, in file order.
    pub entries: Vec<IndexEntry>,
    /// End of the last record reached (where the scan stopped).
    pub end: u64,
    /// True when a readable header announced a record cut off by the end of the file.
    pub partial_record: bool,
    /// Damaged records stepped over with the help of the index.
    pub skipped: u64,
    /// Bytes of those damaged records.
    pub skipped_bytes: u64,
    /// Why the scan stopped before the end of the file, if it did.
    pub stop_reason: Option<String>,
}

/// Why the header at a position cannot be used.
struct Bad {
    reason: String,
    partial: bool,
}

fn check_header(
    file: &FileAt,
    pos: u64,
    hdr: &mut [u8],
    prev_size: Option<u32>,
) -> Result<Result<RecordHeader, Bad>, VrsError> {
    let hs = hdr.len() as u64;
    let bad = |reason: String, partial: bool| Ok(Err(Bad { reason, partial }));
    if pos + hs > file.len() {
        return bad(
            format!(
                "{} trailing bytes at {pos} are too few for a record header",
                file.len() - pos
            ),
            true,
        );
    }
    file.read_exact_at(pos, hdr, "record header")?;
    let h = match RecordHeader::parse(hdr) {
        Ok(h) => h,
        Err(e) => {
            return bad(
                format!("unreadable record header at {pos}: {}", e.what),
                false,
            )
        }
    };
    if u64::from(h.record_size) < hs {
        return bad(
            format!(
                "record at {pos} declares size {} < header size {hs}",
                h.record_size
            ),
            false,
        );
    }
    if let Some(prev) = prev_size {
        if h.previous_record_size != prev {
            return bad(
                format!(
                    "record at {pos} says the previous record had {} bytes, it had {prev}",
                    h.previous_record_size
                ),
                false,
            );
        }
    }
    if pos + u64::from(h.record_size) > file.len() {
        return bad(
            format!(
                "record at {pos} needs {} bytes, the file ends at {}",
                h.record_size,
                file.len()
            ),
            true,
        );
    }
    Ok(Ok(h))
}

/// Scans record headers from `start` to the end of the file. `hint` is the file's own index
/// (sorted by offset) when it could be parsed but not trusted; it is only used to step over
/// a damaged record.
pub fn scan(
    file: &FileAt,
    start: u64,
    header_size: u32,
    hint: &[IndexEntry],
) -> Result<ScanResult, VrsError> {
    let mut hdr = vec![0u8; header_size as usize];
    let mut probe = vec![0u8; header_size as usize];
    let mut out = ScanResult {
        entries: Vec::new(),
        end: start,
        partial_record: false,
        skipped: 0,
        skipped_bytes: 0,
        stop_reason: None,
    };
    let mut pos = start;
    let mut prev_size: Option<u32> = None;
    while pos < file.len() {
        let h = match check_header(file, pos, &mut hdr, prev_size)? {
            Ok(h) => h,
            Err(bad) => {
                // Can the index carry us over this record to a good header?
                let step = hint
                    .binary_search_by_key(&pos, |e| e.offset)
                    .ok()
                    .and_then(|i| hint.get(i))
                    .map(|e| pos + u64::from(e.size))
                    .filter(|&next| next > pos && next <= file.len());
                let next_ok = match step {
                    Some(next) if next == file.len() => true,
                    Some(next) => check_header(file, next, &mut probe, None)?.is_ok(),
                    None => false,
                };
                match step {
                    Some(next) if next_ok => {
                        out.skipped += 1;
                        out.skipped_bytes += next - pos;
                        prev_size = None;
                        pos = next;
                        continue;
                    }
                    _ => {
                        out.partial_record = bad.partial;
                        out.stop_reason = Some(bad.reason);
                        break;
                    }
                }
            }
        };
        if h.stream.type_id != INDEX_TYPE_ID && h.stream.type_id != DESCRIPTION_TYPE_ID {
            out.entries.push(IndexEntry {
                offset: pos,
                size: h.record_size,
                timestamp_s: h.timestamp_s,
                record_type: h.record_type,
                stream: h.stream,
            });
        }
        prev_size = Some(h.record_size);
        pos += u64::from(h.record_size);
    }
    out.end = pos.min(file.len());
    Ok(out)
}
