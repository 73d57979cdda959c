//! `vista bench lm [--model GGUF | --bundle B] [--threads N] [--rounds R] [--json] [--compare]`:
//! language-model speed (prompt and generation tokens/s, time to first token cold and with
//! the system turn reused); `--compare` measures the fetched Q4_1 file and its Q4_0
//! re-quantisation in interleaved rounds and answers ten assistant-style prompts with both
//! (greedy), counting kept facts, invented numbers and identical first 16 tokens. With a
//! bundle that has a vision projector, image encode time (new frames), a cache hit and time
//! to first token over one image are measured too (`--frame WxH`, default the Aria RGB
//! camera's 1408x1408).

use std::path::{Path, PathBuf};

use vista::infer::llm::bench::{LmBenchConfig, LmBenchReport};
use vista::infer::llm::vision_bench::ImageBenchReport;
use vista::pipeline::lm_bench::{
    bench_bundle_image, bench_models, bench_rounds, compare_answers, round_medians,
    AnswerComparison,
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

/// Prints the comparison of two models' answers: per prompt both answers with their
/// checks, then the totals.
fn print_comparison(c: &AnswerComparison, p1: &Path, p2: &Path) {
    for p in &c.prompts {
        let line: Vec<String> = p
            .answers
            .iter()
            .map(|a| {
                format!(
                    "{:?}  [facts {}/{}, invented numbers {:?}]",
                    a.text, a.kept, p.facts, a.invented
                )
            })
            .collect();
        println!("{}\n  A: {}\n  B: {}", p.question, line[0], line[1]);
    }
    println!(
        "A = {}\nB = {}\nfacts kept: A {}/{n_facts}, B {}/{n_facts}; invented numbers: A {}, B {}; \
         first 16 tokens identical on {} of {} prompts",
        p1.display(),
        p2.display(),
        c.facts_kept[0],
        c.facts_kept[1],
        c.invented_numbers[0],
        c.invented_numbers[1],
        c.first16_identical,
        c.prompts.len(),
        n_facts = c.facts,
    );
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
        let bench = bench_bundle_image(b, a.threads, a.repeats, a.frame)?;
        a.model = Some(bench.gguf);
        image = bench.image;
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
    let paths = bench_models(a.compare, a.model.clone(), a.threads)?;
    let fa: &[bool] = match a.flash_attn {
        FlashAttn::Off => &[false],
        FlashAttn::On => &[true],
        FlashAttn::Both => &[false, true],
    };
    let variants: Vec<(PathBuf, bool)> = paths
        .iter()
        .flat_map(|p| fa.iter().map(move |&f| (p.clone(), f)))
        .collect();
    let config = LmBenchConfig {
        threads: a.threads,
        repeats: a.repeats,
        n_ctx: a.ctx.unwrap_or(LmBenchConfig::default().n_ctx),
        ..LmBenchConfig::default()
    };
    let json = a.json;
    let mut on_report = |r: &LmBenchReport| {
        if !json {
            print_report(r);
            println!();
        }
    };
    let reports = bench_rounds(&variants, a.rounds, &config, &mut on_report)?;
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
            let (x, y, ratio) = round_medians(&reports, n, f);
            println!("{name:<20} A {x:8.1}  B {y:8.1}  B/A {ratio:.3}");
        }
        println!();
    }
    let mut comparison = None;
    if let [p1, p2] = paths.as_slice() {
        let c = compare_answers(p1, p2, a.threads)?;
        if !a.json {
            print_comparison(&c, p1, p2);
        }
        comparison = Some(c.to_json());
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
