//! `vista bench lm [--model GGUF] [--threads N] [--json] [--compare]`: language-model speed
//! (prompt and generation tokens/s, time to first token cold and with the system prompt
//! reused); `--compare` measures the fetched Q4_1 file and its Q4_0 re-quantisation and
//! checks their first 16 greedy tokens on a few prompts.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use vista::infer::llm::bench::{run_bench, LmBenchConfig, LmBenchReport, BENCH_QUESTIONS};
use vista::infer::llm::{
    default_model_path, ensure_quantized, fetched_model_path, ContextConfig, GenOptions, LmEngine,
    QuantType, DEFAULT_SYSTEM_PROMPT,
};

/// Arguments of `vista bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(Debug, clap::Subcommand)]
enum BenchWhat {
    /// The language model.
    Lm(LmArgs),
}

#[derive(Debug, clap::Args)]
struct LmArgs {
    /// GGUF model file (default: the default model, SmolLM2 Q4_0).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Threads.
    #[arg(long, default_value_t = 2)]
    threads: u32,
    /// Repeats per measurement (medians reported).
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Measure the fetched Q4_1 file and its Q4_0 re-quantisation, and compare their first
    /// 16 greedy tokens.
    #[arg(long)]
    compare: bool,
}

/// Runs `vista bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.what {
        BenchWhat::Lm(a) => run_lm(a),
    }
}

fn print_report(r: &LmBenchReport) {
    println!("model            {}", r.model);
    println!("threads          {}", r.threads);
    println!("load             {:.0} ms", r.load_ms);
    println!(
        "prompt           {:.1} tok/s ({} tokens, median of {})",
        r.prompt_tok_per_s, r.prompt_tokens, r.repeats
    );
    println!(
        "generate         {:.1} tok/s ({} tokens after the prompt)",
        r.gen_tok_per_s, r.gen_tokens
    );
    println!(
        "first token cold {:.0} ms ({} system + {} question tokens, empty cache)",
        r.ttft_cold_ms, r.system_tokens, r.question_tokens
    );
    println!(
        "first token warm {:.0} ms ({} question tokens, system prompt reused; target <= 150)",
        r.ttft_prefix_ms, r.question_tokens
    );
}

fn first_tokens(path: &Path, threads: u32) -> anyhow::Result<Vec<String>> {
    let mut engine = LmEngine::load(
        path,
        &ContextConfig {
            threads,
            ..ContextConfig::default()
        },
    )?;
    let never = AtomicBool::new(false);
    let mut answers = Vec::new();
    for q in BENCH_QUESTIONS {
        let mut text = String::new();
        let mut collect = |s: &str| {
            text.push_str(s);
            true
        };
        engine.chat(
            DEFAULT_SYSTEM_PROMPT,
            q,
            GenOptions::new(16),
            &mut collect,
            &never,
        )?;
        answers.push(text);
    }
    Ok(answers)
}

fn run_lm(a: LmArgs) -> anyhow::Result<()> {
    let cfg = LmBenchConfig {
        threads: a.threads,
        repeats: a.repeats,
        ..LmBenchConfig::default()
    };
    let paths = if a.compare {
        let q41 = fetched_model_path();
        let q40 = ensure_quantized(&q41, QuantType::Q4_0, a.threads)?;
        vec![q41, q40]
    } else {
        vec![match a.model {
            Some(p) => p,
            None => default_model_path(a.threads).context("default language model")?,
        }]
    };
    let mut reports = Vec::new();
    for p in &paths {
        let r = run_bench(p, &cfg).with_context(|| format!("benchmarking {}", p.display()))?;
        if !a.json {
            print_report(&r);
            println!();
        }
        reports.push(r);
    }
    let mut agreement = None;
    if let [p1, p2] = paths.as_slice() {
        let t1 = first_tokens(p1, a.threads)?;
        let t2 = first_tokens(p2, a.threads)?;
        let same = t1.iter().zip(&t2).filter(|(x, y)| x == y).count();
        if !a.json {
            for (q, (x, y)) in BENCH_QUESTIONS.iter().zip(t1.iter().zip(&t2)) {
                println!("{q}\n  Q4_1: {x:?}\n  Q4_0: {y:?}");
            }
            println!(
                "first 16 greedy tokens identical for {same} of {} prompts",
                t1.len()
            );
        }
        agreement = Some(serde_json::json!({ "identical": same, "prompts": t1.len() }));
    }
    if a.json {
        let v = serde_json::json!({ "reports": reports, "first16_agreement": agreement });
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(())
}
