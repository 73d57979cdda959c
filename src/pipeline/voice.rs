//! The wearer's voice in a run: the listening models loaded ahead of the clock, and the two
//! adapters that connect the [`VoiceConsumer`] to the rest — a request heard becomes a live
//! request exactly like a typed one (same queue, same decisions, transcript and profile), the
//! wake phrase alone the assistant's "Yes?", an utterance said to it but not caught its
//! "Sorry, I didn't catch that.", and speech not said to it nothing; and the speaker's voice
//! shuts the microphones while it is audible.

use std::sync::{Arc, Mutex};

use crate::aria::recording::opus::OpusPcm;
use crate::assistant::requests::{parse_live_line, RequestQueue};
use crate::assistant::{Assistant, Request, RequestTime};
use crate::listen::consumer::{AudioDecode, Ears, HeardAt, OwnVoice, VoiceConsumer, VoiceStats};
use crate::listen::{Addressed, ListenConfig, Listener, Moonshine, SileroVad, Wake};
use crate::runtime::Consumer;
use crate::sample::AudioBlock;
use crate::speech::Audible;
use crate::state::VoiceTiming;
use crate::time::{Clock, HostTime};

/// The voice detector and the recogniser, loaded (`Err`: why not).
pub type VoiceModels = Result<(SileroVad, Moonshine), String>;

/// Loads the listening models from the model cache.
pub fn load_voice_models() -> VoiceModels {
    let vad = SileroVad::load_default().map_err(|e| e.to_string())?;
    let asr = Moonshine::load_default().map_err(|e| e.to_string())?;
    Ok((vad, asr))
}

/// Heard text into the live request queue; "not caught" to the assistant. Both carry when
/// the voice ended and was heard, so end of speech → first audio is measured.
struct QueueEars {
    queue: RequestQueue,
    assistant: Arc<Mutex<Assistant>>,
    clock: Arc<dyn Clock>,
}

impl Ears for QueueEars {
    fn heard(&mut self, heard: &HeardAt, now: HostTime) {
        let voice = VoiceTiming {
            voice_end_ns: self.clock.due(heard.end).ns(),
            text_ns: now.ns(),
        };
        match &heard.addressed {
            Addressed::Request { text } => {
                let Some((form, text)) = parse_live_line(text) else {
                    return;
                };
                if self.queue.admit() {
                    let request = Request::new(None, form, text, RequestTime::Arrival(now));
                    self.queue.offer(request.said(voice));
                }
            }
            Addressed::Called => {
                if let Ok(mut a) = self.assistant.lock() {
                    a.called(&heard.heard.recognised.text, heard.end, voice, now);
                }
            }
            Addressed::NotCaught => {
                if let Ok(mut a) = self.assistant.lock() {
                    a.not_caught(&heard.heard.recognised.text, heard.end, voice, now);
                }
            }
            Addressed::NotAddressed => {}
        }
    }
}

/// The speaker's voice as the listener's [`OwnVoice`].
struct SpeakerVoice(Audible);

impl OwnVoice for SpeakerVoice {
    fn audible_until(&self) -> Option<HostTime> {
        self.0.until()
    }
}

/// Gen2's Opus microphones decoded for the listener, in order (aria's libopus stream).
#[derive(Debug, Default)]
struct GlassesAudio(OpusPcm);

impl AudioDecode for GlassesAudio {
    fn pcm(&mut self, block: &AudioBlock, out: &mut Vec<u8>) -> Result<(), String> {
        self.0.pcm(block, out)
    }
}

/// The consumer that hears the wearer, and its statistics. `live`: the microphones are the
/// glasses' own, beside the speakers that play the assistant's voice, so they are shut
/// while it is audible; a recording's microphones never heard this run's voice.
pub fn voice_consumer(
    models: (SileroVad, Moonshine),
    queue: RequestQueue,
    assistant: &Arc<Mutex<Assistant>>,
    clock: Arc<dyn Clock>,
    live: bool,
    wake: Wake,
) -> (Box<dyn Consumer>, Arc<VoiceStats>) {
    let (vad, asr) = models;
    let listener = Listener::new(vad, asr, ListenConfig::default());
    let ears = QueueEars {
        queue,
        assistant: Arc::clone(assistant),
        clock: Arc::clone(&clock),
    };
    let mut consumer = VoiceConsumer::new(listener, Box::new(ears), clock)
        .with_decoder(Box::new(GlassesAudio::default()))
        .with_wake(wake);
    if let Some(audible) = assistant
        .lock()
        .ok()
        .and_then(|a| a.audible())
        .filter(|_| live)
    {
        consumer = consumer.with_own_voice(Box::new(SpeakerVoice(audible)));
    }
    let stats = consumer.stats();
    (Box::new(consumer), stats)
}
