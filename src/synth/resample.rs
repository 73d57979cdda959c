//! [`resample`]: a whole clip from one sample rate to another by band-limited (windowed-sinc)
//! interpolation, for the wearer's voice (Piper's 22 050 Hz) on the microphones' 48 kHz.
//!
//! Rational polyphase: with `to / from = L / M` in lowest terms, output sample `n` lies at
//! input position `n·M / L`, so only `L` fractional phases occur and their taps are tabulated
//! once. Each phase is a Blackman-windowed sinc of [`HALF_TAPS`] input samples either side,
//! cut off at [`CUTOFF`] of the lower rate's Nyquist frequency, its taps scaled to sum to 1
//! (unit gain at 0 Hz). Output sample 0 is input sample 0's instant: no delay. Plain scalar
//! `f64` arithmetic, so the same input gives the same output bits on every machine.

/// Input samples used on each side of an output sample.
pub const HALF_TAPS: usize = 32;
/// Pass band, as a fraction of the lower rate's Nyquist frequency (the rest is the
/// transition band of the window).
pub const CUTOFF: f64 = 0.92;
/// Lowest rate taken, Hz.
pub const MIN_RATE_HZ: u32 = 8_000;
/// Highest rate taken, Hz.
pub const MAX_RATE_HZ: u32 = 192_000;
/// Most phases tabulated (`L` of `L / M`): 48 000 / 22 050 needs 320, 48 000 / 44 100 160.
pub const MAX_PHASES: u64 = 4_800;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-12 {
        1.0
    } else {
        let p = std::f64::consts::PI * x;
        p.sin() / p
    }
}

/// Blackman window over `[-1, 1]`.
fn blackman(u: f64) -> f64 {
    if u.abs() >= 1.0 {
        return 0.0;
    }
    let a = std::f64::consts::PI * (u + 1.0);
    0.42 - 0.5 * a.cos() + 0.08 * (2.0 * a).cos()
}

/// `input` (mono, at `from_hz`) at `to_hz`: `ceil(len · to / from)` samples. Rates must lie
/// within [`MIN_RATE_HZ`]..=[`MAX_RATE_HZ`] and have a ratio of at most [`MAX_PHASES`]
/// phases.
pub fn resample(input: &[f32], from_hz: u32, to_hz: u32) -> Result<Vec<f32>, String> {
    for r in [from_hz, to_hz] {
        if !(MIN_RATE_HZ..=MAX_RATE_HZ).contains(&r) {
            return Err(format!(
                "sample rate {r} Hz is outside {MIN_RATE_HZ}..={MAX_RATE_HZ} Hz"
            ));
        }
    }
    if from_hz == to_hz {
        return Ok(input.to_vec());
    }
    let g = gcd(u64::from(from_hz), u64::from(to_hz));
    let (l, m) = (u64::from(to_hz) / g, u64::from(from_hz) / g);
    if l > MAX_PHASES {
        return Err(format!(
            "{from_hz} Hz to {to_hz} Hz needs {l} phases (at most {MAX_PHASES})"
        ));
    }
    // Cut-off in cycles per input sample (0.5 is the input's Nyquist frequency).
    let fc = 0.5 * CUTOFF * (to_hz.min(from_hz) as f64 / from_hz as f64);
    let taps = 2 * HALF_TAPS;
    let mut table = vec![0.0f64; l as usize * taps];
    for (p, row) in table.chunks_exact_mut(taps).enumerate() {
        let frac = p as f64 / l as f64;
        for (j, t) in row.iter_mut().enumerate() {
            // Input sample i0 + j - (HALF_TAPS - 1), at distance d from the output's instant.
            let d = j as f64 - (HALF_TAPS as f64 - 1.0) - frac;
            *t = 2.0 * fc * sinc(2.0 * fc * d) * blackman(d / HALF_TAPS as f64);
        }
        let sum: f64 = row.iter().sum();
        if sum.abs() > 1e-12 {
            row.iter_mut().for_each(|t| *t /= sum);
        }
    }
    let n_out = (input.len() as u64 * l).div_ceil(m) as usize;
    let mut out = Vec::with_capacity(n_out);
    for n in 0..n_out as u64 {
        let pos = n * m;
        let i0 = (pos / l) as i64;
        let p = (pos % l) as usize;
        let row = &table[p * taps..(p + 1) * taps];
        let first = i0 - (HALF_TAPS as i64 - 1);
        let mut acc = 0.0f64;
        for (j, t) in row.iter().enumerate() {
            let i = first + j as i64;
            if i >= 0 {
                if let Some(x) = input.get(i as usize) {
                    acc += f64::from(*x) * t;
                }
            }
        }
        out.push(acc as f32);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(rate: u32, hz: f64, n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (0.5 * (std::f64::consts::TAU * hz * i as f64 / f64::from(rate)).sin()) as f32)
            .collect()
    }

    #[test]
    fn a_tone_keeps_its_amplitude_and_phase() {
        for hz in [200.0, 1_000.0, 4_000.0, 9_000.0] {
            let x = sine(22_050, hz, 22_050);
            let y = resample(&x, 22_050, 48_000).unwrap();
            assert_eq!(y.len(), 48_000);
            let ideal = sine(48_000, hz, 48_000);
            // Away from the ends (where the window runs past the clip).
            let err = y[1_000..47_000]
                .iter()
                .zip(&ideal[1_000..47_000])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(err < 2e-3, "{hz} Hz: error {err}");
        }
    }

    #[test]
    fn what_the_lower_rate_cannot_hold_is_removed() {
        // 10.5 kHz at 48 kHz is above 16 kHz's Nyquist frequency: gone at 16 kHz.
        let x = sine(48_000, 10_500.0, 48_000);
        let y = resample(&x, 48_000, 16_000).unwrap();
        assert_eq!(y.len(), 16_000);
        let rms = (y[500..15_500].iter().map(|v| v * v).sum::<f32>() / 15_000.0).sqrt();
        assert!(rms < 2e-3, "aliased RMS {rms}");
    }

    #[test]
    fn same_rate_passes_through_and_odd_rates_are_refused() {
        let x = sine(48_000, 440.0, 100);
        assert_eq!(resample(&x, 48_000, 48_000).unwrap(), x);
        assert!(resample(&x, 4_000, 48_000).is_err());
        assert!(resample(&x, 48_000, 400_000).is_err());
        assert!(resample(&x, 47_999, 48_000).is_err());
        assert!(resample(&[], 22_050, 48_000).unwrap().is_empty());
    }
}
