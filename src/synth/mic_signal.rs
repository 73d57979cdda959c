//! What the glasses' seven microphones hear in a synthetic session: a quiet room, and the
//! wearer's voice placed at given frames ([`Microphones::add_voice`], from
//! [`super::spoken`]).
//!
//! - **Room noise**: on each channel its own seeded white noise through a one-pole low-pass
//!   at [`ROOM_NOISE_CUTOFF_HZ`], at [`ROOM_NOISE_DBFS`] RMS (about 50 dB below full
//!   scale). The 0.34 s of a real Gen1 recording in projectaria_tools'
//!   `aria_everyday_activities_test_data` measure −61 to −70 dBFS per channel, so this room
//!   is louder than that one; three of its channels also carry a DC offset (−33 to
//!   −44 dBFS), which is not modelled here.
//! - **The voice at each microphone**: the mouth sits [`MOUTH_TO_MIC_M`] from the seven
//!   microphones (an **assumption**: the frame's microphones are spread over the nose bridge,
//!   the rims and the temples, 8–14 cm from the mouth). Each channel hears the voice later
//!   by its extra path at 343 m/s (0–0.18 ms, whole frames at 48 kHz), weaker by 1/distance,
//!   and scaled by its microphone's sensitivity offset from the calibration's
//!   `MicCalibrations` (`DSensitivity1KDbv`, a few tenths of a dB); the gains average 1.
//! - **Samples** are quantised to 24 bits and carried in the high bits of signed 32-bit
//!   samples, as a real Gen1 recording's are (its low byte is always zero).
//!
//! Blocks must be rendered in order ([`Microphones::render`]); the voice is held only from
//! a little before the block being rendered, so memory stays bounded by the longest voice.

use std::collections::VecDeque;

use super::mic_stream::{CHANNELS, RATE_HZ};
use super::rng::SplitMix64;

/// Room noise level per channel, dB below full scale (RMS).
pub const ROOM_NOISE_DBFS: f64 = -50.0;
/// Corner frequency of the room noise's low-pass, Hz (most room noise is low: ventilation,
/// traffic, the building).
pub const ROOM_NOISE_CUTOFF_HZ: f64 = 400.0;
/// Speed of sound, m/s.
pub const SPEED_OF_SOUND_MPS: f64 = 343.0;
/// Distance from the wearer's mouth to each microphone, m (**assumption**, see the module
/// documentation).
pub const MOUTH_TO_MIC_M: [f64; CHANNELS] = [0.080, 0.085, 0.100, 0.105, 0.120, 0.130, 0.140];

/// Largest sample of 24 bits.
const FULL_SCALE_24: f64 = 8_388_608.0;

/// One channel's room noise.
#[derive(Debug, Clone)]
struct RoomNoise {
    rng: SplitMix64,
    y: f64,
    alpha: f64,
    /// Scale of the white input so that the low-passed output has the wanted RMS.
    k: f64,
}

impl RoomNoise {
    fn new(seed: u64, channel: usize, rms: f64) -> Self {
        let alpha =
            1.0 - (-std::f64::consts::TAU * ROOM_NOISE_CUTOFF_HZ / f64::from(RATE_HZ)).exp();
        // Uniform input on [-1, 1] has variance 1/3; the low-pass keeps α/(2−α) of it.
        let k = rms / (alpha / (2.0 - alpha) / 3.0).sqrt();
        let mut rng = SplitMix64::derive(seed, &format!("mic{channel}"));
        // Start in the stationary state, not from silence.
        let y = rms * rng.normal();
        Self { rng, y, alpha, k }
    }

    fn next(&mut self) -> f64 {
        let w = 2.0 * self.rng.uniform() - 1.0;
        self.y += self.alpha * (self.k * w - self.y);
        self.y
    }
}

