//! A WAV file laid out on the session timeline: frame *i* of the file is timeline sample
//! *i*, with silence wherever nothing is said, so the file lines up with the replay. Stereo:
//! each run is placed between the ears by its [`Pan`].

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use super::{AudioSink, Pacing, SinkError};
use crate::speech::pan::Pan;

/// Writes stereo 16-bit PCM at the TTS rate with `hound`.
pub struct WavSink {
    path: PathBuf,
    writer: Option<hound::WavWriter<BufWriter<File>>>,
    /// The next timeline sample (stereo frame) the file will hold.
    cursor: u64,
    /// Interleaved frames of the run being written.
    frames: Vec<i16>,
}

impl std::fmt::Debug for WavSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WavSink")
            .field("path", &self.path)
            .field("cursor", &self.cursor)
            .finish()
    }
}

impl WavSink {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path, rate_hz: u32) -> Result<Self, SinkError> {
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: rate_hz,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let writer = hound::WavWriter::create(path, spec).map_err(|source| SinkError::Wav {
            path: path.to_path_buf(),
            sample: 0,
            source,
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            writer: Some(writer),
            cursor: 0,
            frames: Vec::new(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Timeline samples (stereo frames) written so far (the file's length).
    pub fn len_samples(&self) -> u64 {
        self.cursor
    }

    fn err(&self, source: hound::Error) -> SinkError {
        SinkError::Wav {
            path: self.path.clone(),
            sample: self.cursor,
            source,
        }
    }

    fn pad_to(&mut self, index: u64) -> Result<(), SinkError> {
        while self.cursor < index {
            let r = match self.writer.as_mut() {
                Some(w) => w.write_sample(0i16).and_then(|()| w.write_sample(0i16)),
                None => return Ok(()),
            };
            r.map_err(|e| self.err(e))?;
            self.cursor += 1;
        }
        Ok(())
    }
}

impl AudioSink for WavSink {
    fn name(&self) -> &str {
        "wav"
    }

    fn pacing(&self) -> Pacing {
        Pacing::Timeline
    }

    fn write(&mut self, start_index: u64, samples: &[i16], pan: Pan) -> Result<(), SinkError> {
        self.write_over(start_index, samples, pan, &[], Pan::CENTRE)
    }

    fn write_over(
        &mut self,
        start_index: u64,
        samples: &[i16],
        pan: Pan,
        over: &[i16],
        over_pan: Pan,
    ) -> Result<(), SinkError> {
        self.pad_to(start_index)?;
        // Anything before the cursor is already in the file (the scheduler never overlaps).
        let skip = self
            .cursor
            .saturating_sub(start_index)
            .min(samples.len() as u64) as usize;
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        let rest = samples.get(skip..).unwrap_or(&[]);
        pan.place(rest, &mut frames);
        if let Some(over) = over.get(skip..).filter(|o| !o.is_empty()) {
            let n = over.len().min(rest.len());
            let mut cue = Vec::with_capacity(2 * n);
            over_pan.place(over.get(..n).unwrap_or(&[]), &mut cue);
            for (f, c) in frames.iter_mut().zip(cue) {
                *f = f.saturating_add(c);
            }
        }
        for pair in frames.chunks_exact(2) {
            let &[left, right] = pair else { break };
            let r = match self.writer.as_mut() {
                Some(w) => w.write_sample(left).and_then(|()| w.write_sample(right)),
                None => break,
            };
            if let Err(e) = r {
                self.frames = frames;
                return Err(self.err(e));
            }
            self.cursor += 1;
        }
        self.frames = frames;
        Ok(())
    }

    fn finish(&mut self, end_index: Option<u64>) -> Result<(), SinkError> {
        if let Some(end) = end_index {
            self.pad_to(end)?;
        }
        match self.writer.take() {
            Some(w) => w.finalize().map_err(|e| self.err(e)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cue_over_speech_is_heard_from_its_own_side() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.wav");
        let mut w = WavSink::create(&path, 1_000).unwrap();
        // Speech in the centre; a cue from the far right over its last two samples.
        let right = Pan::of_clock_hour(3);
        w.write(0, &[100, 100], Pan::CENTRE).unwrap();
        w.write_over(2, &[100, 100], Pan::CENTRE, &[1_000, 1_000], right)
            .unwrap();
        w.finish(None).unwrap();
        let frames: Vec<i16> = hound::WavReader::open(&path)
            .unwrap()
            .into_samples::<i16>()
            .map(Result::unwrap)
            .collect();
        let (l, r) = right.gains();
        let cue = |g: f32| 100 + (1_000.0 * g).round() as i16;
        assert_eq!(frames, [100, 100, 100, 100, cue(l), cue(r), cue(l), cue(r)]);
        assert!(cue(r) > cue(l));
    }
}
