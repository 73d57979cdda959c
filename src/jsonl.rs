//! JSON Lines, one way for the whole crate: [`read`] (every line or an error naming the
//! file and line), [`parse_each`] (each line on its own, for readers that skip a bad line
//! and go on) and [`JsonlWriter`] (one object per line, flushed per line). Reads are
//! bounded: a line longer than [`Limits::max_line_bytes`] and lines beyond
//! [`Limits::max_lines`] are errors, never allocations. Blank lines are skipped; line
//! numbers count every line, from 1.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// How much a read may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest line, bytes (without its line break).
    pub max_line_bytes: usize,
    /// The most lines (blank ones included).
    pub max_lines: u64,
}

impl Default for Limits {
    /// 1 MiB lines, 10 million of them: far beyond any file the crate writes.
    fn default() -> Self {
        Self {
            max_line_bytes: 1 << 20,
            max_lines: 10_000_000,
        }
    }
}

/// A JSON Lines file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    /// Opening, reading or writing failed (`line` 0: opening or creating).
    #[error("{}: line {line}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line is not the JSON expected (or an object could not be serialised).
    #[error("{}: line {line}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// The parser's message.
        message: String,
    },
    /// A line is longer than the limit.
    #[error("{}: line {line}: longer than {max_bytes} bytes", path.display())]
    LineTooLong {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// The limit.
        max_bytes: usize,
    },
    /// The file has more lines than the limit.
    #[error("{}: more than {max_lines} lines", path.display())]
    TooManyLines {
        /// The file.
        path: PathBuf,
        /// The limit.
        max_lines: u64,
    },
}

impl JsonlError {
    /// What is wrong, without the file and line (for a caller that names them its own
    /// way).
    pub fn reason(&self) -> String {
        match self {
            JsonlError::Io { source, .. } => source.to_string(),
            JsonlError::Json { message, .. } => message.clone(),
            JsonlError::LineTooLong { max_bytes, .. } => format!("longer than {max_bytes} bytes"),
            JsonlError::TooManyLines { max_lines, .. } => format!("more than {max_lines} lines"),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            JsonlError::Io { path, .. }
            | JsonlError::Json { path, .. }
            | JsonlError::LineTooLong { path, .. }
            | JsonlError::TooManyLines { path, .. } => path,
        }
    }

    /// The 1-based line (0: the file as a whole).
    pub fn line(&self) -> u64 {
        match self {
            JsonlError::Io { line, .. }
            | JsonlError::Json { line, .. }
            | JsonlError::LineTooLong { line, .. } => *line,
            JsonlError::TooManyLines { .. } => 0,
        }
    }
}

/// Reads every object of `path`; the first bad line is the error.
pub fn read<T: DeserializeOwned>(path: &Path, limits: Limits) -> Result<Vec<T>, JsonlError> {
    let file = File::open(path).map_err(|source| JsonlError::Io {
        path: path.to_path_buf(),
        line: 0,
        source,
    })?;
    let mut reader = BufReader::new(file);
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(limits.max_line_bytes as u64 + 2)
            .read_until(b'\n', &mut buf)
            .map_err(|source| JsonlError::Io {
                path: path.to_path_buf(),
                line: line + 1,
                source,
            })?;
        if n == 0 {
            return Ok(out);
        }
        line += 1;
        if line > limits.max_lines {
            return Err(JsonlError::TooManyLines {
                path: path.to_path_buf(),
                max_lines: limits.max_lines,
            });
        }
        let ended = buf.last() == Some(&b'\n');
        let body = trim_line_end(&buf);
        if body.len() > limits.max_line_bytes || (!ended && n > limits.max_line_bytes + 1) {
            return Err(JsonlError::LineTooLong {
                path: path.to_path_buf(),
                line,
                max_bytes: limits.max_line_bytes,
            });
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        out.push(parse_line(path, line, body)?);
    }
}

/// Parses each line of `text` (read from `path`, which names it in errors) on its own,
/// handing `f` the line number and the object or the line's error; a reader that skips bad
/// lines goes on. Lines beyond [`Limits::max_lines`] are not parsed: `f` gets one
/// [`JsonlError::TooManyLines`] and the rest is left.
pub fn parse_each<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    limits: Limits,
    mut f: impl FnMut(u64, Result<T, JsonlError>),
) {
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        if line > limits.max_lines {
            f(
                line,
                Err(JsonlError::TooManyLines {
                    path: path.to_path_buf(),
                    max_lines: limits.max_lines,
                }),
            );
            return;
        }
        if raw.trim().is_empty() {
            continue;
        }
        if raw.len() > limits.max_line_bytes {
            f(
                line,
                Err(JsonlError::LineTooLong {
                    path: path.to_path_buf(),
                    line,
                    max_bytes: limits.max_line_bytes,
                }),
            );
            continue;
        }
        f(line, parse_line(path, line, raw.as_bytes()));
    }
}

/// A line without its `\n` or `\r\n`.
fn trim_line_end(buf: &[u8]) -> &[u8] {
    let b = buf.strip_suffix(b"\n").unwrap_or(buf);
    b.strip_suffix(b"\r").unwrap_or(b)
}

