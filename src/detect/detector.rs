//! [`Detector`]: the object detector (SSD MobileNetV2 COCO, `models/detector/`) on ONNX
//! Runtime. Loaded once with its contract checked (a missing, damaged or differently shaped
//! file is a [`DetectError`] naming the file); then one decoded frame in, the things found
//! out, each with its typed class, score and box in the frame's own pixels.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::resize::{square_rgb_of, Region};
use crate::aria::recording::image::DecodedImage;
use crate::aria::recording::orientation::Orientation;
use crate::infer::engine::{Dim, EngineError, ModelContract, OnnxEngine, TensorSpec, TensorView};
use crate::infer::ort_engine::{OrtEngine, OrtOptions};
use crate::infer::ModelFile;
use crate::state::ObjectClass;

/// The model's input side, pixels.
pub const INPUT_SIDE_PX: usize = 300;
/// Most boxes the model gives per frame (its post-processing keeps the best 20).
pub const MAX_BOXES: usize = 20;

/// The score from which a box counts as a thing: chosen on the labelled photos of
/// `tests/data/photos/` (`vista detect --labels`, table in `docs/detector.md`).
pub const DEFAULT_MIN_SCORE: f32 = 0.5;

/// What can go wrong loading or running the detector.
#[derive(Debug, thiserror::Error)]
pub enum DetectError {
    /// The model file is missing, damaged, or not the detector's shape (names the file).
    #[error(transparent)]
    Model(#[from] EngineError),
    /// The model ran but gave outputs of the wrong size.
    #[error("detector {path}: {what}")]
    Output {
        /// The model file.
        path: PathBuf,
        /// What was wrong.
        what: String,
    },
    /// The image cannot be given to the model (no pixels, or neither grey nor RGB).
    #[error("image of {width}×{height}×{channels} cannot be detected in")]
    Image {
        /// Width, pixels.
        width: u32,
        /// Height, pixels.
        height: u32,
        /// Channels.
        channels: u8,
    },
}

/// How to load the detector.
#[derive(Clone, Debug)]
pub struct DetectorConfig {
    /// The ONNX file.
    pub model: PathBuf,
    /// ONNX Runtime intra-op threads.
    pub threads: usize,
    /// Boxes scoring below this are dropped.
    pub min_score: f32,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        Self {
            model: ModelFile::Detector.path(),
            threads: 1,
            min_score: DEFAULT_MIN_SCORE,
        }
    }
}

/// A box in image pixels: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PixelBox {
    /// Left edge, pixels.
    pub x0: f32,
    /// Top edge, pixels.
    pub y0: f32,
    /// Right edge, pixels.
    pub x1: f32,
    /// Bottom edge, pixels.
    pub y1: f32,
}

impl PixelBox {
    /// Area, square pixels (0 for an empty box).
    pub fn area(&self) -> f32 {
        (self.x1 - self.x0).max(0.0) * (self.y1 - self.y0).max(0.0)
    }

    /// Intersection over union with `other` (0 when either is empty).
    pub fn iou(&self, other: &PixelBox) -> f32 {
        let w = (self.x1.min(other.x1) - self.x0.max(other.x0)).max(0.0);
        let h = (self.y1.min(other.y1) - self.y0.max(other.y0)).max(0.0);
        let inter = w * h;
        let union = self.area() + other.area() - inter;
        if union > 0.0 {
            inter / union
        } else {
            0.0
        }
    }

    /// The centre, pixels.
    pub fn centre(&self) -> [f32; 2] {
        [(self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0]
    }

    /// Where the thing in the box meets the ground, in the frame's pixels: the middle of the
    /// box's bottom edge as the frame stands upright (for a frame recorded a quarter turned,
    /// the middle of its right edge).
    pub fn foot(&self, orientation: Orientation) -> [f32; 2] {
        match orientation {
            Orientation::AsRecorded => [(self.x0 + self.x1) / 2.0, self.y1],
            Orientation::RotateCw90 => [self.x1, (self.y0 + self.y1) / 2.0],
        }
    }

    /// The top of the thing in the box, in the frame's pixels: the middle of the box's top
    /// edge as the frame stands upright (for a frame recorded a quarter turned, the middle
    /// of its left edge).
    pub fn top(&self, orientation: Orientation) -> [f32; 2] {
        match orientation {
            Orientation::AsRecorded => [(self.x0 + self.x1) / 2.0, self.y0],
            Orientation::RotateCw90 => [self.x0, (self.y0 + self.y1) / 2.0],
        }
    }
}

/// One thing found in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Detection {
    /// What it is.
    pub class: ObjectClass,
    /// The model's confidence, 0–1.
    pub score: f32,
    /// Where, in the frame's pixels.
    #[serde(rename = "box")]
    pub box_px: PixelBox,
}

