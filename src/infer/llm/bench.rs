//! Measurements behind `vista bench lm`: prompt speed (a ~325-token prompt), generation
//! speed (64 greedy tokens after it), and time to first token for a ~15-token question after
//! the assistant's system turn (standing prompt + surroundings, ~325 tokens): from an empty
//! cache, and with that system turn already in the KV cache. Medians over repeats.
//!
//! Prompt and generation speed are measured in a context of [`LmBenchConfig::n_ctx`] tokens
//! (default: the assistant's window). The window size matters for generation: with flash
//! attention off llama.cpp stores the V cache transposed, one row per channel with a stride of
//! the whole window, so each decode reads its attention values in short runs spread over more
//! memory. On this machine one token at depth 325 cost 4.6 % more thread CPU time in a
//! 2,048-token window than in a 512-token one (the window `llama-bench` makes for that test),
//! and the same in windows of 1,792 and 2,304 (so it is not cache-set aliasing), while the
//! 325-token prompt cost 1 % more. `--ctx 512` makes `vista bench lm` comparable with
//! `llama-bench` (`benches/llama_bench.sh` measures both sizes).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::engine::{GenOptions, LmEngine};
use super::error::LmError;
use super::generator::{system_turn, user_turn};
use super::raw_ctx::ContextConfig;
use super::DEFAULT_SYSTEM_PROMPT;

/// What to measure.
#[derive(Clone, Copy, Debug)]
pub struct LmBenchConfig {
    /// Threads.
    pub threads: u32,
    /// Prompt length for the prompt-speed measurement, tokens (at least).
    pub prompt_tokens: usize,
    /// Tokens generated for the generation-speed measurement.
    pub gen_tokens: u32,
    /// Repeats per measurement (the median is reported).
    pub repeats: usize,
    /// llama.cpp's flash attention ([`ContextConfig::flash_attention`]).
    pub flash_attention: bool,
    /// Context window for the prompt and generation measurements, tokens (the first-token
    /// measurements always use the assistant's window, [`ContextConfig::default`]).
    pub n_ctx: u32,
}

impl Default for LmBenchConfig {
    fn default() -> Self {
        Self {
            threads: 2,
            prompt_tokens: 325,
            gen_tokens: 64,
            repeats: 5,
            flash_attention: ContextConfig::default().flash_attention,
            n_ctx: ContextConfig::default().n_ctx,
        }
    }
}

/// The results (medians).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LmBenchReport {
    /// The GGUF measured.
    pub model: String,
    /// Threads.
    pub threads: u32,
    /// Flash attention on.
    pub flash_attention: bool,
    /// Model load time, ms.
    pub load_ms: f64,
    /// Prompt length, tokens.
    pub prompt_tokens: usize,
    /// Prompt processing, tokens/s.
    pub prompt_tok_per_s: f64,
    /// Tokens generated per repeat.
    pub gen_tokens: u32,
    /// Generation after the prompt, tokens/s.
    pub gen_tok_per_s: f64,
    /// Context window of the prompt and generation measurements, tokens (as llama.cpp
    /// rounded it: a multiple of 256).
    pub n_ctx: u32,
    /// System turn (standing prompt + surroundings: the cached prefix), tokens.
    pub system_tokens: usize,
    /// Question (everything after the prefix), tokens.
    pub question_tokens: usize,
    /// Time to first token, system turn and question from an empty cache, ms.
    pub ttft_cold_ms: f64,
    /// Time to first token for the question with the system turn reused, ms.
    pub ttft_prefix_ms: f64,
    /// Repeats per measurement.
    pub repeats: usize,
}

/// The median of `v` (mean of the middle two for even lengths); NaN when empty.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

const FILLER: &str = "The wearer walks along a corridor with doors on both sides. \
A pole stands near the middle of the hallway, about two metres ahead and slightly left. \
A sign above the third door reads Exit, and a staircase begins behind the fourth door. ";

/// Surroundings as the assistant renders them (`assistant::render_state`) for a busy
/// hallway; with [`DEFAULT_SYSTEM_PROMPT`] the system turn is ~325 tokens.
pub const BENCH_SURROUNDINGS: &str = "Wearer: walking for 6.4 s, 1.1 m/s.
Things (nearest first):
- #3 metal pole (obstacle, in path): 12 o'clock, 2.0 m (3 steps), ground level, seen 0.5 s ago, confidence 0.90
- #12 bench (obstacle): 10 o'clock, 2.6 m (4 steps), body height, seen 0.8 s ago, confidence 0.75
- #7 door (door): 9 o'clock, 3.5 m (5 steps), seen 1.2 s ago, confidence 0.70
- #21 person (person): 1 o'clock, 4.2 m (6 steps), body height, seen 0.1 s ago, confidence 0.70
- #9 door (door): 3 o'clock, 5.0 m (7 steps), seen 2.0 s ago, confidence 0.65
- #14 stairs (drop-off): 12 o'clock, 9.5 m (13 steps), ground level, seen 3.1 s ago, confidence 0.55
Text:
- \"EXIT\": 2 o'clock, 6.0 m, looked at, read 1.0 s ago, confidence 0.80
- \"Room 214\": 9 o'clock, 3.6 m, read 1.4 s ago, confidence 0.82
- \"Mind the step\": 12 o'clock, 9.0 m, read 3.0 s ago, confidence 0.61
Gaze: 2 o'clock, pitch 5 deg, on #9.
Clear space: 1.8 m ahead, 3.0 m left, 0.5 m right.
Cannot: read text in the dark.
";

