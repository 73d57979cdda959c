//! Small VRS value types: stream ids, record types, compression kinds.

use std::fmt;
use std::str::FromStr;

/// A VRS stream id: recordable type id and instance, printed `"214-1"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct VrsStreamId {
    /// Recordable type id (`vrs/StreamId.h`), e.g. 214 for the Aria RGB camera.
    pub type_id: i32,
    /// Instance of that type, from 1.
    pub instance: u16,
}

impl VrsStreamId {
    /// The id `type_id-instance`.
    pub const fn new(type_id: i32, instance: u16) -> Self {
        Self { type_id, instance }
    }
}

impl fmt::Display for VrsStreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.type_id, self.instance)
    }
}

/// Error parsing a stream id that is not `"<type>-<instance>"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad VRS stream id {0:?} (expected e.g. \"214-1\")")]
pub struct BadStreamId(pub String);

impl FromStr for VrsStreamId {
    type Err = BadStreamId;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadStreamId(s.to_string());
        let (t, i) = s.rsplit_once('-').ok_or_else(bad)?;
        Ok(Self {
            type_id: t.parse().map_err(|_| bad())?,
            instance: i.parse().map_err(|_| bad())?,
        })
    }
}

/// The kind of a record (`vrs/Record.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum RecordType {
    /// 0: undefined.
    Undefined,
    /// 1: state.
    State,
    /// 2: configuration.
    Configuration,
    /// 3: data.
    Data,
    /// 4: tags.
    Tags,
}

impl RecordType {
    /// From the on-disk byte; `None` for values VRS does not define.
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Undefined),
            1 => Some(Self::State),
            2 => Some(Self::Configuration),
            3 => Some(Self::Data),
            4 => Some(Self::Tags),
            _ => None,
        }
    }
    /// The on-disk byte.
    pub const fn as_u8(self) -> u8 {
        match self {
            Self::Undefined => 0,
            Self::State => 1,
            Self::Configuration => 2,
            Self::Data => 3,
            Self::Tags => 4,
        }
    }
    /// The name used in `RF:`/`DL:` tags (`Configuration`, `State`, `Data`, …).
    pub const fn tag_name(self) -> &'static str {
        match self {
            Self::Undefined => "Undefined",
            Self::State => "State",
            Self::Configuration => "Configuration",
            Self::Data => "Data",
            Self::Tags => "Tags",
        }
    }
    /// The record type named `name` in a tag.
    pub fn from_tag_name(name: &str) -> Option<Self> {
        [
            Self::Undefined,
            Self::State,
            Self::Configuration,
            Self::Data,
            Self::Tags,
        ]
        .into_iter()
        .find(|t| t.tag_name() == name)
    }
}

/// Whole-payload compression of a record (`vrs/Record.h` `CompressionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Compression {
    /// 0: stored as is.
    None,
    /// 1: LZ4 frame.
    Lz4,
    /// 2: zstd frame.
    Zstd,
}

impl Compression {
    /// From the on-disk byte; `None` for unknown values.
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::None),
            1 => Some(Self::Lz4),
            2 => Some(Self::Zstd),
            _ => None,
        }
    }
    /// The on-disk byte.
    pub const fn as_u8(self) -> u8 {
        match self {
            Self::None => 0,
            Self::Lz4 => 1,
            Self::Zstd => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_id_round_trips() {
        let id: VrsStreamId = "1202-2".parse().unwrap();
        assert_eq!(id, VrsStreamId::new(1202, 2));
        assert_eq!(id.to_string(), "1202-2");
        assert!("1202".parse::<VrsStreamId>().is_err());
        assert!("a-1".parse::<VrsStreamId>().is_err());
        assert!("1-70000".parse::<VrsStreamId>().is_err());
    }

    #[test]
    fn enums_round_trip() {
        for v in 0..=4u8 {
            assert_eq!(RecordType::from_u8(v).map(RecordType::as_u8), Some(v));
        }
        assert_eq!(RecordType::from_u8(5), None);
        assert_eq!(Compression::from_u8(3), None);
        assert_eq!(
            RecordType::from_tag_name("Configuration"),
            Some(RecordType::Configuration)
        );
    }
}
