//! [`OcrEngine`]: the whole PP-OCRv4 pipeline on one image, as RapidOCR 1.4.4 runs it —
//! size guards and letterbox, detection (DB), line crops, optional 0°/180° direction
//! classifier, batched recognition with greedy CTC, score filter — with the three ONNX
//! sessions created once and reused.

use std::path::{Path, PathBuf};

use super::ctc::Charset;
use super::db_post::{db_boxes, DbParams, DetBox};
use super::det_pre::{det_preprocess, py_round, DetLimit};
use super::error::OcrError;
use super::geometry::{dist, order_clockwise, Quad};
use super::image::BgrImage;
use super::onnx_model::Model;
use super::rec_pre::{batch_width, resize_norm_pad};
use super::warp::crop_quad;
use crate::infer::ModelFile;

/// Pipeline settings; the defaults are RapidOCR 1.4.4's `config.yaml`, except `threads`.
#[derive(Clone, Debug, PartialEq)]
pub struct OcrConfig {
    /// Intra-op threads per model (1: the glasses' host runs everything else beside it).
    pub threads: usize,
    /// Detection input size rule (RapidOCR: shorter side at least 736).
    pub det_limit: DetLimit,
    /// DB post-processing.
    pub db: DbParams,
    /// Run the 0°/180° direction classifier on each line.
    pub use_direction: bool,
    /// A line is turned when the classifier says 180° with more than this (0.9).
    pub direction_thresh: f32,
    /// Recogniser input height, pixels (48).
    pub rec_height_px: u32,
    /// Recogniser base width, pixels (320); wider lines widen their batch.
    pub rec_width_px: u32,
    /// Lines per recogniser / classifier run (6).
    pub batch: usize,
    /// Lines recognised with a lower confidence are dropped (0.5).
    pub text_score: f32,
    /// Images with a longer side are first scaled down to it (2000).
    pub max_side_px: u32,
    /// Images with a shorter side are first scaled up to it (30).
    pub min_side_px: u32,
    /// Images this low or lower get black bands above and below (30).
    pub min_height_px: u32,
    /// ... as do images wider than this times their height (8).
    pub width_height_ratio: f32,
}

impl Default for OcrConfig {
    fn default() -> Self {
        Self {
            threads: 1,
            det_limit: DetLimit::default(),
            db: DbParams::default(),
            use_direction: true,
            direction_thresh: 0.9,
            rec_height_px: 48,
            rec_width_px: 320,
            batch: 6,
            text_score: 0.5,
            max_side_px: 2000,
            min_side_px: 30,
            min_height_px: 30,
            width_height_ratio: 8.0,
        }
    }
}

/// Where the three models are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OcrModelPaths {
    /// Text detection.
    pub detection: PathBuf,
    /// Text recognition (its `character` metadata holds the character list).
    pub recognition: PathBuf,
    /// Direction classifier.
    pub direction: PathBuf,
}

impl Default for OcrModelPaths {
    /// The files `models/fetch` puts in the model cache.
    fn default() -> Self {
        Self {
            detection: ModelFile::OcrDetection.path(),
            recognition: ModelFile::OcrRecognition.path(),
            direction: ModelFile::OcrDirection.path(),
        }
    }
}

/// One line of text read in an image.
#[derive(Clone, Debug, PartialEq)]
pub struct TextLine {
    /// Corners (top-left, top-right, bottom-right, bottom-left), pixels of the input image.
    pub quad: Quad,
    /// The text.
    pub text: String,
    /// Recognition confidence: mean probability of the decoded characters, in [0, 1].
    pub confidence: f32,
    /// Detection score: mean text probability inside the box.
    pub det_score: f32,
}

/// The PP-OCRv4 pipeline with its sessions loaded.
#[derive(Debug)]
pub struct OcrEngine {
    det: Model,
    rec: Model,
    cls: Option<Model>,
    charset: Charset,
    cfg: OcrConfig,
    tensor: Vec<f32>,
}

/// How the input was changed before detection, to map boxes back.
struct Prep {
    scale_x: f32,
    scale_y: f32,
    pad_top: f32,
    raw_w: f32,
    raw_h: f32,
}

