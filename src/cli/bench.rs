//! `vista bench lm [--model GGUF | --bundle B] [--threads N] [--rounds R] [--json] [--compare]`:
//! language-model speed (prompt and generation tokens/s, time to first token cold and with
//! the system turn reused); `--compare` measures the fetched Q4_1 file and its Q4_0
//! re-quantisation in interleaved rounds and answers ten assistant-style prompts with both
//! (greedy), counting kept facts, invented numbers and identical first 16 tokens. With a
//! bundle that has a vision projector, image encode time (new frames), a cache hit and time
//! to first token over one image are measured too (`--frame WxH`, default the Aria RGB
//! camera's 1408x1408).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use vista::infer::bundle::Bundle;
use vista::infer::llm::answer_check::{facts_kept, invented_numbers, EVAL_PROMPTS};
use vista::infer::llm::bench::{median, run_bench, LmBenchConfig, LmBenchReport};
use vista::infer::llm::generator::{system_turn, user_turn};
use vista::infer::llm::vision_bench::{run_image_bench, ImageBenchReport};
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
    #[arg(long, conflicts_with = "bundle")]
    model: Option<PathBuf>,
    /// A model bundle: its language model, and its vision projector when it has one.
    #[arg(long, conflicts_with = "compare")]
    bundle: Option<PathBuf>,
    /// Frame size for the image encode measurement, `WIDTHxHEIGHT`.
    #[arg(long, default_value = "1408x1408", value_parser = parse_frame)]
    frame: (u32, u32),
    /// With `--bundle`: measure only the image path, not the language model's text speed.
    #[arg(long, requires = "bundle")]
    image_only: bool,
    /// Threads.
    #[arg(long, default_value_t = 2)]
    threads: u32,
    /// Repeats per measurement (medians reported).
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Context window for the prompt and generation figures, tokens (default: the
    /// assistant's; `--ctx 512` is the window `llama-bench` makes for a 325-token prompt and
    /// 64 tokens generated after it).
    #[arg(long)]
    ctx: Option<u32>,
    /// Rounds: with `--compare`, the two models are measured alternately this many times.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    /// llama.cpp's flash attention: off (vista's default), on, or both (interleaved rounds).
    #[arg(long, value_enum, default_value_t = FlashAttn::Off)]
    flash_attn: FlashAttn,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Measure the fetched Q4_1 file and its Q4_0 re-quantisation (interleaved rounds), and
    /// compare their greedy answers to ten assistant-style prompts.
    #[arg(long)]
    compare: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FlashAttn {
    Off,
    On,
    Both,
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
    println!(
        "flash attention  {}",
        if r.flash_attention { "on" } else { "off" }
    );
    println!("load             {:.0} ms", r.load_ms);
    println!(
        "prompt           {:.1} tok/s ({} tokens, median of {})",
        r.prompt_tok_per_s, r.prompt_tokens, r.repeats
    );
    println!(
        "generate         {:.1} tok/s ({} tokens after the prompt)",
        r.gen_tok_per_s, r.gen_tokens
    );
    println!("window           {} tokens (prompt and generate)", r.n_ctx);
    println!(
        "first token cold {:.0} ms ({} system + {} question tokens, empty cache)",
        r.ttft_cold_ms, r.system_tokens, r.question_tokens
    );
    println!(
        "first token warm {:.0} ms ({} question tokens, system turn reused; target <= 150)",
        r.ttft_prefix_ms, r.question_tokens
    );
}

/// One model's greedy answers (up to 48 tokens) to [`EVAL_PROMPTS`].
fn answers(path: &Path, threads: u32) -> anyhow::Result<Vec<String>> {
    let mut engine = LmEngine::load(
        path,
        &ContextConfig {
            threads,
            ..ContextConfig::default()
        },
    )?;
    let never = AtomicBool::new(false);
    let mut out = Vec::new();
    for p in EVAL_PROMPTS {
        let mut text = String::new();
        let mut collect = |s: &str| {
            text.push_str(s);
            true
        };
        engine.chat(
            &system_turn(DEFAULT_SYSTEM_PROMPT, p.surroundings),
            &user_turn("", p.question),
            GenOptions::new(48),
            &mut collect,
            &never,
        )?;
        out.push(text.trim().to_string());
    }
    Ok(out)
}

/// The first `n` tokens of `text` under `engine`'s tokenizer.
fn first_tokens(engine: &LmEngine, text: &str, n: usize) -> anyhow::Result<Vec<i32>> {
    let mut t = engine.model().tokenize(text)?;
    t.truncate(n);
    Ok(t)
}

fn compare_answers(
    p1: &Path,
    p2: &Path,
    threads: u32,
    json: bool,
) -> anyhow::Result<serde_json::Value> {
    let a1 = answers(p1, threads)?;
    let a2 = answers(p2, threads)?;
    let tok = LmEngine::load(p1, &ContextConfig::default())?;
    let mut same16 = 0;
    let mut tally = [(0usize, 0usize), (0usize, 0usize)];
    let n_facts: usize = EVAL_PROMPTS.iter().map(|p| p.facts.len()).sum();
    for (p, (x, y)) in EVAL_PROMPTS.iter().zip(a1.iter().zip(&a2)) {
        if first_tokens(&tok, x, 16)? == first_tokens(&tok, y, 16)? {
            same16 += 1;
        }
        let mut line = Vec::new();
        for (k, a) in [x, y].into_iter().enumerate() {
            let kept = facts_kept(a, p.facts);
            let inv = invented_numbers(a, p.surroundings);
            tally[k].0 += kept;
            tally[k].1 += inv.len();
            line.push(format!(
                "{a:?}  [facts {kept}/{}, invented numbers {inv:?}]",
                p.facts.len()
            ));
        }
        if !json {
            println!("{}\n  A: {}\n  B: {}", p.question, line[0], line[1]);
        }
    }
    if !json {
        println!(
            "A = {}\nB = {}\nfacts kept: A {}/{n_facts}, B {}/{n_facts}; invented numbers: A {}, B {}; \
             first 16 tokens identical on {same16} of {} prompts",
            p1.display(),
            p2.display(),
            tally[0].0,
            tally[1].0,
            tally[0].1,
            tally[1].1,
            EVAL_PROMPTS.len()
        );
    }
    Ok(serde_json::json!({
        "prompts": EVAL_PROMPTS.len(),
        "facts": n_facts,
        "facts_kept": [tally[0].0, tally[1].0],
        "invented_numbers": [tally[0].1, tally[1].1],
        "first16_identical": same16,
        "answers": [a1, a2],
    }))
}

/// The median over rounds of `f` for variant `i` of `n`, and of the ratio variant 1 / 0.
fn summary(reports: &[LmBenchReport], n: usize, f: fn(&LmBenchReport) -> f64) -> (f64, f64, f64) {
    let of = |i: usize| -> Vec<f64> { reports.iter().skip(i).step_by(n).map(f).collect() };
    let ratios: Vec<f64> = of(0).iter().zip(of(1)).map(|(x, y)| y / x).collect();
    (median(&of(0)), median(&of(1)), median(&ratios))
}

fn parse_frame(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?}: expected WIDTHxHEIGHT"))?;
    let p = |v: &str| v.trim().parse::<u32>().map_err(|e| format!("{v:?}: {e}"));
    let (w, h) = (p(w)?, p(h)?);
    if w == 0 || h == 0 {
        return Err("sides must be positive".into());
    }
    Ok((w, h))
}

