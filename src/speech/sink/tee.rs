//! A real-time sink that also records what it plays into a WAV file at the same timeline
//! positions, so a live or real-time session leaves a `speech.wav` that lines up with it.

use super::{AudioSink, Pacing, SinkError, WavSink};
use crate::speech::pan::Pan;

/// Plays on `live` and records into `record`.
pub struct TeeSink {
    live: Box<dyn AudioSink>,
    record: WavSink,
    name: String,
}

impl TeeSink {
    /// Plays on `live` (its pacing rules) and records every block into `record`.
    pub fn new(live: Box<dyn AudioSink>, record: WavSink) -> Self {
        let name = format!("{}+wav", live.name());
        Self { live, record, name }
    }
}

impl std::fmt::Debug for TeeSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeeSink").field("name", &self.name).finish()
    }
}

impl AudioSink for TeeSink {
    fn name(&self) -> &str {
        &self.name
    }

    fn pacing(&self) -> Pacing {
        self.live.pacing()
    }

    fn write(&mut self, start_index: u64, samples: &[i16], pan: Pan) -> Result<(), SinkError> {
        self.live.write(start_index, samples, pan)?;
        self.record.write(start_index, samples, pan)
    }

    fn write_over(
        &mut self,
        start_index: u64,
        samples: &[i16],
        pan: Pan,
        over: &[i16],
        over_pan: Pan,
    ) -> Result<(), SinkError> {
        self.live
            .write_over(start_index, samples, pan, over, over_pan)?;
        self.record
            .write_over(start_index, samples, pan, over, over_pan)
    }

    fn finish(&mut self, end_index: Option<u64>) -> Result<(), SinkError> {
        let live = self.live.finish(end_index);
        self.record.finish(end_index)?;
        live
    }
}
