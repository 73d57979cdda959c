//! [`To16k`]: mono audio at any common rate brought to the recogniser's 16 kHz, block by block
//! as it arrives (band-limited sinc interpolation by `rubato`; 16 kHz passes through). The
//! resampler's delay is removed, so sample `n` out is at `n / 16000` s from the first sample in.

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::{
    Async, FixedAsync, Resampler, SincInterpolationParameters, SincInterpolationType,
    WindowFunction,
};

use super::error::ListenError;

/// The recogniser's and the voice detector's sample rate, Hz.
pub const RATE_HZ: u32 = 16_000;
/// Lowest input rate taken, Hz (telephone audio).
pub const MIN_RATE_HZ: u32 = 8_000;
/// Highest input rate taken, Hz.
pub const MAX_RATE_HZ: u32 = 192_000;
/// Input frames per resampler call.
const CHUNK_FRAMES: usize = 1024;

/// A streaming resampler to 16 kHz mono.
pub struct To16k {
    inner: Option<Async<f32>>,
    pending: Vec<f32>,
    out_buf: Vec<f32>,
    /// Output samples still to drop (the filter's delay).
    skip: usize,
    /// Input frames taken, and output frames given, since the start (for the flush).
    frames_in: u64,
    frames_out: u64,
    rate_hz: u32,
}

impl std::fmt::Debug for To16k {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("To16k")
            .field("rate_hz", &self.rate_hz)
            .finish()
    }
}

fn resample_err(e: impl std::fmt::Display) -> ListenError {
    ListenError::Model {
        path: "rubato".into(),
        what: e.to_string(),
    }
}

impl To16k {
    /// A resampler from `rate_hz` (8–192 kHz).
    pub fn new(rate_hz: u32) -> Result<Self, ListenError> {
        if !(MIN_RATE_HZ..=MAX_RATE_HZ).contains(&rate_hz) {
            return Err(ListenError::Rate {
                rate_hz,
                min_hz: MIN_RATE_HZ,
                max_hz: MAX_RATE_HZ,
            });
        }
        let (inner, skip, out_len) = if rate_hz == RATE_HZ {
            (None, 0, 0)
        } else {
            let params = SincInterpolationParameters {
                sinc_len: 128,
                f_cutoff: None,
                oversampling_factor: 128,
                interpolation: SincInterpolationType::Linear,
                window: WindowFunction::BlackmanHarris2,
            };
            let r = Async::<f32>::new_sinc(
                f64::from(RATE_HZ) / f64::from(rate_hz),
                1.0,
                &params,
                CHUNK_FRAMES,
                1,
                FixedAsync::Input,
            )
            .map_err(resample_err)?;
            let skip = r.output_delay();
            let out_len = r.output_frames_max();
            (Some(r), skip, out_len)
        };
        Ok(Self {
            inner,
            pending: Vec::with_capacity(CHUNK_FRAMES),
            out_buf: vec![0.0; out_len],
            skip,
            frames_in: 0,
            frames_out: 0,
            rate_hz,
        })
    }

    /// The input rate, Hz.
    pub fn rate_hz(&self) -> u32 {
        self.rate_hz
    }

    /// Takes `input` (mono, at the input rate) and appends what is ready at 16 kHz to `out`.
    pub fn push(&mut self, input: &[f32], out: &mut Vec<f32>) -> Result<(), ListenError> {
        self.frames_in += input.len() as u64;
        if self.inner.is_none() {
            out.extend_from_slice(input);
            self.frames_out += input.len() as u64;
            return Ok(());
        }
        let mut rest = input;
        while !rest.is_empty() {
            let take = (CHUNK_FRAMES - self.pending.len()).min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() == CHUNK_FRAMES {
                self.run_chunk(None, out)?;
            }
        }
        Ok(())
    }

    /// Pushes out what is held (the last partial chunk and the filter's tail), so the output
    /// holds every input sample's time.
    pub fn flush(&mut self, out: &mut Vec<f32>) -> Result<(), ListenError> {
        if self.inner.is_none() {
            return Ok(());
        }
        let want =
            (self.frames_in as f64 * f64::from(RATE_HZ) / f64::from(self.rate_hz)).round() as u64;
        // Each call with a partial (or empty) chunk feeds silence behind what is held.
        let mut guard = 0;
        while self.frames_out < want && guard < 64 {
            let partial = self.pending.len();
            self.pending.resize(CHUNK_FRAMES, 0.0);
            self.run_chunk(Some(partial), out)?;
            guard += 1;
        }
        if self.frames_out > want {
            let extra = (self.frames_out - want) as usize;
            out.truncate(out.len().saturating_sub(extra));
            self.frames_out = want;
        }
        Ok(())
    }

