//! A GGUF header check in pure Rust, run before llama.cpp sees a file: magic, version,
//! metadata, tensor table and data bounds, and the architecture. llama.cpp aborts the
//! process on some malformed inputs; this check turns every such file into an error first.
//!
//! The parser reads from any [`Read`] with bounded allocations (string, array and count
//! limits), so a hostile header cannot make it allocate gigabytes.

use std::collections::BTreeMap;
use std::io::Read;

/// GGUF file magic, `GGUF` in file order.
pub const GGUF_MAGIC: [u8; 4] = *b"GGUF";
/// Model architectures the runtime runs (llama.cpp supports more; these are the ones tested
/// or of the same family as a tested one).
pub const SUPPORTED_ARCHITECTURES: &[&str] = &["llama", "qwen2", "qwen3", "gemma3", "smollm3"];

const MAX_STRING_BYTES: u64 = 16 << 20;
const MAX_ARRAY_LEN: u64 = 16 << 20;
const MAX_KV: u64 = 1 << 16;
const MAX_TENSORS: u64 = 1 << 16;
const MAX_DIMS: u32 = 4;
const DEFAULT_ALIGNMENT: u64 = 32;

/// One entry of the tensor table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// Tensor name, e.g. `token_embd.weight`.
    pub name: String,
    /// Dimensions, innermost first (as GGUF stores them).
    pub dims: Vec<u64>,
    /// `ggml_type` code.
    pub ggml_type: u32,
    /// Offset from the start of the data section, bytes.
    pub offset: u64,
}

/// A scalar metadata value (arrays and floats are not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaValue {
    /// A string.
    Str(String),
    /// An unsigned integer (u8 … u64).
    UInt(u64),
    /// A signed integer (i8 … i64).
    Int(i64),
    /// A boolean.
    Bool(bool),
}

/// What the header says, after validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgufSummary {
    /// Format version (2 or 3).
    pub version: u32,
    /// `general.architecture`.
    pub architecture: String,
    /// `general.name`, when present.
    pub name: Option<String>,
    /// `general.basename`, when present.
    pub basename: Option<String>,
    /// Number of metadata entries.
    pub n_kv: u64,
    /// The scalar metadata entries (strings, integers, booleans), by key.
    pub meta: BTreeMap<String, MetaValue>,
    /// The tensor table.
    pub tensors: Vec<TensorInfo>,
    /// Start of the data section in the file, bytes.
    pub data_offset: u64,
    /// End of the last tensor's data relative to the data section, bytes (only tensors of
    /// known type counted).
    pub data_end: u64,
}

