//! The transcript: one JSON object per utterance (`transcript.jsonl`), spoken, interrupted
//! or dropped, with the times that make "photon to speech" measurable.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::earcon::Earcon;
use super::queue::{DropReason, Priority, Utterance};

/// One utterance's record. Times are nanoseconds on the session clock (host time), except
/// `capture_ns` (device time).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TranscriptEntry {
    /// What was (to be) said.
    pub text: String,
    /// Its priority.
    pub priority: Priority,
    /// Its request id.
    pub request_id: u64,
    /// The tone played before the text, if any.
    pub earcon: Option<Earcon>,
    /// Device capture time of the newest sample it rests on.
    pub capture_ns: i64,
    /// When it was decided.
    pub decided_ns: i64,
    /// When its first sample plays; `null` if none did.
    pub first_audio_ns: Option<i64>,
    /// When its audio ended (or it was cut off or dropped).
    pub end_ns: i64,
    /// True when it was cut off mid-utterance or dropped unspoken.
    pub interrupted: bool,
    /// Why it was dropped unspoken, if it was.
    pub dropped: Option<DropReason>,
    /// Why synthesis failed, if it did.
    pub error: Option<String>,
}

impl TranscriptEntry {
    /// A record for `u` with no audio yet.
    pub fn new(u: &Utterance, end_ns: i64) -> Self {
        Self {
            text: u.text.clone(),
            priority: u.priority,
            request_id: u.request_id,
            earcon: u.earcon,
            capture_ns: u.capture.ns(),
            decided_ns: u.decided.ns(),
            first_audio_ns: None,
            end_ns,
            interrupted: false,
            dropped: None,
            error: None,
        }
    }

    /// A record for `u`, dropped unspoken at `at_ns`.
    pub fn dropped(u: &Utterance, reason: DropReason, at_ns: i64) -> Self {
        Self {
            interrupted: true,
            dropped: Some(reason),
            ..Self::new(u, at_ns)
        }
    }
}

/// A transcript write failed.
#[derive(Debug, thiserror::Error)]
#[error("transcript {path}: line {line}: {source}")]
pub struct TranscriptError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line being written.
    pub line: u64,
    /// The cause.
    #[source]
    pub source: std::io::Error,
}

/// Writes `transcript.jsonl`, one line per entry, flushed per line.
#[derive(Debug)]
pub struct TranscriptWriter {
    path: PathBuf,
    out: BufWriter<File>,
    lines: u64,
}

impl TranscriptWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, TranscriptError> {
        let out = File::create(path).map_err(|source| TranscriptError {
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

    /// Appends one entry.
    pub fn write(&mut self, e: &TranscriptEntry) -> Result<(), TranscriptError> {
        self.lines += 1;
        let line = self.lines;
        let err = |source| TranscriptError {
            path: self.path.clone(),
            line,
            source,
        };
        serde_json::to_writer(&mut self.out, e).map_err(|e| err(e.into()))?;
        self.out.write_all(b"\n").map_err(err)?;
        self.out.flush().map_err(err)
    }
}

/// Reads a `transcript.jsonl` (for tests and reports); a bad line is an error naming it.
pub fn read_transcript(path: &Path) -> Result<Vec<TranscriptEntry>, TranscriptError> {
    let text = std::fs::read_to_string(path).map_err(|source| TranscriptError {
        path: path.to_path_buf(),
        line: 0,
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| TranscriptError {
                path: path.to_path_buf(),
                line: i as u64 + 1,
                source: e.into(),
            })
        })
        .collect()
}
