//! Embedding rows as input (the VISTA paper's sensor tokens at a placeholder): the one place
//! that fills `llama_batch.embd` through `llama-cpp-sys-2` (`llama_batch_init(n, n_embd, 1)`,
//! rows, positions, sequence ids, logit flags, `llama_decode`, free), which the safe
//! `llama-cpp-2` API does not expose. The width is checked against `llama_model_n_embd`
//! before any C call.

use super::error::LmError;
use super::raw_ctx::{Batch, RawContext};

/// Decodes `rows` (row-major, `width` floats per row) at positions `pos0..` of sequence 0,
/// in batches of at most the context's `n_batch` rows; keeps the logits of the last row when
/// `logits_last`. Returns the number of rows decoded.
///
/// Errors: [`LmError::EmbeddingWidth`] when `width` is not the model's `n_embd` or `rows`
/// is not a whole number of rows; [`LmError::ContextFull`] when the rows do not fit;
/// [`LmError::Decode`] when llama.cpp refuses the batch.
pub fn decode_embeddings(
    ctx: &mut RawContext,
    rows: &[f32],
    width: usize,
    pos0: u32,
    logits_last: bool,
) -> Result<usize, LmError> {
    let n_embd = ctx.n_embd();
    if width != n_embd || n_embd == 0 {
        return Err(LmError::EmbeddingWidth {
            given: width,
            expected: n_embd,
        });
    }
    if rows.len() % n_embd != 0 {
        return Err(LmError::Prompt(format!(
            "{} floats are not a whole number of rows of width {n_embd}",
            rows.len()
        )));
    }
    if let Some(i) = rows.iter().position(|v| !v.is_finite()) {
        return Err(LmError::Prompt(format!(
            "embedding value {i} (row {}, column {}) is not finite",
            i / n_embd,
            i % n_embd
        )));
    }
    let n_rows = rows.len() / n_embd;
    if n_rows == 0 {
        return Ok(0);
    }
    let end = u64::from(pos0) + n_rows as u64;
    if end > u64::from(ctx.n_ctx()) {
        return Err(LmError::ContextFull {
            what: "embedding rows",
            needed: end as usize,
            n_ctx: ctx.n_ctx(),
        });
    }
    let per = ctx.n_batch() as usize;
    let n_chunks = n_rows.div_ceil(per);
    for (ci, part) in rows.chunks(per * n_embd).enumerate() {
        let start = pos0 + (ci * per) as u32;
        let mut batch = Batch::new(part.len() / n_embd, n_embd)?;
        batch.fill_embeddings(part, start, logits_last && ci + 1 == n_chunks);
        ctx.decode(&batch, start)?;
    }
    Ok(n_rows)
}