impl GgufSummary {
    /// A string metadata entry.
    pub fn meta_str(&self, key: &str) -> Option<&str> {
        match self.meta.get(key) {
            Some(MetaValue::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// A non-negative integer metadata entry.
    pub fn meta_u64(&self, key: &str) -> Option<u64> {
        match self.meta.get(key) {
            Some(MetaValue::UInt(v)) => Some(*v),
            Some(MetaValue::Int(v)) => u64::try_from(*v).ok(),
            _ => None,
        }
    }

    /// A boolean metadata entry.
    pub fn meta_bool(&self, key: &str) -> Option<bool> {
        match self.meta.get(key) {
            Some(MetaValue::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The tensor called `name`.
    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }
}

/// Why a header was rejected, with the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at byte {offset}: {reason}")]
pub struct GgufError {
    /// Byte offset in the file.
    pub offset: u64,
    /// What is wrong.
    pub reason: String,
}

/// Bytes per block and values per block of a `ggml_type`, for the types whose sizes this
/// check knows (the common float and quantised ones); `None` for others.
pub fn ggml_type_block(ggml_type: u32) -> Option<(u64, u64)> {
    Some(match ggml_type {
        0 => (4, 1),     // F32
        1 => (2, 1),     // F16
        2 => (18, 32),   // Q4_0
        3 => (20, 32),   // Q4_1
        6 => (22, 32),   // Q5_0
        7 => (24, 32),   // Q5_1
        8 => (34, 32),   // Q8_0
        9 => (36, 32),   // Q8_1
        10 => (84, 256), // Q2_K
        11 => (110, 256),
        12 => (144, 256),
        13 => (176, 256),
        14 => (210, 256),
        15 => (292, 256),
        30 => (2, 1), // BF16
        _ => return None,
    })
}

/// Size in bytes of a tensor's data, when its type is known and the size does not overflow.
pub fn tensor_bytes(t: &TensorInfo) -> Option<u64> {
    let (block_bytes, block_len) = ggml_type_block(t.ggml_type)?;
    let n: u64 = t.dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
    let inner = *t.dims.first()?;
    if inner % block_len != 0 {
        return None;
    }
    (n / block_len).checked_mul(block_bytes)
}

struct Cursor<R> {
    r: R,
    pos: u64,
}

impl<R: Read> Cursor<R> {
    fn err(&self, reason: impl Into<String>) -> GgufError {
        GgufError {
            offset: self.pos,
            reason: reason.into(),
        }
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut b = [0u8; N];
        self.r
            .read_exact(&mut b)
            .map_err(|e| self.err(format!("truncated ({e})")))?;
        self.pos += N as u64;
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes::<4>()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes::<8>()?))
    }

    fn skip(&mut self, n: u64) -> Result<(), GgufError> {
        let copied = std::io::copy(&mut (&mut self.r).take(n), &mut std::io::sink())
            .map_err(|e| self.err(format!("read failed ({e})")))?;
        if copied != n {
            self.pos += copied;
            return Err(self.err("truncated"));
        }
        self.pos += n;
        Ok(())
    }

    fn string(&mut self) -> Result<String, GgufError> {
        let len = self.u64()?;
        if len > MAX_STRING_BYTES {
            return Err(self.err(format!("string of {len} bytes (limit {MAX_STRING_BYTES})")));
        }
        let mut buf = Vec::new();
        let got = (&mut self.r)
            .take(len)
            .read_to_end(&mut buf)
            .map_err(|e| self.err(format!("read failed ({e})")))?;
        if got as u64 != len {
            self.pos += got as u64;
            return Err(self.err("truncated string"));
        }
        self.pos += len;
        String::from_utf8(buf).map_err(|_| self.err("string is not UTF-8"))
    }

    fn le<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        self.bytes::<N>()
    }

    /// Reads a value of type `ty`; returns it when it is a scalar kept in
    /// [`GgufSummary::meta`] (strings, integers, booleans).
    fn value(&mut self, ty: u32, depth: u32) -> Result<Option<MetaValue>, GgufError> {
        Ok(match ty {
            0 => Some(MetaValue::UInt(u64::from(self.le::<1>()?[0]))),
            1 => Some(MetaValue::Int(i64::from(i8::from_le_bytes(
                self.le::<1>()?,
            )))),
            7 => Some(MetaValue::Bool(self.le::<1>()?[0] != 0)),
            2 => Some(MetaValue::UInt(u64::from(u16::from_le_bytes(
                self.le::<2>()?,
            )))),
            3 => Some(MetaValue::Int(i64::from(i16::from_le_bytes(
                self.le::<2>()?,
            )))),
            4 => Some(MetaValue::UInt(u64::from(u32::from_le_bytes(
                self.le::<4>()?,
            )))),
            5 => Some(MetaValue::Int(i64::from(i32::from_le_bytes(
                self.le::<4>()?,
            )))),
            6 => self.skip(4).map(|_| None)?,
            10 => Some(MetaValue::UInt(u64::from_le_bytes(self.le::<8>()?))),
            11 => Some(MetaValue::Int(i64::from_le_bytes(self.le::<8>()?))),
            12 => self.skip(8).map(|_| None)?,
            8 => Some(MetaValue::Str(self.string()?)),
            9 => {
                if depth > 0 {
                    return Err(self.err("nested array"));
                }
                let item = self.u32()?;
                let n = self.u64()?;
                if n > MAX_ARRAY_LEN {
                    return Err(self.err(format!("array of {n} items (limit {MAX_ARRAY_LEN})")));
                }
                let fixed = match item {
                    0 | 1 | 7 => Some(1),
                    2 | 3 => Some(2),
                    4..=6 => Some(4),
                    10..=12 => Some(8),
                    _ => None,
                };
                match fixed {
                    Some(w) => self.skip(n * w)?,
                    None => {
                        for _ in 0..n {
                            self.value(item, depth + 1)?;
                        }
                    }
                }
                None
            }
            _ => return Err(self.err(format!("unknown value type {ty}"))),
        })
    }
}

/// Parses and validates a GGUF header from `r`; `file_len` is the file's size in bytes.
/// Checks the architecture against [`SUPPORTED_ARCHITECTURES`] only in
/// [`check_architecture`], so the parser can describe any GGUF.
pub fn parse_header<R: Read>(r: R, file_len: u64) -> Result<GgufSummary, GgufError> {
    let mut c = Cursor { r, pos: 0 };
    let magic = c.bytes::<4>()?;
    if magic != GGUF_MAGIC {
        return Err(GgufError {
            offset: 0,
            reason: format!("magic {magic:02x?}, expected `GGUF`"),
        });
    }
    let version = c.u32()?;
    if !(2..=3).contains(&version) {
        return Err(c.err(format!("version {version} (supported: 2, 3)")));
    }
    let n_tensors = c.u64()?;
    if n_tensors == 0 || n_tensors > MAX_TENSORS {
        return Err(c.err(format!("{n_tensors} tensors (expected 1..={MAX_TENSORS})")));
    }
    let n_kv = c.u64()?;
    if n_kv > MAX_KV {
        return Err(c.err(format!("{n_kv} metadata entries (limit {MAX_KV})")));
    }
    let mut architecture = None;
    let mut name = None;
    let mut basename = None;
    let mut alignment = DEFAULT_ALIGNMENT;
    let mut meta = BTreeMap::new();
    for _ in 0..n_kv {
        let key = c.string()?;
        let ty = c.u32()?;
        if key == "general.alignment" {
            if ty != 4 {
                return Err(c.err("general.alignment is not a u32"));
            }
            let a = u64::from(c.u32()?);
            if a == 0 || !a.is_power_of_two() {
                return Err(c.err(format!("alignment {a} is not a power of two")));
            }
            alignment = a;
            continue;
        }
        let v = c.value(ty, 0)?;
        let text = match &v {
            Some(MetaValue::Str(s)) => Some(s.clone()),
            _ => None,
        };
        match key.as_str() {
            "general.architecture" => architecture = text,
            "general.name" => name = text,
            "general.basename" => basename = text,
            _ => {}
        }
        if let Some(v) = v {
            meta.insert(key, v);
        }
    }
    let architecture = architecture.ok_or_else(|| c.err("no general.architecture"))?;
    let mut tensors = Vec::with_capacity(n_tensors.min(4096) as usize);
    for _ in 0..n_tensors {
        let tname = c.string()?;
        let n_dims = c.u32()?;
        if n_dims == 0 || n_dims > MAX_DIMS {
            return Err(c.err(format!("tensor {tname}: {n_dims} dimensions")));
        }
        let mut dims = Vec::with_capacity(n_dims as usize);
        for _ in 0..n_dims {
            dims.push(c.u64()?);
        }
        let ggml_type = c.u32()?;
        let offset = c.u64()?;
        if offset % alignment != 0 {
            return Err(c.err(format!("tensor {tname}: offset {offset} not aligned")));
        }
        tensors.push(TensorInfo {
            name: tname,
            dims,
            ggml_type,
            offset,
        });
    }
    let data_offset = c.pos.div_ceil(alignment) * alignment;
    let mut data_end = 0u64;
    for t in &tensors {
        if let Some(bytes) = tensor_bytes(t) {
            let end = t.offset.saturating_add(bytes);
            data_end = data_end.max(end);
        } else if ggml_type_block(t.ggml_type).is_some() {
            return Err(c.err(format!(
                "tensor {}: dimensions {:?} inconsistent with its type",
                t.name, t.dims
            )));
        }
        if data_offset.saturating_add(t.offset) > file_len {
            return Err(c.err(format!(
                "tensor {}: data starts past the end of file",
                t.name
            )));
        }
    }
    if data_offset.saturating_add(data_end) > file_len {
        return Err(GgufError {
            offset: file_len,
            reason: format!(
                "file is {file_len} bytes, tensor data needs {}",
                data_offset.saturating_add(data_end)
            ),
        });
    }
    Ok(GgufSummary {
        version,
        architecture,
        name,
        basename,
        n_kv,
        meta,
        tensors,
        data_offset,
        data_end,
    })
}

/// Whether `architecture` is one the runtime runs.
pub fn check_architecture(architecture: &str) -> bool {
    SUPPORTED_ARCHITECTURES.contains(&architecture)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv_string(out: &mut Vec<u8>, key: &str, value: &str) {
        out.extend_from_slice(&(key.len() as u64).to_le_bytes());
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(&8u32.to_le_bytes());
        out.extend_from_slice(&(value.len() as u64).to_le_bytes());
        out.extend_from_slice(value.as_bytes());
    }

    /// A minimal GGUF: one F32 tensor of `n` values.
    fn tiny(arch: &str, n: u64) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(b"GGUF");
        v.extend_from_slice(&3u32.to_le_bytes());
        v.extend_from_slice(&1u64.to_le_bytes());
        v.extend_from_slice(&2u64.to_le_bytes());
        kv_string(&mut v, "general.architecture", arch);
        kv_string(&mut v, "general.name", "tiny");
        let name = "w";
        v.extend_from_slice(&(name.len() as u64).to_le_bytes());
        v.extend_from_slice(name.as_bytes());
        v.extend_from_slice(&1u32.to_le_bytes());
        v.extend_from_slice(&n.to_le_bytes());
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&0u64.to_le_bytes());
        while v.len() % 32 != 0 {
            v.push(0);
        }
        v.extend(std::iter::repeat_n(0u8, (n * 4) as usize));
        v
    }