fn parse_line<T: DeserializeOwned>(path: &Path, line: u64, body: &[u8]) -> Result<T, JsonlError> {
    serde_json::from_slice(body).map_err(|e| JsonlError::Json {
        path: path.to_path_buf(),
        line,
        message: e.to_string(),
    })
}

/// Shown each record as it is written, after its line (a run's Rerun recording watches
/// decisions and the transcript this way). It must return quickly.
pub struct LineTap<T>(std::sync::Arc<dyn Fn(&T) + Send + Sync>);

impl<T> LineTap<T> {
    /// A tap calling `f`.
    pub fn new(f: impl Fn(&T) + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(f))
    }

    /// Shows `record` to the tap.
    pub fn show(&self, record: &T) {
        (self.0)(record);
    }
}

impl<T> Clone for LineTap<T> {
    fn clone(&self) -> Self {
        Self(std::sync::Arc::clone(&self.0))
    }
}

impl<T> std::fmt::Debug for LineTap<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LineTap")
    }
}

/// Writes one object per line, flushed per line (a run cut short keeps every line
/// written).
#[derive(Debug)]
pub struct JsonlWriter {
    path: PathBuf,
    out: BufWriter<File>,
    lines: u64,
}

impl JsonlWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, JsonlError> {
        let out = File::create(path).map_err(|source| JsonlError::Io {
            path: path.to_path_buf(),
            line: 0,
            source,
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            out: BufWriter::new(out),
            lines: 0,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Appends `value` as one line.
    pub fn write<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), JsonlError> {
        self.lines += 1;
        let line = self.lines;
        let io = |source| JsonlError::Io {
            path: self.path.clone(),
            line,
            source,
        };
        let mut bytes = serde_json::to_vec(value).map_err(|e| JsonlError::Json {
            path: self.path.clone(),
            line,
            message: e.to_string(),
        })?;
        bytes.push(b'\n');
        self.out.write_all(&bytes).map_err(io)?;
        self.out.flush().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Row {
        n: u32,
    }

    #[test]
    fn written_lines_read_back_and_blank_lines_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("rows.jsonl");
        let mut w = JsonlWriter::create(&p).unwrap();
        w.write(&Row { n: 1 }).unwrap();
        w.write(&Row { n: 2 }).unwrap();
        assert_eq!(w.lines(), 2);
        drop(w);
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str("\n  \n{\"n\":3}\r\n");
        std::fs::write(&p, text).unwrap();
        let rows: Vec<Row> = read(&p, Limits::default()).unwrap();
        assert_eq!(rows, vec![Row { n: 1 }, Row { n: 2 }, Row { n: 3 }]);
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.jsonl");
        std::fs::write(&p, "{\"n\":1}\n\n{\"n\":\"x\"}\n").unwrap();
        let e = read::<Row>(&p, Limits::default()).unwrap_err();
        assert!(matches!(e, JsonlError::Json { line: 3, .. }), "{e:?}");
        assert_eq!(e.path(), p.as_path());
        assert!(e.to_string().contains("bad.jsonl: line 3:"), "{e}");
    }

    #[test]
    fn lines_and_line_length_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("long.jsonl");
        let long = format!("{{\"n\":1{}}}\n", " ".repeat(100));
        std::fs::write(&p, format!("{{\"n\":1}}\n{long}")).unwrap();
        let limits = Limits {
            max_line_bytes: 64,
            max_lines: 10,
        };
        let e = read::<Row>(&p, limits).unwrap_err();
        assert!(
            matches!(
                e,
                JsonlError::LineTooLong {
                    line: 2,
                    max_bytes: 64,
                    ..
                }
            ),
            "{e:?}"
        );
        // A line without its end, longer than the limit, is refused as well.
        std::fs::write(&p, "x".repeat(1000)).unwrap();
        let e = read::<Row>(&p, limits).unwrap_err();
        assert!(
            matches!(e, JsonlError::LineTooLong { line: 1, .. }),
            "{e:?}"
        );
        std::fs::write(&p, "{\"n\":1}\n".repeat(11)).unwrap();
        let e = read::<Row>(&p, limits).unwrap_err();
        assert!(
            matches!(e, JsonlError::TooManyLines { max_lines: 10, .. }),
            "{e:?}"
        );
        // Exactly at the limits: read.
        std::fs::write(&p, "{\"n\":1}\n".repeat(10)).unwrap();
        assert_eq!(read::<Row>(&p, limits).unwrap().len(), 10);
    }

    #[test]
    fn parse_each_goes_on_after_a_bad_line() {
        let mut got = Vec::new();
        let text = "{\"n\":1}\nnot json\n\n{\"n\":4}\n";
        parse_each::<Row>(Path::new("t.jsonl"), text, Limits::default(), |line, r| {
            got.push((line, r.map(|row| row.n).map_err(|e| e.line())));
        });
        assert_eq!(got, vec![(1, Ok(1)), (2, Err(2)), (4, Ok(4))]);
    }
}