/// Each channel's voice gain (averaging 1) and delay in frames: 1/distance and the
/// microphones' sensitivities (dBV at 1 kHz; `None`: all alike).
pub fn voice_paths(sensitivity_dbv: Option<[f64; CHANNELS]>) -> ([f32; CHANNELS], [u64; CHANNELS]) {
    let mean_sens = sensitivity_dbv.map_or(0.0, |s| s.iter().sum::<f64>() / CHANNELS as f64);
    let nearest = MOUTH_TO_MIC_M.iter().copied().fold(f64::INFINITY, f64::min);
    let mut raw = [0.0f64; CHANNELS];
    let mut delay = [0u64; CHANNELS];
    for c in 0..CHANNELS {
        let d = MOUTH_TO_MIC_M[c];
        let sens = sensitivity_dbv.map_or(0.0, |s| s[c] - mean_sens);
        raw[c] = 10f64.powf(sens / 20.0) / d;
        delay[c] = ((d - nearest) / SPEED_OF_SOUND_MPS * f64::from(RATE_HZ)).round() as u64;
    }
    let mean = raw.iter().sum::<f64>() / CHANNELS as f64;
    let gain = raw.map(|g| (g / mean) as f32);
    (gain, delay)
}

/// The microphones' sensitivities from a calibration JSON's `MicCalibrations`
/// (`mic0`…`mic6`, `DSensitivity1KDbv`); `None` when any is missing or out of a sane range.
pub fn mic_sensitivities(calib_json: &str) -> Option<[f64; CHANNELS]> {
    let v: serde_json::Value = serde_json::from_str(calib_json).ok()?;
    let mics = v.get("MicCalibrations")?.as_array()?;
    let mut out = [0.0; CHANNELS];
    for (c, o) in out.iter_mut().enumerate() {
        let label = format!("mic{c}");
        let m = mics
            .iter()
            .find(|m| m.get("Label").and_then(|l| l.as_str()) == Some(label.as_str()))?;
        let s = m.get("DSensitivity1KDbv")?.as_f64()?;
        // A microphone's sensitivity is tens of dB below 1 V/Pa; anything else is not one.
        if !(-80.0..=0.0).contains(&s) {
            return None;
        }
        *o = s;
    }
    Some(out)
}

/// The seven channels' signal, rendered block by block.
#[derive(Debug, Clone)]
pub struct Microphones {
    noise: Vec<RoomNoise>,
    gain: [f32; CHANNELS],
    delay: [u64; CHANNELS],
    max_delay: u64,
    /// The wearer's voice (full scale 1) at the nearest microphone, from frame `origin`.
    voice: VecDeque<f32>,
    origin: u64,
}

impl Microphones {
    /// A quiet room for `seed`; the voice reaches the channels with the calibration's
    /// sensitivities (`None`: all alike).
    pub fn new(seed: u64, sensitivity_dbv: Option<[f64; CHANNELS]>) -> Self {
        let rms = 10f64.powf(ROOM_NOISE_DBFS / 20.0);
        let (gain, delay) = voice_paths(sensitivity_dbv);
        Self {
            noise: (0..CHANNELS)
                .map(|c| RoomNoise::new(seed, c, rms))
                .collect(),
            gain,
            delay,
            max_delay: delay.iter().copied().max().unwrap_or(0),
            voice: VecDeque::new(),
            origin: 0,
        }
    }

    /// Adds `voice` (mono, 48 kHz, full scale 1, as heard at the nearest microphone) from
    /// frame `start`; voices that overlap add up. Frames already dropped (before the last
    /// rendered block) are left out.
    pub fn add_voice(&mut self, start: u64, voice: &[f32]) {
        let skip = self.origin.saturating_sub(start) as usize;
        let Some(voice) = voice.get(skip..) else {
            return;
        };
        let at = (start + skip as u64 - self.origin) as usize;
        if self.voice.len() < at + voice.len() {
            self.voice.resize(at + voice.len(), 0.0);
        }
        for (dst, v) in self.voice.iter_mut().skip(at).zip(voice) {
            *dst += v;
        }
    }

    /// Frames held of the voice (for bounds in tests).
    pub fn voice_frames_held(&self) -> usize {
        self.voice.len()
    }

    fn voice_at(&self, frame: u64) -> f32 {
        frame
            .checked_sub(self.origin)
            .and_then(|i| self.voice.get(i as usize))
            .copied()
            .unwrap_or(0.0)
    }

