//! Sensor tokens in the assistant's prompts (the VISTA paper's fusion tokens).
//!
//! With a bundle whose fusion network emits tokens as wide as the language model's
//! embeddings, [`SensorFusion::update`] runs the network on every window update (ahead of
//! any request) and keeps the newest output in a shared [`SensorTokenCache`]. The
//! [`SensorGenerator`] answers a request over a prompt whose system turn ends with the
//! sensor placeholder: the text before it (standing prompt and state) is decoded once and
//! kept in the KV cache while it does not change, the cached sensor tokens are decoded as
//! embedding rows in place of the placeholder, then the request's own tokens. Without a
//! cached output yet it answers from the text alone.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::threads::ThreadPolicy;
use crate::infer::fusion::{FusionError, FusionModel, SensorTokens};
use crate::infer::llm::generator::{port_stats, system_turn, user_turn};
use crate::infer::llm::{GenOptions, LmEngine, LmError, DEFAULT_SYSTEM_PROMPT};
use crate::state::{Continue, GenerationPrompt, GenerationStats, Generator, GeneratorError};
use crate::window::{SensorWindow, WindowSink, WindowUpdate};

/// One fusion output and the window it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorFrame {
    /// The window's end, device ns.
    pub at_ns: i64,
    /// The tokens.
    pub tokens: SensorTokens,
}

/// The newest fusion output, shared between the window thread and the answer thread.
#[derive(Clone, Debug, Default)]
pub struct SensorTokenCache {
    latest: Arc<Mutex<Option<Arc<SensorFrame>>>>,
    updates: Arc<AtomicU64>,
}

impl SensorTokenCache {
    /// Replaces the newest output.
    pub fn put(&self, frame: SensorFrame) {
        if let Ok(mut l) = self.latest.lock() {
            *l = Some(Arc::new(frame));
            self.updates.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The newest output, if any.
    pub fn latest(&self) -> Option<Arc<SensorFrame>> {
        self.latest.lock().ok().and_then(|l| l.clone())
    }

    /// Outputs stored so far (each replaced the previous one).
    pub fn updates(&self) -> u64 {
        self.updates.load(Ordering::Relaxed)
    }
}

/// Runs the fusion network on each window update.
pub struct SensorFusion {
    model: FusionModel,
    question: Vec<f32>,
    cache: SensorTokenCache,
    failures: u64,
}

impl std::fmt::Debug for SensorFusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SensorFusion")
            .field("updates", &self.cache.updates())
            .field("failures", &self.failures)
            .finish()
    }
}

impl SensorFusion {
    /// Over `model`, with the pooled embedding of a standing question (the network's
    /// question input: requests are not known ahead of time).
    pub fn new(model: FusionModel, question_embedding: Vec<f32>) -> Self {
        Self {
            model,
            question: question_embedding,
            cache: SensorTokenCache::default(),
            failures: 0,
        }
    }

    /// The shared cache its outputs go to.
    pub fn cache(&self) -> SensorTokenCache {
        self.cache.clone()
    }

    /// Failed updates so far (the previous output stays).
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// Runs the network on `window` and caches the output.
    pub fn update(&mut self, window: &SensorWindow) -> Result<(), FusionError> {
        match self.model.infer(window, &self.question, None) {
            Ok(tokens) => {
                self.cache.put(SensorFrame {
                    at_ns: window.t_end.ns(),
                    tokens,
                });
                Ok(())
            }
            Err(e) => {
                self.failures += 1;
                Err(e)
            }
        }
    }
}

/// The window consumer's sink that runs `fusion` on every update (a failed update is
/// logged at debug level and counted; the previous output stays cached).
pub fn window_sink(mut fusion: SensorFusion) -> WindowSink {
    Box::new(move |u: WindowUpdate<'_>| {
        if let Err(e) = fusion.update(u.window) {
            log::debug!("sensor tokens: {e}");
        }
    })
}

/// What a sensor prompt was built with (for checks and tests).
#[derive(Clone, Debug, PartialEq)]
pub struct FedRows {
    /// The window the rows came from, device ns.
    pub at_ns: i64,
    /// The rows decoded, row-major.
    pub rows: Vec<f32>,
}