    #[test]
    fn tiny_file_parses() {
        let f = tiny("llama", 8);
        let s = parse_header(&f[..], f.len() as u64).unwrap();
        assert_eq!(s.architecture, "llama");
        assert_eq!(s.name.as_deref(), Some("tiny"));
        assert_eq!(s.tensors.len(), 1);
        assert_eq!(s.data_end, 32);
        assert_eq!(s.data_offset as usize + 32, f.len());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let f = tiny("llama", 8);
        for cut in 0..f.len() {
            let r = parse_header(&f[..cut], cut as u64);
            assert!(r.is_err(), "cut at {cut} accepted");
        }
    }

    #[test]
    fn bad_magic_and_version() {
        let mut f = tiny("llama", 8);
        f[0] = b'X';
        let e = parse_header(&f[..], f.len() as u64).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.reason.contains("magic"));
        let mut f = tiny("llama", 8);
        f[4] = 9;
        let e = parse_header(&f[..], f.len() as u64).unwrap_err();
        assert_eq!(e.offset, 8);
    }

    #[test]
    fn huge_string_length_is_refused_without_allocating() {
        let mut f = tiny("llama", 8);
        // First key's length field sits at byte 24.
        f[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = parse_header(&f[..], f.len() as u64).unwrap_err();
        assert_eq!(e.offset, 32);
    }

    #[test]
    fn architectures() {
        assert!(check_architecture("llama"));
        assert!(!check_architecture("bert"));
        let f = tiny("bert", 8);
        assert_eq!(
            parse_header(&f[..], f.len() as u64).unwrap().architecture,
            "bert"
        );
    }

    #[test]
    fn tensor_sizes() {
        let t = TensorInfo {
            name: "x".into(),
            dims: vec![576, 49152],
            ggml_type: 8,
            offset: 0,
        };
        // Q8_0: 34 bytes per 32 values.
        assert_eq!(tensor_bytes(&t), Some(576 / 32 * 34 * 49152));
    }

    proptest::proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(0u8..=255, 0..256)) {
            let mut f = b"GGUF\x03\0\0\0".to_vec();
            f.extend_from_slice(&bytes);
            let _ = parse_header(&f[..], f.len() as u64);
        }
    }
}