    /// Renders frames `first..first + frames` into `out` (cleared; interleaved, [`CHANNELS`]
    /// per frame, 24-bit samples in the high bits of i32). Blocks must follow each other.
    pub fn render(&mut self, first: u64, frames: usize, out: &mut Vec<i32>) {
        out.clear();
        out.reserve(frames * CHANNELS);
        for f in first..first + frames as u64 {
            for c in 0..CHANNELS {
                let n = self.noise.get_mut(c).map_or(0.0, RoomNoise::next);
                let v = f
                    .checked_sub(self.delay[c])
                    .map_or(0.0, |g| self.voice_at(g));
                let x = n + f64::from(self.gain[c] * v);
                let s = (x * FULL_SCALE_24)
                    .round()
                    .clamp(-FULL_SCALE_24, FULL_SCALE_24 - 1.0);
                out.push((s as i32) << 8);
            }
        }
        // The next block needs the voice from `max_delay` frames before its start.
        let keep_from = (first + frames as u64).saturating_sub(self.max_delay);
        let drop = keep_from.saturating_sub(self.origin);
        let n = (drop as usize).min(self.voice.len());
        self.voice.drain(..n);
        self.origin = self.origin.max(keep_from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rms_dbfs(x: &[i32], channel: usize) -> f64 {
        let ch: Vec<f64> = x
            .iter()
            .skip(channel)
            .step_by(CHANNELS)
            .map(|&s| f64::from(s) / 2_147_483_648.0)
            .collect();
        let ms = ch.iter().map(|v| v * v).sum::<f64>() / ch.len() as f64;
        10.0 * ms.log10()
    }

    #[test]
    fn the_room_is_quiet_noise_of_24_bits_different_on_every_channel() {
        let mut m = Microphones::new(1, None);
        let mut out = Vec::new();
        m.render(0, 48_000, &mut out);
        assert_eq!(out.len(), 48_000 * CHANNELS);
        for c in 0..CHANNELS {
            let l = rms_dbfs(&out, c);
            assert!(
                (l - ROOM_NOISE_DBFS).abs() < 1.5,
                "channel {c}: {l:.1} dBFS"
            );
        }
        assert!(out.iter().all(|s| s & 0xff == 0));
        assert_ne!(out[0], out[1]);
        // Same seed, same samples; blocks in order give the same as one long block.
        let mut again = Microphones::new(1, None);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        again.render(0, 20_000, &mut a);
        again.render(20_000, 28_000, &mut b);
        a.extend(b);
        assert_eq!(a, out);
    }

    #[test]
    fn the_voice_reaches_each_channel_with_its_gain_and_delay() {
        let sens = [-32.05, -31.81, -32.11, -31.64, -32.06, -32.28, -31.61];
        let (gain, delay) = voice_paths(Some(sens));
        let mean = gain.iter().sum::<f32>() / CHANNELS as f32;
        assert!((mean - 1.0).abs() < 1e-5);
        assert_eq!(delay[0], 0);
        assert!(delay.iter().all(|&d| d <= 9), "{delay:?}: sub-millisecond");
        assert!(delay.windows(2).all(|w| w[0] <= w[1]));
        assert!(gain.iter().any(|&g| (g - gain[0]).abs() > 0.05));

        let mut m = Microphones::new(2, Some(sens));
        // A click at frame 5000, across two blocks' border for the later channels.
        let mut click = vec![0.0f32; 8];
        click[0] = 0.5;
        m.add_voice(4_095, &click);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        m.render(0, 4_096, &mut a);
        m.render(4_096, 4_096, &mut b);
        a.extend(b);
        for c in 0..CHANNELS {
            let at = (4_095 + delay[c]) as usize * CHANNELS + c;
            let want = 0.5 * gain[c] as f64;
            let got = f64::from(a[at]) / 2_147_483_648.0;
            assert!((got - want).abs() < 0.01, "channel {c}: {got} for {want}");
        }
        // Nothing of the voice is held once it is past.
        let mut c = Vec::new();
        m.render(8_192, 4_096, &mut c);
        assert!(m.voice_frames_held() <= 9);
    }
}
