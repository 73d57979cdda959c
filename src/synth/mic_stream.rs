//! The Aria Gen1 microphone array's VRS stream as the glasses write it, for synthetic
//! sessions with the wearer's voice (`vista synth --spoken-requests`).
//!
//! The template recording has no audio stream, so the layout is written out here. Every name,
//! type, offset, format version and content-block string is the one a real Gen1 recording
//! holds (projectaria_tools' `data/gen1/aria_everyday_activities_test_data/recording.vrs`,
//! stream `231-1`, read byte by byte), and agrees with projectaria_tools'
//! `core/data_provider/data_layout/AudioMetadata.h` (`AudioConfigRecordMetadata`,
//! `AudioDataRecordMetadata`) and VRS's `vrs/DataLayoutConventions.h`
//! (`audio_channel_count`, `audio_sample_rate`, `audio_sample_format`):
//!
//! - recordable class 231 ("Stereo Audio Class", flavor `device/aria`), instance 1;
//! - configuration records, format version 1, `data_layout/size=10`: `stream_id` (u32, 0),
//!   `audio_channel_count` (u8, 7), `audio_sample_rate` (u32, 48 000),
//!   `audio_sample_format` (u8, 13: VRS `AudioSampleFormat::S32_LE`);
//! - data records, format version 2, `data_layout+audio/pcm/int32le/channels=7/rate=48000`:
//!   `audio_muted` (u8, 0) and `capture_timestamps_ns` (vector of i64, one per frame),
//!   then [`FRAMES_PER_RECORD`] interleaved frames of seven signed 32-bit little-endian
//!   samples carrying 24 significant bits (the low byte is zero in real recordings);
//!   the record's timestamp is its first frame's, and records are zstd-compressed as Aria's are.

use std::collections::BTreeMap;

use crate::aria::vrs::{DataLayout, DataLayoutEncoder, RecordType, StreamSpec, VrsStreamId};

/// The microphones' stream.
pub const AUDIO: VrsStreamId = VrsStreamId::new(231, 1);
/// Frames per second.
pub const RATE_HZ: u32 = 48_000;
/// Microphones (channels per frame).
pub const CHANNELS: usize = 7;
/// Frames in one data record (85.3 ms), as Gen1 writes them.
pub const FRAMES_PER_RECORD: usize = 4096;
/// VRS `AudioSampleFormat::S32_LE` (`vrs/RecordFormat.h`).
pub const SAMPLE_FORMAT_S32_LE: u8 = 13;
/// Format version of the configuration records.
pub const CONFIG_VERSION: u32 = 1;
/// Format version of the data records.
pub const DATA_VERSION: u32 = 2;
/// `VRS_Original_Recordable_Name` of the stream.
pub const RECORDABLE_NAME: &str = "Stereo Audio Class";
/// `VRS_Recordable_Flavor` of the stream.
pub const FLAVOR: &str = "device/aria";

const CONFIG_RF: &str = "data_layout/size=10";
const CONFIG_DL: &str = r#"{"data_layout":[{"name":"stream_id","type":"DataPieceValue<uint32_t>","offset":0},{"name":"audio_channel_count","type":"DataPieceValue<uint8_t>","offset":4},{"name":"audio_sample_rate","type":"DataPieceValue<uint32_t>","offset":5},{"name":"audio_sample_format","type":"DataPieceValue<uint8_t>","offset":9}]}"#;
const DATA_RF: &str = "data_layout+audio/pcm/int32le/channels=7/rate=48000";
const DATA_DL: &str = r#"{"data_layout":[{"name":"audio_muted","type":"DataPieceValue<uint8_t>","offset":0},{"name":"capture_timestamps_ns","type":"DataPieceVector<int64_t>","index":0}]}"#;

/// The stream's description: its record formats, name and flavor, the recording's
/// `session_id` user tag when the other streams carry one (real Gen1 audio streams carry
/// only that), and a `VRS_Serial_Number` (each real recordable has its own random one).
pub fn stream_spec(session_id: Option<&str>, serial: u64) -> StreamSpec {
    let mut spec = StreamSpec::new(AUDIO, RECORDABLE_NAME)
        .flavor(FLAVOR)
        .format(
            RecordType::Configuration,
            CONFIG_VERSION,
            CONFIG_RF,
            &[Some(CONFIG_DL)],
        )
        .format(
            RecordType::Data,
            DATA_VERSION,
            DATA_RF,
            &[Some(DATA_DL), None],
        );
    if let Some(s) = session_id {
        spec = spec.user_tag("session_id", s);
    }
    spec.extra_vrs_tags =
        BTreeMap::from([("VRS_Serial_Number".to_string(), format!("{serial:016x}"))]);
    spec
}

/// The configuration record's payload (10 bytes).
pub fn config_payload() -> Result<Vec<u8>, String> {
    let dl = DataLayout::from_json(CONFIG_DL)?;
    let mut e = DataLayoutEncoder::new(&dl);
    e.set::<u32>("stream_id", 0)?
        .set::<u8>("audio_channel_count", CHANNELS as u8)?
        .set::<u32>("audio_sample_rate", RATE_HZ)?
        .set::<u8>("audio_sample_format", SAMPLE_FORMAT_S32_LE)?;
    Ok(e.encode())
}

