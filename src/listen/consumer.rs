//! [`VoiceConsumer`]: the runtime's consumer of the microphones' audio stream (recorded or
//! live). Each audio block is mixed to mono, brought to 16 kHz and given to the
//! [`Listener`]; what it hears goes out through the [`Ears`] port with device times and
//! whether it was said to the assistant ([`Addressing`]: a wake phrase, a conversation). While
//! the assistant's own voice is audible (the [`OwnVoice`] port, plus a tail for the room's
//! echo), the microphones are treated as silent: the glasses' speakers sit beside their
//! microphones and vista must never answer itself. Counts and latencies are kept in
//! [`VoiceStats`] for the profile.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::addressing::{Addressed, Addressing, Wake};
use super::listener::{Heard, Listener, Outcome};
use super::moonshine::Recogniser;
use super::resample::{To16k, RATE_HZ};
use super::vad::VoiceActivity;
use crate::buffer::Reader;
use crate::runtime::{Consumer, ConsumerError};
use crate::sample::{AudioBlock, AudioCoding, Payload, StreamId};
use crate::time::{Clock, DeviceTime, HostTime};

/// After the assistant's voice stops, the microphones stay shut this long (the room's echo
/// and the sink's last buffer), ns.
pub const OWN_VOICE_TAIL_NS: i64 = 250_000_000;
/// A call by the wake phrase alone is answered ("Yes?") only when the wearer has not gone on
/// speaking this long after its end, ns: a wearer who pauses after "Hey Vista" and then asks
/// is not talked over (nor, live, shut out by the answer's own voice).
pub const CALL_WAIT_NS: i64 = 1_200_000_000;
/// Block anchors kept for mapping sample numbers back to device time (about 20 s of Aria
/// audio records).
const ANCHORS: usize = 256;
/// Most utterance latencies kept for the report.
const MAX_LATENCIES: usize = 4096;

/// One utterance heard, on the device clock.
#[derive(Clone, Debug, Serialize)]
pub struct HeardAt {
    /// What was heard.
    pub heard: Heard,
    /// The first voiced sample's capture time.
    pub start: DeviceTime,
    /// The end of the voice.
    pub end: DeviceTime,
    /// Where the end was known.
    pub decided: DeviceTime,
    /// Whether it was said to the assistant, and the request it makes.
    pub addressed: Addressed,
}

/// Where what is heard goes (the assistant's request queue, a test's list).
pub trait Ears: Send {
    /// An utterance was heard (text, or "not caught"); `now` is the clock's present.
    fn heard(&mut self, heard: &HeardAt, now: HostTime);
}

/// Until when the assistant's own voice is audible (the speaker's sink, or nothing).
pub trait OwnVoice: Send {
    /// The host time its last placed audio ends (`None`: it has said nothing).
    fn audible_until(&self) -> Option<HostTime>;
}

/// Counts and latencies of a run's listening, for `profile.json`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VoiceReport {
    /// Audio heard, seconds.
    pub audio_s: f64,
    /// Audio shut out while the assistant spoke, seconds.
    pub own_voice_s: f64,
    /// Utterances with text.
    pub heard: u64,
    /// Utterances not caught.
    pub not_caught: u64,
    /// Requests made (utterances with text said to the assistant).
    pub requests: u64,
    /// Utterances not said to the assistant (no wake phrase, no conversation open).
    pub not_addressed: u64,
    /// Times the wake phrase alone called the assistant and it answered (the wearer did not
    /// go on speaking).
    pub called: u64,
    /// Bursts too short to be speech.
    pub dropped: u64,
    /// Utterances cut at the length limit.
    pub cut: u64,
    /// Audio blocks of a form that could not be read (counted, skipped).
    pub bad_blocks: u64,
    /// End of voice to text, ms, per utterance (median, 90th percentile, most).
    pub end_to_text_ms: Option<[f64; 3]>,
    /// The final recognition's compute, ms (median, most).
    pub final_ms: Option<[f64; 2]>,
    /// Compute of the voice detector, partial and final recognitions, ms, in all.
    pub compute_ms: f64,
}

