//! [`hear_clip`]: a whole clip through the [`Listener`] as a stream (fed in 20 ms blocks, as
//! the glasses' audio arrives), for `vista listen` and the tests.

use serde::Serialize;

use super::error::ListenError;
use super::listener::{Heard, ListenConfig, ListenStats, Listener};
use super::moonshine::Recogniser;
use super::vad::VoiceActivity;

/// Samples per block fed (20 ms at 16 kHz).
const BLOCK_SAMPLES: usize = 320;

/// What a clip gave.
#[derive(Clone, Debug, Serialize)]
pub struct ClipHeard {
    /// The utterances, in order.
    pub heard: Vec<Heard>,
    /// Counts.
    pub stats: ListenStats,
    /// Length of the clip, seconds.
    pub duration_s: f64,
}

/// Listens to `samples` (16 kHz mono) from start to end.
pub fn hear_clip<V: VoiceActivity, R: Recogniser>(
    samples: &[f32],
    vad: V,
    asr: R,
    config: ListenConfig,
) -> Result<ClipHeard, ListenError> {
    let mut listener = Listener::new(vad, asr, config);
    let mut heard = Vec::new();
    for block in samples.chunks(BLOCK_SAMPLES) {
        heard.extend(listener.push(block)?);
    }
    heard.extend(listener.finish()?);
    Ok(ClipHeard {
        heard,
        stats: listener.stats(),
        duration_s: samples.len() as f64 / f64::from(super::resample::RATE_HZ),
    })
}