/// The assistant's generator with sensor tokens in its prompts.
pub struct SensorGenerator {
    engine: LmEngine,
    cache: SensorTokenCache,
    placeholder: String,
    last_fed: Option<FedRows>,
    threads: ThreadPolicy,
}

impl std::fmt::Debug for SensorGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SensorGenerator")
            .field("engine", &self.engine)
            .field("placeholder", &self.placeholder)
            .finish()
    }
}

fn key_of(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

impl SensorGenerator {
    /// Over `engine`, reading fusion outputs from `cache`; `placeholder` (the bundle's
    /// `prompt.sensor_placeholder`) marks where the rows go.
    pub fn new(engine: LmEngine, cache: SensorTokenCache, placeholder: &str) -> Self {
        Self {
            engine,
            cache,
            placeholder: placeholder.to_string(),
            last_fed: None,
            threads: ThreadPolicy::Auto,
        }
    }

    /// Chooses llama.cpp threads by `threads` (automatic by default).
    pub fn with_threads(mut self, threads: ThreadPolicy) -> Self {
        self.threads = threads;
        self
    }

    /// The engine.
    pub fn engine(&self) -> &LmEngine {
        &self.engine
    }

    /// The engine, the fusion outputs and the placeholder back (to build another generator
    /// over them, e.g. one that also shows camera frames).
    pub fn into_parts(self) -> (LmEngine, SensorTokenCache, String) {
        (self.engine, self.cache, self.placeholder)
    }

    /// The rows fed to the last request that had sensor tokens.
    pub fn last_fed(&self) -> Option<&FedRows> {
        self.last_fed.as_ref()
    }

    /// The prompt text split at the sensor placeholder: (before, after).
    fn split_prompt(&self, prompt: &GenerationPrompt) -> Result<(String, String), LmError> {
        let fitted = self.engine.fitted_context(&prompt.context)?;
        let system = format!(
            "{}\nSensor readings: {}",
            system_turn(DEFAULT_SYSTEM_PROMPT, &fitted),
            self.placeholder
        );
        let user = user_turn(&prompt.system, &prompt.request);
        let full = self
            .engine
            .format()
            .chat(self.engine.model(), &system, &user)?
            .full;
        match full.rsplit_once(self.placeholder.as_str()) {
            Some((before, after)) => Ok((before.to_string(), after.to_string())),
            None => Err(LmError::Prompt(format!(
                "the chat template dropped the sensor placeholder {:?}",
                self.placeholder
            ))),
        }
    }

    fn generate_inner(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<GenerationStats, LmError> {
        let threads = self.threads.threads();
        self.engine.set_threads(threads);
        let Some(frame) = self.cache.latest() else {
            return self
                .engine
                .generate_with_context(prompt, &prompt.context, on_text, cancel)
                .map(|st| GenerationStats {
                    threads,
                    ..port_stats(&st)
                });
        };
        let (before, after) = self.split_prompt(prompt)?;
        let mut forward = |s: &str| on_text(s) == Continue::Yes;
        let st = self.engine.generate_after_embeddings(
            key_of(&before),
            &before,
            &frame.tokens.data,
            frame.tokens.width,
            &after,
            GenOptions::new(prompt.max_tokens),
            &mut forward,
            cancel,
        )?;
        self.last_fed = Some(FedRows {
            at_ns: frame.at_ns,
            rows: frame.tokens.data.clone(),
        });
        Ok(GenerationStats {
            threads,
            sensor_tokens: u32::try_from(frame.tokens.n_tokens).unwrap_or(u32::MAX),
            ..port_stats(&st)
        })
    }
}

impl Generator for SensorGenerator {
    fn name(&self) -> &str {
        self.engine.name()
    }

    fn generate(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        self.generate_inner(prompt, on_text, cancel)
            .map_err(|e| GeneratorError {
                generator: self.engine.name().to_string(),
                message: e.to_string(),
            })
    }
}