/// The loaded detector.
pub struct Detector {
    engine: OrtEngine,
    min_score: f32,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector")
            .field("model", &self.engine.path())
            .field("min_score", &self.min_score)
            .finish()
    }
}

/// The tensors the detector must have (see `models/detector/PROVENANCE.md`).
fn contract() -> ModelContract {
    let f = |d: &[usize]| d.iter().map(|&n| Dim::Fixed(n)).collect::<Vec<_>>();
    ModelContract {
        inputs: vec![TensorSpec::f32(
            "image",
            &f(&[1, INPUT_SIDE_PX, INPUT_SIDE_PX, 3]),
        )],
        outputs: vec![
            TensorSpec::f32("boxes", &f(&[1, MAX_BOXES, 4])),
            TensorSpec::f32("classes", &f(&[1, MAX_BOXES])),
            TensorSpec::f32("scores", &f(&[1, MAX_BOXES])),
            TensorSpec::f32("count", &f(&[1])),
        ],
    }
}

impl Detector {
    /// Loads the model of `config` and checks its contract.
    pub fn load(config: &DetectorConfig) -> Result<Self, DetectError> {
        let engine = OrtEngine::load(
            &config.model,
            &contract(),
            OrtOptions {
                intra_threads: config.threads.max(1),
            },
        )?;
        Ok(Self {
            engine,
            min_score: config.min_score,
        })
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        self.engine.path()
    }

    /// The score from which a box counts.
    pub fn min_score(&self) -> f32 {
        self.min_score
    }

    /// The things in `img` (upright) scoring at least the configured minimum, best first.
    pub fn detect(&mut self, img: &DecodedImage) -> Result<Vec<Detection>, DetectError> {
        self.detect_oriented(img, Orientation::AsRecorded)
    }

    /// [`Self::detect`] on a frame recorded turned (`orientation`: how it must be turned to
    /// stand upright, as the model was trained); boxes in the recorded frame's pixels.
    pub fn detect_oriented(
        &mut self,
        img: &DecodedImage,
        orientation: Orientation,
    ) -> Result<Vec<Detection>, DetectError> {
        let region = Region::whole(img.width, img.height);
        self.detect_in(img, orientation, region)
    }

    /// [`Self::detect_oriented`] in the part `region` of the recorded frame alone (seen
    /// larger than in the whole frame: the model's input is 300 pixels square); boxes in the
    /// recorded frame's pixels.
    pub fn detect_in(
        &mut self,
        img: &DecodedImage,
        orientation: Orientation,
        region: Region,
    ) -> Result<Vec<Detection>, DetectError> {
        let min = self.min_score;
        let mut all = self.detect_all_in(img, orientation, region)?;
        all.retain(|d| d.score >= min);
        Ok(all)
    }

    /// Every box the model gives for `img` (upright; at most [`MAX_BOXES`]), whatever its
    /// score, best first: for measuring precision and recall at other thresholds.
    pub fn detect_all(&mut self, img: &DecodedImage) -> Result<Vec<Detection>, DetectError> {
        let region = Region::whole(img.width, img.height);
        self.detect_all_in(img, Orientation::AsRecorded, region)
    }

