//! How a model bundle's prompts are laid out in the KV cache ([`BundleLayout`]), for
//! answers and for the prefill ahead of them ([`PromptLayout`]): the system turn holds the
//! standing prompt, the state text and, with a fusion network, the sensor tokens at the
//! sensor placeholder; with a vision projector the user turn starts with the camera frame at
//! the image placeholder ("Camera view: …") and then holds the form's instructions and the
//! request. Everything up to the end of the frame (or of the sensor tokens, for answers that
//! do not see) is the prefix the cache keeps and a prefill brings up to date, so a request
//! over a prefilled view decodes only its own tokens. Embedding rows are keyed by their
//! source (a frame's capture time, a sensor window's end and values), so the engine reuses
//! them exactly as far as they match ([`crate::infer::llm::pieces`]).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::prefill::PromptLayout;
use super::sensor::{SensorFrame, SensorTokenCache};
use super::vision::{form_sees, Shown, VisionShared};
use crate::infer::llm::generator::{port_stats, system_turn, user_turn};
use crate::infer::llm::{
    GenOptions, ImageEmbedding, ImagePiece, LmEngine, LmError, LmStats, Piece,
    DEFAULT_SYSTEM_PROMPT,
};
use crate::state::{Continue, GenerationPrompt, GenerationStats};

/// Sensor tokens newer than the prefilled ones by at most this much are not worth
/// decoding the camera frame after them again: a request uses the prefilled ones.
pub const SENSOR_MAX_STALE_NS: i64 = 1_000_000_000;

/// What a prompt shows besides the state text.
#[derive(Clone, Default)]
struct View {
    /// The camera frame: capture time (device ns), embedding.
    image: Option<(i64, Arc<ImageEmbedding>)>,
    /// The sensor tokens.
    sensor: Option<Arc<SensorFrame>>,
}

/// An owned piece of a laid-out prompt.
enum Part {
    Text(String),
    Sensor(Arc<SensorFrame>),
    Image(i64, Arc<ImageEmbedding>),
}

fn hash_of(x: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// The key naming a sensor frame's rows (its window end and its values).
fn sensor_key(f: &SensorFrame) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    ("sensor", f.at_ns).hash(&mut h);
    for v in &f.tokens.data {
        v.to_bits().hash(&mut h);
    }
    h.finish()
}

/// The pieces of `parts` as the engine takes them (image rows keyed by capture time and
/// piece).
fn pieces_of(parts: &[Part]) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push(Piece::Text(t)),
            Part::Sensor(f) => out.push(Piece::Rows {
                key: sensor_key(f),
                rows: &f.tokens.data,
                width: f.tokens.width,
            }),
            Part::Image(capture_ns, img) => {
                for (i, piece) in img.pieces.iter().enumerate() {
                    out.push(match piece {
                        ImagePiece::Tokens(t) => Piece::Tokens(t),
                        ImagePiece::Embeddings(rows) => Piece::Rows {
                            key: hash_of(("image", *capture_ns, i)),
                            rows,
                            width: img.width,
                        },
                    });
                }
            }
        }
    }
    out
}

/// A bundle's prompt layout (see the module documentation).
pub struct BundleLayout {
    /// The camera side (a bundle with a vision projector).
    shared: Option<Arc<VisionShared>>,
    image_placeholder: String,
    sensor: Option<(SensorTokenCache, String)>,
    lock_step: bool,
    /// What the last complete prefill showed besides the state text.
    prefilled: Mutex<View>,
}

impl std::fmt::Debug for BundleLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BundleLayout")
            .field("vision", &self.shared.is_some())
            .field("image_placeholder", &self.image_placeholder)
            .field("sensor", &self.sensor.is_some())
            .field("lock_step", &self.lock_step)
            .finish()
    }
}

/// The frame an answer would see.
struct Pick {
    capture_ns: i64,
    age_ns: i64,
    embedding: Option<Arc<ImageEmbedding>>,
}

impl BundleLayout {
    /// Reading frames from `shared`; `image_placeholder` (the bundle's
    /// `prompt.image_placeholder`) marks where they go; `sensor`: the fusion outputs and
    /// the sensor placeholder, with a fusion network. `lock_step`: wait for the vision
    /// consumer's round before answering (deterministic replay).
    pub fn new(
        shared: Arc<VisionShared>,
        image_placeholder: &str,
        sensor: Option<(SensorTokenCache, String)>,
        lock_step: bool,
    ) -> Self {
        Self {
            shared: Some(shared),
            image_placeholder: image_placeholder.to_string(),
            sensor,
            lock_step,
            prefilled: Mutex::new(View::default()),
        }
    }

