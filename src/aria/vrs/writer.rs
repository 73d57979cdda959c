//! [`VrsWriter`]: writes VRS1 files — file header, description record, user records in call
//! order, then an uncompressed classic index record, whose offset is patched into the header
//! by [`VrsWriter::finish`].

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::data_layout::DataLayout;
use super::decompress::compress;
use super::description::{Description, VrsStream, DESCRIPTION_FORMAT_VERSION};
use super::error::VrsError;
use super::header::{FileHeader, FILE_HEADER_SIZE};
use super::index::{encode_classic, DiskRecordInfo, CLASSIC_INDEX_VERSION};
use super::record_format::RecordFormat;
use super::record_header::{RecordHeader, DESCRIPTION_TYPE_ID, INDEX_TYPE_ID, RECORD_HEADER_SIZE};
use super::types::{Compression, RecordType, VrsStreamId};

/// Everything the description record says about one stream.
#[derive(Clone, Debug)]
pub struct StreamSpec {
    /// The stream id.
    pub id: VrsStreamId,
    /// Producer tags.
    pub user_tags: BTreeMap<String, String>,
    /// `VRS_Original_Recordable_Name`.
    pub recordable_name: String,
    /// `VRS_Recordable_Flavor` (e.g. "device/aria"), if any.
    pub flavor: Option<String>,
    /// Other VRS tags to store as given (e.g. `VRS_Serial_Number`).
    pub extra_vrs_tags: BTreeMap<String, String>,
    /// Record formats: `(record type, format version, RF string, DL JSON per block)`.
    pub formats: Vec<(RecordType, u32, String, Vec<Option<String>>)>,
}

impl StreamSpec {
    /// A stream with no formats yet.
    pub fn new(id: VrsStreamId, recordable_name: &str) -> Self {
        Self {
            id,
            user_tags: BTreeMap::new(),
            recordable_name: recordable_name.to_string(),
            flavor: None,
            extra_vrs_tags: BTreeMap::new(),
            formats: Vec::new(),
        }
    }
    /// The spec of a stream read from another file: same user tags, name, flavor, record
    /// formats and data layouts (to copy or re-encode a recording).
    pub fn from_stream(s: &VrsStream) -> Self {
        let mut spec = Self::new(s.id, s.recordable_name().unwrap_or(""));
        spec.user_tags = s.user_tags.clone();
        spec.flavor = s.flavor().map(str::to_string);
        for (k, rf) in &s.vrs_tags {
            let is_format = k.starts_with("RF:") || k.starts_with("DL:");
            let known = k == "VRS_Original_Recordable_Name" || k == "VRS_Recordable_Flavor";
            if !is_format && !known {
                spec.extra_vrs_tags.insert(k.clone(), rf.clone());
            }
            let mut parts = k.split(':');
            let (Some("RF"), Some(rt), Some(ver)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (Some(rt), Ok(ver)) = (RecordType::from_tag_name(rt), ver.parse::<u32>()) else {
                continue;
            };
            let blocks = rf.split('+').count();
            let layouts = (0..blocks)
                .map(|b| {
                    s.vrs_tags
                        .get(&format!("DL:{}:{ver}:{b}", rt.tag_name()))
                        .cloned()
                })
                .collect();
            spec.formats.push((rt, ver, rf.clone(), layouts));
        }
        spec
    }
    /// Adds a user tag.
    pub fn user_tag(mut self, k: &str, v: &str) -> Self {
        self.user_tags.insert(k.into(), v.into());
        self
    }
    /// Sets the flavor.
    pub fn flavor(mut self, f: &str) -> Self {
        self.flavor = Some(f.into());
        self
    }
    /// Declares the format of `(rt, version)` records: an `RF:` string and the `DL:` JSON of
    /// each content block that is a DataLayout (`None` for the others).
    pub fn format(
        mut self,
        rt: RecordType,
        version: u32,
        rf: &str,
        layouts: &[Option<&str>],
    ) -> Self {
        self.formats.push((
            rt,
            version,
            rf.to_string(),
            layouts.iter().map(|l| l.map(str::to_string)).collect(),
        ));
        self
    }
}

/// What [`VrsWriter::finish`] wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WriteSummary {
    /// The file.
    pub path: PathBuf,
    /// File size in bytes.
    pub bytes: u64,
    /// User records written.
    pub records: u64,
    /// Offset of the index record.
    pub index_offset: u64,
}