    fn run_chunk(&mut self, partial: Option<usize>, out: &mut Vec<f32>) -> Result<(), ListenError> {
        let Some(r) = self.inner.as_mut() else {
            return Ok(());
        };
        let input =
            InterleavedSlice::new(&self.pending[..], 1, CHUNK_FRAMES).map_err(resample_err)?;
        let out_len = self.out_buf.len();
        let mut output =
            InterleavedSlice::new_mut(&mut self.out_buf[..], 1, out_len).map_err(resample_err)?;
        let indexing = partial.map(|n| rubato::Indexing {
            input_offset: 0,
            output_offset: 0,
            partial_len: Some(n),
            active_channels_mask: None,
        });
        let (_, written) = r
            .process_into_buffer(&input, &mut output, indexing.as_ref())
            .map_err(resample_err)?;
        self.pending.clear();
        let produced = &self.out_buf[..written];
        let drop = self.skip.min(produced.len());
        self.skip -= drop;
        out.extend_from_slice(&produced[drop..]);
        self.frames_out += (produced.len() - drop) as u64;
        Ok(())
    }
}

/// `input` at `rate_hz`, whole, at 16 kHz.
pub fn to_16k(input: &[f32], rate_hz: u32) -> Result<Vec<f32>, ListenError> {
    let mut r = To16k::new(rate_hz)?;
    let mut out = Vec::with_capacity(input.len() * RATE_HZ as usize / rate_hz as usize + 16);
    r.push(input, &mut out)?;
    r.flush(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(rate: u32, hz: f32, seconds: f32) -> Vec<f32> {
        let n = (rate as f32 * seconds) as usize;
        (0..n)
            .map(|i| 0.5 * (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin())
            .collect()
    }

    /// Amplitude of `hz` in `x` (16 kHz), by correlation.
    fn amplitude(x: &[f32], hz: f32) -> f32 {
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for (i, v) in x.iter().enumerate() {
            let p = 2.0 * std::f64::consts::PI * f64::from(hz) * i as f64 / 16_000.0;
            s += f64::from(*v) * p.sin();
            c += f64::from(*v) * p.cos();
        }
        (2.0 * (s * s + c * c).sqrt() / x.len() as f64) as f32
    }

    #[test]
    fn keeps_speech_band_and_length_and_removes_what_16k_cannot_hold() {
        for rate in [8_000, 22_050, 44_100, 48_000] {
            let x = sine(rate, 440.0, 1.0);
            // Fed in odd-sized blocks, as a stream.
            let mut r = To16k::new(rate).unwrap();
            let mut out = Vec::new();
            for block in x.chunks(777) {
                r.push(block, &mut out).unwrap();
            }
            r.flush(&mut out).unwrap();
            assert!(
                (out.len() as i64 - 16_000).abs() <= 1,
                "{rate}: {} samples",
                out.len()
            );
            let a = amplitude(&out[800..15_200], 440.0);
            assert!((a - 0.5).abs() < 0.02, "{rate}: 440 Hz at {a}");
            // Zero delay: the sine's phase is where it was (correlate with the input's start).
            let first = out.iter().position(|v| v.abs() > 0.05).unwrap();
            assert!(first < 8, "{rate}: starts {first} samples late");
        }
        // 10 kHz is above 16 kHz's Nyquist limit: it must not fold back into the speech band.
        let x = sine(48_000, 10_000.0, 1.0);
        let out = to_16k(&x, 48_000).unwrap();
        let rms = (out[800..15_200].iter().map(|v| v * v).sum::<f32>() / 14_400.0).sqrt();
        assert!(rms < 0.01, "aliased rms {rms}");
    }

    #[test]
    fn passes_16k_through_and_refuses_odd_rates() {
        let x = sine(16_000, 300.0, 0.1);
        assert_eq!(to_16k(&x, 16_000).unwrap(), x);
        assert!(matches!(To16k::new(4_000), Err(ListenError::Rate { .. })));
        assert!(matches!(To16k::new(384_000), Err(ListenError::Rate { .. })));
    }
}
