//! `vista understand TEXT…`: the typed request each text parses to, written
//! (`where_is cup`, `goal exit`, `people approaching`).
//!
//! `vista understand --set FILE [--misses dev|held|all] [--json]`: the paraphrase yardstick
//! (`tests/data/understanding/requests.tsv`): every request parsed and scored, as a Markdown
//! report (`docs/understanding.md`) or JSON.

use std::path::PathBuf;

use anyhow::Context;
use std::sync::Arc;

use vista::assistant::understand::similar::{understand_with, SimilarAsks};
use vista::assistant::understand::{keywords::keyword_ask, understand, Ask};
use vista::eval::understanding::{markdown, read_paraphrases, score};
use vista::infer::sentence::{load_minilm, minilm_cache_dir};

/// Arguments of `vista understand`.
#[derive(Debug, clap::Args)]
pub struct UnderstandArgs {
    /// Texts to parse, one request each.
    #[arg(required_unless_present = "set")]
    pub texts: Vec<String>,
    /// Score the requests of this paraphrase file instead.
    #[arg(long, value_name = "FILE", conflicts_with = "texts")]
    pub set: Option<PathBuf>,
    /// With --set, list the requests parsed wrongly in this split (held is for reporting, not
    /// for tuning; the misses of an unseen set are never listed).
    #[arg(long, value_enum)]
    pub misses: Option<MissSplit>,
    /// Which parser: the request parser, or the keyword dispatch it replaces.
    #[arg(long, value_enum, default_value_t = Parser::Rules)]
    pub parser: Parser,
    /// JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Splits whose misses are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MissSplit {
    /// Only dev.
    Dev,
    /// Only held.
    Held,
    /// Dev and held.
    All,
}

/// Parsers to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Parser {
    /// The request parser the assistant uses.
    Rules,
    /// The keyword dispatch (for comparison).
    Keywords,
    /// The request parser, then likeness to labelled examples (all-MiniLM-L6-v2 from the
    /// model cache) for what it leaves open: what the assistant uses when the model is there.
    Similar,
}

/// Runs `vista understand`.
pub fn run(args: UnderstandArgs) -> anyhow::Result<()> {
    let parse: Box<dyn Fn(&str) -> Ask> = match args.parser {
        Parser::Rules => Box::new(understand),
        Parser::Keywords => Box::new(keyword_ask),
        Parser::Similar => {
            let encoder = load_minilm().context("the sentence encoder (run models/fetch)")?;
            let (similar, _) = SimilarAsks::new(Arc::new(encoder), Some(&minilm_cache_dir()));
            Box::new(move |t: &str| understand_with(Some(&similar), t))
        }
    };
    let Some(file) = &args.set else {
        for t in &args.texts {
            let a = parse(t);
            if args.json {
                let line = serde_json::json!({
                    "text": t,
                    "kind": a.kind(),
                    "ask": a.to_string(),
                    "form": a.form().name(),
                });
                println!("{line}");
            } else {
                println!("{a}\t{t}");
            }
        }
        return Ok(());
    };
    let set = read_paraphrases(file).with_context(|| format!("--set {}", file.display()))?;
    let u = score(&set, &parse);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&u)?);
        return Ok(());
    }
    print!("{}", markdown(&u));
    if let Some(which) = args.misses {
        println!();
        for m in u.misses.iter().filter(|m| match which {
            MissSplit::Dev => m.split == "dev",
            MissSplit::Held => m.split == "held",
            MissSplit::All => m.split != "unseen",
        }) {
            println!("{}\t{:<28}\t{:<28}\t{}", m.split, m.expected, m.got, m.text);
        }
    }
    Ok(())
}
