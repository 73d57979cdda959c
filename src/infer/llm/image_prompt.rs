//! Prompts with images: the user turn carries image placeholders (the bundle's
//! `prompt.image_placeholder`, default `<image>`); the chat text is split at them and each
//! is replaced by one encoded frame ([`super::vision::ImageEmbedding`]: its wrapper tokens
//! and embedding rows), then the whole is prefilled and answered greedily, streamed, with
//! cancellation, as text prompts are ([`LmEngine::generate_segments`]). A prompt with one
//! image made of embedding rows alone (LLaVA-style projectors) keeps the text before the
//! image (the system turn) in the KV cache between requests, so the next request prefills
//! only the image rows and the question ([`LmEngine::generate_after_embeddings`]).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use std::sync::atomic::AtomicBool;

use super::engine::{GenOptions, LmEngine, LmStats, Segment};
use super::error::LmError;
use super::vision::{ImageEmbedding, ImagePiece};

/// The segments of `text` with each `placeholder` replaced by the next image, in order.
/// Errors when the number of placeholders differs from the number of images, or an image's
/// width is not `n_embd`.
pub fn image_segments<'a>(
    text: &'a str,
    placeholder: &str,
    images: &[&'a ImageEmbedding],
    n_embd: usize,
) -> Result<Vec<Segment<'a>>, LmError> {
    if placeholder.is_empty() {
        return Err(LmError::Prompt("empty image placeholder".into()));
    }
    let parts: Vec<&str> = text.split(placeholder).collect();
    let n_placeholders = parts.len() - 1;
    if n_placeholders != images.len() {
        return Err(LmError::Prompt(format!(
            "the prompt has {n_placeholders} image placeholder(s) `{placeholder}` but {} \
             image(s) were given",
            images.len()
        )));
    }
    let mut segs = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if !part.is_empty() {
            segs.push(Segment::Text(part));
        }
        if let Some(img) = images.get(i) {
            if img.width != n_embd {
                return Err(LmError::EmbeddingWidth {
                    given: img.width,
                    expected: n_embd,
                });
            }
            for piece in &img.pieces {
                segs.push(match piece {
                    ImagePiece::Tokens(t) => Segment::Tokens(t),
                    ImagePiece::Embeddings(rows) => Segment::Embeddings {
                        rows,
                        width: img.width,
                    },
                });
            }
        }
    }
    Ok(segs)
}

impl LmEngine {
    /// Answers `user` (with `placeholder` where each of `images` goes) under the `system`
    /// prompt, through the model's chat template, streaming text to `on_text`.
    #[allow(clippy::too_many_arguments)]
    pub fn chat_with_images(
        &mut self,
        system: &str,
        user: &str,
        placeholder: &str,
        images: &[&ImageEmbedding],
        opts: GenOptions,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: &AtomicBool,
    ) -> Result<LmStats, LmError> {
        let chat = self.format().chat(self.model(), system, user)?;
        let n_embd = self.model().n_embd();
        let segs = image_segments(&chat.full, placeholder, images, n_embd)?;
        let positions: usize = images.iter().map(|i| i.n_positions).sum();
        if positions >= self.n_ctx() as usize {
            return Err(LmError::ContextFull {
                what: "the images",
                needed: positions + 1,
                n_ctx: self.n_ctx(),
            });
        }
        if let [img] = images {
            if let ([ImagePiece::Embeddings(rows)], Some((head, tail))) =
                (img.pieces.as_slice(), chat.full.split_once(placeholder))
            {
                if !tail.is_empty() {
                    let mut h = DefaultHasher::new();
                    "vista image prompt head".hash(&mut h);
                    head.hash(&mut h);
                    return self.generate_after_embeddings(
                        h.finish(),
                        head,
                        rows,
                        img.width,
                        tail,
                        opts,
                        on_text,
                        cancel,
                    );
                }
            }
        }
        self.generate_segments(&segs, opts, on_text, cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(rows: usize, width: usize) -> ImageEmbedding {
        ImageEmbedding {
            pieces: vec![
                ImagePiece::Tokens(vec![7]),
                ImagePiece::Embeddings(vec![0.5; rows * width]),
            ],
            width,
            n_positions: rows + 1,
            encode_ns: 0,
        }
    }

    #[test]
    fn placeholders_become_image_pieces_in_order() {
        let a = img(2, 4);
        let segs = image_segments("look <image> here", "<image>", &[&a], 4).unwrap();
        assert_eq!(segs.len(), 4);
        assert!(matches!(segs[0], Segment::Text("look ")));
        assert!(matches!(segs[1], Segment::Tokens([7])));
        assert!(matches!(segs[2], Segment::Embeddings { width: 4, rows } if rows.len() == 8));
        assert!(matches!(segs[3], Segment::Text(" here")));
    }

    #[test]
    fn count_and_width_mismatches_are_errors() {
        let a = img(1, 4);
        assert!(matches!(
            image_segments("no image", "<image>", &[&a], 4),
            Err(LmError::Prompt(_))
        ));
        assert!(matches!(
            image_segments("<image><image>", "<image>", &[&a], 4),
            Err(LmError::Prompt(_))
        ));
        assert!(matches!(
            image_segments("<image>", "<image>", &[&a], 5),
            Err(LmError::EmbeddingWidth {
                given: 4,
                expected: 5
            })
        ));
        assert!(image_segments("<image>", "", &[&a], 4).is_err());
    }
}