/// Writes a VRS1 file.
#[derive(Debug)]
pub struct VrsWriter {
    path: PathBuf,
    out: BufWriter<File>,
    header: FileHeader,
    pos: u64,
    description: Description,
    described: bool,
    records: Vec<DiskRecordInfo>,
    prev_size: u32,
}

impl VrsWriter {
    /// Creates (truncates) `path` with the given file tags; the header's creation id is the
    /// wall clock in ns, as VRS itself does.
    pub fn create(
        path: impl AsRef<Path>,
        file_tags: BTreeMap<String, String>,
    ) -> Result<Self, VrsError> {
        let creation_id = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Self::create_with_id(path, file_tags, creation_id)
    }

    /// Like [`VrsWriter::create`] with a given creation id, so that the same content gives a
    /// byte-identical file (synthetic sessions, tests).
    pub fn create_with_id(
        path: impl AsRef<Path>,
        file_tags: BTreeMap<String, String>,
        creation_id: u64,
    ) -> Result<Self, VrsError> {
        let path = path.as_ref().to_path_buf();
        let file = File::create(&path).map_err(|source| VrsError::Io {
            path: path.clone(),
            offset: 0,
            source,
        })?;
        let header = FileHeader::new_vrs1(creation_id);
        let mut w = Self {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            header,
            pos: 0,
            description: Description {
                streams: Vec::new(),
                file_tags,
            },
            described: false,
            records: Vec::new(),
            prev_size: 0,
        };
        w.write_bytes(&header.encode())?;
        Ok(w)
    }

    fn err(&self, reason: String) -> VrsError {
        VrsError::Write {
            path: self.path.clone(),
            offset: self.pos,
            reason,
        }
    }

