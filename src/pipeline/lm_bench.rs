//! The language model's speed (`vista bench lm`): a bundle's image path, the text speed of
//! one model or of the fetched Q4_1 file and its Q4_0 re-quantisation in interleaved
//! rounds (so all see the same machine load), and the two models' greedy answers to ten
//! assistant-style prompts compared (kept facts, invented numbers, identical first 16
//! tokens).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::infer::bundle::{Bundle, BundleError};
use crate::infer::llm::answer_check::{facts_kept, invented_numbers, EVAL_PROMPTS};
use crate::infer::llm::bench::{median, run_bench, LmBenchConfig, LmBenchReport};
use crate::infer::llm::generator::{system_turn, user_turn};
use crate::infer::llm::vision_bench::{run_image_bench, ImageBenchReport};
use crate::infer::llm::{
    default_model_path, ensure_quantized, fetched_model_path, ContextConfig, GenOptions, LmEngine,
    LmError, QuantType, DEFAULT_SYSTEM_PROMPT,
};

/// What can go wrong measuring.
#[derive(Debug, thiserror::Error)]
pub enum LmBenchError {
    /// The bundle could not be loaded.
    #[error("bundle {path}", path = path.display())]
    Bundle {
        /// The bundle.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: BundleError,
    },
    /// The default model is not available.
    #[error("default language model")]
    DefaultModel(#[source] LmError),
    /// A measurement failed.
    #[error("benchmarking {path}", path = path.display())]
    Bench {
        /// The model or projector measured.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: LmError,
    },
    /// The language model failed.
    #[error(transparent)]
    Lm(#[from] LmError),
}

/// A bundle's language model and, when it has a vision projector, its image path measured.
#[derive(Clone, Debug)]
pub struct BundleBench {
    /// The bundle's language model.
    pub gguf: PathBuf,
    /// The image path, when the bundle has a projector.
    pub image: Option<ImageBenchReport>,
}

/// Loads `bundle` and measures its image path (`frame`: width and height, px).
pub fn bench_bundle_image(
    bundle: &Path,
    threads: u32,
    repeats: usize,
    frame: (u32, u32),
) -> Result<BundleBench, LmBenchError> {
    let b = Bundle::load(bundle).map_err(|source| LmBenchError::Bundle {
        path: bundle.to_path_buf(),
        source,
    })?;
    let image = match &b.lm.mmproj {
        Some(mm) => Some(
            run_image_bench(&b.lm.gguf, mm, threads, repeats, frame).map_err(|source| {
                LmBenchError::Bench {
                    path: mm.clone(),
                    source,
                }
            })?,
        ),
        None => None,
    };
    Ok(BundleBench {
        gguf: b.lm.gguf.clone(),
        image,
    })
}

/// The models to measure: with `compare`, the fetched Q4_1 file and its Q4_0
/// re-quantisation (made on first use); else `model`, or the default model.
pub fn bench_models(
    compare: bool,
    model: Option<PathBuf>,
    threads: u32,
) -> Result<Vec<PathBuf>, LmBenchError> {
    if compare {
        let q41 = fetched_model_path();
        let q40 = ensure_quantized(&q41, QuantType::Q4_0, threads)?;
        return Ok(vec![q41, q40]);
    }
    Ok(vec![match model {
        Some(p) => p,
        None => default_model_path(threads).map_err(LmBenchError::DefaultModel)?,
    }])
}

/// `rounds` rounds (at least one) of every variant (model, flash attention) in turn
/// (A B A B …) under `config`; `on_report` hears of each report as it is measured.
pub fn bench_rounds(
    variants: &[(PathBuf, bool)],
    rounds: usize,
    config: &LmBenchConfig,
    on_report: &mut dyn FnMut(&LmBenchReport),
) -> Result<Vec<LmBenchReport>, LmBenchError> {
    let mut reports = Vec::new();
    for _ in 0..rounds.max(1) {
        for (p, f) in variants {
            let cfg = LmBenchConfig {
                flash_attention: *f,
                ..*config
            };
            let r = run_bench(p, &cfg).map_err(|source| LmBenchError::Bench {
                path: p.clone(),
                source,
            })?;
            on_report(&r);
            reports.push(r);
        }
    }
    Ok(reports)
}

/// The median over rounds of `f` for variant 0 and 1 of `n`, and of the ratio variant
/// 1 / 0.
pub fn round_medians(
    reports: &[LmBenchReport],
    n: usize,
    f: fn(&LmBenchReport) -> f64,
) -> (f64, f64, f64) {
    let of = |i: usize| -> Vec<f64> { reports.iter().skip(i).step_by(n).map(f).collect() };
    let ratios: Vec<f64> = of(0).iter().zip(of(1)).map(|(x, y)| y / x).collect();
    (median(&of(0)), median(&of(1)), median(&ratios))
}

/// One model's answer to one prompt, checked against the prompt's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedAnswer {
    /// The answer.
    pub text: String,
    /// Facts kept.
    pub kept: usize,
    /// Numbers not in the surroundings.
    pub invented: Vec<f64>,
}

/// Both models' answers to one prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptComparison {
    /// The question.
    pub question: &'static str,
    /// Facts the prompt holds.
    pub facts: usize,
    /// Model A's and model B's answers.
    pub answers: [CheckedAnswer; 2],
}

