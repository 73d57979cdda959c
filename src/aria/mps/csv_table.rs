//! Streaming CSV reading shared by every MPS CSV reader: columns are looked up **by name**
//! once from the header, rows are decoded one at a time (memory stays bounded by one row),
//! `.csv.gz` files are decompressed on the fly, and every problem becomes an [`MpsError`]
//! naming the file, the 1-based line and the column.
//!
//! Cell conventions (all readers): surrounding whitespace is trimmed; an empty cell is "absent"
//! (an error for a required value, `None` for an optional one); `nan`/`NaN`/`inf` parse as the
//! IEEE values and are kept as they are (never turned into errors or zeros).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use nalgebra::Vector3;

use super::error::MpsError;

/// The header of an MPS CSV file: column names in file order.
#[derive(Debug, Clone)]
pub struct Header {
    path: PathBuf,
    names: Vec<String>,
}

/// A column found in the header (its position in the row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Col(usize);

impl Header {
    /// The file this header belongs to.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Column names in file order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// The column called `name`, if present.
    pub fn find(&self, name: &str) -> Option<Col> {
        self.names.iter().position(|n| n == name).map(Col)
    }
    /// True when the header has a column called `name`.
    pub fn has(&self, name: &str) -> bool {
        self.find(name).is_some()
    }
    /// The column called `name`, or [`MpsError::MissingColumn`].
    pub fn require(&self, name: &str, schema: &'static str) -> Result<Col, MpsError> {
        self.find(name).ok_or_else(|| MpsError::MissingColumn {
            path: self.path.clone(),
            column: name.to_string(),
            schema,
        })
    }
    /// Three required columns (x, y, z).
    pub fn require3(&self, names: [&str; 3], schema: &'static str) -> Result<[Col; 3], MpsError> {
        Ok([
            self.require(names[0], schema)?,
            self.require(names[1], schema)?,
            self.require(names[2], schema)?,
        ])
    }
}

/// One data row, borrowed from the reader while it is decoded.
#[derive(Debug)]
pub struct Row<'a> {
    record: &'a csv::ByteRecord,
    header: &'a Header,
    line: u64,
}

fn clip(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    s.chars().take(64).collect()
}

impl Row<'_> {
    /// The 1-based line of this row in the file.
    pub fn line(&self) -> u64 {
        self.line
    }

    fn cell(&self, col: Col) -> &[u8] {
        // Rows are checked to have as many fields as the header, so this is always Some.
        self.record.get(col.0).unwrap_or(&[])
    }

    fn bad(&self, col: Col, expected: &'static str) -> MpsError {
        MpsError::BadValue {
            path: self.header.path.clone(),
            line: self.line,
            column: self.header.names.get(col.0).cloned().unwrap_or_default(),
            value: clip(self.cell(col)),
            expected,
        }
    }

    fn text(&self, col: Col) -> Option<&str> {
        std::str::from_utf8(self.cell(col)).ok()
    }

    /// The cell as text (empty string allowed).
    pub fn str(&self, col: Col) -> Result<&str, MpsError> {
        self.text(col).ok_or_else(|| self.bad(col, "UTF-8 text"))
    }

    /// An optional text cell: `None` when the column is absent or the cell empty.
    pub fn opt_string(&self, col: Option<Col>) -> Result<Option<String>, MpsError> {
        match col {
            None => Ok(None),
            Some(c) => {
                let s = self.str(c)?;
                Ok((!s.is_empty()).then(|| s.to_string()))
            }
        }
    }

    /// A required floating-point cell (NaN and infinities are kept).
    pub fn f64(&self, col: Col) -> Result<f64, MpsError> {
        self.text(col)
            .filter(|s| !s.is_empty())
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| self.bad(col, "number"))
    }

    /// An optional floating-point cell: `None` when the column is absent or the cell empty.
    pub fn opt_f64(&self, col: Option<Col>) -> Result<Option<f64>, MpsError> {
        match col {
            None => Ok(None),
            Some(c) if self.cell(c).is_empty() => Ok(None),
            Some(c) => self.f64(c).map(Some),
        }
    }

    /// A required cell as `f32` (parsed as f64, then rounded).
    pub fn f32(&self, col: Col) -> Result<f32, MpsError> {
        self.f64(col).map(|v| v as f32)
    }

    /// A required integer cell. Integral decimal notation (`149202610.0`, `1.5e3`) is accepted
    /// when it is exactly representable; anything else is an error.
    pub fn i64(&self, col: Col) -> Result<i64, MpsError> {
        let s = self
            .text(col)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| self.bad(col, "integer"))?;
        if let Ok(v) = s.parse::<i64>() {
            return Ok(v);
        }
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 => Ok(v as i64),
            _ => Err(self.bad(col, "integer")),
        }
    }

    /// An optional integer cell: `None` when the column is absent or the cell empty.
    pub fn opt_i64(&self, col: Option<Col>) -> Result<Option<i64>, MpsError> {
        match col {
            None => Ok(None),
            Some(c) if self.cell(c).is_empty() => Ok(None),
            Some(c) => self.i64(c).map(Some),
        }
    }

    /// A required unsigned integer cell.
    pub fn u64(&self, col: Col) -> Result<u64, MpsError> {
        self.text(col)
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| self.bad(col, "unsigned integer"))
    }

    /// Three required floating-point cells as a vector.
    pub fn vec3(&self, cols: [Col; 3]) -> Result<Vector3<f64>, MpsError> {
        Ok(Vector3::new(
            self.f64(cols[0])?,
            self.f64(cols[1])?,
            self.f64(cols[2])?,
        ))
    }
}

