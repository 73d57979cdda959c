//! The description record (`vrs/DescriptionRecord.cpp`): streams with their user and VRS
//! tags, and the file tags. Parsing and encoding are pure; record formats (`RF:`) and data
//! layouts (`DL:`) are parsed once here, and a malformed one is kept as an error for that
//! lookup only, so the rest of the file stays readable.

use std::collections::BTreeMap;

use super::cursor::{put_string, Cursor};
use super::data_layout::DataLayout;
use super::error::ParseError;
use super::record_format::RecordFormat;
use super::types::{RecordType, VrsStreamId};

/// Format version of the description record.
pub const DESCRIPTION_FORMAT_VERSION: u32 = 2;

/// Key of a record format: record type and record format version.
pub type FormatKey = (RecordType, u32);
/// Key of a data layout: record type, format version and content block index.
pub type LayoutKey = (RecordType, u32, usize);

/// One stream as the description record declares it.
#[derive(Clone, Debug)]
pub struct VrsStream {
    /// The stream id.
    pub id: VrsStreamId,
    /// Tags set by the producer (for Aria: device serial, session id, …).
    pub user_tags: BTreeMap<String, String>,
    /// VRS-internal tags (`RF:…`, `DL:…`, `VRS_Original_Recordable_Name`, …).
    pub vrs_tags: BTreeMap<String, String>,
    formats: BTreeMap<FormatKey, Result<RecordFormat, String>>,
    layouts: BTreeMap<LayoutKey, Result<DataLayout, String>>,
}

impl VrsStream {
    /// A stream from its tags; parses every `RF:` and `DL:` tag.
    pub fn new(
        id: VrsStreamId,
        user_tags: BTreeMap<String, String>,
        vrs_tags: BTreeMap<String, String>,
    ) -> Self {
        let mut formats = BTreeMap::new();
        let mut layouts = BTreeMap::new();
        for (k, v) in &vrs_tags {
            let mut parts = k.split(':');
            let (prefix, rt, ver) = (parts.next(), parts.next(), parts.next());
            let rt = rt.and_then(RecordType::from_tag_name);
            let ver = ver.and_then(|s| s.parse::<u32>().ok());
            match (prefix, rt, ver) {
                (Some("RF"), Some(rt), Some(ver)) => {
                    formats.insert((rt, ver), RecordFormat::parse(v));
                }
                (Some("DL"), Some(rt), Some(ver)) => {
                    if let Some(block) = parts.next().and_then(|s| s.parse::<usize>().ok()) {
                        layouts.insert((rt, ver, block), DataLayout::from_json(v));
                    }
                }
                _ => {}
            }
        }
        Self {
            id,
            user_tags,
            vrs_tags,
            formats,
            layouts,
        }
    }

    /// The record format for records of type `rt` and format version `version`.
    pub fn record_format(&self, rt: RecordType, version: u32) -> Option<&RecordFormat> {
        self.formats.get(&(rt, version))?.as_ref().ok()
    }
    /// Like [`Self::record_format`], but says why it is unusable: `None` when absent,
    /// `Some(Err(reason))` when the tag is malformed.
    pub fn record_format_checked(
        &self,
        rt: RecordType,
        version: u32,
    ) -> Option<Result<&RecordFormat, &str>> {
        self.formats
            .get(&(rt, version))
            .map(|r| r.as_ref().map_err(String::as_str))
    }
    /// The DataLayout of content block `block` of records `(rt, version)`.
    pub fn data_layout(&self, rt: RecordType, version: u32, block: usize) -> Option<&DataLayout> {
        self.layouts.get(&(rt, version, block))?.as_ref().ok()
    }
    /// Like [`Self::data_layout`], but says why it is unusable.
    pub fn data_layout_checked(
        &self,
        rt: RecordType,
        version: u32,
        block: usize,
    ) -> Option<Result<&DataLayout, &str>> {
        self.layouts
            .get(&(rt, version, block))
            .map(|r| r.as_ref().map_err(String::as_str))
    }
    /// The producer's class name (`VRS_Original_Recordable_Name`), e.g. "RGB Camera Class".
    pub fn recordable_name(&self) -> Option<&str> {
        self.vrs_tags
            .get("VRS_Original_Recordable_Name")
            .map(String::as_str)
    }
    /// The flavor (`VRS_Recordable_Flavor`), e.g. "device/aria".
    pub fn flavor(&self) -> Option<&str> {
        self.vrs_tags
            .get("VRS_Recordable_Flavor")
            .map(String::as_str)
    }
}

