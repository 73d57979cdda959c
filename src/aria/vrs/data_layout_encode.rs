//! Building DataLayouts and encoding values into their binary form (writer side):
//! [`DataLayoutBuilder`] packs named pieces into a layout, [`DataLayoutEncoder`] fills a
//! layout by name and type and produces the bytes (fixed part, var-size index, var data).

use super::data_layout::{DataLayout, DlScalar, Elem, Piece, PieceKind, Scalar};

fn elem_of<T: DlScalar>() -> Elem {
    Elem {
        scalar: T::SCALAR,
        count: 1,
        cpp_name: T::SCALAR.cpp_name().to_string(),
    }
}

/// Packs pieces into a layout in the order they are added (fixed pieces back to back,
/// var pieces numbered from 0).
#[derive(Debug, Default, Clone)]
pub struct DataLayoutBuilder {
    pieces: Vec<Piece>,
    offset: usize,
    var: usize,
}

impl DataLayoutBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a `DataPieceValue<T>`.
    pub fn value<T: DlScalar>(mut self, name: &str) -> Self {
        let elem = elem_of::<T>();
        let size = elem.size();
        self.pieces.push(Piece {
            name: name.into(),
            kind: PieceKind::Value {
                offset: self.offset,
                elem,
            },
        });
        self.offset += size;
        self
    }
    /// Adds a `DataPieceArray<T>` of `count` elements.
    pub fn array<T: DlScalar>(mut self, name: &str, count: usize) -> Self {
        let elem = elem_of::<T>();
        let size = elem.size() * count;
        self.pieces.push(Piece {
            name: name.into(),
            kind: PieceKind::Array {
                offset: self.offset,
                elem,
                count,
            },
        });
        self.offset += size;
        self
    }
    /// Adds a `DataPieceString`.
    pub fn string(mut self, name: &str) -> Self {
        self.pieces.push(Piece {
            name: name.into(),
            kind: PieceKind::String { index: self.var },
        });
        self.var += 1;
        self
    }
    /// Adds a `DataPieceVector<T>`.
    pub fn vector<T: DlScalar>(mut self, name: &str) -> Self {
        self.pieces.push(Piece {
            name: name.into(),
            kind: PieceKind::Vector {
                index: self.var,
                elem: elem_of::<T>(),
            },
        });
        self.var += 1;
        self
    }
    /// Adds a `DataPieceVector<string>`.
    pub fn strings(mut self, name: &str) -> Self {
        self.pieces.push(Piece {
            name: name.into(),
            kind: PieceKind::StringVector { index: self.var },
        });
        self.var += 1;
        self
    }
    /// The layout.
    pub fn build(self) -> Result<DataLayout, String> {
        DataLayout::from_pieces(self.pieces)
    }
}

/// Fills one instance of a layout by piece name and type. Pieces left unset are zero
/// (fixed) or empty (var).
#[derive(Debug, Clone)]
pub struct DataLayoutEncoder<'a> {
    layout: &'a DataLayout,
    fixed: Vec<u8>,
    var: Vec<Vec<u8>>,
}

impl<'a> DataLayoutEncoder<'a> {
    /// An encoder for `layout`, all zero.
    pub fn new(layout: &'a DataLayout) -> Self {
        Self {
            layout,
            fixed: vec![0; layout.fixed_size()],
            var: vec![Vec::new(); layout.var_count()],
        }
    }