/// Turns the header into a decoder, then decodes each row into one item.
pub trait RowDecoder: Sized {
    /// What one row decodes to.
    type Item;
    /// Finds the columns this decoder needs (by name); fails with
    /// [`MpsError::MissingColumn`] or [`MpsError::UnknownSchema`].
    fn from_header(header: &Header) -> Result<Self, MpsError>;
    /// Decodes one row.
    fn decode(&self, row: &Row<'_>) -> Result<Self::Item, MpsError>;
}

/// Longest line of an MPS CSV file, bytes. The widest MPS row (hand tracking v2: 60-odd
/// numbers) is under 2 KB; 64 KiB leaves a wide margin, and a file with no line breaks
/// cannot make the CSV reader buffer all of it.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// Most bytes a `.gz` MPS file may inflate to per byte of the file. CSV of decimal numbers
/// compresses 3–5× (measured on Meta's sample outputs); 32× is far beyond real data, while a
/// gzip bomb of repeated rows inflates 100–1000×.
pub const MAX_GZIP_RATIO: u64 = 32;

/// Decompressed bytes always allowed for a `.gz` file, however small (a short real file may
/// compress better than [`MAX_GZIP_RATIO`]).
pub const MIN_GZIP_BUDGET_BYTES: u64 = 16 << 20;

/// Most bytes any `.gz` MPS file may inflate to. Rows kept in memory take about what their
/// text does (a semi-dense point: ~90 bytes of text, ~110 in memory), so 512 MiB (some
/// 6 M points, more than MPS writes for an hour) keeps a reader well under 1 GB. A
/// semi-dense gzip bomb took 7.6 GB before this cap.
pub const MAX_GZIP_OUTPUT_BYTES: u64 = 512 << 20;

/// The decompressed-size budget of a `.gz` file of `compressed` bytes.
pub fn gzip_budget(compressed: u64) -> u64 {
    compressed
        .saturating_mul(MAX_GZIP_RATIO)
        .clamp(MIN_GZIP_BUDGET_BYTES, MAX_GZIP_OUTPUT_BYTES)
}

/// A reader that fails (with [`std::io::ErrorKind::InvalidData`]) once more than `budget`
/// bytes have been read, or a line runs past `max_line` bytes. Memory stays bounded
/// whatever the input holds.
#[derive(Debug)]
pub struct Capped<R> {
    inner: R,
    budget: u64,
    read: u64,
    max_line: usize,
    line: usize,
    what: &'static str,
}

impl<R: Read> Capped<R> {
    /// Caps `inner` at `budget` bytes in all and `max_line` bytes per line; `what` names the
    /// budget in errors ("decompressed", "read").
    pub fn new(inner: R, budget: u64, max_line: usize, what: &'static str) -> Self {
        Self {
            inner,
            budget,
            read: 0,
            max_line,
            line: 0,
            what,
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.budget {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "more than {} bytes {} (the budget for this file); the rest is ignored",
                    self.budget, self.what
                ),
            ));
        }
        let got = buf.get(..n).unwrap_or_default();
        let too_long = || {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line longer than {} bytes", self.max_line),
            )
        };
        if n > self.max_line {
            // A long read may hold whole long lines: look at every byte.
            for &b in got {
                self.line = if b == b'\n' { 0 } else { self.line + 1 };
                if self.line > self.max_line {
                    return Err(too_long());
                }
            }
            return Ok(n);
        }
        // A short read: only the line running on from the last read can be too long.
        match (
            got.iter().position(|&b| b == b'\n'),
            got.iter().rposition(|&b| b == b'\n'),
        ) {
            (Some(first), Some(last)) => {
                if self.line + first > self.max_line {
                    return Err(too_long());
                }
                self.line = n - last - 1;
            }
            _ => {
                self.line += n;
                if self.line > self.max_line {
                    return Err(too_long());
                }
            }
        }
        Ok(n)
    }
}