impl OcrEngine {
    /// Loads the models from the model cache.
    pub fn new(cfg: OcrConfig) -> Result<Self, OcrError> {
        Self::with_paths(&OcrModelPaths::default(), cfg)
    }

    /// Loads the models from `paths`.
    pub fn with_paths(paths: &OcrModelPaths, cfg: OcrConfig) -> Result<Self, OcrError> {
        let det = Model::load(&paths.detection, cfg.threads, "detection", 4)?;
        let rec = Model::load(&paths.recognition, cfg.threads, "recognition", 3)?;
        let cls = if cfg.use_direction {
            Some(Model::load(&paths.direction, cfg.threads, "direction", 2)?)
        } else {
            None
        };
        let chars = rec.metadata("character").ok_or_else(|| OcrError::Shape {
            path: paths.recognition.clone(),
            what: "no `character` metadata (not a PP-OCR recogniser?)".into(),
        })?;
        let charset = Charset::from_metadata(&chars);
        if let Some(n) = rec.output_dim(2) {
            if n as usize != charset.len() {
                return Err(OcrError::Shape {
                    path: paths.recognition.clone(),
                    what: format!("{n} output classes but {} characters", charset.len()),
                });
            }
        }
        Ok(Self {
            det,
            rec,
            cls,
            charset,
            cfg,
            tensor: Vec::new(),
        })
    }

    /// The settings in use.
    pub fn config(&self) -> &OcrConfig {
        &self.cfg
    }

    /// Reads every line of text in `img`, top to bottom then left to right.
    pub fn read(&mut self, img: &BgrImage) -> Result<Vec<TextLine>, OcrError> {
        let (work, prep) = self.prepare(img)?;
        let boxes = self.detect(&work)?;
        if boxes.is_empty() {
            return Ok(Vec::new());
        }
        let mut crops = Vec::with_capacity(boxes.len());
        for b in &boxes {
            crops.push(crop_quad(&work, &b.quad)?);
        }
        if self.cls.is_some() {
            self.orient(&mut crops)?;
        }
        let texts = self.recognise(&crops)?;
        let mut out = Vec::new();
        for (b, (text, confidence)) in boxes.iter().zip(texts) {
            if confidence < self.cfg.text_score {
                continue;
            }
            let mut quad = b.quad;
            for p in &mut quad {
                p[0] = (p[0] * prep.scale_x).clamp(0.0, prep.raw_w);
                p[1] = ((p[1] - prep.pad_top) * prep.scale_y).clamp(0.0, prep.raw_h);
            }
            out.push(TextLine {
                quad,
                text,
                confidence,
                det_score: b.score,
            });
        }
        Ok(out)
    }

    /// RapidOCR's size guards (longest side, shortest side) and letterbox.
    fn prepare(&self, img: &BgrImage) -> Result<(BgrImage, Prep), OcrError> {
        let (raw_w, raw_h) = (img.width(), img.height());
        let round32 = |v: f64| (py_round(v.trunc() / 32.0) * 32).max(0) as u32;
        let mut work = img.clone();
        let longest = raw_w.max(raw_h);
        if longest > self.cfg.max_side_px {
            let r = f64::from(self.cfg.max_side_px) / f64::from(longest);
            let (w, h) = (round32(f64::from(raw_w) * r), round32(f64::from(raw_h) * r));
            work = work.resize(w, h)?;
        }
        let shortest = work.width().min(work.height());
        if shortest < self.cfg.min_side_px {
            let r = f64::from(self.cfg.min_side_px) / f64::from(shortest);
            let (w, h) = (
                round32(f64::from(work.width()) * r),
                round32(f64::from(work.height()) * r),
            );
            work = work.resize(w, h)?;
        }
        let (w, h) = (work.width(), work.height());
        let wide =
            self.cfg.width_height_ratio > 0.0 && w as f32 / h as f32 > self.cfg.width_height_ratio;
        let mut pad_top = 0;
        if h <= self.cfg.min_height_px || wide {
            let new_h = ((w as f32 / self.cfg.width_height_ratio.max(1e-3)) as u32)
                .max(self.cfg.min_height_px)
                * 2;
            pad_top = new_h.abs_diff(h) / 2;
            work = work.pad_vertical(pad_top, pad_top);
        }
        let prep = Prep {
            scale_x: raw_w as f32 / w as f32,
            scale_y: raw_h as f32 / h as f32,
            pad_top: pad_top as f32,
            raw_w: raw_w as f32,
            raw_h: raw_h as f32,
        };
        Ok((work, prep))
    }