    fn piece(&self, name: &str) -> Result<&'a Piece, String> {
        self.layout
            .piece(name)
            .ok_or_else(|| format!("no piece named {name:?}"))
    }

    fn put_fixed(&mut self, offset: usize, bytes: &[u8], name: &str) -> Result<(), String> {
        let dst = self
            .fixed
            .get_mut(offset..offset + bytes.len())
            .ok_or_else(|| format!("{name}: outside the fixed part"))?;
        dst.copy_from_slice(bytes);
        Ok(())
    }

    /// Sets the `DataPieceValue<T>` `name`.
    pub fn set<T: DlScalar>(&mut self, name: &str, v: T) -> Result<&mut Self, String> {
        match &self.piece(name)?.kind {
            PieceKind::Value { offset, elem } if elem.scalar == T::SCALAR && elem.count == 1 => {
                let mut b = Vec::with_capacity(8);
                v.put_le(&mut b);
                self.put_fixed(*offset, &b, name)?;
                Ok(self)
            }
            k => Err(format!("{name}: is {k:?}, not a value of {:?}", T::SCALAR)),
        }
    }

    /// Sets the fixed array `name` (a `DataPieceArray<T>` or a geometric value).
    pub fn set_array<T: DlScalar>(&mut self, name: &str, v: &[T]) -> Result<&mut Self, String> {
        let offset = match &self.piece(name)?.kind {
            PieceKind::Array {
                offset,
                elem,
                count,
            } if elem.scalar == T::SCALAR && elem.count * count == v.len() => *offset,
            PieceKind::Value { offset, elem }
                if elem.scalar == T::SCALAR && elem.count == v.len() =>
            {
                *offset
            }
            k => {
                return Err(format!(
                    "{name}: is {k:?}, not {} × {:?}",
                    v.len(),
                    T::SCALAR
                ))
            }
        };
        let mut b = Vec::with_capacity(v.len() * T::SCALAR.size());
        for x in v {
            x.put_le(&mut b);
        }
        self.put_fixed(offset, &b, name)?;
        Ok(self)
    }

    /// Sets the floating-point value, point or fixed array `name` from `v`, in whichever
    /// precision the layout stores it (`float` or `double`): layouts of one record kind
    /// differ between device generations.
    pub fn set_floats(&mut self, name: &str, v: &[f64]) -> Result<&mut Self, String> {
        let scalar = match &self.piece(name)?.kind {
            PieceKind::Value { elem, .. } | PieceKind::Array { elem, .. } => elem.scalar,
            k => return Err(format!("{name}: is {k:?}, not a floating-point value")),
        };
        match scalar {
            Scalar::F64 if v.len() == 1 => self.set::<f64>(name, v[0]),
            Scalar::F32 if v.len() == 1 => self.set::<f32>(name, v[0] as f32),
            Scalar::F64 => self.set_array::<f64>(name, v),
            Scalar::F32 => {
                let f: Vec<f32> = v.iter().map(|x| *x as f32).collect();
                self.set_array::<f32>(name, &f)
            }
            other => Err(format!("{name}: holds {other:?}, not floating point")),
        }
    }

    fn set_var(&mut self, name: &str, ok: bool, bytes: Vec<u8>) -> Result<&mut Self, String> {
        let p = self.piece(name)?;
        let ix = p
            .var_index()
            .filter(|_| ok)
            .ok_or_else(|| format!("{name}: is {:?}, not the var piece expected", p.kind))?;
        let slot = self
            .var
            .get_mut(ix)
            .ok_or_else(|| format!("{name}: var index {ix} out of range"))?;
        *slot = bytes;
        Ok(self)
    }

    /// Sets the `DataPieceString` `name`.
    pub fn set_string(&mut self, name: &str, s: &str) -> Result<&mut Self, String> {
        let ok = matches!(self.piece(name)?.kind, PieceKind::String { .. });
        self.set_var(name, ok, s.as_bytes().to_vec())
    }

    /// Sets the `DataPieceVector<T>` `name`.
    pub fn set_vector<T: DlScalar>(&mut self, name: &str, v: &[T]) -> Result<&mut Self, String> {
        let ok = matches!(&self.piece(name)?.kind, PieceKind::Vector { elem, .. } if elem.scalar == T::SCALAR);
        let mut b = Vec::with_capacity(v.len() * T::SCALAR.size());
        for x in v {
            x.put_le(&mut b);
        }
        self.set_var(name, ok, b)
    }

    /// Sets the `DataPieceVector<string>` `name`.
    pub fn set_strings(&mut self, name: &str, v: &[&str]) -> Result<&mut Self, String> {
        let ok = matches!(self.piece(name)?.kind, PieceKind::StringVector { .. });
        let mut b = Vec::new();
        b.extend_from_slice(&(v.len() as u32).to_le_bytes());
        for s in v {
            super::cursor::put_string(&mut b, s);
        }
        self.set_var(name, ok, b)
    }

    /// Appends the encoded layout to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.fixed);
        if self.var.is_empty() {
            return;
        }
        let mut off = 0u32;
        for v in &self.var {
            out.extend_from_slice(&off.to_le_bytes());
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            off = off.wrapping_add(v.len() as u32);
        }
        for v in &self.var {
            out.extend_from_slice(v);
        }
    }

    /// The encoded layout.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_encode_decode() {
        let dl = DataLayoutBuilder::new()
            .value::<u8>("audio_muted")
            .vector::<i64>("capture_timestamps_ns")
            .value::<f64>("gain")
            .array::<f32>("accelerometer", 3)
            .string("name")
            .strings("tags")
            .build()
            .unwrap();
        // Packed: u8 @0, f64 @1, [f32;3] @9.
        assert_eq!(dl.fixed_size(), 21);
        let json = dl.to_json();
        assert!(json.contains(r#""offset":9"#), "{json}");
        let dl = DataLayout::from_json(&json).unwrap();
        let mut enc = DataLayoutEncoder::new(&dl);
        enc.set::<u8>("audio_muted", 1).unwrap();
        enc.set::<f64>("gain", 2.5).unwrap();
        enc.set_array::<f32>("accelerometer", &[0.0, 0.0, 9.81])
            .unwrap();
        enc.set_vector::<i64>("capture_timestamps_ns", &[10, 20, 30])
            .unwrap();
        enc.set_string("name", "mic").unwrap();
        enc.set_strings("tags", &["a", "bc"]).unwrap();
        assert!(enc.set::<u32>("gain", 1).is_err());
        assert!(enc.set::<f64>("nope", 1.0).is_err());
        let mut b = enc.encode();
        let n = b.len();
        b.extend_from_slice(&[7u8; 12]);
        assert_eq!(dl.total_size(&b), Some(n));
        assert_eq!(dl.value::<u8>(&b, "audio_muted"), Some(1));
        assert_eq!(dl.value::<f64>(&b, "gain"), Some(2.5));
        assert_eq!(
            dl.array::<f32, 3>(&b, "accelerometer"),
            Some([0.0, 0.0, 9.81])
        );
        assert_eq!(
            dl.vector::<i64>(&b, "capture_timestamps_ns"),
            Some(vec![10, 20, 30])
        );
        assert_eq!(dl.string(&b, "name"), Some("mic"));
        assert_eq!(dl.strings(&b, "tags"), Some(vec!["a", "bc"]));
    }
}