fn print_image_report(r: &ImageBenchReport) {
    println!("projector        {} ({})", r.mmproj, r.projector);
    println!(
        "image encode     {:.1} ms median, {:.1} ms fastest ({} x {} px frame -> {} rows, {} new frames)",
        r.encode_ms, r.encode_min_ms, r.frame.0, r.frame.1, r.rows, r.repeats
    );
    println!("image cache hit  {:.0} us median", r.cached_us);
    println!(
        "first token      {:.0} ms with one image, empty cache; {:.0} ms median with the \
         system turn reused ({} image rows + question positions prefilled)",
        r.ttft_cold_ms, r.ttft_ms, r.prompt_positions
    );
}

fn run_lm(mut a: LmArgs) -> anyhow::Result<()> {
    let mut image = None;
    if let Some(b) = &a.bundle {
        let bundle = Bundle::load(b).with_context(|| format!("bundle {}", b.display()))?;
        a.model = Some(bundle.lm.gguf.clone());
        if let Some(mm) = &bundle.lm.mmproj {
            image = Some(
                run_image_bench(&bundle.lm.gguf, mm, a.threads, a.repeats, a.frame)
                    .with_context(|| format!("benchmarking {}", mm.display()))?,
            );
        }
    }
    if let (Some(r), false) = (&image, a.json) {
        print_image_report(r);
        println!();
    }
    if a.image_only {
        if a.json {
            let v = serde_json::json!({ "image": image });
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
        return Ok(());
    }
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
    let fa: &[bool] = match a.flash_attn {
        FlashAttn::Off => &[false],
        FlashAttn::On => &[true],
        FlashAttn::Both => &[false, true],
    };
    let variants: Vec<(PathBuf, bool)> = paths
        .iter()
        .flat_map(|p| fa.iter().map(move |&f| (p.clone(), f)))
        .collect();
    // Rounds of every variant in turn (A B A B …), so all see the same machine load.
    let mut reports = Vec::new();
    for _ in 0..a.rounds.max(1) {
        for (p, f) in &variants {
            let cfg = LmBenchConfig {
                threads: a.threads,
                repeats: a.repeats,
                flash_attention: *f,
                n_ctx: a.ctx.unwrap_or(LmBenchConfig::default().n_ctx),
                ..LmBenchConfig::default()
            };
            let r = run_bench(p, &cfg).with_context(|| format!("benchmarking {}", p.display()))?;
            if !a.json {
                print_report(&r);
                println!();
            }
            reports.push(r);
        }
    }
    if variants.len() == 2 && !a.json {
        let n = variants.len();
        println!(
            "medians of {} rounds; A = {} (flash attention {}), B = {} (flash attention {}):",
            a.rounds.max(1),
            variants[0].0.display(),
            on_off(variants[0].1),
            variants[1].0.display(),
            on_off(variants[1].1)
        );
        let rows: [(&str, Metric); 5] = [
            ("prompt tok/s", |r| r.prompt_tok_per_s),
            ("generate tok/s", |r| r.gen_tok_per_s),
            ("first token cold ms", |r| r.ttft_cold_ms),
            ("first token warm ms", |r| r.ttft_prefix_ms),
            ("load ms", |r| r.load_ms),
        ];
        for (name, f) in rows {
            let (x, y, ratio) = summary(&reports, n, f);
            println!("{name:<20} A {x:8.1}  B {y:8.1}  B/A {ratio:.3}");
        }
        println!();
    }
    let mut comparison = None;
    if let [p1, p2] = paths.as_slice() {
        comparison = Some(compare_answers(p1, p2, a.threads, a.json)?);
    }
    if a.json {
        let v = serde_json::json!({ "reports": reports, "comparison": comparison, "image": image });
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(())
}

/// One column of the A/B summary.
type Metric = fn(&LmBenchReport) -> f64;

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}