/// Questions of about 15 tokens each (with the chat template's user-turn tokens).
pub const BENCH_QUESTIONS: &[&str] = &[
    "Is there anything in front of me right now?",
    "Where is the nearest door on my left side?",
    "What does the sign above the door say?",
    "How far away is the pole in the hallway?",
    "Can I walk straight ahead without hitting things?",
];

fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// Runs every measurement on the GGUF at `path`.
pub fn run_bench(path: &Path, cfg: &LmBenchConfig) -> Result<LmBenchReport, LmError> {
    let repeats = cfg.repeats.max(1);
    let needed = cfg.prompt_tokens + cfg.gen_tokens as usize;
    if (cfg.n_ctx as usize) < needed {
        return Err(LmError::ContextFull {
            what: "the prompt and generation measurement",
            needed,
            n_ctx: cfg.n_ctx,
        });
    }
    let t_load = Instant::now();
    let assistant_ctx = ContextConfig {
        threads: cfg.threads,
        flash_attention: cfg.flash_attention,
        ..ContextConfig::default()
    };
    let mut engine = LmEngine::load(path, &assistant_ctx)?;
    let load_ms = t_load.elapsed().as_secs_f64() * 1e3;
    let never = AtomicBool::new(false);
    let mut sink = |_: &str| true;

    // The assistant's system turn (standing prompt + surroundings) and user turns.
    let system = system_turn(DEFAULT_SYSTEM_PROMPT, BENCH_SURROUNDINGS);
    let question = |i: usize| user_turn("", BENCH_QUESTIONS[i % BENCH_QUESTIONS.len()]);
    let (system_tokens, total) = engine.prompt_lengths(&system, &question(0))?;
    // Interleaved: cold (empty cache: system turn and question), then warm (the system turn
    // left in the cache by the cold request, another question).
    let mut cold_ms = Vec::new();
    let mut prefix_ms = Vec::new();
    for i in 0..repeats {
        engine.reset();
        let cold = engine.chat(&system, &question(i), GenOptions::new(1), &mut sink, &never)?;
        cold_ms.push(ms(cold.first_token_ns));
        let warm = engine.chat(
            &system,
            &question(i + 1),
            GenOptions::new(1),
            &mut sink,
            &never,
        )?;
        prefix_ms.push(ms(warm.first_token_ns));
    }

    // Prompt and generation speed on a ~325-token raw prompt (cache emptied each time), in a
    // context of the size asked for.
    if cfg.n_ctx != assistant_ctx.n_ctx {
        let model = engine.model().clone();
        drop(engine);
        engine = LmEngine::with_model(
            model,
            &ContextConfig {
                n_ctx: cfg.n_ctx,
                ..assistant_ctx
            },
        )?;
    }
    let mut text = String::new();
    while engine.model().tokenize(&text)?.len() < cfg.prompt_tokens {
        text.push_str(FILLER);
    }
    let toks = engine.model().tokenize(&text)?;
    let cut: Vec<u8> = toks
        .iter()
        .take(cfg.prompt_tokens)
        .flat_map(|&t| engine.model().token_bytes(t))
        .collect();
    let text = String::from_utf8_lossy(&cut).into_owned();
    let mut pp = Vec::new();
    let mut tg = Vec::new();
    let mut prompt_tokens = 0;
    for _ in 0..repeats {
        engine.reset();
        let st = engine.complete(
            &text,
            GenOptions {
                max_tokens: cfg.gen_tokens,
                stop_at_eog: false,
            },
            &mut sink,
            &never,
        )?;
        prompt_tokens = st.prefill_tokens as usize;
        pp.push(f64::from(st.prefill_tokens) / (st.prefill_ns as f64 / 1e9));
        // After the first token, each further token is one decode.
        let decodes = st.generated_tokens.saturating_sub(1);
        let gen_ns = st.total_ns - st.first_token_ns;
        if decodes > 0 && gen_ns > 0 {
            tg.push(f64::from(decodes) / (gen_ns as f64 / 1e9));
        }
    }
    Ok(LmBenchReport {
        model: path.display().to_string(),
        threads: cfg.threads,
        flash_attention: cfg.flash_attention,
        load_ms,
        prompt_tokens,
        prompt_tok_per_s: median(&pp),
        gen_tokens: cfg.gen_tokens,
        gen_tok_per_s: median(&tg),
        n_ctx: engine.n_ctx(),
        system_tokens,
        question_tokens: total - system_tokens,
        ttft_cold_ms: median(&cold_ms),
        ttft_prefix_ms: median(&prefix_ms),
        repeats,
    })
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
