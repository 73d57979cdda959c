//! DataLayout (`vrs/DataLayout.h`): the JSON description of a record's metadata block and
//! typed, bounds-checked lookups **by name and type** into its binary encoding.
//!
//! Binary layout (reference §1.6): fixed pieces at their explicit `offset`s; then, when the
//! layout has variable-size pieces, one `{u32 offset, u32 length}` per var piece (in `index`
//! order); then the var data, offsets relative to its start.

use std::marker::PhantomData;

use serde_json::Value;

/// A scalar element type of a DataLayout piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `int8_t`
    I8,
    /// `uint8_t`
    U8,
    /// `int16_t`
    I16,
    /// `uint16_t`
    U16,
    /// `int32_t`
    I32,
    /// `uint32_t`
    U32,
    /// `int64_t`
    I64,
    /// `uint64_t`
    U64,
    /// `float`
    F32,
    /// `double`
    F64,
    /// `Bool` (one byte)
    Bool,
    /// `char` (one byte)
    Char,
}

impl Scalar {
    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 | Scalar::Bool | Scalar::Char => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }
    /// The C++ type name used in the JSON.
    pub const fn cpp_name(self) -> &'static str {
        match self {
            Scalar::I8 => "int8_t",
            Scalar::U8 => "uint8_t",
            Scalar::I16 => "int16_t",
            Scalar::U16 => "uint16_t",
            Scalar::I32 => "int32_t",
            Scalar::U32 => "uint32_t",
            Scalar::I64 => "int64_t",
            Scalar::U64 => "uint64_t",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
            Scalar::Bool => "Bool",
            Scalar::Char => "char",
        }
    }
    fn from_cpp(name: &str) -> Option<Self> {
        use Scalar::*;
        [I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, Bool, Char]
            .into_iter()
            .find(|s| s.cpp_name() == name)
    }
}

/// An element type: a scalar, or a fixed group of them (`Point3Df` = 3 × f32,
/// `Matrix3Dd` = 9 × f64).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Elem {
    /// The scalar.
    pub scalar: Scalar,
    /// Number of scalars (1 for plain scalars).
    pub count: usize,
    /// The C++ name as written in the JSON.
    pub cpp_name: String,
}

impl Elem {
    /// Parses a C++ element type name.
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim();
        if let Some(s) = Scalar::from_cpp(name) {
            return Some(Self {
                scalar: s,
                count: 1,
                cpp_name: name.to_string(),
            });
        }
        let (n, rest, square) = if let Some(r) = name.strip_prefix("Point") {
            (r.get(..1)?, r.get(1..)?, false)
        } else if let Some(r) = name.strip_prefix("Matrix") {
            (r.get(..1)?, r.get(1..)?, true)
        } else {
            return None;
        };
        let n: usize = n.parse().ok().filter(|n| (2..=4).contains(n))?;
        let scalar = match rest {
            "Df" => Scalar::F32,
            "Dd" => Scalar::F64,
            "Di" => Scalar::I32,
            _ => return None,
        };
        Some(Self {
            scalar,
            count: if square { n * n } else { n },
            cpp_name: name.to_string(),
        })
    }
    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.scalar.size() * self.count
    }
}

/// Where and what one piece is.
#[derive(Clone, Debug, PartialEq)]
pub enum PieceKind {
    /// `DataPieceValue<T>` at a fixed offset.
    Value {
        /// Byte offset in the fixed part.
        offset: usize,
        /// Element type.
        elem: Elem,
    },
    /// `DataPieceArray<T>` of `count` elements at a fixed offset.
    Array {
        /// Byte offset in the fixed part.
        offset: usize,
        /// Element type.
        elem: Elem,
        /// Element count.
        count: usize,
    },
    /// `DataPieceString` (var).
    String {
        /// Var-size index slot.
        index: usize,
    },
    /// `DataPieceVector<T>` of POD elements (var).
    Vector {
        /// Var-size index slot.
        index: usize,
        /// Element type.
        elem: Elem,
    },
    /// `DataPieceVector<string>` (var).
    StringVector {
        /// Var-size index slot.
        index: usize,
    },
    /// `DataPieceStringMap<T>` or another var piece this crate only skips over.
    OtherVar {
        /// Var-size index slot.
        index: usize,
        /// The JSON type name.
        type_name: String,
    },
}

