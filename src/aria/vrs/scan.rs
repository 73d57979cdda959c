//! Linear scan of record headers: rebuilds the index of a file whose index is missing,
//! truncated or wrong. Records are contiguous, so each header leads to the next; the scan
//! stops at the first header that is unreadable, impossible, or runs past the end.

use super::error::VrsError;
use super::file_io::FileAt;
use super::index::IndexEntry;
use super::record_header::{RecordHeader, DESCRIPTION_TYPE_ID, INDEX_TYPE_ID};

/// What a scan found.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanResult {
    /// Every complete user record, in file order.
    pub entries: Vec<IndexEntry>,
    /// End of the last complete record (where the scan stopped).
    pub end: u64,
    /// True when a readable header announced a record cut off by the end of the file.
    pub partial_record: bool,
    /// Why the scan stopped before the end of the file, if it did.
    pub stop_reason: Option<String>,
}

/// Scans record headers from `start` to the end of the file.
pub fn scan(file: &FileAt, start: u64, header_size: u32) -> Result<ScanResult, VrsError> {
    let hs = u64::from(header_size);
    let mut hdr = vec![0u8; header_size as usize];
    let mut entries = Vec::new();
    let mut pos = start;
    let mut prev_size: Option<u32> = None;
    let mut partial_record = false;
    let mut stop_reason = None;
    while pos < file.len() {
        if pos + hs > file.len() {
            stop_reason = Some(format!(
                "{} trailing bytes at {pos} are too few for a record header",
                file.len() - pos
            ));
            partial_record = true;
            break;
        }
        file.read_exact_at(pos, &mut hdr, "record header")?;
        let h = match RecordHeader::parse(&hdr) {
            Ok(h) => h,
            Err(e) => {
                stop_reason = Some(format!("unreadable record header at {pos}: {}", e.what));
                break;
            }
        };
        if u64::from(h.record_size) < hs {
            stop_reason = Some(format!(
                "record at {pos} declares size {} < header size {hs}",
                h.record_size
            ));
            break;
        }
        if let Some(prev) = prev_size {
            if h.previous_record_size != prev {
                stop_reason = Some(format!(
                    "record at {pos} says the previous record had {} bytes, it had {prev}",
                    h.previous_record_size
                ));
                break;
            }
        }
        let end = pos + u64::from(h.record_size);
        if end > file.len() {
            stop_reason = Some(format!(
                "record at {pos} needs {} bytes, the file ends at {}",
                h.record_size,
                file.len()
            ));
            partial_record = true;
            break;
        }
        if h.stream.type_id != INDEX_TYPE_ID && h.stream.type_id != DESCRIPTION_TYPE_ID {
            entries.push(IndexEntry {
                offset: pos,
                size: h.record_size,
                timestamp_s: h.timestamp_s,
                record_type: h.record_type,
                stream: h.stream,
            });
        }
        prev_size = Some(h.record_size);
        pos = end;
    }
    Ok(ScanResult {
        entries,
        end: pos.min(file.len()),
        partial_record,
        stop_reason,
    })
}