    /// A bundle without a vision projector: sensor tokens (the fusion outputs and the
    /// sensor placeholder) in the system turn, no frames.
    pub fn sensor_only(sensor: (SensorTokenCache, String)) -> Self {
        Self {
            shared: None,
            image_placeholder: String::new(),
            sensor: Some(sensor),
            lock_step: false,
            prefilled: Mutex::new(View::default()),
        }
    }

    /// The newest state's device time and the frame an answer to it would see: the
    /// prefilled frame when `prefilled` and it is fresh enough, else the newest.
    fn pick(&self, shared: &VisionShared, prefilled: bool) -> Option<Pick> {
        let state = shared.answered_state(self.lock_step);
        let age = |capture_ns: i64| {
            state
                .map_or(0, |(at, _)| at.saturating_sub(capture_ns))
                .max(0)
        };
        if prefilled {
            let pre = self.prefilled.lock().ok().and_then(|v| v.image.clone());
            if let Some((capture_ns, e)) = pre {
                if age(capture_ns) <= shared.max_age_ns() {
                    return Some(Pick {
                        capture_ns,
                        age_ns: age(capture_ns),
                        embedding: Some(e),
                    });
                }
            }
        }
        let (capture_ns, e) = shared.latest_image()?;
        let age_ns = age(capture_ns);
        let fresh = age_ns <= shared.max_age_ns();
        Some(Pick {
            capture_ns,
            age_ns,
            embedding: fresh.then_some(e),
        })
    }

    /// The sensor tokens an answer uses: the prefilled ones when `prefilled` and the newest
    /// are at most [`SENSOR_MAX_STALE_NS`] newer, else the newest.
    fn sensor_frame(&self, prefilled: bool) -> Option<Arc<SensorFrame>> {
        let (cache, _) = self.sensor.as_ref()?;
        let latest = cache.latest()?;
        if prefilled {
            let pre = self.prefilled.lock().ok().and_then(|v| v.sensor.clone());
            if let Some(p) = pre {
                if latest.at_ns.saturating_sub(p.at_ns) <= SENSOR_MAX_STALE_NS {
                    return Some(p);
                }
            }
        }
        Some(latest)
    }

    /// Removes the placeholders from text that is not ours to place them in.
    fn scrub(&self, text: &str) -> String {
        let mut t = text.to_string();
        if !self.image_placeholder.is_empty() {
            t = t.replace(self.image_placeholder.as_str(), "image");
        }
        if let Some((_, ph)) = &self.sensor {
            t = t.replace(ph.as_str(), "sensors");
        }
        t
    }

    /// The prompt for `context` (the state text), `view` and the user turn `user`, cut at
    /// the end of the last embedding: (the prefix's parts, the tail text).
    fn lay_out(
        &self,
        engine: &LmEngine,
        context: &str,
        view: &View,
        user: &str,
    ) -> Result<(Vec<Part>, String), LmError> {
        let fitted = engine.fitted_context(&self.scrub(context))?;
        let mut system = system_turn(DEFAULT_SYSTEM_PROMPT, &fitted);
        let sensor = view
            .sensor
            .as_ref()
            .zip(self.sensor.as_ref().map(|(_, ph)| ph.as_str()));
        if let Some((_, ph)) = sensor {
            system.push_str("\nSensor readings: ");
            system.push_str(ph);
        }
        let user = match &view.image {
            Some(_) => format!("Camera view: {}\n{user}", self.image_placeholder),
            None => user.to_string(),
        };
        let full = engine.format().chat(engine.model(), &system, &user)?.full;
        let mut parts = Vec::new();
        let mut text: &str = &full;
        if let Some((frame, ph)) = sensor {
            let (before, after) = text.split_once(ph).ok_or_else(|| {
                LmError::Prompt(format!(
                    "the chat template dropped the sensor placeholder {ph:?}"
                ))
            })?;
            parts.push(Part::Text(before.to_string()));
            parts.push(Part::Sensor(Arc::clone(frame)));
            text = after;
        }
        if let Some((capture_ns, img)) = &view.image {
            let (before, after) = text
                .rsplit_once(self.image_placeholder.as_str())
                .ok_or_else(|| {
                    LmError::Prompt(format!(
                        "the chat template dropped the image placeholder {:?}",
                        self.image_placeholder
                    ))
                })?;
            parts.push(Part::Text(before.to_string()));
            parts.push(Part::Image(*capture_ns, Arc::clone(img)));
            text = after;
        }
        Ok((parts, text.to_string()))
    }

