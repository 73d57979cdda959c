//! `vista ask [--model GGUF] [--threads N] [--max-tokens N] "question"`: streams the language
//! model's answer to standard output; time to first token and speed go to standard error.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;

use vista::infer::llm::{
    default_model_path, ContextConfig, GenOptions, LmEngine, DEFAULT_SYSTEM_PROMPT,
};

/// Arguments of `vista ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// GGUF model file (default: the fetched SmolLM2, re-quantised to Q4_0 in the model
    /// cache on first use).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Threads (no more than free cores: OpenMP waits actively).
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Most tokens to generate.
    #[arg(long, default_value_t = 128)]
    pub max_tokens: u32,
    /// System prompt (default: the wearable assistant's).
    #[arg(long)]
    pub system: Option<String>,
}

/// Runs `vista ask`.
pub fn run(args: AskArgs) -> anyhow::Result<()> {
    let path = match args.model {
        Some(p) => p,
        None => default_model_path(args.threads).context("default language model")?,
    };
    let mut engine = LmEngine::load(
        &path,
        &ContextConfig {
            threads: args.threads,
            ..ContextConfig::default()
        },
    )?;
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = Arc::clone(&cancel);
        // Ctrl-C stops generation between tokens; a second handler install failing is fine.
        let _ = ctrlc::set_handler(move || c.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut write_ok = true;
    let mut on_text = |s: &str| {
        write_ok = out.write_all(s.as_bytes()).is_ok() && out.flush().is_ok();
        write_ok
    };
    let system = args.system.as_deref().unwrap_or(DEFAULT_SYSTEM_PROMPT);
    let st = engine.chat(
        system,
        &args.question,
        GenOptions::new(args.max_tokens),
        &mut on_text,
        &cancel,
    )?;
    let _ = writeln!(std::io::stdout());
    let gen_s = (st.total_ns - st.first_token_ns) as f64 / 1e9;
    let decodes = st.generated_tokens.saturating_sub(1);
    eprintln!(
        "{}: {} prompt tokens, first token {:.0} ms, {} tokens, {:.1} tok/s, stop: {:?}",
        engine.name(),
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
    Ok(())
}
