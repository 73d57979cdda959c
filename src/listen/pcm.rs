//! Audio files as the recogniser hears them: a WAV file of any common form (8/16/24/32-bit
//! integer or 32-bit float, any rate from 8 to 192 kHz, any number of channels) read in
//! blocks, its channels averaged to mono and brought to 16 kHz as it is read, so memory is
//! bounded by the 16 kHz result ([`MAX_FILE_S`] at most).

use std::path::{Path, PathBuf};

use super::error::ListenError;
use super::resample::{To16k, RATE_HZ};

/// Longest file listened to, seconds (30 minutes: 115 MB at 16 kHz).
pub const MAX_FILE_S: f64 = 1800.0;
/// Frames read per block.
const BLOCK_FRAMES: usize = 4096;

/// A whole file at 16 kHz mono.
#[derive(Clone, Debug)]
pub struct Clip {
    /// The file.
    pub path: PathBuf,
    /// Its own sample rate, Hz.
    pub source_rate_hz: u32,
    /// Its channel count (averaged to one).
    pub channels: u16,
    /// Samples at 16 kHz, about −1 to 1.
    pub samples: Vec<f32>,
}

impl Clip {
    /// Length, seconds.
    pub fn duration_s(&self) -> f64 {
        self.samples.len() as f64 / f64::from(RATE_HZ)
    }
}

/// Reads `path` to 16 kHz mono.
pub fn read_wav_16k(path: &Path) -> Result<Clip, ListenError> {
    let bad = |reason: String| ListenError::Audio {
        path: path.to_path_buf(),
        reason,
    };
    let mut reader = hound::WavReader::open(path).map_err(|e| bad(e.to_string()))?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels);
    if channels == 0 {
        return Err(bad("no channels".into()));
    }
    let frames = u64::from(reader.duration());
    let seconds = frames as f64 / f64::from(spec.sample_rate.max(1));
    if seconds > MAX_FILE_S {
        return Err(ListenError::TooLong {
            path: path.to_path_buf(),
            seconds,
            max_s: MAX_FILE_S,
        });
    }
    let mut resampler = To16k::new(spec.sample_rate).map_err(|e| bad(e.to_string()))?;
    let mut out = Vec::with_capacity((seconds * f64::from(RATE_HZ)) as usize + 1024);
    let mut block: Vec<f32> = Vec::with_capacity(BLOCK_FRAMES * channels);
    let mut mono: Vec<f32> = Vec::with_capacity(BLOCK_FRAMES);
    let scale = match spec.sample_format {
        hound::SampleFormat::Float => {
            if spec.bits_per_sample != 32 {
                return Err(bad(format!("{}-bit float samples", spec.bits_per_sample)));
            }
            1.0
        }
        hound::SampleFormat::Int => {
            if !(8..=32).contains(&spec.bits_per_sample) {
                return Err(bad(format!("{}-bit samples", spec.bits_per_sample)));
            }
            1.0 / (1u64 << (spec.bits_per_sample - 1)) as f32
        }
    };
    let mut flush_block = |block: &mut Vec<f32>, out: &mut Vec<f32>| -> Result<(), ListenError> {
        mono.clear();
        mono.extend(
            block
                .chunks_exact(channels)
                .map(|f| f.iter().sum::<f32>() / channels as f32),
        );
        block.clear();
        resampler.push(&mono, out)
    };
    let mut index = 0u64;
    match spec.sample_format {
        hound::SampleFormat::Float => {
            for s in reader.samples::<f32>() {
                let v = s.map_err(|e| bad(format!("sample {index}: {e}")))?;
                block.push(if v.is_finite() {
                    v.clamp(-1.0, 1.0)
                } else {
                    0.0
                });
                index += 1;
                if block.len() == BLOCK_FRAMES * channels {
                    flush_block(&mut block, &mut out)?;
                }
            }
        }
        hound::SampleFormat::Int => {
            for s in reader.samples::<i32>() {
                let v = s.map_err(|e| bad(format!("sample {index}: {e}")))?;
                block.push(v as f32 * scale);
                index += 1;
                if block.len() == BLOCK_FRAMES * channels {
                    flush_block(&mut block, &mut out)?;
                }
            }
        }
    }
    // A last partial frame (a truncated file) is dropped.
    block.truncate(block.len() / channels * channels);
    flush_block(&mut block, &mut out)?;
    resampler.flush(&mut out)?;
    Ok(Clip {
        path: path.to_path_buf(),
        source_rate_hz: spec.sample_rate,
        channels: spec.channels,
        samples: out,
    })
}

/// Writes 16 kHz mono samples as a 16-bit WAV (for tests and for `vista listen`'s cuts).
pub fn write_wav_16k(path: &Path, samples: &[f32]) -> Result<(), ListenError> {
    let bad = |e: hound::Error| ListenError::Audio {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: RATE_HZ,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).map_err(bad)?;
    for &v in samples {
        w.write_sample((v.clamp(-1.0, 1.0) * 32767.0) as i16)
            .map_err(bad)?;
    }
    w.finalize().map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_any_rate_and_channel_count_to_16k_mono() {
        let dir = tempfile::tempdir().unwrap();
        // 0.5 s of 44.1 kHz stereo, 24-bit, the tone in the left channel only.
        let p = dir.path().join("s.wav");
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: 44_100,
            bits_per_sample: 24,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(&p, spec).unwrap();
        for i in 0..22_050 {
            let v = (0.8
                * (2.0 * std::f32::consts::PI * 300.0 * i as f32 / 44_100.0).sin()
                * 8_388_607.0) as i32;
            w.write_sample(v).unwrap();
            w.write_sample(0i32).unwrap();
        }
        w.finalize().unwrap();
        let clip = read_wav_16k(&p).unwrap();
        assert_eq!((clip.source_rate_hz, clip.channels), (44_100, 2));
        assert!((clip.samples.len() as i64 - 8_000).abs() <= 1);
        let peak = clip.samples[400..7_600]
            .iter()
            .fold(0.0f32, |m, v| m.max(v.abs()));
        assert!((peak - 0.4).abs() < 0.02, "peak {peak}");
    }

    #[test]
    fn damaged_and_missing_files_are_errors_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.wav");
        std::fs::write(&p, b"RIFF\x10\x00\x00\x00WAVEjunkjunk").unwrap();
        let e = read_wav_16k(&p).unwrap_err().to_string();
        assert!(e.contains("bad.wav"), "{e}");
        let e = read_wav_16k(&dir.path().join("none.wav"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("none.wav"), "{e}");
        // A file cut short mid-sample keeps what was whole.
        let p = dir.path().join("cut.wav");
        write_wav_16k(&p, &vec![0.25; 16_000]).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 1001]).unwrap();
        match read_wav_16k(&p) {
            Ok(c) => assert!(c.samples.len() > 15_000),
            Err(e) => assert!(e.to_string().contains("cut.wav")),
        }
    }
}