/// Opens `path` for reading, transparently gunzipping files whose name ends in `.gz`. Lines
/// are capped at [`MAX_LINE_BYTES`], and a `.gz` file's output at [`gzip_budget`] of its
/// size.
pub fn open_maybe_gz(path: &Path) -> Result<Box<dyn Read + Send>, MpsError> {
    let file = File::open(path).map_err(|source| MpsError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let buffered = BufReader::with_capacity(1 << 16, file);
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    Ok(if gz {
        let inflated = flate2::read::MultiGzDecoder::new(buffered);
        Box::new(Capped::new(
            inflated,
            gzip_budget(len),
            MAX_LINE_BYTES,
            "decompressed",
        ))
    } else {
        Box::new(Capped::new(buffered, u64::MAX, MAX_LINE_BYTES, "read"))
    })
}

/// A streaming reader of one MPS CSV file: an iterator of decoded rows.
///
/// After the first error the iterator ends (`None`), so everything before the damage is
/// delivered and the error says where the damage is. Rows are yielded in file order, never
/// reordered.
pub struct CsvRecords<D: RowDecoder> {
    path: PathBuf,
    reader: csv::Reader<Box<dyn Read + Send>>,
    header: Header,
    decoder: D,
    record: csv::ByteRecord,
    last_line: u64,
    finished: bool,
}

impl<D: RowDecoder> std::fmt::Debug for CsvRecords<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvRecords")
            .field("path", &self.path)
            .field("last_line", &self.last_line)
            .field("finished", &self.finished)
            .finish()
    }
}

fn csv_error(path: &Path, fallback_line: u64, err: csv::Error) -> MpsError {
    let line = err
        .position()
        .map(|p| p.line())
        .filter(|l| *l > 0)
        .unwrap_or(fallback_line);
    match err.into_kind() {
        csv::ErrorKind::Io(source) => MpsError::Read {
            path: path.to_path_buf(),
            line,
            source,
        },
        other => MpsError::Csv {
            path: path.to_path_buf(),
            line,
            message: format!("{other:?}"),
        },
    }
}

impl<D: RowDecoder> CsvRecords<D> {
    /// Opens `path` (gzip when it ends in `.gz`) and reads its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MpsError> {
        let path = path.as_ref();
        let input = open_maybe_gz(path)?;
        Self::from_reader(path, input)
    }

    /// Reads CSV from `input`; `path` is only used in error messages.
    pub fn from_reader(path: &Path, input: Box<dyn Read + Send>) -> Result<Self, MpsError> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(input);
        let names: Vec<String> = reader
            .byte_headers()
            .map_err(|e| csv_error(path, 1, e))?
            .iter()
            .map(|h| {
                String::from_utf8_lossy(h)
                    .trim_start_matches('\u{feff}')
                    .to_string()
            })
            .collect();
        if names.is_empty() || names.iter().all(|n| n.is_empty()) {
            return Err(MpsError::Empty {
                path: path.to_path_buf(),
            });
        }
        let header = Header {
            path: path.to_path_buf(),
            names,
        };
        let decoder = D::from_header(&header)?;
        Ok(Self {
            path: path.to_path_buf(),
            reader,
            header,
            decoder,
            record: csv::ByteRecord::new(),
            last_line: 1,
            finished: false,
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The decoder built from the header (tells which schema was detected).
    pub fn decoder(&self) -> &D {
        &self.decoder
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn next_item(&mut self) -> Option<Result<D::Item, MpsError>> {
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => None,
            Err(e) => Some(Err(csv_error(&self.path, self.last_line + 1, e))),
            Ok(true) => {
                let line = self
                    .record
                    .position()
                    .map(|p| p.line())
                    .unwrap_or(self.last_line + 1);
                self.last_line = line;
                if self.record.len() != self.header.names.len() {
                    return Some(Err(MpsError::FieldCount {
                        path: self.path.clone(),
                        line,
                        expected: self.header.names.len(),
                        found: self.record.len(),
                    }));
                }
                let row = Row {
                    record: &self.record,
                    header: &self.header,
                    line,
                };
                Some(self.decoder.decode(&row))
            }
        }
    }
}

impl<D: RowDecoder> Iterator for CsvRecords<D> {
    type Item = Result<D::Item, MpsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        let item = self.next_item();
        if !matches!(item, Some(Ok(_))) {
            self.finished = true;
        }
        item
    }
}

