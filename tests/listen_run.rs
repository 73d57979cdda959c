//! Hearing the wearer inside a run: the microphones' audio stream (Aria Gen1's layout: 48 kHz,
//! 7 channels of int32, 4096 frames a record) through the runtime in lock step into the
//! `VoiceConsumer`, heard on the device clock; the assistant's own voice shut out; a damaged
//! block skipped and counted. Real speech: the moonshine-cpp package's clip (models/fetch).

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use vista::infer::ModelFile;
use vista::listen::consumer::{Ears, HeardAt, OwnVoice, VoiceConsumer};
use vista::listen::{hear_clip, read_wav_16k, ListenConfig, Listener, Moonshine, SileroVad};
use vista::runtime::{run, ClockMode, Consumer, RuntimeConfig};
use vista::sample::{AudioBlock, AudioCoding, Payload, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{Clock, DeviceTime, HostTime, VirtualClock};

const T0_NS: i64 = 5_000_000_000;
const FRAMES: usize = 4096;
const RATE: u32 = 48_000;

fn clip() -> Vec<f32> {
    read_wav_16k(&ModelFile::MoonshineClip.path())
        .unwrap_or_else(|e| panic!("run models/fetch: {e}"))
        .samples
}

fn models() -> (SileroVad, Moonshine) {
    (
        SileroVad::load_default().unwrap_or_else(|e| panic!("run models/fetch: {e}")),
        Moonshine::load_default().unwrap_or_else(|e| panic!("run models/fetch: {e}")),
    )
}

/// The clip as Aria Gen1 audio records: 48 kHz (linear ×3), seven channels at slightly
/// different gains, int32, each record stamped per frame. `damage`: one record's bytes cut.
fn audio_stream(x16k: &[f32], damage: Option<usize>) -> Vec<Sample> {
    let mut x48 = Vec::with_capacity(x16k.len() * 3);
    for w in x16k.windows(2) {
        for k in 0..3 {
            x48.push(w[0] + (w[1] - w[0]) * k as f32 / 3.0);
        }
    }
    let gains = [1.0f32, 0.9, 1.1, 0.95, 1.05, 0.85, 1.0];
    let mut out = Vec::new();
    for (seq, chunk) in x48.chunks(FRAMES).enumerate() {
        let first = seq * FRAMES;
        let mut pcm = Vec::with_capacity(chunk.len() * 7 * 4);
        for v in chunk {
            for g in gains {
                let s = (v * g * 0.5 * 2_147_483_647.0) as i32;
                pcm.extend_from_slice(&s.to_le_bytes());
            }
        }
        if damage == Some(seq) {
            pcm.truncate(pcm.len() - 3);
        }
        let ts: Vec<i64> = (0..chunk.len())
            .map(|i| T0_NS + ((first + i) as i64 * 1_000_000_000) / i64::from(RATE))
            .collect();
        out.push(Sample {
            stream: StreamId::Audio,
            capture: DeviceTime(ts[0]),
            arrival: HostTime(0),
            seq: seq as u64,
            payload: Payload::Audio(AudioBlock {
                channels: 7,
                sample_rate_hz: RATE,
                timestamps_ns: Arc::from(ts),
                coding: AudioCoding::PcmI32Le,
                data: Bytes::from(pcm),
            }),
        });
    }
    out
}

#[derive(Clone, Default)]
struct Collect(Arc<Mutex<Vec<HeardAt>>>);

impl Ears for Collect {
    fn heard(&mut self, heard: &HeardAt, _now: HostTime) {
        self.0.lock().unwrap().push(heard.clone());
    }
}

/// The assistant "speaking" until a fixed device time, on the run's clock.
struct SpokeUntil(HostTime);

impl OwnVoice for SpokeUntil {
    fn audible_until(&self) -> Option<HostTime> {
        Some(self.0)
    }
}

fn run_stream(
    samples: Vec<Sample>,
    own_until_s: Option<f64>,
) -> (Vec<HeardAt>, vista::listen::consumer::VoiceReport) {
    let clock = Arc::new(VirtualClock::new(DeviceTime(T0_NS)));
    let (vad, asr) = models();
    let ears = Collect::default();
    let mut consumer = VoiceConsumer::new(
        Listener::new(vad, asr, ListenConfig::default()),
        Box::new(ears.clone()),
        clock.clone(),
    );
    if let Some(s) = own_until_s {
        let until = clock.due(DeviceTime(T0_NS + (s * 1e9) as i64));
        consumer = consumer.with_own_voice(Box::new(SpokeUntil(until)));
    }
    let stats = consumer.stats();
    let consumers: Vec<Box<dyn Consumer>> = vec![Box::new(consumer)];
    run(
        Box::new(VecSource::new(samples)),
        RuntimeConfig::new(ClockMode::Virtual),
        consumers,
    )
    .unwrap();
    let heard = ears.0.lock().unwrap().clone();
    (heard, stats.report())
}

/// Every sentence is heard once, with the words the clip alone gives, at its place on the
/// device clock (within a frame or two of where the clip alone puts it).
#[test]
fn the_audio_stream_is_heard_on_the_device_clock() {
    let x = clip();
    let (vad, asr) = models();
    let alone = hear_clip(&x, vad, asr, ListenConfig::default()).unwrap();
    let (heard, report) = run_stream(audio_stream(&x, None), None);
    assert_eq!(heard.len(), alone.heard.len());
    for (h, a) in heard.iter().zip(&alone.heard) {
        assert_eq!(h.heard.text(), a.text());
        let want = T0_NS + (a.start_s() * 1e9) as i64;
        assert!(
            (h.start.0 - want).abs() < 70_000_000,
            "{} vs {want}",
            h.start.0
        );
        assert!(h.end > h.start && h.decided > h.end);
    }
    assert_eq!(report.heard, alone.heard.len() as u64);
    assert!(
        (report.audio_s - x.len() as f64 / 16_000.0).abs() < 0.1,
        "{report:?}"
    );
    assert_eq!(report.own_voice_s, 0.0);
    assert!(report.end_to_text_ms.is_some());
}

/// While the assistant's voice is audible (and its tail after), the microphones are shut:
/// the sentences said over it are not heard, the ones after it are.
#[test]
fn the_assistant_never_hears_itself() {
    let x = clip();
    // Audible until 2.9 s into the clip: "Ever tried." and "Ever failed." (ending by 2.82 s)
    // fall under it; "No matter." (from 3.5 s) does not.
    let (heard, report) = run_stream(audio_stream(&x, None), Some(2.9));
    let texts: Vec<&str> = heard.iter().filter_map(|h| h.heard.text()).collect();
    assert_eq!(
        texts,
        ["No matter.", "Try again.", "Fail again.", "Fail better."]
    );
    assert!(
        report.own_voice_s > 2.9 && report.own_voice_s < 3.5,
        "{report:?}"
    );
}

/// A damaged record is skipped and counted; the rest is heard.
#[test]
fn a_damaged_block_is_skipped_and_counted() {
    let x = clip();
    let (heard, report) = run_stream(audio_stream(&x, Some(100)), None);
    assert_eq!(report.bad_blocks, 1);
    assert!(heard.iter().filter(|h| h.heard.text().is_some()).count() >= 5);
}

/// `text` said by the Piper voice, at 16 kHz.
fn piper_16k(text: &str) -> Vec<f32> {
    let mut voice = vista::speech::PiperVoice::load_default()
        .unwrap_or_else(|e| panic!("the Piper voice is needed (run models/fetch): {e}"));
    let pcm = voice
        .synthesize(text, vista::speech::PiperScales::deterministic())
        .unwrap();
    let x: Vec<f32> = pcm.iter().map(|&v| f32::from(v) / 32_768.0).collect();
    vista::listen::resample::to_16k(&x, voice.sample_rate_hz()).unwrap()
}

/// "Hey Vista" alone is answered once the wearer has stayed silent a moment after it; "Hey
/// Vista", a pause long enough to end the utterance, then a question, is not talked over: the
/// question is the request (in the conversation the call opened), and no "Yes?" is owed.
#[test]
fn a_call_alone_is_answered_and_a_call_followed_by_a_question_is_not_talked_over() {
    use vista::listen::consumer::CALL_WAIT_NS;
    use vista::listen::Addressed;
    let silence = |s: f64| vec![0.0f32; (s * 16_000.0) as usize];
    let call = piper_16k("Hey Vista.");
    let question = piper_16k("Where is the door?");

    let alone: Vec<f32> = [silence(0.5), call.clone(), silence(3.0)].concat();
    let (heard, report) = run_stream(audio_stream(&alone, None), None);
    let got: Vec<&Addressed> = heard.iter().map(|h| &h.addressed).collect();
    assert_eq!(got, [&Addressed::Called], "{heard:?}");
    assert_eq!(report.called, 1);
    // Answered no sooner than the wait after the call's end.
    let call_end = heard[0].end.0;
    assert!(heard[0].decided.0 <= call_end + CALL_WAIT_NS + 200_000_000);

    let pause = silence(0.7);
    let asked: Vec<f32> = [silence(0.5), call, pause, question, silence(2.0)].concat();
    let (heard, report) = run_stream(audio_stream(&asked, None), None);
    let got: Vec<&Addressed> = heard.iter().map(|h| &h.addressed).collect();
    assert_eq!(
        got,
        [&Addressed::Request {
            text: "Where is the door?".into()
        }],
        "{heard:?}"
    );
    assert_eq!((report.called, report.requests), (0, 1));
}
