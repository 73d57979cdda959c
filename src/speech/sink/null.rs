//! The null sink: audio is consumed at real-time pace (the speaker feeds it just ahead of the
//! clock, as it would a device) and discarded.

use super::{AudioSink, Pacing, SinkError};
use crate::speech::pan::Pan;

/// Discards audio, counting it.
#[derive(Debug, Default)]
pub struct NullSink {
    samples: u64,
}

impl NullSink {
    /// A new null sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// Samples received so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

impl AudioSink for NullSink {
    fn name(&self) -> &str {
        "null"
    }

    fn pacing(&self) -> Pacing {
        Pacing::RealTime
    }

    fn write(&mut self, _start_index: u64, samples: &[i16], _pan: Pan) -> Result<(), SinkError> {
        self.samples += samples.len() as u64;
        Ok(())
    }

    fn finish(&mut self, _end_index: Option<u64>) -> Result<(), SinkError> {
        Ok(())
    }
}