impl<D: RowDecoder> std::iter::FusedIterator for CsvRecords<D> {}

/// Everything readable from a file, plus the error that stopped reading (if any).
#[derive(Debug)]
pub struct Partial<T> {
    /// The items read before the error (all of them when `error` is `None`).
    pub items: Vec<T>,
    /// The first problem met, naming file and line.
    pub error: Option<MpsError>,
}

impl<T> Partial<T> {
    /// Collects an iterator of results, stopping at the first error.
    pub fn from_results<I: IntoIterator<Item = Result<T, MpsError>>>(iter: I) -> Self {
        let mut items = Vec::new();
        for r in iter {
            match r {
                Ok(v) => items.push(v),
                Err(e) => {
                    return Self {
                        items,
                        error: Some(e),
                    }
                }
            }
        }
        Self { items, error: None }
    }

    /// `Ok(items)` when the whole file was read, else the error.
    pub fn into_result(self) -> Result<Vec<T>, MpsError> {
        match self.error {
            None => Ok(self.items),
            Some(e) => Err(e),
        }
    }
}

/// Reads a whole CSV file with decoder `D`, keeping what was read before any error.
pub fn read_partial<D: RowDecoder>(path: &Path) -> Partial<D::Item> {
    match CsvRecords::<D>::open(path) {
        Ok(r) => Partial::from_results(r),
        Err(e) => Partial {
            items: Vec::new(),
            error: Some(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(
        input: &[u8],
        budget: u64,
        max_line: usize,
        chunk: usize,
    ) -> std::io::Result<usize> {
        let mut r = Capped::new(input, budget, max_line, "read");
        let mut buf = vec![0u8; chunk];
        let mut total = 0;
        loop {
            match r.read(&mut buf)? {
                0 => return Ok(total),
                n => total += n,
            }
        }
    }

    #[test]
    fn capped_reader_refuses_long_lines_and_overruns() {
        let ok = b"ab\ncdef\ngh\n".repeat(10);
        for chunk in [1, 3, 7, 64] {
            assert_eq!(
                read_all(&ok, 1000, 4, chunk).unwrap(),
                ok.len(),
                "chunk {chunk}"
            );
            // "cdef" is 4 bytes: a limit of 3 refuses it, however the reads fall.
            let e = read_all(&ok, 1000, 3, chunk).unwrap_err();
            assert!(e.to_string().contains("longer than 3 bytes"), "{e}");
        }
        let e = read_all(&ok, 20, 100, 8).unwrap_err();
        assert!(e.to_string().contains("more than 20 bytes read"), "{e}");
        // A line that never ends is refused once past the limit.
        assert!(read_all(&[b'x'; 5000], u64::MAX, 1000, 256).is_err());
    }

    #[test]
    fn gzip_budget_scales_with_the_file_within_bounds() {
        assert_eq!(gzip_budget(0), MIN_GZIP_BUDGET_BYTES);
        assert_eq!(gzip_budget(1 << 20), 32 << 20);
        assert_eq!(gzip_budget(1 << 30), MAX_GZIP_OUTPUT_BYTES);
    }
}
