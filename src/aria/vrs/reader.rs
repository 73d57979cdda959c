//! [`VrsReader`]: opens a VRS file (VRS1 or VRS2 layout), reads the description record and
//! the index — or rebuilds the index by a linear scan when it is missing, cut short or
//! wrong — and reads records by positional reads, so all methods take `&self` and one
//! reader can be shared between threads.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use bytes::Bytes;

use super::data_layout::DataLayout;
use super::decompress::{decompress, MAX_PAYLOAD_BYTES, MAX_RECORD_BYTES};
use super::description::{Description, DescriptionDamage, VrsStream};
use super::error::VrsError;
use super::file_io::FileAt;
use super::header::{FileHeader, HeaderProblem, FILE_HEADER_SIZE};
use super::index::{self, IndexEntry, CLASSIC_INDEX_VERSION, SPLIT_INDEX_VERSION};
use super::record_format::RecordFormat;
use super::record_header::{RecordHeader, DESCRIPTION_TYPE_ID, INDEX_TYPE_ID, RECORD_HEADER_SIZE};
use super::scan::scan;
use super::types::{Compression, RecordType, VrsStreamId};

/// Where the reader's index came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum IndexSource {
    /// The file's own index record, checked against the file.
    FromIndex,
    /// A linear scan of record headers, because the index was unusable.
    Rebuilt {
        /// Why the index was not used.
        reason: String,
    },
}

/// How much of the file the reader could use.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RecoveryReport {
    /// Where the index came from.
    pub index_source: IndexSource,
    /// Bytes at the end of the file that hold no complete record (cut off or damaged).
    pub bytes_lost: u64,
    /// Records known to exist (from the index, or a header cut off mid-record) that could
    /// not be delivered.
    pub records_skipped: u64,
    /// The description record is damaged: where, and what of its streams and tags was kept
    /// (streams after the damage are lost with their record formats).
    pub description_damage: Option<String>,
}

/// One record, read and decompressed.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Its header.
    pub header: RecordHeader,
    /// Its payload, decompressed.
    pub payload: Bytes,
}