    /// Answers over `context` and `view` (text only when the view is empty).
    fn answer_over(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        view: &View,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        if view.image.is_none() && view.sensor.is_none() {
            return engine.generate_with_context(prompt, context, on_text, cancel);
        }
        let user = user_turn(&prompt.system, &self.scrub(&prompt.request));
        let (parts, tail) = self.lay_out(engine, context, view, &user)?;
        let mut forward = |s: &str| on_text(s) == Continue::Yes;
        engine.generate_after_pieces(
            &pieces_of(&parts),
            &tail,
            GenOptions::new(prompt.max_tokens),
            &mut forward,
            cancel,
        )
    }

    /// What a prefill for a state at `at_ns` would show besides its text: the newest frame
    /// when fresh for that state, and the newest sensor tokens.
    fn view_for(&self, at_ns: i64) -> View {
        let image = self.shared.as_ref().and_then(|sh| {
            sh.latest_image()
                .filter(|(capture_ns, _)| at_ns.saturating_sub(*capture_ns) <= sh.max_age_ns())
        });
        let sensor = self.sensor.as_ref().and_then(|(cache, _)| cache.latest());
        View { image, sensor }
    }
}

impl PromptLayout for BundleLayout {
    /// A key for what [`Self::prefill`] would show besides the text at `at_ns`.
    fn extras(&self, at_ns: i64) -> u64 {
        let v = self.view_for(at_ns);
        hash_of((v.image.map(|(c, _)| c), v.sensor.map(|f| f.at_ns)))
    }

    /// Brings the cache up to the prefix of a seeing answer over `text` at `at_ns` (the
    /// system turn, the sensor tokens, the newest fresh frame), stopping between chunks
    /// once `stop` is set. Returns the positions decoded and whether the prefix is whole.
    fn prefill(
        &self,
        engine: &mut LmEngine,
        text: &str,
        at_ns: i64,
        stop: &AtomicBool,
    ) -> Result<(u32, bool), LmError> {
        let view = self.view_for(at_ns);
        let result = if view.image.is_none() && view.sensor.is_none() {
            engine
                .prefill_context_until(text, stop)
                .map(|(_, n, complete)| (n, complete))
        } else {
            // The user turn after the frame does not matter: the prefix ends with the frame.
            let (parts, _) = self.lay_out(engine, text, &view, "Request: …")?;
            engine.prefill_pieces_until(&pieces_of(&parts), stop)
        };
        if let Ok((_, true)) = result {
            if let Ok(mut p) = self.prefilled.lock() {
                *p = view;
            }
        }
        result
    }

    /// Answers `prompt` over `context` (its own state text, or a prefilled one when
    /// `prefilled`: then the prefilled frame and sensor tokens are used while fresh enough).
    fn answer(
        &self,
        engine: &mut LmEngine,
        prompt: &GenerationPrompt,
        context: &str,
        prefilled: bool,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, LmError> {
        let shared = self.shared.as_deref().filter(|_| form_sees(&prompt.form));
        let pick = shared.and_then(|sh| {
            let p = self.pick(sh, prefilled);
            match &p {
                None => sh.count(Shown::NoFrame),
                Some(Pick {
                    embedding: None, ..
                }) => sh.count(Shown::Stale),
                Some(_) => {}
            }
            p
        });
        let mut view = View {
            image: pick
                .as_ref()
                .and_then(|p| p.embedding.clone().map(|e| (p.capture_ns, e))),
            sensor: self.sensor_frame(prefilled),
        };
        let mut used = view.image.is_some();
        let st = match self.answer_over(engine, prompt, context, &view, on_text, cancel) {
            Err(LmError::ContextFull { .. }) if used => {
                // The frame does not fit with this state: text (and sensors) only.
                if let Some(sh) = shared {
                    sh.count(Shown::TooLong);
                }
                used = false;
                view.image = None;
                self.answer_over(engine, prompt, context, &view, on_text, cancel)?
            }
            r => r?,
        };
        if let Some(sh) = shared.filter(|_| used) {
            sh.count(Shown::Image);
        }
        let mut stats = port_stats(&st);
        stats.sensor_tokens = view
            .sensor
            .as_ref()
            .map_or(0, |f| u32::try_from(f.tokens.n_tokens).unwrap_or(u32::MAX));
        stats.image_used = used;
        if let Some(p) = &pick {
            stats.image_capture_ns = Some(p.capture_ns);
            stats.image_age_ns = Some(p.age_ns);
        }
        Ok(stats)
    }
}
