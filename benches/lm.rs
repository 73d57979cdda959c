//! Language-model speed targets: time to first token for a ~15-token question with the
//! system prompt reused from the KV cache (target ≤ 150 ms on 2 threads), and 16 greedy
//! tokens after it. Needs the model cache (`models/fetch`); skips with a message otherwise.

use std::sync::atomic::AtomicBool;

use criterion::{criterion_group, criterion_main, Criterion};

use vista::infer::llm::bench::BENCH_QUESTIONS;
use vista::infer::llm::{
    default_model_path, ContextConfig, GenOptions, LmEngine, DEFAULT_SYSTEM_PROMPT,
};

fn lm(c: &mut Criterion) {
    let path = match default_model_path(2) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("lm bench skipped: {e}");
            return;
        }
    };
    let mut engine = match LmEngine::load(&path, &ContextConfig::default()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("lm bench skipped: {e}");
            return;
        }
    };
    let never = AtomicBool::new(false);
    let _ = engine.prepare_prefix(DEFAULT_SYSTEM_PROMPT);
    let mut g = c.benchmark_group("lm");
    g.sample_size(10);
    let mut i = 0usize;
    g.bench_function("first_token_prefix_reused", |b| {
        b.iter(|| {
            i += 1;
            let q = BENCH_QUESTIONS[i % BENCH_QUESTIONS.len()];
            engine
                .chat(
                    DEFAULT_SYSTEM_PROMPT,
                    q,
                    GenOptions::new(1),
                    &mut |_| true,
                    &never,
                )
                .map(|s| s.first_token_ns)
        })
    });
    g.bench_function("answer_16_tokens_prefix_reused", |b| {
        b.iter(|| {
            let opts = GenOptions {
                max_tokens: 16,
                stop_at_eog: false,
            };
            engine
                .chat(
                    DEFAULT_SYSTEM_PROMPT,
                    BENCH_QUESTIONS[0],
                    opts,
                    &mut |_| true,
                    &never,
                )
                .map(|s| s.generated_tokens)
        })
    });
    g.finish();
}

criterion_group!(benches, lm);
criterion_main!(benches);
