//! Earcons: short tones for frequent events (a tick, a rising or falling sweep, a double
//! beep), cheaper to hear than words when the same thing happens often. Pure: rendered at
//! the speech sample rate with 5 ms raised-cosine edges, so they never click.

use std::f64::consts::PI;

/// A short tone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Earcon {
    /// 1 kHz, 40 ms.
    Tick,
    /// 600 → 1200 Hz sweep, 80 ms (something appears / gets closer; a step up).
    Rising,
    /// 1200 → 600 Hz sweep, 80 ms (something leaves / gets farther; a step down).
    Falling,
    /// Two 880 Hz beeps of 35 ms, 20 ms apart.
    Double,
}

/// Peak level, as a fraction of full scale.
const LEVEL: f64 = 0.3;
/// Fade-in and fade-out length.
const EDGE_S: f64 = 0.005;

impl Earcon {
    /// The samples at `rate_hz` (mono, signed 16-bit).
    pub fn render(self, rate_hz: u32) -> Vec<i16> {
        let rate = f64::from(rate_hz.max(1));
        match self {
            Earcon::Tick => sweep(1000.0, 1000.0, 0.040, rate),
            Earcon::Rising => sweep(600.0, 1200.0, 0.080, rate),
            Earcon::Falling => sweep(1200.0, 600.0, 0.080, rate),
            Earcon::Double => {
                let beep = sweep(880.0, 880.0, 0.035, rate);
                let gap = vec![0i16; (0.020 * rate).round() as usize];
                [beep.as_slice(), &gap, &beep].concat()
            }
        }
    }

    /// How long it nominally lasts, in nanoseconds (rendering rounds each part to whole
    /// samples).
    pub fn duration_ns(self) -> i64 {
        match self {
            Earcon::Tick => 40_000_000,
            Earcon::Rising | Earcon::Falling => 80_000_000,
            Earcon::Double => 90_000_000,
        }
    }
}

/// A linear frequency sweep from `f0` to `f1` Hz over `secs`, with raised-cosine edges.
fn sweep(f0: f64, f1: f64, secs: f64, rate: f64) -> Vec<i16> {
    let n = (secs * rate).round() as usize;
    let edge = (EDGE_S * rate).max(1.0);
    (0..n)
        .map(|i| {
            let t = i as f64 / rate;
            // Phase of a linear chirp: 2π (f0 t + (f1 − f0) t² / (2 secs)).
            let phase = 2.0 * PI * (f0 * t + (f1 - f0) * t * t / (2.0 * secs));
            let from_end = (n - 1 - i) as f64;
            let k = (i as f64).min(from_end);
            let env = if k < edge {
                0.5 - 0.5 * (PI * k / edge).cos()
            } else {
                1.0
            };
            (phase.sin() * env * LEVEL * 32_767.0).round() as i16
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rising_crossings(s: &[i16]) -> usize {
        s.windows(2).filter(|w| w[0] < 0 && w[1] >= 0).count()
    }

    #[test]
    fn lengths_match_durations() {
        for e in [
            Earcon::Tick,
            Earcon::Rising,
            Earcon::Falling,
            Earcon::Double,
        ] {
            let n = e.render(22_050).len() as i64;
            let nominal = (e.duration_ns() * 22_050 + 500_000_000) / 1_000_000_000;
            assert!((n - nominal).abs() <= 1, "{e:?}: {n} vs {nominal}");
        }
    }

    #[test]
    fn tones_have_their_pitch_and_soft_edges() {
        let tick = Earcon::Tick.render(22_050);
        // 1 kHz for 40 ms: 40 cycles (±1 for the edges).
        assert!((39..=41).contains(&rising_crossings(&tick)));
        assert!(tick[0].abs() < 50 && tick[tick.len() - 1].abs() < 50);
        let peak = tick.iter().map(|s| s.unsigned_abs()).max().unwrap();
        assert!((9_500..=9_900).contains(&peak), "{peak}");
        // A rising sweep has more cycles in its second half than in its first.
        let r = Earcon::Rising.render(22_050);
        let (a, b) = r.split_at(r.len() / 2);
        assert!(rising_crossings(b) > rising_crossings(a));
        let f = Earcon::Falling.render(22_050);
        let (a, b) = f.split_at(f.len() / 2);
        assert!(rising_crossings(b) < rising_crossings(a));
    }
}