/// Device time of frame `frame` of a stream whose frame 0 is at `t0_ns`: the nearest
/// nanosecond to `t0 + frame / 48 kHz` (consecutive frames 20 833 or 20 834 ns apart, as in
/// real recordings).
pub fn frame_time_ns(t0_ns: i64, frame: u64) -> i64 {
    let rate = i128::from(RATE_HZ);
    let ns = (i128::from(frame) * 2_000_000_000 + rate) / (2 * rate);
    t0_ns.saturating_add(i64::try_from(ns).unwrap_or(i64::MAX))
}

/// The first frame at or after `t_ns` (a stream whose frame 0 is at `t0_ns`); 0 before it.
pub fn frame_at_or_after(t0_ns: i64, t_ns: i64) -> u64 {
    let dt = i128::from(t_ns.saturating_sub(t0_ns)).max(0);
    let rate = i128::from(RATE_HZ);
    let f = (dt * rate + 999_999_999) / 1_000_000_000;
    u64::try_from(f).unwrap_or(u64::MAX)
}

/// Whole data records in a session of `duration_s` (the last partial record is not written,
/// as the glasses write only full ones).
pub fn record_count(duration_s: f64) -> u64 {
    let frames = (duration_s.max(0.0) * f64::from(RATE_HZ)).floor();
    (frames / FRAMES_PER_RECORD as f64).floor() as u64
}

/// Encodes data records.
#[derive(Debug, Clone)]
pub struct AudioRecordEncoder {
    layout: DataLayout,
    times: Vec<i64>,
}

impl AudioRecordEncoder {
    /// An encoder of the data records' layout.
    pub fn new() -> Result<Self, String> {
        Ok(Self {
            layout: DataLayout::from_json(DATA_DL)?,
            times: Vec::with_capacity(FRAMES_PER_RECORD),
        })
    }

    /// Appends to `out` the payload of the record of frames `first_frame..` holding `pcm`
    /// (interleaved, [`CHANNELS`] per frame); returns the record's timestamp (its first
    /// frame's device time, ns).
    pub fn encode(
        &mut self,
        t0_ns: i64,
        first_frame: u64,
        pcm: &[i32],
        out: &mut Vec<u8>,
    ) -> Result<i64, String> {
        if pcm.len() % CHANNELS != 0 || pcm.is_empty() {
            return Err(format!(
                "{} samples are not whole frames of {CHANNELS} channels",
                pcm.len()
            ));
        }
        let frames = (pcm.len() / CHANNELS) as u64;
        self.times.clear();
        self.times
            .extend((first_frame..first_frame + frames).map(|f| frame_time_ns(t0_ns, f)));
        let mut e = DataLayoutEncoder::new(&self.layout);
        e.set::<u8>("audio_muted", 0)?
            .set_vector::<i64>("capture_timestamps_ns", &self.times)?;
        e.encode_into(out);
        out.reserve(pcm.len() * 4);
        for s in pcm {
            out.extend_from_slice(&s.to_le_bytes());
        }
        Ok(frame_time_ns(t0_ns, first_frame))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_one_48k_period_apart_to_the_nanosecond() {
        let t: Vec<i64> = (0..10).map(|f| frame_time_ns(0, f)).collect();
        assert_eq!(t[..4], [0, 20_833, 41_667, 62_500]);
        assert_eq!(frame_time_ns(5, 48_000), 1_000_000_005);
        assert_eq!(frame_at_or_after(0, 0), 0);
        assert_eq!(frame_at_or_after(0, 1), 1);
        assert_eq!(frame_at_or_after(0, 20_833), 1);
        assert_eq!(frame_at_or_after(0, 20_834), 2);
        assert_eq!(frame_at_or_after(100, 0), 0);
        assert_eq!(record_count(20.0), 234);
        assert_eq!(record_count(0.0), 0);
    }

    #[test]
    fn config_and_data_records_read_back_with_the_layouts() {
        let c = config_payload().unwrap();
        assert_eq!(c, [0, 0, 0, 0, 7, 0x80, 0xbb, 0, 0, 13]);
        let mut enc = AudioRecordEncoder::new().unwrap();
        let pcm: Vec<i32> = (0..2 * CHANNELS as i32).map(|v| v << 8).collect();
        let mut out = Vec::new();
        assert_eq!(
            enc.encode(1_000, 48_000, &pcm, &mut out).unwrap(),
            1_000_001_000
        );
        let dl = DataLayout::from_json(DATA_DL).unwrap();
        let n = dl.total_size(&out).unwrap();
        assert_eq!(n, 1 + 8 + 16);
        assert_eq!(dl.value::<u8>(&out, "audio_muted"), Some(0));
        assert_eq!(
            dl.vector::<i64>(&out, "capture_timestamps_ns"),
            Some(vec![1_000_001_000, 1_000_021_833])
        );
        assert_eq!(out.len(), n + pcm.len() * 4);
        assert!(enc.encode(0, 0, &pcm[..3], &mut out).is_err());
    }
}
