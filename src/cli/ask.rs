//! `vista ask [--model GGUF | --bundle B] [--image FILE.jpg]… [--session S --at SECONDS]
//! [--threads N] [--max-tokens N] "question"`: streams the language model's answer to
//! standard output; time to first token and speed go to standard error. With `--image` or
//! `--session`/`--at` (the RGB frame at that many seconds after the recording's first, a
//! bundle with a vision projector), each image goes in at the bundle's image placeholder:
//! where the question has placeholders, there; else all images before the question.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use vista::infer::llm::LmStats;
use vista::pipeline::ask::{prepare, AskOptions, EmbeddedImage};

/// Arguments of `vista ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// GGUF model file (default: the fetched SmolLM2, re-quantised to Q4_0 in the model
    /// cache on first use).
    #[arg(long, conflicts_with = "bundle")]
    pub model: Option<PathBuf>,
    /// A model bundle (`models/<name>` or its `bundle.toml`): its language model, and its
    /// vision projector for `--image`.
    #[arg(long)]
    pub bundle: Option<PathBuf>,
    /// A JPEG image to ask about (repeatable; needs a bundle with `lm.mmproj`).
    #[arg(long, requires = "bundle")]
    pub image: Vec<PathBuf>,
    /// A session folder (`recording.vrs`) or `.vrs` file to take an RGB frame from.
    #[arg(long, requires_all = ["bundle", "at"])]
    pub session: Option<PathBuf>,
    /// Seconds after the recording's first RGB frame (with `--session`).
    #[arg(long, requires = "session")]
    pub at: Option<f64>,
    /// Threads (no more than free cores: OpenMP waits actively).
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Most tokens to generate (default: 128, or the bundle's `generation.max_tokens` when
    /// smaller).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// System prompt (default: the wearable assistant's).
    #[arg(long)]
    pub system: Option<String>,
}

/// Runs `vista ask`.
pub fn run(args: AskArgs) -> anyhow::Result<()> {
    let options = AskOptions {
        question: args.question,
        model: args.model,
        bundle: args.bundle,
        images: args.image,
        session_frame: args.session.zip(args.at),
        threads: args.threads,
        max_tokens: args.max_tokens,
        system: args.system,
    };
    let mut on_image = |e: &EmbeddedImage| {
        eprintln!(
            "{}: {} x {} px -> {} embeddings in {:.1} ms",
            e.what, e.width, e.height, e.rows, e.encode_ms
        );
    };
    let prepared = prepare(&options, &mut on_image)?;
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = Arc::clone(&cancel);
        // Ctrl-C stops generation between tokens; a second handler install failing is fine.
        let _ = ctrlc::set_handler(move || c.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    let outcome = prepared.answer(&mut std::io::stdout().lock(), &cancel)?;
    let _ = writeln!(std::io::stdout());
    report(&outcome.model, &outcome.stats);
    Ok(())
}

fn report(name: &str, st: &LmStats) {
    let gen_s = (st.total_ns - st.first_token_ns) as f64 / 1e9;
    let decodes = st.generated_tokens.saturating_sub(1);
    eprintln!(
        "{}: {} prompt tokens, first token {:.0} ms, {} tokens, {:.1} tok/s, stop: {:?}",
        name,
        st.prefill_tokens,
        st.first_token_ns as f64 / 1e6,
        st.generated_tokens,
        if gen_s > 0.0 {
            f64::from(decodes) / gen_s
        } else {
            0.0
        },
        st.stop
    );
}
