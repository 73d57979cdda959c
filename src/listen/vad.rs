//! [`SileroVad`]: Silero VAD (MIT, the `silero-vad` wheel) on ONNX Runtime — the probability
//! that a 32 ms frame of 16 kHz audio holds speech, with the model's recurrent state and
//! 4 ms of context carried from frame to frame (as the package's own wrapper does).

use std::path::{Path, PathBuf};

use ort::session::{Session, SessionInputValue};
use ort::value::TensorRef;

use super::error::ListenError;
use crate::infer::ModelFile;

/// Samples per frame (32 ms at 16 kHz).
pub const FRAME_SAMPLES: usize = 512;
/// Samples of the previous frame the model sees before each frame.
const CONTEXT_SAMPLES: usize = 64;
/// The recurrent state's length (2 × 1 × 128).
const STATE_LEN: usize = 256;

/// The speech probability of one frame (the port the listener hears through).
pub trait VoiceActivity {
    /// Probability 0–1 that `frame` ([`FRAME_SAMPLES`] samples at 16 kHz) holds speech.
    fn speech_probability(&mut self, frame: &[f32]) -> Result<f32, ListenError>;
    /// Forgets what was heard (a new stream).
    fn reset(&mut self);
}

/// The loaded voice detector.
pub struct SileroVad {
    path: PathBuf,
    session: Session,
    state: Vec<f32>,
    input: Vec<f32>,
}

impl std::fmt::Debug for SileroVad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SileroVad")
            .field("path", &self.path)
            .finish()
    }
}

impl SileroVad {
    /// Loads the model from the model cache.
    pub fn load_default() -> Result<Self, ListenError> {
        Self::load(&ModelFile::SileroVad.path())
    }

    /// Loads `path`; a file without the detector's inputs is an error naming it.
    pub fn load(path: &Path) -> Result<Self, ListenError> {
        let session = super::session::open(path, 1)?;
        super::session::require_inputs(path, &session, &["input", "state", "sr"])?;
        Ok(Self {
            path: path.to_path_buf(),
            session,
            state: vec![0.0; STATE_LEN],
            input: vec![0.0; CONTEXT_SAMPLES + FRAME_SAMPLES],
        })
    }

    fn err(&self, what: impl std::fmt::Display) -> ListenError {
        ListenError::Model {
            path: self.path.clone(),
            what: what.to_string(),
        }
    }
}

impl VoiceActivity for SileroVad {
    fn speech_probability(&mut self, frame: &[f32]) -> Result<f32, ListenError> {
        if frame.len() != FRAME_SAMPLES {
            return Err(self.err(format!(
                "a frame of {} samples (the detector takes {FRAME_SAMPLES})",
                frame.len()
            )));
        }
        self.input[CONTEXT_SAMPLES..].copy_from_slice(frame);
        let sr = [i64::from(super::resample::RATE_HZ)];
        let (p, state) = {
            let input = TensorRef::from_array_view((
                [1usize, CONTEXT_SAMPLES + FRAME_SAMPLES],
                &self.input[..],
            ))
            .map_err(|e| self.err(e))?;
            let state = TensorRef::from_array_view(([2usize, 1, 128], &self.state[..]))
                .map_err(|e| self.err(e))?;
            let rate =
                TensorRef::from_array_view(([0usize; 0], &sr[..])).map_err(|e| self.err(e))?;
            let values: Vec<(&str, SessionInputValue<'_>)> = vec![
                ("input", input.into()),
                ("state", state.into()),
                ("sr", rate.into()),
            ];
            let path = self.path.clone();
            let err = |e: String| ListenError::Model {
                path: path.clone(),
                what: e,
            };
            let outs = self.session.run(values).map_err(|e| err(e.to_string()))?;
            let (_, p) = outs["output"]
                .try_extract_tensor::<f32>()
                .map_err(|e| err(e.to_string()))?;
            let (_, s) = outs["stateN"]
                .try_extract_tensor::<f32>()
                .map_err(|e| err(e.to_string()))?;
            (p.first().copied().unwrap_or(0.0), s.to_vec())
        };
        if state.len() == STATE_LEN {
            self.state = state;
        }
        self.input
            .copy_within(FRAME_SAMPLES..FRAME_SAMPLES + CONTEXT_SAMPLES, 0);
        Ok(p)
    }

    fn reset(&mut self) {
        self.state.iter_mut().for_each(|v| *v = 0.0);
        self.input.iter_mut().for_each(|v| *v = 0.0);
    }
}
