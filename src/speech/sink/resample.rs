//! Linear-interpolation resampling of mono 16-bit speech to a device's rate, as `f32`
//! in −1..1, continuous across blocks. Pure.

/// A streaming linear resampler from `from_hz` to `to_hz`. Positions are kept as exact
/// fractions, so the output does not depend on how the input is split into blocks.
#[derive(Clone, Debug)]
pub struct LinearResampler {
    from_hz: u64,
    to_hz: u64,
    /// Position of the next output sample, in 1/`to_hz` input samples, where 0 is the last
    /// sample of the previous block.
    pos: u64,
    prev: f32,
}

impl LinearResampler {
    /// A resampler from `from_hz` to `to_hz` (both clamped to ≥ 1).
    pub fn new(from_hz: u32, to_hz: u32) -> Self {
        let to_hz = u64::from(to_hz.max(1));
        Self {
            from_hz: u64::from(from_hz.max(1)),
            to_hz,
            // Start on the first input sample of the first block.
            pos: to_hz,
            prev: 0.0,
        }
    }

    /// Appends the resampled `input` to `out`.
    pub fn process(&mut self, input: &[i16], out: &mut Vec<f32>) {
        let n = input.len() as u64;
        if n == 0 {
            return;
        }
        let prev = self.prev;
        let at = |k: u64| -> f32 {
            match k.checked_sub(1) {
                None => prev,
                Some(j) => input.get(j as usize).map_or(0.0, |&s| s as f32 / 32_768.0),
            }
        };
        while self.pos <= n * self.to_hz {
            let i = self.pos / self.to_hz;
            let frac = (self.pos % self.to_hz) as f32 / self.to_hz as f32;
            let a = at(i);
            let b = if i < n { at(i + 1) } else { a };
            out.push(a + (b - a) * frac);
            self.pos += self.from_hz;
        }
        self.pos -= n * self.to_hz;
        self.prev = at(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(from: u32, to: u32, input: &[i16], block: usize) -> Vec<f32> {
        let mut r = LinearResampler::new(from, to);
        let mut out = Vec::new();
        for b in input.chunks(block) {
            r.process(b, &mut out);
        }
        out
    }

    #[test]
    fn same_rate_is_identity() {
        let input: Vec<i16> = (0..1000).map(|i| (i * 31 % 2000 - 1000) as i16).collect();
        let out = run(22_050, 22_050, &input, 77);
        assert_eq!(out.len(), input.len());
        for (o, i) in out.iter().zip(&input) {
            assert_eq!(*o, *i as f32 / 32_768.0);
        }
    }

    #[test]
    fn length_follows_the_rate_ratio_and_blocks_do_not_matter() {
        let input: Vec<i16> = (0..22_050)
            .map(|i| ((i as f32 * 0.05).sin() * 10_000.0) as i16)
            .collect();
        let whole = run(22_050, 48_000, &input, input.len());
        let blocks = run(22_050, 48_000, &input, 441);
        assert!((whole.len() as i64 - 48_000).abs() <= 3, "{}", whole.len());
        assert!(whole == blocks, "block boundaries changed the output");
    }

    #[test]
    fn tone_keeps_its_frequency() {
        // 440 Hz at 22 050 Hz → 48 000 Hz: count rising zero crossings over one second.
        let input: Vec<i16> = (0..22_050)
            .map(|i| {
                ((i as f64 * 2.0 * std::f64::consts::PI * 440.0 / 22_050.0).sin() * 20_000.0) as i16
            })
            .collect();
        let out = run(22_050, 48_000, &input, 500);
        let rising = out.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
        assert!((439..=441).contains(&rising), "{rising}");
    }
}