/// Shared between the consumer and whoever reports on it.
#[derive(Debug, Default)]
pub struct VoiceStats {
    inner: Mutex<StatsInner>,
}

#[derive(Debug, Default)]
struct StatsInner {
    report: VoiceReport,
    end_to_text: Vec<f64>,
    finals: Vec<f64>,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted
        .get(i.min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0)
}

impl VoiceStats {
    /// The report so far.
    pub fn report(&self) -> VoiceReport {
        let Ok(s) = self.inner.lock() else {
            return VoiceReport::default();
        };
        let mut r = s.report.clone();
        let mut e = s.end_to_text.clone();
        e.sort_by(f64::total_cmp);
        let mut f = s.finals.clone();
        f.sort_by(f64::total_cmp);
        if !e.is_empty() {
            r.end_to_text_ms = Some([quantile(&e, 0.5), quantile(&e, 0.9), quantile(&e, 1.0)]);
        }
        if !f.is_empty() {
            r.final_ms = Some([quantile(&f, 0.5), quantile(&f, 1.0)]);
        }
        r
    }

    fn update(&self, f: impl FnOnce(&mut StatsInner)) {
        if let Ok(mut s) = self.inner.lock() {
            f(&mut s);
        }
    }
}

/// Turns coded audio blocks (Gen2's Opus) into interleaved `i32` little-endian samples, in
/// stream order: the composition root gives the codec.
pub trait AudioDecode: Send {
    /// Appends `block`'s samples to `out`.
    fn pcm(&mut self, block: &AudioBlock, out: &mut Vec<u8>) -> Result<(), String>;
}

/// The consumer.
pub struct VoiceConsumer<V, R> {
    listener: Listener<V, R>,
    /// Decodes blocks that are not PCM already.
    decoder: Option<Box<dyn AudioDecode>>,
    /// A decoded block's samples (reused).
    pcm: Vec<u8>,
    resampler: Option<To16k>,
    ears: Box<dyn Ears>,
    addressing: Addressing,
    /// A call by the wake phrase alone, held until the wearer has not gone on speaking for
    /// [`CALL_WAIT_NS`].
    pending_call: Option<HeardAt>,
    own_voice: Option<Box<dyn OwnVoice>>,
    clock: Arc<dyn Clock>,
    stats: Arc<VoiceStats>,
    /// (16 kHz sample number, its capture time) at the start of recent blocks.
    anchors: VecDeque<(u64, DeviceTime)>,
    /// 16 kHz samples given to the listener.
    fed: u64,
    mono: Vec<f32>,
    resampled: Vec<f32>,
}

impl<V, R> std::fmt::Debug for VoiceConsumer<V, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoiceConsumer")
            .field("fed", &self.fed)
            .finish()
    }
}

impl<V: VoiceActivity + Send, R: Recogniser + Send> VoiceConsumer<V, R> {
    /// Listens with `listener`; what it hears goes to `ears`; `clock` maps capture times to
    /// the host times the assistant's voice is measured in.
    pub fn new(listener: Listener<V, R>, ears: Box<dyn Ears>, clock: Arc<dyn Clock>) -> Self {
        Self {
            listener,
            decoder: None,
            pcm: Vec::new(),
            resampler: None,
            ears,
            addressing: Addressing::new(Wake::default()),
            pending_call: None,
            own_voice: None,
            clock,
            stats: Arc::new(VoiceStats::default()),
            anchors: VecDeque::with_capacity(ANCHORS),
            fed: 0,
            mono: Vec::new(),
            resampled: Vec::new(),
        }
    }

    /// Decodes coded blocks (Gen2's Opus) with `decoder`; without one they are skipped and
    /// counted.
    pub fn with_decoder(mut self, decoder: Box<dyn AudioDecode>) -> Self {
        self.decoder = Some(decoder);
        self
    }

    /// Listens for `wake` (by default [`Wake::default`]'s phrase).
    pub fn with_wake(mut self, wake: Wake) -> Self {
        self.addressing = Addressing::new(wake);
        self
    }