    fn write_bytes(&mut self, b: &[u8]) -> Result<(), VrsError> {
        self.out.write_all(b).map_err(|source| VrsError::Io {
            path: self.path.clone(),
            offset: self.pos,
            source,
        })?;
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Declares a stream. All streams must be added before the first record.
    pub fn add_stream(&mut self, spec: StreamSpec) -> Result<(), VrsError> {
        if self.described {
            return Err(self.err(format!("stream {} added after the first record", spec.id)));
        }
        if self.description.stream(spec.id).is_some() {
            return Err(self.err(format!("stream {} declared twice", spec.id)));
        }
        let mut vrs = spec.extra_vrs_tags;
        vrs.insert(
            "VRS_Original_Recordable_Name".to_string(),
            spec.recordable_name,
        );
        if let Some(f) = spec.flavor {
            vrs.insert("VRS_Recordable_Flavor".to_string(), f);
        }
        for (rt, ver, rf, layouts) in spec.formats {
            RecordFormat::parse(&rf)
                .map_err(|e| self.err(format!("stream {}: RF {rf:?}: {e}", spec.id)))?;
            for (block, json) in layouts.into_iter().enumerate() {
                if let Some(json) = json {
                    DataLayout::from_json(&json).map_err(|e| {
                        self.err(format!("stream {}: DL block {block}: {e}", spec.id))
                    })?;
                    vrs.insert(format!("DL:{}:{ver}:{block}", rt.tag_name()), json);
                }
            }
            vrs.insert(format!("RF:{}:{ver}", rt.tag_name()), rf);
        }
        self.description
            .streams
            .push(VrsStream::new(spec.id, spec.user_tags, vrs));
        Ok(())
    }

    fn write_description(&mut self) -> Result<(), VrsError> {
        if self.described {
            return Ok(());
        }
        self.described = true;
        let payload = self.description.encode();
        let size = self.record_size(payload.len())?;
        let h = RecordHeader {
            record_size: size,
            previous_record_size: 0,
            stream: VrsStreamId::new(DESCRIPTION_TYPE_ID, 0),
            format_version: DESCRIPTION_FORMAT_VERSION,
            timestamp_s: f64::MAX,
            record_type: RecordType::Data,
            compression: Compression::None,
            uncompressed_size: 0,
        };
        debug_assert_eq!(self.pos, FILE_HEADER_SIZE as u64);
        self.write_bytes(&h.encode())?;
        self.write_bytes(&payload)?;
        self.prev_size = size;
        Ok(())
    }

    fn record_size(&self, payload: usize) -> Result<u32, VrsError> {
        u32::try_from(payload + RECORD_HEADER_SIZE)
            .map_err(|_| self.err(format!("payload of {payload} bytes does not fit a record")))
    }

    /// Writes one record; returns its offset. `payload` is the uncompressed payload.
    pub fn write_record(
        &mut self,
        stream: VrsStreamId,
        record_type: RecordType,
        format_version: u32,
        timestamp_s: f64,
        payload: &[u8],
        compression: Compression,
    ) -> Result<u64, VrsError> {
        self.write_description()?;
        if self.description.stream(stream).is_none() {
            return Err(self.err(format!("stream {stream} was not added")));
        }
        let uncompressed_size = match compression {
            Compression::None => 0,
            _ => u32::try_from(payload.len())
                .map_err(|_| self.err("payload larger than 4 GiB".into()))?,
        };
        let stored = match compression {
            Compression::None => None,
            c => Some(compress(c, payload).map_err(|e| self.err(format!("compression: {e}")))?),
        };
        let body = stored.as_deref().unwrap_or(payload);
        let size = self.record_size(body.len())?;
        let h = RecordHeader {
            record_size: size,
            previous_record_size: self.prev_size,
            stream,
            format_version,
            timestamp_s,
            record_type,
            compression,
            uncompressed_size,
        };
        let offset = self.pos;
        self.write_bytes(&h.encode())?;
        self.write_bytes(body)?;
        self.prev_size = size;
        self.records.push(DiskRecordInfo {
            timestamp_s,
            record_size: size,
            record_type,
            stream,
        });
        Ok(offset)
    }

    /// Writes the index, patches the header, flushes and syncs.
    pub fn finish(mut self) -> Result<WriteSummary, VrsError> {
        self.write_description()?;
        let streams: Vec<VrsStreamId> = self.description.streams.iter().map(|s| s.id).collect();
        let payload = encode_classic(&streams, &self.records);
        let size = self.record_size(payload.len())?;
        let index_offset = self.pos;
        let h = RecordHeader {
            record_size: size,
            previous_record_size: self.prev_size,
            stream: VrsStreamId::new(INDEX_TYPE_ID, 0),
            format_version: CLASSIC_INDEX_VERSION,
            timestamp_s: f64::MAX,
            record_type: RecordType::Data,
            compression: Compression::None,
            uncompressed_size: 0,
        };
        self.write_bytes(&h.encode())?;
        self.write_bytes(&payload)?;
        self.header.index_record_offset = index_offset as i64;
        let header = self.header.encode();
        let io = |path: &PathBuf, offset: u64| {
            let path = path.clone();
            move |source| VrsError::Io {
                path,
                offset,
                source,
            }
        };
        self.out.flush().map_err(io(&self.path, self.pos))?;
        let mut file = self
            .out
            .into_inner()
            .map_err(|e| io(&self.path, self.pos)(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io(&self.path, 0))?;
        file.write_all(&header).map_err(io(&self.path, 0))?;
        file.sync_all().map_err(io(&self.path, 0))?;
        Ok(WriteSummary {
            path: self.path,
            bytes: self.pos,
            records: self.records.len() as u64,
            index_offset,
        })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