    /// Text boxes in `img` (pixels of `img`), in reading order.
    pub fn detect(&mut self, img: &BgrImage) -> Result<Vec<DetBox>, OcrError> {
        let mut tensor = std::mem::take(&mut self.tensor);
        let size = det_preprocess(img, self.cfg.det_limit, &mut tensor);
        let result = match size {
            Ok(Some((w, h))) => self
                .det
                .run([1, 3, h as usize, w as usize], &tensor)
                .map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        self.tensor = tensor;
        let Some((shape, prob)) = result? else {
            return Ok(Vec::new());
        };
        let [_, _, mh, mw] = shape[..] else {
            return Err(OcrError::Shape {
                path: self.det.path().to_path_buf(),
                what: format!("detection output {shape:?}, expected [1, 1, H, W]"),
            });
        };
        let (mw, mh) = (mw.max(0) as usize, mh.max(0) as usize);
        if prob.len() != mw * mh {
            return Err(OcrError::Shape {
                path: self.det.path().to_path_buf(),
                what: format!("detection output {shape:?} holds {} values", prob.len()),
            });
        }
        let boxes = db_boxes(&prob, mw, mh, img.width(), img.height(), &self.cfg.db);
        Ok(sorted_reading_order(filter_boxes(
            boxes,
            img.width(),
            img.height(),
        )))
    }

    /// Turns upside-down line crops (0°/180° classifier), as RapidOCR's `TextClassifier`.
    fn orient(&mut self, crops: &mut [BgrImage]) -> Result<(), OcrError> {
        let Some(cls) = self.cls.as_mut() else {
            return Ok(());
        };
        let order = by_aspect(crops);
        for chunk in order.chunks(self.cfg.batch.max(1)) {
            self.tensor.clear();
            for &i in chunk {
                resize_norm_pad(&crops[i], 48, 192, &mut self.tensor)?;
            }
            let (shape, probs) = cls.run([chunk.len(), 3, 48, 192], &self.tensor)?;
            if shape.get(1) != Some(&2) || probs.len() != chunk.len() * 2 {
                return Err(OcrError::Shape {
                    path: cls.path().to_path_buf(),
                    what: format!("direction output {shape:?}, expected [N, 2]"),
                });
            }
            for (k, &i) in chunk.iter().enumerate() {
                let (p0, p180) = (probs[2 * k], probs[2 * k + 1]);
                if p180 > p0 && p180 > self.cfg.direction_thresh {
                    crops[i] = crops[i].rotate_180();
                }
            }
        }
        Ok(())
    }

    /// Recognises line crops: `(text, confidence)` for each, in the same order.
    pub fn recognise(&mut self, crops: &[BgrImage]) -> Result<Vec<(String, f32)>, OcrError> {
        let mut out = vec![(String::new(), 0.0); crops.len()];
        let order = by_aspect(crops);
        let (h, base_w) = (self.cfg.rec_height_px, self.cfg.rec_width_px);
        for chunk in order.chunks(self.cfg.batch.max(1)) {
            let members: Vec<&BgrImage> = chunk.iter().map(|&i| &crops[i]).collect();
            let pw = batch_width(h, base_w, &members);
            self.tensor.clear();
            for c in &members {
                resize_norm_pad(c, h, pw, &mut self.tensor)?;
            }
            let (shape, probs) = self
                .rec
                .run([chunk.len(), 3, h as usize, pw as usize], &self.tensor)?;
            let n = self.charset.len();
            let [b, steps, classes] = shape[..] else {
                return Err(self.rec_shape_error(&shape));
            };
            if b as usize != chunk.len()
                || classes as usize != n
                || probs.len() != chunk.len() * steps.max(0) as usize * n
            {
                return Err(self.rec_shape_error(&shape));
            }
            let per = steps as usize * n;
            for (k, &i) in chunk.iter().enumerate() {
                let line = probs.get(k * per..(k + 1) * per).unwrap_or(&[]);
                if let Some(slot) = out.get_mut(i) {
                    *slot = self.charset.decode(line, steps as usize);
                }
            }
        }
        Ok(out)
    }

    fn rec_shape_error(&self, shape: &[i64]) -> OcrError {
        OcrError::Shape {
            path: self.rec.path().to_path_buf(),
            what: format!(
                "recognition output {shape:?}, expected [N, T, {}]",
                self.charset.len()
            ),
        }
    }
}

/// Indices of `crops` by increasing width/height (stable).
fn by_aspect(crops: &[BgrImage]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..crops.len()).collect();
    let ratio = |i: usize| crops[i].width() as f32 / crops[i].height() as f32;
    order.sort_by(|&a, &b| ratio(a).total_cmp(&ratio(b)));
    order
}

