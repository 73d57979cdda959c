//! Reading text with PP-OCRv4 (issue 8): the RapidOCR 1.4.4 pipeline on ONNX Runtime —
//! detection ([`det_pre`], [`db_post`]), line crops ([`warp`]), direction classifier and
//! recognition ([`rec_pre`], [`ctc`]) in [`engine`] on the models of [`onnx_model`] —,
//! reading around the gaze point ([`roi`]), the whole frame square by square on request
//! ([`tiles`]), clock directions through the RGB calibration ([`bearing`]), and the
//! [`crate::state::TextReader`] port ([`reader`], [`facts`]), read inline or on the one
//! newest-frame-wins thread of [`newest_frame`].
//!
//! Pure computation (everything but [`onnx_model`], [`engine`] and [`reader`]) is tested
//! without models; `tests/ocr.rs` compares the whole pipeline with RapidOCR's own output.

pub mod bearing;
pub mod ctc;
pub mod db_post;
pub mod det_pre;
pub mod engine;
pub mod error;
pub mod facts;
pub mod geometry;
pub mod image;
pub mod newest_frame;
pub mod onnx_model;
pub mod reader;
pub mod rec_pre;
pub mod roi;
pub mod text_reads;
pub mod tiles;
pub mod warp;

pub use bearing::RgbGeometry;
pub use db_post::{DbParams, DetBox};
pub use det_pre::DetLimit;
pub use engine::{models_present, OcrConfig, OcrEngine, OcrModelPaths, TextLine};
pub use error::OcrError;
pub use facts::{FactFilter, Orientation};
pub use geometry::Quad;
pub use image::BgrImage;
pub use reader::{OcrReader, ReadMode, ReaderConfig, ReaderStats};
pub use roi::{read_region, region_rect, PixelRect, Region};
