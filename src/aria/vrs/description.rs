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

/// Reads a tag map into `m`, pair by pair: on damage, the pairs read before it stay in `m`.
fn read_map_into(
    c: &mut Cursor<'_>,
    what: &str,
    m: &mut BTreeMap<String, String>,
) -> Result<(), ParseError> {
    let n = c.u32(what)?;
    for _ in 0..n {
        let k = c.string_lossy(what)?;
        let v = c.string_lossy(what)?;
        m.insert(k, v);
    }
    Ok(())
}

fn put_map(out: &mut Vec<u8>, m: &BTreeMap<String, String>) {
    out.extend_from_slice(&(m.len() as u32).to_le_bytes());
    for (k, v) in m {
        put_string(out, k);
        put_string(out, v);
    }
}

/// What [`Description::parse_salvaging`] kept of a damaged description.
#[derive(Clone, Debug)]
pub struct DescriptionDamage {
    /// Where and what the damage is.
    pub error: ParseError,
    /// Streams the record declares (`None` when even the count is unreadable).
    pub streams_declared: Option<u32>,
    /// Streams kept whole (every tag read).
    pub streams_whole: usize,
    /// Whether a stream was kept with only the tags read before the damage.
    pub stream_partial: bool,
    /// File tags kept (those read before the damage; none when it came before them).
    pub file_tags_kept: usize,
}

impl Description {
    /// Parses the (decompressed) description payload.
    pub fn parse(payload: &[u8]) -> Result<Self, ParseError> {
        match Self::parse_salvaging(payload) {
            (d, None) => Ok(d),
            (_, Some(damage)) => Err(damage.error),
        }
    }

    /// Parses as much of the payload as can be read. On damage (a length that runs past the
    /// record, a cut payload), keeps the streams read whole before it, the stream it hit
    /// with the tags read before it (when its id was read), and the file tags read before
    /// it; what was kept and where the damage is come with it. Tags are length-prefixed one
    /// after another, so nothing after the damage can be found again.
    pub fn parse_salvaging(payload: &[u8]) -> (Self, Option<DescriptionDamage>) {
        let mut c = Cursor::new(payload);
        let mut d = Self::default();
        let damage = |error, declared, d: &Self, partial| DescriptionDamage {
            error,
            streams_declared: declared,
            streams_whole: d.streams.len() - usize::from(partial),
            stream_partial: partial,
            file_tags_kept: d.file_tags.len(),
        };
        let n = match c.u32("stream count") {
            Ok(n) => n,
            Err(e) => {
                let dmg = damage(e, None, &d, false);
                return (d, Some(dmg));
            }
        };
        for _ in 0..n {
            let id = c
                .i32("stream type id")
                .and_then(|t| c.u16("stream instance id").map(|i| VrsStreamId::new(t, i)));
            let id = match id {
                Ok(id) => id,
                Err(e) => {
                    let dmg = damage(e, Some(n), &d, false);
                    return (d, Some(dmg));
                }
            };
            let (mut user, mut vrs) = (BTreeMap::new(), BTreeMap::new());
            let read = read_map_into(&mut c, "user tags", &mut user)
                .and_then(|()| read_map_into(&mut c, "vrs tags", &mut vrs));
            d.streams.push(VrsStream::new(id, user, vrs));
            if let Err(e) = read {
                let dmg = damage(e, Some(n), &d, true);
                return (d, Some(dmg));
            }
        }
        let mut file_tags = BTreeMap::new();
        let read = read_map_into(&mut c, "file tags", &mut file_tags);
        d.file_tags = file_tags;
        match read {
            Ok(()) => (d, None),
            Err(e) => {
                let dmg = damage(e, Some(n), &d, false);
                (d, Some(dmg))
            }
        }
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

    #[test]
    fn a_damaged_description_keeps_what_came_before_the_damage() {
        let tags = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let mut d = Description::default();
        for (id, name) in [(247, "Barometer"), (1201, "Camera")] {
            d.streams.push(VrsStream::new(
                VrsStreamId::new(id, 1),
                tags(&[("serial", "x")]),
                tags(&[("RF:Data:1", "data_layout/size=8"), ("Z", name)]),
            ));
        }
        d.file_tags = tags(&[("a", "1"), ("calib_json", "{}")]);
        let bytes = d.encode();
        let (whole, none) = Description::parse_salvaging(&bytes);
        assert!(none.is_none());
        assert_eq!(whole.streams.len(), 2);
        // Cut inside the file tags' second pair: both streams whole, the first file tag.
        let cut = bytes.len() - 3;
        let (kept, damage) = Description::parse_salvaging(&bytes[..cut]);
        let damage = damage.unwrap();
        assert_eq!(
            (damage.streams_declared, damage.streams_whole),
            (Some(2), 2)
        );
        assert!(!damage.stream_partial);
        assert_eq!(damage.file_tags_kept, 1);
        assert_eq!(kept.file_tags.get("a").map(String::as_str), Some("1"));
        assert!(Description::parse(&bytes[..cut]).is_err());
        // A length in the second stream's VRS tags running past the end: the first stream
        // whole, the second with its user tags and the format read before the damage.
        let mut hurt = bytes.clone();
        // The key "Z" and the length of its value "Camera" (6), in the second stream only.
        let z = hurt.windows(5).position(|w| w == b"Z\x06\0\0\0").unwrap();
        hurt[z + 4] = 0x40;
        let (kept, damage) = Description::parse_salvaging(&hurt);
        let damage = damage.unwrap();
        assert_eq!(damage.streams_whole, 1);
        assert!(damage.stream_partial);
        assert_eq!(damage.file_tags_kept, 0);
        assert_eq!(kept.streams.len(), 2);
        let second = &kept.streams[1];
        assert_eq!(second.id, VrsStreamId::new(1201, 1));
        assert!(second.record_format(RecordType::Data, 1).is_some());
        assert!(!second.vrs_tags.contains_key("Z"));
        // Nothing readable: not even the stream count.
        let (empty, damage) = Description::parse_salvaging(&bytes[..2]);
        assert!(empty.streams.is_empty());
        assert_eq!(damage.unwrap().streams_declared, None);
    }
}
