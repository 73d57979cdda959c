//! The window's output: one contiguous `f32` tensor `[BINS, C]` plus a `[BINS]` validity
//! mask per grid stream (the fusion network's input contract, `models/contract.md`).

use crate::time::DeviceTime;
use crate::window::spec::{GridStream, BINS};

/// One stream's grid.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamTensor {
    /// Which stream.
    pub stream: GridStream,
    /// Row-major `[BINS, C]` values, `C = stream.channel_count()`; 0 in masked bins and in
    /// optional channels that were not observed.
    pub values: Vec<f32>,
    /// Per bin: true when the bin holds a valid observation.
    pub mask: [bool; BINS],
    /// Per bin: bit `c` set when channel `c` holds an observed value.
    pub observed: [u16; BINS],
}

impl StreamTensor {
    /// A zeroed, fully masked tensor for `stream` (allocates its value storage once).
    pub fn new(stream: GridStream) -> Self {
        Self {
            stream,
            values: vec![0.0; BINS * stream.channel_count()],
            mask: [false; BINS],
            observed: [0; BINS],
        }
    }

    /// `[BINS, C]`.
    pub fn shape(&self) -> [usize; 2] {
        [BINS, self.stream.channel_count()]
    }

    /// The value at `bin`, channel `ch`.
    pub fn get(&self, bin: usize, ch: usize) -> Option<f32> {
        let c = self.stream.channel_count();
        if ch >= c {
            return None;
        }
        self.values.get(bin * c + ch).copied()
    }

    /// Whether channel `ch` of `bin` holds an observed value (implies the bin is valid).
    pub fn observed(&self, bin: usize, ch: usize) -> bool {
        ch < 16
            && self
                .observed
                .get(bin)
                .is_some_and(|&bits| bits & (1 << ch) != 0)
    }

    /// Valid bins.
    pub fn valid_bins(&self) -> usize {
        self.mask.iter().filter(|&&m| m).count()
    }

    /// Mean of channel `ch` over the bins where it was observed, if any.
    pub fn channel_mean(&self, ch: usize) -> Option<f64> {
        let (mut sum, mut n) = (0.0f64, 0u32);
        for bin in 0..BINS {
            if self.observed(bin, ch) {
                if let Some(v) = self.get(bin, ch) {
                    sum += f64::from(v);
                    n += 1;
                }
            }
        }
        (n > 0).then(|| sum / f64::from(n))
    }
}

/// Every grid stream's tensor for one window `[t_end − BINS·bin_ns, t_end]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorWindow {
    /// The window's end (the newest capture time it may include).
    pub t_end: DeviceTime,
    /// Bin width, ns.
    pub bin_ns: i64,
    /// Start of the oldest bin, device ns (bins are aligned to multiples of `bin_ns`; the
    /// newest bin is the one holding `t_end` and ends there).
    pub first_bin_start_ns: i64,
    /// Whether normalisation statistics were applied.
    pub normalised: bool,
    /// One tensor per [`GridStream::ALL`] entry, in that order.
    pub streams: [StreamTensor; 5],
}

impl SensorWindow {
    /// An empty window (allocates the tensors; reuse it for every update).
    pub fn new() -> Self {
        Self {
            t_end: DeviceTime(0),
            bin_ns: 0,
            first_bin_start_ns: 0,
            normalised: false,
            streams: GridStream::ALL.map(StreamTensor::new),
        }
    }

    /// The tensor of `s`.
    pub fn stream(&self, s: GridStream) -> &StreamTensor {
        // In bounds: `streams` has one entry per `GridStream` in index order.
        &self.streams[s.index()]
    }
}

impl Default for SensorWindow {
    fn default() -> Self {
        Self::new()
    }
}