    fn detect_all_in(
        &mut self,
        img: &DecodedImage,
        orientation: Orientation,
        region: Region,
    ) -> Result<Vec<Detection>, DetectError> {
        let image_err = || DetectError::Image {
            width: img.width,
            height: img.height,
            channels: img.channels,
        };
        let mut input = square_rgb_of(img, region, INPUT_SIDE_PX).ok_or_else(image_err)?;
        if orientation == Orientation::RotateCw90 {
            // The input is the whole frame stretched square: turning it after shrinking is
            // turning the frame, at a 300² image's cost.
            input = rotate_square_cw90(&input, INPUT_SIDE_PX);
        }
        let shape = [1, INPUT_SIDE_PX, INPUT_SIDE_PX, 3];
        let outputs = self.engine.run(&[TensorView {
            name: "image",
            shape: &shape,
            data: &input,
        }])?;
        let out_err = |what: String| DetectError::Output {
            path: self.engine.path().to_path_buf(),
            what,
        };
        let [boxes, classes, scores, count] = outputs.as_slice() else {
            return Err(out_err(format!("{} outputs, expected 4", outputs.len())));
        };
        if boxes.data.len() < MAX_BOXES * 4
            || classes.data.len() < MAX_BOXES
            || scores.data.len() < MAX_BOXES
        {
            return Err(out_err("fewer than 20 boxes".into()));
        }
        let n = count
            .data
            .first()
            .filter(|c| c.is_finite())
            .map_or(0, |&c| (c.max(0.0) as usize).min(MAX_BOXES));
        let (w, h) = (region.w as f32, region.h as f32);
        let (ox, oy) = (region.x as f32, region.y as f32);
        let mut found = Vec::with_capacity(n);
        for i in 0..n {
            let score = scores.data[i];
            let key = classes.data[i];
            if !score.is_finite() || !key.is_finite() || key < 0.0 {
                continue;
            }
            let Some(class) = ObjectClass::from_coco_key(key.round() as u32) else {
                continue;
            };
            let b = &boxes.data[i * 4..i * 4 + 4];
            let clamp = |v: f32| {
                if v.is_finite() {
                    v.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            };
            // (ymin, xmin, ymax, xmax) of the upright image, 0-1.
            let [uy0, ux0, uy1, ux1] = [clamp(b[0]), clamp(b[1]), clamp(b[2]), clamp(b[3])];
            // In the recorded frame: a point (x, y) upright was (y, 1 - x) recorded.
            let [x0, y0, x1, y1] = match orientation {
                Orientation::AsRecorded => [ux0, uy0, ux1, uy1],
                Orientation::RotateCw90 => [uy0, 1.0 - ux1, uy1, 1.0 - ux0],
            };
            let box_px = PixelBox {
                x0: ox + x0 * w,
                y0: oy + y0 * h,
                x1: ox + x1 * w,
                y1: oy + y1 * h,
            };
            if box_px.area() <= 0.0 {
                continue;
            }
            found.push(Detection {
                class,
                score: score.clamp(0.0, 1.0),
                box_px,
            });
        }
        found.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(found)
    }
}

/// A `side × side` RGB image (row-major) turned a quarter clockwise: the upright pixel
/// `(x, y)` is the recorded pixel `(y, side − 1 − x)`.
fn rotate_square_cw90(img: &[f32], side: usize) -> Vec<f32> {
    let mut out = vec![0f32; img.len()];
    for y in 0..side {
        for x in 0..side {
            let src = ((side - 1 - x) * side + y) * 3;
            let dst = (y * side + x) * 3;
            if let (Some(s), Some(d)) = (img.get(src..src + 3), out.get_mut(dst..dst + 3)) {
                d.copy_from_slice(s);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Turned as `Orientation` turns points: the recorded top-left pixel ends top-right.
    #[test]
    fn a_quarter_turn_of_the_input() {
        let side = 3;
        let img: Vec<f32> = (0..side * side).flat_map(|i| [i as f32; 3]).collect();
        let out = rotate_square_cw90(&img, side);
        let o = Orientation::RotateCw90;
        for ry in 0..side {
            for rx in 0..side {
                let [ux, uy] = o.to_upright([rx as f32, ry as f32], side as u32);
                let (ux, uy) = (ux as usize, uy as usize);
                assert_eq!(out[(uy * side + ux) * 3], img[(ry * side + rx) * 3]);
            }
        }
    }

    /// Foot and top are the middles of the box's bottom and top as the frame stands upright.
    #[test]
    fn foot_and_top_of_a_box_as_it_stands() {
        let b = PixelBox {
            x0: 10.0,
            y0: 20.0,
            x1: 30.0,
            y1: 80.0,
        };
        for o in [Orientation::AsRecorded, Orientation::RotateCw90] {
            let foot = o.to_upright(b.foot(o), 100);
            let top = o.to_upright(b.top(o), 100);
            let corners = [[b.x0, b.y0], [b.x1, b.y1]].map(|c| o.to_upright(c, 100));
            let (lo, hi) = (
                corners[0][1].min(corners[1][1]),
                corners[0][1].max(corners[1][1]),
            );
            assert_eq!(foot[0], top[0], "{o:?}");
            assert_eq!((top[1], foot[1]), (lo, hi), "{o:?}");
        }
    }

    #[test]
    fn iou_of_boxes() {
        let a = PixelBox {
            x0: 0.0,
            y0: 0.0,
            x1: 10.0,
            y1: 10.0,
        };
        let b = PixelBox {
            x0: 5.0,
            y0: 0.0,
            x1: 15.0,
            y1: 10.0,
        };
        assert!((a.iou(&b) - 50.0 / 150.0).abs() < 1e-6);
        assert_eq!(a.iou(&a), 1.0);
        let empty = PixelBox {
            x0: 3.0,
            y0: 3.0,
            x1: 3.0,
            y1: 9.0,
        };
        assert_eq!(a.iou(&empty), 0.0);
        assert_eq!(a.centre(), [5.0, 5.0]);
    }

    #[test]
    fn a_missing_model_names_its_file() {
        let e = Detector::load(&DetectorConfig {
            model: PathBuf::from("/nonexistent/detector.onnx"),
            ..DetectorConfig::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/detector.onnx"), "{e}");
    }
}