/// Two models' greedy answers to [`EVAL_PROMPTS`].
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerComparison {
    /// Per prompt.
    pub prompts: Vec<PromptComparison>,
    /// Facts over all prompts.
    pub facts: usize,
    /// Facts kept by A and by B.
    pub facts_kept: [usize; 2],
    /// Invented numbers of A and of B.
    pub invented_numbers: [usize; 2],
    /// Prompts whose answers' first 16 tokens are identical.
    pub first16_identical: usize,
}

impl AnswerComparison {
    /// The comparison as JSON (counts and both models' answers).
    pub fn to_json(&self) -> serde_json::Value {
        let answers = |k: usize| -> Vec<&str> {
            self.prompts
                .iter()
                .filter_map(|p| p.answers.get(k).map(|a| a.text.as_str()))
                .collect()
        };
        serde_json::json!({
            "prompts": EVAL_PROMPTS.len(),
            "facts": self.facts,
            "facts_kept": self.facts_kept,
            "invented_numbers": self.invented_numbers,
            "first16_identical": self.first16_identical,
            "answers": [answers(0), answers(1)],
        })
    }
}

/// One model's greedy answers (up to 48 tokens) to [`EVAL_PROMPTS`].
fn answers(path: &Path, threads: u32) -> Result<Vec<String>, LmError> {
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
fn first_tokens(engine: &LmEngine, text: &str, n: usize) -> Result<Vec<i32>, LmError> {
    let mut t = engine.model().tokenize(text)?;
    t.truncate(n);
    Ok(t)
}

/// Both models' greedy answers to [`EVAL_PROMPTS`], compared (tokens under `p1`'s
/// tokenizer).
pub fn compare_answers(
    p1: &Path,
    p2: &Path,
    threads: u32,
) -> Result<AnswerComparison, LmBenchError> {
    let a1 = answers(p1, threads)?;
    let a2 = answers(p2, threads)?;
    let tok = LmEngine::load(p1, &ContextConfig::default())?;
    let mut same16 = 0;
    let mut tally = [(0usize, 0usize), (0usize, 0usize)];
    let n_facts: usize = EVAL_PROMPTS.iter().map(|p| p.facts.len()).sum();
    let mut prompts = Vec::new();
    for (p, (x, y)) in EVAL_PROMPTS.iter().zip(a1.iter().zip(&a2)) {
        if first_tokens(&tok, x, 16)? == first_tokens(&tok, y, 16)? {
            same16 += 1;
        }
        let check = |k: usize, a: &String, tally: &mut [(usize, usize); 2]| {
            let kept = facts_kept(a, p.facts);
            let invented = invented_numbers(a, p.surroundings);
            if let Some(t) = tally.get_mut(k) {
                t.0 += kept;
                t.1 += invented.len();
            }
            CheckedAnswer {
                text: a.clone(),
                kept,
                invented,
            }
        };
        let first = check(0, x, &mut tally);
        let second = check(1, y, &mut tally);
        prompts.push(PromptComparison {
            question: p.question,
            facts: p.facts.len(),
            answers: [first, second],
        });
    }
    Ok(AnswerComparison {
        prompts,
        facts: n_facts,
        facts_kept: [tally[0].0, tally[1].0],
        invented_numbers: [tally[0].1, tally[1].1],
        first16_identical: same16,
    })
}