/// RapidOCR's `filter_tag_det_res`: corners ordered clockwise from the top-left, clipped
/// into the image (truncated to whole pixels), boxes 3 px or thinner dropped.
fn filter_boxes(boxes: Vec<DetBox>, w: u32, h: u32) -> Vec<DetBox> {
    let (xm, ym) = ((w.max(1) - 1) as f32, (h.max(1) - 1) as f32);
    boxes
        .into_iter()
        .filter_map(|b| {
            let mut quad = order_clockwise(&b.quad);
            for p in &mut quad {
                p[0] = p[0].clamp(0.0, xm).trunc();
                p[1] = p[1].clamp(0.0, ym).trunc();
            }
            let rw = dist(quad[0], quad[1]) as i64;
            let rh = dist(quad[0], quad[3]) as i64;
            (rw > 3 && rh > 3).then_some(DetBox { quad, ..b })
        })
        .collect()
}

/// RapidOCR's `sorted_boxes`: by the top-left corner's y then x, then neighbours less than
/// 10 px apart vertically are put left to right.
pub fn sorted_reading_order(mut boxes: Vec<DetBox>) -> Vec<DetBox> {
    boxes.sort_by(|a, b| {
        a.quad[0][1]
            .total_cmp(&b.quad[0][1])
            .then(a.quad[0][0].total_cmp(&b.quad[0][0]))
    });
    for i in 0..boxes.len().saturating_sub(1) {
        for j in (0..=i).rev() {
            let (a, b) = (boxes[j].quad[0], boxes[j + 1].quad[0]);
            if (b[1] - a[1]).abs() < 10.0 && b[0] < a[0] {
                boxes.swap(j, j + 1);
            } else {
                break;
            }
        }
    }
    boxes
}

/// Whether the model files are all in place (tests and callers skip OCR otherwise).
pub fn models_present(paths: &OcrModelPaths) -> bool {
    [&paths.detection, &paths.recognition, &paths.direction]
        .iter()
        .all(|p| Path::new(p).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f32, y: f32) -> DetBox {
        DetBox {
            quad: [[x, y], [x + 10.0, y], [x + 10.0, y + 5.0], [x, y + 5.0]],
            score: 1.0,
        }
    }

    #[test]
    fn reading_order_is_lines_then_left_to_right() {
        let sorted = sorted_reading_order(vec![
            b(50.0, 12.0),
            b(5.0, 40.0),
            b(10.0, 10.0),
            b(0.0, 15.0),
        ]);
        let tl: Vec<[f32; 2]> = sorted.iter().map(|d| d.quad[0]).collect();
        // RapidOCR's `sorted_boxes` on the same boxes (run in the reference venv): (0, 15)
        // bubbles left past (50, 12) and then (10, 10), each within 10 px vertically.
        assert_eq!(
            tl,
            vec![[0.0, 15.0], [10.0, 10.0], [50.0, 12.0], [5.0, 40.0]]
        );
    }

    #[test]
    fn thin_or_outside_boxes_are_clipped_and_filtered() {
        let boxes = vec![
            DetBox {
                quad: [[-5.0, 2.0], [30.0, 2.0], [30.0, 12.0], [-5.0, 12.0]],
                score: 0.9,
            },
            DetBox {
                quad: [[0.0, 0.0], [3.0, 0.0], [3.0, 9.0], [0.0, 9.0]],
                score: 0.9,
            },
        ];
        let f = filter_boxes(boxes, 20, 20);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].quad,
            [[0.0, 2.0], [19.0, 2.0], [19.0, 12.0], [0.0, 12.0]]
        );
    }
}