    /// Shuts the microphones while `own` says the assistant's voice is audible.
    pub fn with_own_voice(mut self, own: Box<dyn OwnVoice>) -> Self {
        self.own_voice = Some(own);
        self
    }

    /// The shared statistics.
    pub fn stats(&self) -> Arc<VoiceStats> {
        Arc::clone(&self.stats)
    }

    /// The capture time of 16 kHz sample `n`.
    fn device_time(&self, n: u64) -> DeviceTime {
        let anchor = self
            .anchors
            .iter()
            .rev()
            .find(|(at, _)| *at <= n)
            .or(self.anchors.front())
            .copied()
            .unwrap_or((0, DeviceTime(0)));
        let dn = n as i64 - anchor.0 as i64;
        DeviceTime(
            anchor
                .1
                 .0
                .saturating_add(dn.saturating_mul(1_000_000_000) / i64::from(RATE_HZ)),
        )
    }

    fn is_own_voice(&self, capture: DeviceTime) -> bool {
        let Some(until) = self.own_voice.as_ref().and_then(|o| o.audible_until()) else {
            return false;
        };
        self.clock.due(capture).0 <= until.0.saturating_add(OWN_VOICE_TAIL_NS)
    }

    fn block(&mut self, capture: DeviceTime, a: &AudioBlock) -> Result<(), String> {
        let channels = usize::from(a.channels);
        if a.coding == AudioCoding::PcmI32Le {
            return self.samples(capture, channels, a.sample_rate_hz, &a.data);
        }
        // Coded (Gen2's Opus): decoded into the reused buffer first.
        let mut pcm = std::mem::take(&mut self.pcm);
        pcm.clear();
        let result = match self.decoder.as_mut() {
            Some(d) => d.pcm(a, &mut pcm),
            None => Err(format!("{:?} audio and no decoder for it", a.coding)),
        }
        .and_then(|()| self.samples(capture, channels, a.sample_rate_hz, &pcm));
        self.pcm = pcm;
        result
    }