/// The parsed description record.
#[derive(Clone, Debug, Default)]
pub struct Description {
    /// Streams in file order.
    pub streams: Vec<VrsStream>,
    /// File tags.
    pub file_tags: BTreeMap<String, String>,
}

fn read_map(c: &mut Cursor<'_>, what: &str) -> Result<BTreeMap<String, String>, ParseError> {
    let n = c.u32(what)?;
    let mut m = BTreeMap::new();
    for _ in 0..n {
        let k = c.string_lossy(what)?;
        let v = c.string_lossy(what)?;
        m.insert(k, v);
    }
    Ok(m)
}

fn put_map(out: &mut Vec<u8>, m: &BTreeMap<String, String>) {
    out.extend_from_slice(&(m.len() as u32).to_le_bytes());
    for (k, v) in m {
        put_string(out, k);
        put_string(out, v);
    }
}

impl Description {
    /// Parses the (decompressed) description payload.
    pub fn parse(payload: &[u8]) -> Result<Self, ParseError> {
        let mut c = Cursor::new(payload);
        let n = c.u32("stream count")?;
        let mut streams = Vec::new();
        for _ in 0..n {
            let type_id = c.i32("stream type id")?;
            let instance = c.u16("stream instance id")?;
            let user_tags = read_map(&mut c, "user tags")?;
            let vrs_tags = read_map(&mut c, "vrs tags")?;
            streams.push(VrsStream::new(
                VrsStreamId::new(type_id, instance),
                user_tags,
                vrs_tags,
            ));
        }
        let file_tags = read_map(&mut c, "file tags")?;
        Ok(Self { streams, file_tags })
    }

    /// Encodes the description payload.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.streams.len() as u32).to_le_bytes());
        for s in &self.streams {
            out.extend_from_slice(&s.id.type_id.to_le_bytes());
            out.extend_from_slice(&s.id.instance.to_le_bytes());
            put_map(&mut out, &s.user_tags);
            put_map(&mut out, &s.vrs_tags);
        }
        put_map(&mut out, &self.file_tags);
        out
    }

    /// Adds tags read from a TAGS record to stream `id` (declaring it when the description
    /// did not); a tag present in both takes the TAGS record's value.
    pub fn merge_tags(
        &mut self,
        id: VrsStreamId,
        vrs_tags: BTreeMap<String, String>,
        user_tags: BTreeMap<String, String>,
    ) {
        let (mut vrs, mut user) = match self.streams.iter().position(|s| s.id == id) {
            Some(i) => {
                let old = self.streams.remove(i);
                (old.vrs_tags, old.user_tags)
            }
            None => (BTreeMap::new(), BTreeMap::new()),
        };
        vrs.extend(vrs_tags);
        user.extend(user_tags);
        self.streams.push(VrsStream::new(id, user, vrs));
    }

    /// The stream `id`.
    pub fn stream(&self, id: VrsStreamId) -> Option<&VrsStream> {
        self.streams.iter().find(|s| s.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_lookups() {
        let mut vrs = BTreeMap::new();
        vrs.insert("RF:Data:1".to_string(), "data_layout/size=8".to_string());
        vrs.insert(
            "DL:Data:1:0".to_string(),
            r#"{"data_layout":[{"name":"t","type":"DataPieceValue<int64_t>","offset":0}]}"#
                .to_string(),
        );
        vrs.insert("DL:Configuration:1:0".to_string(), "{broken".to_string());
        vrs.insert(
            "VRS_Original_Recordable_Name".to_string(),
            "Thing".to_string(),
        );
        let mut d = Description::default();
        d.streams.push(VrsStream::new(
            VrsStreamId::new(247, 1),
            BTreeMap::new(),
            vrs,
        ));
        d.file_tags.insert("k".into(), "v".into());
        let back = Description::parse(&d.encode()).unwrap();
        let s = back.stream(VrsStreamId::new(247, 1)).unwrap();
        assert_eq!(s.recordable_name(), Some("Thing"));
        assert!(s.record_format(RecordType::Data, 1).is_some());
        assert!(s.data_layout(RecordType::Data, 1, 0).is_some());
        assert!(s.data_layout(RecordType::Configuration, 1, 0).is_none());
        assert!(matches!(
            s.data_layout_checked(RecordType::Configuration, 1, 0),
            Some(Err(_))
        ));
        assert_eq!(back.file_tags.get("k").map(String::as_str), Some("v"));
        // Every truncation is an error, never a panic.
        let bytes = d.encode();
        for cut in 0..bytes.len() {
            assert!(Description::parse(&bytes[..cut]).is_err());
        }
    }
}
