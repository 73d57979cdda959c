//! The transcript: one JSON object per utterance (`transcript.jsonl`), spoken, interrupted
//! or dropped, with the times that make "photon to speech" measurable.

use std::path::Path;

use super::earcon::Earcon;
use super::pan::Pan;
use super::queue::{DropReason, Priority, Utterance};
use crate::jsonl::{self, JsonlError, JsonlWriter, LineTap};

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
    /// Where it was heard between the ears (absent: the centre).
    #[serde(default, skip_serializing_if = "Pan::is_centre")]
    pub pan: Pan,
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
            pan: u.pan,
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

/// A transcript could not be written or read (the file and line named).
#[derive(Debug, thiserror::Error)]
#[error("transcript {0}")]
pub struct TranscriptError(#[from] pub JsonlError);

/// Writes `transcript.jsonl`, one line per entry, flushed per line.
#[derive(Debug)]
pub struct TranscriptWriter(JsonlWriter, Option<LineTap<TranscriptEntry>>);

impl TranscriptWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, TranscriptError> {
        Ok(Self(JsonlWriter::create(path)?, None))
    }

    /// Shows every entry to `tap` too, once written.
    pub fn with_tap(mut self, tap: Option<LineTap<TranscriptEntry>>) -> Self {
        self.1 = tap;
        self
    }

    /// Appends one entry.
    pub fn write(&mut self, e: &TranscriptEntry) -> Result<(), TranscriptError> {
        let written = self.0.write(e);
        if let Some(tap) = &self.1 {
            tap.show(e);
        }
        Ok(written?)
    }
}

/// Reads a `transcript.jsonl` (for tests and reports); a bad line is an error naming it.
pub fn read_transcript(path: &Path) -> Result<Vec<TranscriptEntry>, TranscriptError> {
    Ok(jsonl::read(path, jsonl::Limits::default())?)
}