    /// Feeds one block of interleaved `i32` samples.
    fn samples(
        &mut self,
        capture: DeviceTime,
        channels: usize,
        sample_rate_hz: u32,
        pcm: &[u8],
    ) -> Result<(), String> {
        if channels == 0 || pcm.len() % (4 * channels) != 0 {
            return Err(format!("{} bytes for {channels} channels", pcm.len()));
        }
        if self.resampler.as_ref().map(To16k::rate_hz) != Some(sample_rate_hz) {
            self.resampler = Some(To16k::new(sample_rate_hz).map_err(|e| e.to_string())?);
        }
        let frames = pcm.len() / (4 * channels);
        let own = self.is_own_voice(capture);
        self.mono.clear();
        if own {
            self.mono.resize(frames, 0.0);
        } else {
            let scale = 1.0 / (channels as f32 * 2_147_483_648.0);
            self.mono.extend(pcm.chunks_exact(4 * channels).map(|f| {
                f.chunks_exact(4)
                    .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32)
                    .sum::<f32>()
                    * scale
            }));
        }
        self.resampled.clear();
        if let Some(r) = self.resampler.as_mut() {
            r.push(&self.mono, &mut self.resampled)
                .map_err(|e| e.to_string())?;
        }
        if self.anchors.len() == ANCHORS {
            self.anchors.pop_front();
        }
        self.anchors.push_back((self.fed, capture));
        self.fed += self.resampled.len() as u64;
        let secs = frames as f64 / f64::from(sample_rate_hz.max(1));
        self.stats.update(|s| {
            s.report.audio_s += secs;
            if own {
                s.report.own_voice_s += secs;
            }
        });
        let t = std::time::Instant::now();
        let heard = self
            .listener
            .push(&self.resampled)
            .map_err(|e| e.to_string())?;
        let compute_ms = t.elapsed().as_secs_f64() * 1e3;
        self.stats.update(|s| s.report.compute_ms += compute_ms);
        for h in heard {
            self.deliver(h);
        }
        self.answer_call();
        Ok(())
    }

    /// Hands `heard` on at the clock's present, read after its recognition (in lock step the
    /// clock stands at the audio block's start: times there are as coarse as a block).
    fn deliver(&mut self, heard: Heard) {
        let start = self.device_time(heard.start_sample);
        let end = self.device_time(heard.end_sample);
        let addressed = self.addressing.hear(
            &heard.recognised.text,
            heard.outcome == Outcome::Text,
            start.ns(),
            end.ns(),
        );
        let at = HeardAt {
            start,
            end,
            decided: self.device_time(heard.decided_sample),
            addressed,
            heard,
        };
        let now = self.clock.now();
        let stats = self.listener.stats();
        self.stats.update(|s| {
            s.report.dropped = stats.dropped;
            s.report.cut = stats.cut;
            match at.heard.outcome {
                Outcome::Text => s.report.heard += 1,
                Outcome::NotCaught { .. } => s.report.not_caught += 1,
            }
            match at.addressed {
                Addressed::NotAddressed => s.report.not_addressed += 1,
                Addressed::Request { .. } => s.report.requests += 1,
                Addressed::Called | Addressed::NotCaught => {}
            }
            if s.end_to_text.len() < MAX_LATENCIES {
                s.end_to_text.push(at.heard.end_to_text_ms());
                s.finals.push(at.heard.final_ms);
            }
        });
        log::info!(
            "heard at {:.2} s: \"{}\" ({}; {})",
            at.end.0 as f64 / 1e9,
            at.heard.recognised.text,
            match at.heard.outcome {
                Outcome::Text => "text".to_string(),
                Outcome::NotCaught { why } => format!("not caught: {why:?}"),
            },
            match &at.addressed {
                Addressed::Request { .. } => "a request",
                Addressed::Called => "the assistant called",
                Addressed::NotCaught => "said to the assistant",
                Addressed::NotAddressed => "not said to the assistant",
            }
        );
        // A call waits to see whether the wearer goes on; anything heard after it means
        // they did (what they said is in the conversation the call opened).
        if self.pending_call.take().is_some() {
            log::info!("the call was followed by speech: not answered");
        }
        if at.addressed == Addressed::Called {
            self.pending_call = Some(at);
            return;
        }
        self.ears.heard(&at, now);
    }

    /// Answers the call waiting, once the wearer has been silent for [`CALL_WAIT_NS`] after
    /// it.
    fn answer_call(&mut self) {
        let Some(call) = self.pending_call.as_ref() else {
            return;
        };
        let heard_until = self.device_time(self.fed);
        if self.listener.speaking() || heard_until.ns() < call.end.ns().saturating_add(CALL_WAIT_NS)
        {
            return;
        }
        if let Some(call) = self.pending_call.take() {
            self.stats.update(|s| s.report.called += 1);
            let now = self.clock.now();
            self.ears.heard(&call, now);
        }
    }
}

impl<V: VoiceActivity + Send, R: Recogniser + Send> Consumer for VoiceConsumer<V, R> {
    fn name(&self) -> &str {
        "listen"
    }

    fn wants(&self, stream: StreamId) -> bool {
        stream == StreamId::Audio
    }

    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let mut blocks = Vec::new();
        reader.drain_new(StreamId::Audio, |s| {
            if let Payload::Audio(a) = &s.payload {
                blocks.push((s.capture, a.clone()));
            }
        });
        for (capture, a) in blocks {
            if let Err(e) = self.block(capture, &a) {
                log::warn!("listen: audio block at {} ns skipped: {e}", capture.0);
                self.stats.update(|s| s.report.bad_blocks += 1);
            }
        }
        Ok(())
    }

    fn finish(&mut self) {
        match self.listener.finish() {
            Ok(heard) => {
                for h in heard {
                    self.deliver(h);
                }
            }
            Err(e) => log::warn!("listen: the last utterance was lost: {e}"),
        }
    }
}