/// One named piece of a layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// Field name, e.g. `capture_timestamp_ns`.
    pub name: String,
    /// Where and what it is.
    pub kind: PieceKind,
}

impl Piece {
    /// The var-size index slot of a variable-size piece.
    pub fn var_index(&self) -> Option<usize> {
        match &self.kind {
            PieceKind::String { index }
            | PieceKind::Vector { index, .. }
            | PieceKind::StringVector { index }
            | PieceKind::OtherVar { index, .. } => Some(*index),
            _ => None,
        }
    }
    /// The JSON `type` string of this piece.
    pub fn type_name(&self) -> String {
        match &self.kind {
            PieceKind::Value { elem, .. } => format!("DataPieceValue<{}>", elem.cpp_name),
            PieceKind::Array { elem, .. } => format!("DataPieceArray<{}>", elem.cpp_name),
            PieceKind::String { .. } => "DataPieceString".to_string(),
            PieceKind::Vector { elem, .. } => format!("DataPieceVector<{}>", elem.cpp_name),
            PieceKind::StringVector { .. } => "DataPieceVector<string>".to_string(),
            PieceKind::OtherVar { type_name, .. } => type_name.clone(),
        }
    }
}

/// A scalar type that can be read from (and written to) a DataLayout.
pub trait DlScalar: Copy {
    /// Which scalar this is.
    const SCALAR: Scalar;
    /// Decodes from exactly `SCALAR.size()` little-endian bytes.
    fn from_le(b: &[u8]) -> Option<Self>;
    /// Appends the little-endian encoding.
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! dl_scalar {
    ($t:ty, $s:expr) => {
        impl DlScalar for $t {
            const SCALAR: Scalar = $s;
            fn from_le(b: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(b.try_into().ok()?))
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
dl_scalar!(i8, Scalar::I8);
dl_scalar!(u8, Scalar::U8);
dl_scalar!(i16, Scalar::I16);
dl_scalar!(u16, Scalar::U16);
dl_scalar!(i32, Scalar::I32);
dl_scalar!(u32, Scalar::U32);
dl_scalar!(i64, Scalar::I64);
dl_scalar!(u64, Scalar::U64);
dl_scalar!(f32, Scalar::F32);
dl_scalar!(f64, Scalar::F64);

impl DlScalar for bool {
    const SCALAR: Scalar = Scalar::Bool;
    fn from_le(b: &[u8]) -> Option<Self> {
        match b {
            [v] => Some(*v != 0),
            _ => None,
        }
    }
    fn put_le(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
}

/// A pre-resolved fixed value of type `T`: look it up once by name, read it per record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueAt<T> {
    offset: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: DlScalar> ValueAt<T> {
    /// Reads the value from a layout's bytes (`None` when the bytes are too short).
    pub fn read(&self, bytes: &[u8]) -> Option<T> {
        T::from_le(bytes.get(self.offset..self.offset + T::SCALAR.size())?)
    }
}

/// A pre-resolved fixed array of `N` × `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayAt<T, const N: usize> {
    offset: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: DlScalar + Default, const N: usize> ArrayAt<T, N> {
    /// Reads the array (`None` when the bytes are too short).
    pub fn read(&self, bytes: &[u8]) -> Option<[T; N]> {
        let sz = T::SCALAR.size();
        let b = bytes.get(self.offset..self.offset + sz * N)?;
        let mut out = [T::default(); N];
        for (o, chunk) in out.iter_mut().zip(b.chunks_exact(sz)) {
            *o = T::from_le(chunk)?;
        }
        Some(out)
    }
}

/// A parsed DataLayout.
#[derive(Clone, Debug, PartialEq)]
pub struct DataLayout {
    pieces: Vec<Piece>,
    fixed_size: usize,
    var_count: usize,
}

fn json_usize(v: &Value, key: &str, piece: usize) -> Result<usize, String> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= u32::MAX as usize)
        .ok_or_else(|| format!("piece {piece}: missing or bad \"{key}\""))
}

fn generic_arg<'a>(t: &'a str, prefix: &str) -> Option<&'a str> {
    t.strip_prefix(prefix)?.strip_prefix('<')?.strip_suffix('>')
}

impl DataLayout {
    /// Parses the `DL:` tag JSON. Errors say which piece is wrong.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let v: Value = serde_json::from_str(json).map_err(|e| format!("invalid JSON: {e}"))?;
        let arr = v
            .get("data_layout")
            .and_then(Value::as_array)
            .ok_or("no \"data_layout\" array")?;
        let mut pieces = Vec::with_capacity(arr.len());
        for (i, p) in arr.iter().enumerate() {
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("piece {i}: missing \"name\""))?
                .to_string();
            let ty = p
                .get("type")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("piece {i} ({name}): missing \"type\""))?;
            let bad_elem = |e: &str| format!("piece {i} ({name}): unsupported element type {e:?}");
            let kind = if let Some(e) = generic_arg(ty, "DataPieceValue") {
                PieceKind::Value {
                    offset: json_usize(p, "offset", i)?,
                    elem: Elem::parse(e).ok_or_else(|| bad_elem(e))?,
                }
            } else if let Some(e) = generic_arg(ty, "DataPieceArray") {
                PieceKind::Array {
                    offset: json_usize(p, "offset", i)?,
                    elem: Elem::parse(e).ok_or_else(|| bad_elem(e))?,
                    count: json_usize(p, "size", i)?,
                }
            } else if ty == "DataPieceString" {
                PieceKind::String {
                    index: json_usize(p, "index", i)?,
                }
            } else if let Some(e) = generic_arg(ty, "DataPieceVector") {
                let index = json_usize(p, "index", i)?;
                if e == "string" || e == "std::string" {
                    PieceKind::StringVector { index }
                } else {
                    match Elem::parse(e) {
                        Some(elem) => PieceKind::Vector { index, elem },
                        None => PieceKind::OtherVar {
                            index,
                            type_name: ty.to_string(),
                        },
                    }
                }
            } else if p.get("index").is_some() {
                PieceKind::OtherVar {
                    index: json_usize(p, "index", i)?,
                    type_name: ty.to_string(),
                }
            } else {
                return Err(format!("piece {i} ({name}): unsupported type {ty:?}"));
            };
            pieces.push(Piece { name, kind });
        }
        Self::from_pieces(pieces)
    }

    /// A layout from pieces; checks that var indexes are 0..n without gaps and computes the
    /// fixed size.
    pub fn from_pieces(pieces: Vec<Piece>) -> Result<Self, String> {
        let mut fixed_size = 0usize;
        let mut var_seen = Vec::new();
        for p in &pieces {
            match &p.kind {
                PieceKind::Value { offset, elem } => {
                    fixed_size = fixed_size.max(offset.saturating_add(elem.size()));
                }
                PieceKind::Array {
                    offset,
                    elem,
                    count,
                } => {
                    let sz = elem.size().checked_mul(*count).ok_or("array too large")?;
                    fixed_size = fixed_size.max(offset.saturating_add(sz));
                }
                _ => {
                    if let Some(ix) = p.var_index() {
                        var_seen.push(ix);
                    }
                }
            }
        }
        if fixed_size > u32::MAX as usize {
            return Err("fixed part larger than 4 GiB".into());
        }
        var_seen.sort_unstable();
        for (want, got) in var_seen.iter().enumerate() {
            if *got != want {
                return Err(format!(
                    "var-size indexes must be 0..{} without gaps or repeats, found {got}",
                    var_seen.len()
                ));
            }
        }
        Ok(Self {
            pieces,
            fixed_size,
            var_count: var_seen.len(),
        })
    }

    /// The pieces, in JSON order.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
    /// The piece named `name`.
    pub fn piece(&self, name: &str) -> Option<&Piece> {
        self.pieces.iter().find(|p| p.name == name)
    }
    /// Bytes of the fixed part.
    pub fn fixed_size(&self) -> usize {
        self.fixed_size
    }
    /// Number of variable-size pieces.
    pub fn var_count(&self) -> usize {
        self.var_count
    }
    /// True when the layout has no variable-size pieces.
    pub fn is_fixed(&self) -> bool {
        self.var_count == 0
    }

    /// Serialises the layout back to `DL:` JSON.
    pub fn to_json(&self) -> String {
        let arr: Vec<Value> = self
            .pieces
            .iter()
            .map(|p| {
                let mut m = serde_json::Map::new();
                m.insert("name".into(), Value::from(p.name.clone()));
                m.insert("type".into(), Value::from(p.type_name()));
                match &p.kind {
                    PieceKind::Value { offset, .. } => {
                        m.insert("offset".into(), Value::from(*offset));
                    }
                    PieceKind::Array { offset, count, .. } => {
                        m.insert("offset".into(), Value::from(*offset));
                        m.insert("size".into(), Value::from(*count));
                    }
                    _ => {
                        m.insert("index".into(), Value::from(p.var_index().unwrap_or(0)));
                    }
                }
                Value::Object(m)
            })
            .collect();
        serde_json::json!({ "data_layout": arr }).to_string()
    }

    /// Locates the fixed value `name` of type `T`.
    pub fn locate<T: DlScalar>(&self, name: &str) -> Option<ValueAt<T>> {
        match &self.piece(name)?.kind {
            PieceKind::Value { offset, elem } if elem.scalar == T::SCALAR && elem.count == 1 => {
                Some(ValueAt {
                    offset: *offset,
                    _t: PhantomData,
                })
            }
            _ => None,
        }
    }

    /// Locates the fixed array `name` of `N` × `T` (a `DataPieceArray<T>` of size `N`, or a
    /// geometric value such as `Point3Df`).
    pub fn locate_array<T: DlScalar, const N: usize>(&self, name: &str) -> Option<ArrayAt<T, N>> {
        let ok = |offset: usize| {
            Some(ArrayAt {
                offset,
                _t: PhantomData,
            })
        };
        match &self.piece(name)?.kind {
            PieceKind::Array {
                offset,
                elem,
                count,
            } if elem.scalar == T::SCALAR && elem.count * count == N => ok(*offset),
            PieceKind::Value { offset, elem } if elem.scalar == T::SCALAR && elem.count == N => {
                ok(*offset)
            }
            _ => None,
        }
    }

    /// The fixed value `name` of type `T` in `bytes` (`None`: absent, other type, or short).
    pub fn value<T: DlScalar>(&self, bytes: &[u8], name: &str) -> Option<T> {
        self.locate::<T>(name)?.read(bytes)
    }

    /// The fixed array `name` of `N` × `T` in `bytes`.
    pub fn array<T: DlScalar + Default, const N: usize>(
        &self,
        bytes: &[u8],
        name: &str,
    ) -> Option<[T; N]> {
        self.locate_array::<T, N>(name)?.read(bytes)
    }

    /// The raw bytes of var-size slot `index`, bounds-checked.
    pub fn var_bytes<'b>(&self, bytes: &'b [u8], index: usize) -> Option<&'b [u8]> {
        if index >= self.var_count {
            return None;
        }
        let at = self.fixed_size.checked_add(index.checked_mul(8)?)?;
        let off = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        let len = u32::from_le_bytes(bytes.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        let start = self
            .fixed_size
            .checked_add(self.var_count.checked_mul(8)?)?
            .checked_add(off)?;
        bytes.get(start..start.checked_add(len)?)
    }

    fn var_of<'b>(
        &self,
        bytes: &'b [u8],
        name: &str,
        want: fn(&PieceKind) -> bool,
    ) -> Option<&'b [u8]> {
        let p = self.piece(name)?;
        if !want(&p.kind) {
            return None;
        }
        self.var_bytes(bytes, p.var_index()?)
    }

    /// The string `name` (`None` when absent, not a string, out of bounds or not UTF-8).
    pub fn string<'b>(&self, bytes: &'b [u8], name: &str) -> Option<&'b str> {
        let b = self.var_of(bytes, name, |k| matches!(k, PieceKind::String { .. }))?;
        std::str::from_utf8(b).ok()
    }

    /// The raw bytes of the POD vector `name` of element type `T` (a zero-copy view).
    pub fn vector_bytes<'b, T: DlScalar>(&self, bytes: &'b [u8], name: &str) -> Option<&'b [u8]> {
        let p = self.piece(name)?;
        match &p.kind {
            PieceKind::Vector { elem, index } if elem.scalar == T::SCALAR => {
                let b = self.var_bytes(bytes, *index)?;
                (b.len() % elem.size() == 0).then_some(b)
            }
            _ => None,
        }
    }

    /// The POD vector `name` of scalars `T` (geometric elements are flattened).
    pub fn vector<T: DlScalar>(&self, bytes: &[u8], name: &str) -> Option<Vec<T>> {
        let b = self.vector_bytes::<T>(bytes, name)?;
        b.chunks_exact(T::SCALAR.size()).map(T::from_le).collect()
    }

    /// The `Vector<string>` `name`: `u32 count`, then `(u32 len, bytes)*`.
    pub fn strings<'b>(&self, bytes: &'b [u8], name: &str) -> Option<Vec<&'b str>> {
        let b = self.var_of(bytes, name, |k| matches!(k, PieceKind::StringVector { .. }))?;
        let mut c = super::cursor::Cursor::new(b);
        let n = c.u32("count").ok()? as usize;
        let mut out = Vec::with_capacity(n.min(b.len() / 4));
        for _ in 0..n {
            let len = c.u32("len").ok()? as usize;
            out.push(std::str::from_utf8(c.bytes(len, "string").ok()?).ok()?);
        }
        Some(out)
    }

    /// Total encoded size of this layout at the start of `bytes`: the fixed part, the
    /// var-size index and the var data. `None` when `bytes` is too short or the index points
    /// outside it.
    pub fn total_size(&self, bytes: &[u8]) -> Option<usize> {
        if self.var_count == 0 {
            return (bytes.len() >= self.fixed_size).then_some(self.fixed_size);
        }
        let data_start = self
            .fixed_size
            .checked_add(self.var_count.checked_mul(8)?)?;
        let mut sum = 0usize;
        for i in 0..self.var_count {
            let at = self.fixed_size + i * 8;
            let off = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
            let len = u32::from_le_bytes(bytes.get(at + 4..at + 8)?.try_into().ok()?) as usize;
            sum = sum.checked_add(len)?;
            let end = data_start.checked_add(off)?.checked_add(len)?;
            if end > bytes.len() {
                return None;
            }
        }
        let total = data_start.checked_add(sum)?;
        (total <= bytes.len()).then_some(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The barometer data layout of the Aria sample, verbatim.
    const BARO: &str = r#"{"data_layout":[{"name":"capture_timestamp_ns","type":"DataPieceValue<int64_t>","offset":0},{"name":"temperature","type":"DataPieceValue<double>","offset":8},{"name":"pressure","type":"DataPieceValue<double>","offset":16},{"name":"altitude","type":"DataPieceValue<double>","offset":24}]}"#;

    #[test]
    fn fixed_lookup_by_name_and_type() {
        let dl = DataLayout::from_json(BARO).unwrap();
        assert_eq!(dl.fixed_size(), 32);
        let mut b = Vec::new();
        b.extend_from_slice(&123i64.to_le_bytes());
        b.extend_from_slice(&21.5f64.to_le_bytes());
        b.extend_from_slice(&101_325.0f64.to_le_bytes());
        b.extend_from_slice(&0f64.to_le_bytes());
        assert_eq!(dl.value::<i64>(&b, "capture_timestamp_ns"), Some(123));
        assert_eq!(dl.value::<f64>(&b, "pressure"), Some(101_325.0));
        // Wrong type or unknown name: None, never a reinterpretation.
        assert_eq!(dl.value::<u64>(&b, "capture_timestamp_ns"), None);
        assert_eq!(dl.value::<f64>(&b, "humidity"), None);
        // Short buffer: None.
        assert_eq!(dl.value::<f64>(&b[..20], "pressure"), None);
        assert_eq!(dl.total_size(&b), Some(32));
    }

    #[test]
    fn var_pieces_follow_the_index() {
        let json = r#"{"data_layout":[{"name":"muted","type":"DataPieceValue<uint8_t>","offset":0},
            {"name":"ts","type":"DataPieceVector<int64_t>","index":1},
            {"name":"label","type":"DataPieceString","index":0},
            {"name":"names","type":"DataPieceVector<string>","index":2}]}"#;
        let dl = DataLayout::from_json(json).unwrap();
        assert_eq!((dl.fixed_size(), dl.var_count()), (1, 3));
        // fixed (1) + index (3 × 8) + "hi" + two i64 + vector<string> ["a"]
        let mut b = vec![1u8];
        let strs: Vec<u8> = [1u32.to_le_bytes(), 1u32.to_le_bytes()]
            .concat()
            .into_iter()
            .chain(*b"a")
            .collect();
        for (off, len) in [(0u32, 2u32), (2, 16), (18, strs.len() as u32)] {
            b.extend_from_slice(&off.to_le_bytes());
            b.extend_from_slice(&len.to_le_bytes());
        }
        b.extend_from_slice(b"hi");
        b.extend_from_slice(&7i64.to_le_bytes());
        b.extend_from_slice(&(-8i64).to_le_bytes());
        b.extend_from_slice(&strs);
        let total = b.len();
        b.extend_from_slice(b"trailing audio");
        assert_eq!(dl.string(&b, "label"), Some("hi"));
        assert_eq!(dl.vector::<i64>(&b, "ts"), Some(vec![7, -8]));
        assert_eq!(dl.strings(&b, "names"), Some(vec!["a"]));
        assert_eq!(dl.total_size(&b), Some(total));
        assert_eq!(dl.vector::<i32>(&b, "ts"), None);
    }

    #[test]
    fn malformed_json_is_an_error() {
        assert!(DataLayout::from_json("{").is_err());
        assert!(DataLayout::from_json(r#"{"data_layout":[{"name":"x"}]}"#).is_err());
        assert!(DataLayout::from_json(
            r#"{"data_layout":[{"name":"x","type":"DataPieceValue<quux>","offset":0}]}"#
        )
        .is_err());
        // Gap in var indexes.
        assert!(DataLayout::from_json(
            r#"{"data_layout":[{"name":"x","type":"DataPieceString","index":1}]}"#
        )
        .is_err());
    }

    #[test]
    fn geometric_types() {
        let e = Elem::parse("Matrix3Dd").unwrap();
        assert_eq!((e.scalar, e.count, e.size()), (Scalar::F64, 9, 72));
        let json = r#"{"data_layout":[{"name":"p","type":"DataPieceValue<Point3Df>","offset":0}]}"#;
        let dl = DataLayout::from_json(json).unwrap();
        let b: Vec<u8> = [1f32, 2., 3.]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(dl.array::<f32, 3>(&b, "p"), Some([1., 2., 3.]));
        assert_eq!(DataLayout::from_json(&dl.to_json()).unwrap(), dl);
    }
}