thread_local! {
    static COMPRESSED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// What a damaged description record kept, in words.
fn damage_note(d: &DescriptionDamage, payload_offset: u64) -> String {
    let declared = d
        .streams_declared
        .map_or("?".to_string(), |n| n.to_string());
    let partial = if d.stream_partial {
        ", one with only the tags before the damage"
    } else {
        ""
    };
    format!(
        "byte {}: {}; kept {} of {declared} stream(s) whole{partial} and {} file tag(s) \
         read before it",
        payload_offset + d.error.at as u64,
        d.error.what,
        d.streams_whole,
        d.file_tags_kept
    )
}

/// A VRS file opened for reading.
#[derive(Debug)]
pub struct VrsReader {
    file: FileAt,
    header: FileHeader,
    description: Description,
    description_offset: u64,
    index: Vec<IndexEntry>,
    recovery: RecoveryReport,
    /// Decompressed-size budget of each stream's DATA records (set from its configuration;
    /// a stream not listed has [`MAX_RECORD_BYTES`]).
    budgets: BTreeMap<VrsStreamId, usize>,
}

impl VrsReader {
    /// Opens the file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, VrsError> {
        Self::from_file(FileAt::open(path.as_ref())?)
    }

    /// Reads a VRS file held in memory; `name` is used in errors.
    pub fn from_bytes(name: impl AsRef<Path>, bytes: Bytes) -> Result<Self, VrsError> {
        Self::from_file(FileAt::from_bytes(name.as_ref(), bytes))
    }

    fn from_file(file: FileAt) -> Result<Self, VrsError> {
        let header = read_file_header(&file)?;
        let hs = header.record_header_size;
        let description_offset = header.description_record_offset as u64;
        let (dh, payload) = read_raw_record(&file, description_offset, hs, "description record")?;
        if dh.stream.type_id != DESCRIPTION_TYPE_ID {
            return Err(VrsError::BadDescription {
                path: file.path().to_path_buf(),
                offset: description_offset,
                reason: format!("record has type id {}, expected 2", dh.stream.type_id),
            });
        }
        let payload_offset = description_offset + u64::from(hs);
        let (mut description, damage) = Description::parse_salvaging(&payload);
        let description_damage = match damage {
            // Nothing of any stream was read: there is nothing to decode records with.
            Some(d) if description.streams.is_empty() => {
                return Err(VrsError::BadDescription {
                    path: file.path().to_path_buf(),
                    offset: payload_offset + d.error.at as u64,
                    reason: d.error.what,
                })
            }
            Some(d) => Some(damage_note(&d, payload_offset)),
            None => None,
        };
        let first_user = if header.first_user_record_offset > 0 {
            header.first_user_record_offset as u64
        } else {
            description_offset + u64::from(dh.record_size)
        };
        let (mut index, recovery) = match index_from_record(&file, &header, first_user) {
            Ok(index) => (
                index,
                RecoveryReport {
                    index_source: IndexSource::FromIndex,
                    bytes_lost: 0,
                    records_skipped: 0,
                    description_damage: description_damage.clone(),
                },
            ),
            Err((reason, hint)) => {
                let s = scan(&file, first_user, hs, &hint)?;
                let reason = match &s.stop_reason {
                    Some(stop) => format!("{reason}; scan stopped: {stop}"),
                    None => reason,
                };
                let delivered = s.entries.len() as u64;
                let skipped = (hint.len() as u64)
                    .saturating_sub(delivered)
                    .max(s.skipped + u64::from(s.partial_record));
                let report = RecoveryReport {
                    index_source: IndexSource::Rebuilt { reason },
                    bytes_lost: file.len().saturating_sub(s.end) + s.skipped_bytes,
                    records_skipped: skipped,
                    description_damage: description_damage.clone(),
                };
                (s.entries, report)
            }
        };
        apply_tags_records(&file, hs, &mut description, &mut index);
        Ok(Self {
            file,
            header,
            description,
            description_offset,
            index,
            recovery,
            budgets: BTreeMap::new(),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
    /// The file's length in bytes.
    pub fn file_len(&self) -> u64 {
        self.file.len()
    }
    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }
    /// `fileFormatVersion` as a little-endian four-character code (see [`FileHeader::version_str`]).
    pub fn file_format_version(&self) -> u32 {
        self.header.file_format_version
    }
    /// File tags from the description record.
    pub fn file_tags(&self) -> &BTreeMap<String, String> {
        &self.description.file_tags
    }
    /// Streams declared by the description record.
    pub fn streams(&self) -> &[VrsStream] {
        &self.description.streams
    }
    /// The stream `id`, if declared.
    pub fn stream(&self, id: VrsStreamId) -> Option<&VrsStream> {
        self.description.stream(id)
    }
    /// Every user record in file order.
    pub fn index(&self) -> &[IndexEntry] {
        &self.index
    }
    /// How the index was obtained and what was lost.
    pub fn recovery(&self) -> &RecoveryReport {
        &self.recovery
    }
    /// Offset of the description record (errors about tags name it).
    pub fn description_offset(&self) -> u64 {
        self.description_offset
    }

    /// Sets the budget of `stream`'s DATA records: a record that declares (or stores) more
    /// than `bytes` once decompressed is refused before it is decompressed. Callers derive
    /// it from the stream's configuration (image size, audio rate); it never exceeds
    /// [`MAX_RECORD_BYTES`].
    pub fn set_payload_budget(&mut self, stream: VrsStreamId, bytes: usize) {
        self.budgets.insert(stream, bytes.min(MAX_RECORD_BYTES));
    }

    /// The decompressed-size budget of a record of `stream` of type `rt`.
    pub fn payload_budget(&self, stream: VrsStreamId, rt: RecordType) -> usize {
        match rt {
            RecordType::Data => self
                .budgets
                .get(&stream)
                .copied()
                .unwrap_or(MAX_RECORD_BYTES),
            _ => MAX_RECORD_BYTES,
        }
    }

    /// Reads and decompresses the record `e`.
    pub fn read_record(&self, e: &IndexEntry) -> Result<Record, VrsError> {
        let mut buf = Vec::new();
        let header = self.read_record_into(e, &mut buf)?;
        Ok(Record {
            header,
            payload: Bytes::from(buf),
        })
    }

    /// Reads and decompresses the record `e` into `buf` (its allocation is reused).
    pub fn read_record_into(
        &self,
        e: &IndexEntry,
        buf: &mut Vec<u8>,
    ) -> Result<RecordHeader, VrsError> {
        let hs = self.header.record_header_size;
        let mut hdr = [0u8; 32];
        self.file
            .check_range(e.offset, u64::from(e.size), "record")?;
        self.file
            .read_exact_at(e.offset, &mut hdr, "record header")?;
        let h = RecordHeader::parse(&hdr).map_err(|pe| self.bad_header(e.offset, pe.what))?;
        if h.record_size != e.size || h.stream != e.stream || h.record_type != e.record_type {
            return Err(VrsError::IndexMismatch {
                path: self.path().to_path_buf(),
                offset: e.offset,
                reason: format!(
                    "index says {} {:?} of {} bytes, header says {} {:?} of {} bytes",
                    e.stream, e.record_type, e.size, h.stream, h.record_type, h.record_size
                ),
            });
        }
        let stored = payload_len(&h, hs).ok_or_else(|| {
            self.bad_header(
                e.offset,
                format!("record size {} < header size {hs}", h.record_size),
            )
        })?;
        let payload_at = e.offset + u64::from(hs);
        let budget = self.payload_budget(h.stream, h.record_type);
        let over = |size: usize| VrsError::Decompress {
            path: self.path().to_path_buf(),
            offset: e.offset,
            codec: codec_name(h.compression),
            reason: format!(
                "payload of {size} bytes exceeds stream {}'s budget of {budget} bytes",
                h.stream
            ),
        };
        match h.compression {
            Compression::None => {
                if stored > budget {
                    return Err(over(stored));
                }
                self.file
                    .read_into(payload_at, stored, buf, "record payload")?
            }
            codec => {
                if h.uncompressed_size as usize > budget {
                    return Err(over(h.uncompressed_size as usize));
                }
                COMPRESSED.with(|c| {
                    let mut scratch = c.borrow_mut();
                    self.file
                        .read_into(payload_at, stored, &mut scratch, "record payload")?;
                    let declared = h.uncompressed_size as usize;
                    decompress(codec, &scratch, declared, budget, buf).map_err(|reason| {
                        VrsError::Decompress {
                            path: self.path().to_path_buf(),
                            offset: e.offset,
                            codec: codec_name(codec),
                            reason,
                        }
                    })
                })?
            }
        }
        Ok(h)
    }

    fn bad_header(&self, offset: u64, reason: String) -> VrsError {
        VrsError::BadHeader {
            path: self.path().to_path_buf(),
            offset,
            what: "record header".into(),
            reason,
        }
    }

    /// The record format of `(stream, rt, version)`, or an error naming what is missing.
    pub fn record_format(
        &self,
        stream: VrsStreamId,
        rt: RecordType,
        version: u32,
    ) -> Result<&RecordFormat, VrsError> {
        let err = |reason: String| VrsError::BadRecordFormat {
            path: self.path().to_path_buf(),
            offset: self.description_offset,
            stream: stream.to_string(),
            reason,
        };
        let s = self
            .stream(stream)
            .ok_or_else(|| err("stream not declared".into()))?;
        match s.record_format_checked(rt, version) {
            Some(Ok(f)) => Ok(f),
            Some(Err(why)) => Err(err(format!("RF:{}:{version}: {why}", rt.tag_name()))),
            None => Err(err(format!("no RF:{}:{version} tag", rt.tag_name()))),
        }
    }

    /// The data layout of block `block` of `(stream, rt, version)`, or an error naming the
    /// problem (missing tag, malformed JSON).
    pub fn data_layout(
        &self,
        stream: VrsStreamId,
        rt: RecordType,
        version: u32,
        block: usize,
    ) -> Result<&DataLayout, VrsError> {
        let err = |reason: String| VrsError::BadDataLayout {
            path: self.path().to_path_buf(),
            offset: self.description_offset,
            stream: stream.to_string(),
            reason,
        };
        let s = self
            .stream(stream)
            .ok_or_else(|| err("stream not declared".into()))?;
        let tag = format!("DL:{}:{version}:{block}", rt.tag_name());
        match s.data_layout_checked(rt, version, block) {
            Some(Ok(l)) => Ok(l),
            Some(Err(why)) => Err(err(format!("{tag}: {why}"))),
            None => Err(err(format!("no {tag} tag"))),
        }
    }

    /// Splits a record's payload into its content blocks (byte ranges of `record.payload`).
    pub fn split_record(
        &self,
        offset: u64,
        header: &RecordHeader,
        payload: &[u8],
    ) -> Result<Vec<Range<usize>>, VrsError> {
        let mut out = Vec::new();
        self.split_record_into(offset, header, payload, &mut out)?;
        Ok(out)
    }

    /// Like [`Self::split_record`], into a reused vector.
    pub fn split_record_into(
        &self,
        offset: u64,
        header: &RecordHeader,
        payload: &[u8],
        out: &mut Vec<Range<usize>>,
    ) -> Result<(), VrsError> {
        let (stream, rt, ver) = (header.stream, header.record_type, header.format_version);
        let rf = self.record_format(stream, rt, ver)?;
        let s = self.stream(stream);
        rf.split_into(payload, |b| s.and_then(|s| s.data_layout(rt, ver, b)), out)
            .map_err(|reason| VrsError::BadRecordFormat {
                path: self.path().to_path_buf(),
                offset,
                stream: stream.to_string(),
                reason,
            })
    }
}

/// Name of a codec for messages.
pub fn codec_name(c: Compression) -> &'static str {
    match c {
        Compression::None => "none",
        Compression::Lz4 => "lz4",
        Compression::Zstd => "zstd",
    }
}

fn payload_len(h: &RecordHeader, header_size: u32) -> Option<usize> {
    h.record_size
        .checked_sub(header_size)
        .map(|n| n as usize)
        .filter(|&n| n <= MAX_PAYLOAD_BYTES)
}

fn read_file_header(file: &FileAt) -> Result<FileHeader, VrsError> {
    let mut b = [0u8; FILE_HEADER_SIZE];
    file.read_exact_at(0, &mut b, "file header")?;
    FileHeader::parse(&b).map_err(|p| match p {
        HeaderProblem::BadMagic => VrsError::BadMagic {
            path: file.path().to_path_buf(),
            offset: 0,
        },
        HeaderProblem::Invalid(e) => VrsError::BadHeader {
            path: file.path().to_path_buf(),
            offset: e.at as u64,
            what: "file header".into(),
            reason: e.what,
        },
    })
}

/// Reads a whole record (header + decompressed payload) outside the index: description and
/// index records.
fn read_raw_record(
    file: &FileAt,
    offset: u64,
    header_size: u32,
    what: &str,
) -> Result<(RecordHeader, Vec<u8>), VrsError> {
    let mut hdr = [0u8; 32];
    file.read_exact_at(offset, &mut hdr, what)?;
    let bad = |reason: String| VrsError::BadHeader {
        path: file.path().to_path_buf(),
        offset,
        what: what.to_string(),
        reason,
    };
    let h = RecordHeader::parse(&hdr).map_err(|e| bad(e.what))?;
    let n = payload_len(&h, header_size)
        .ok_or_else(|| bad(format!("record size {} is impossible", h.record_size)))?;
    let mut stored = Vec::new();
    file.read_into(offset + u64::from(header_size), n, &mut stored, what)?;
    if h.compression == Compression::None || h.stream.type_id == INDEX_TYPE_ID {
        // The index compresses only part of its payload; its parser decompresses.
        return Ok((h, stored));
    }
    let mut out = Vec::new();
    decompress(
        h.compression,
        &stored,
        h.uncompressed_size as usize,
        MAX_RECORD_BYTES,
        &mut out,
    )
    .map_err(|reason| VrsError::Decompress {
        path: file.path().to_path_buf(),
        offset,
        codec: codec_name(h.compression),
        reason,
    })?;
    Ok((h, out))
}

/// A stream's tags, name to value.
pub type TagMap = BTreeMap<String, String>;

/// Format version of a TAGS record (`vrs/TagsRecord.h`, `kTagsVersion`).
pub const TAGS_RECORD_VERSION: u32 = 1;

/// Streams whose tags are stored in TAGS records (newer VRS writers, e.g. Meta's Aria Digital
/// Twin output, whose description record lists no stream): each record's tags are merged
/// into its stream (declared there if the description did not), and the TAGS records leave
/// the index, as VRS's own reader does. A damaged TAGS record is logged and skipped.
fn apply_tags_records(
    file: &FileAt,
    header_size: u32,
    description: &mut Description,
    index: &mut Vec<IndexEntry>,
) {
    for e in index.iter().filter(|e| e.record_type == RecordType::Tags) {
        let parsed =
            read_raw_record(file, e.offset, header_size, "tags record").and_then(|(h, p)| {
                if h.format_version != TAGS_RECORD_VERSION {
                    return Err(VrsError::BadRecordFormat {
                        path: file.path().to_path_buf(),
                        offset: e.offset,
                        stream: e.stream.to_string(),
                        reason: format!("tags record version {}", h.format_version),
                    });
                }
                parse_tags_record(&p).map_err(|reason| VrsError::BadRecordFormat {
                    path: file.path().to_path_buf(),
                    offset: e.offset,
                    stream: e.stream.to_string(),
                    reason: format!("tags record: {reason}"),
                })
            });
        match parsed {
            Ok((vrs_tags, user_tags)) => description.merge_tags(e.stream, vrs_tags, user_tags),
            Err(err) => log::warn!("{err}; the stream's tags are left out"),
        }
    }
    index.retain(|e| e.record_type != RecordType::Tags);
}

/// A TAGS record's payload: a DataLayout with no fixed part and two variable pieces,
/// `vrs_tags` and `user_tags` (`DataPieceStringMap<string>`): an index of two
/// `(u32 offset, u32 length)`, then each map as `(u32 len, key, u32 len, value)*`.
pub fn parse_tags_record(payload: &[u8]) -> Result<(TagMap, TagMap), String> {
    let word = |at: usize| -> Result<usize, String> {
        payload
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(|b| u32::from_le_bytes(b) as usize)
            .ok_or_else(|| format!("cut short at byte {at}"))
    };
    let data = payload.get(16..).ok_or("no var-size index")?;
    let map = |slot: usize| -> Result<BTreeMap<String, String>, String> {
        let (off, len) = (word(slot * 8)?, word(slot * 8 + 4)?);
        let bytes = off
            .checked_add(len)
            .and_then(|end| data.get(off..end))
            .ok_or_else(|| format!("map {slot} ({off}+{len}) outside the record"))?;
        let mut c = super::cursor::Cursor::new(bytes);
        let mut m = BTreeMap::new();
        while c.pos() < bytes.len() {
            let k = c.string_lossy("tag name").map_err(|e| e.to_string())?;
            let v = c.string_lossy("tag value").map_err(|e| e.to_string())?;
            m.insert(k, v);
        }
        Ok(m)
    };
    Ok((map(0)?, map(1)?))
}

/// Most record headers checked against the index at open (spread evenly).
const MAX_SPOT_CHECKS: usize = 256;

/// Reads the index record and checks it against the file. On failure returns why, and the
/// index's entries when it could be parsed (a hint for the scan; empty otherwise).
fn index_from_record(
    file: &FileAt,
    header: &FileHeader,
    first_user: u64,
) -> Result<Vec<IndexEntry>, (String, Vec<IndexEntry>)> {
    let hs = header.record_header_size;
    let at = header.index_record_offset as u64;
    if at == 0 {
        return Err(("no index record (indexRecordOffset = 0)".into(), Vec::new()));
    }
    let (h, payload) = read_raw_record(file, at, hs, "index record")
        .map_err(|e| (format!("index record unreadable: {e}"), Vec::new()))?;
    if h.stream.type_id != INDEX_TYPE_ID {
        return Err((
            format!(
                "record at indexRecordOffset {at} is stream {}, not the index",
                h.stream
            ),
            Vec::new(),
        ));
    }
    // Every record takes at least a record header in the file, so a file of n bytes holds
    // at most n / 32 records: an index that claims more is refused before it is inflated.
    let max_records = usize::try_from(file.len() / RECORD_HEADER_SIZE as u64).unwrap_or(usize::MAX);
    let infos = match h.format_version {
        CLASSIC_INDEX_VERSION => {
            index::parse_classic_within(&payload, h.uncompressed_size, max_records).map(|r| r.1)
        }
        SPLIT_INDEX_VERSION => {
            index::parse_split_within(&payload, h.uncompressed_size, max_records)
        }
        v => return Err((format!("unsupported index format version {v}"), Vec::new())),
    }
    .map_err(|e| (format!("index record at {at}: {e}"), Vec::new()))?;
    let entries = index::place(first_user, &infos);
    let end = entries
        .last()
        .map(|e| e.offset + u64::from(e.size))
        .unwrap_or(first_user);
    if end > file.len() {
        let past = entries
            .iter()
            .filter(|e| e.offset + u64::from(e.size) > file.len())
            .count();
        return Err((
            format!(
                "index lists {past} records past the end of the file ({} bytes)",
                file.len()
            ),
            entries,
        ));
    }
    let expected_end = if at >= first_user { at } else { file.len() };
    if end != expected_end {
        return Err((
            format!("index covers records up to byte {end}, records end at {expected_end}"),
            entries,
        ));
    }
    let step = (entries.len() / MAX_SPOT_CHECKS).max(1);
    let mut hdr = [0u8; 32];
    let picks = entries.iter().step_by(step).chain(entries.last());
    for e in picks {
        if let Err(err) = file.read_exact_at(e.offset, &mut hdr, "record header") {
            return Err((err.to_string(), entries));
        }
        let ok = RecordHeader::parse(&hdr)
            .map(|h| {
                h.record_size == e.size && h.stream == e.stream && h.record_type == e.record_type
            })
            .unwrap_or(false);
        if !ok {
            let reason = format!("record header at {} does not match the index", e.offset);
            return Err((reason, entries));
        }
    }
    Ok(entries)
}
