//! Measuring the detector on photographs labelled by hand (`tests/data/photos/labels.json`):
//! per class, how many labelled things it found (recall) and how many of its boxes were right
//! (precision), at a chosen score. Pure: the caller runs the detector and hands the boxes in.
//!
//! A box finds a labelled thing of the same class when they overlap by an IoU of at least
//! [`MATCH_IOU`] (PASCAL VOC's rule), best-scoring box first, one box per thing. A car
//! labelled a truck (a pickup) counts as found by "car" and the other way round: a wearer is
//! told the same. Things marked `difficult` (tiny, mostly hidden, ambiguous) are neither
//! missed nor counted against a box that finds them.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::detector::{Detection, PixelBox};
use crate::state::ObjectClass;

/// Overlap from which a box finds a labelled thing.
pub const MATCH_IOU: f32 = 0.5;
/// Largest labels file read.
pub const MAX_LABELS_BYTES: u64 = 1 << 20;

/// What can go wrong reading a labels file.
#[derive(Debug, thiserror::Error)]
pub enum PhotosError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_LABELS_BYTES`].
    #[error("{path} is larger than {MAX_LABELS_BYTES} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// Not the labels format.
    #[error("{path}:{line}:{column}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What serde said.
        reason: String,
    },
    /// A label names no COCO class, or its box is not a box.
    #[error("{path}: {photo}: {what}")]
    Label {
        /// The file.
        path: PathBuf,
        /// The photo.
        photo: String,
        /// What is wrong.
        what: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[allow(dead_code)]
    about: Option<String>,
    photos: BTreeMap<String, Vec<RawLabel>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLabel {
    class: String,
    #[serde(rename = "box")]
    box_px: [f32; 4],
    #[serde(default)]
    difficult: bool,
}

/// One labelled thing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    /// What it is.
    pub class: ObjectClass,
    /// Where, pixels.
    pub box_px: PixelBox,
    /// Neither missed nor a false box when found.
    pub difficult: bool,
}

/// Every photo's labels, by file name (relative to the labels file's folder).
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// Photo file name → its labels.
    pub photos: BTreeMap<String, Vec<Label>>,
}

impl Labels {
    /// Reads a labels file (at most [`MAX_LABELS_BYTES`]).
    pub fn read(path: &Path) -> Result<Self, PhotosError> {
        let read_err = |source| PhotosError::Read {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(read_err)?;
        let mut text = String::new();
        file.take(MAX_LABELS_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(read_err)?;
        if text.len() as u64 > MAX_LABELS_BYTES {
            return Err(PhotosError::TooLarge {
                path: path.to_path_buf(),
            });
        }
        Self::parse(&text, path)
    }

    /// Parses labels; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, PhotosError> {
        let raw: RawFile = serde_json::from_str(text).map_err(|e| PhotosError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            reason: e.to_string(),
        })?;
        let mut photos = BTreeMap::new();
        for (photo, labels) in raw.photos {
            let label_err = |what: String| PhotosError::Label {
                path: path.to_path_buf(),
                photo: photo.clone(),
                what,
            };
            let mut out = Vec::with_capacity(labels.len());
            for l in labels {
                let class = ObjectClass::from_coco_name(&l.class)
                    .ok_or_else(|| label_err(format!("{:?} is not a COCO class", l.class)))?;
                let [x0, y0, x1, y1] = l.box_px;
                if !l.box_px.iter().all(|v| v.is_finite()) || x1 <= x0 || y1 <= y0 {
                    return Err(label_err(format!("{:?} is not a box", l.box_px)));
                }
                out.push(Label {
                    class,
                    box_px: PixelBox { x0, y0, x1, y1 },
                    difficult: l.difficult,
                });
            }
            photos.insert(photo, out);
        }
        Ok(Self { photos })
    }
}

/// Whether a box of class `said` finds a thing labelled `labelled`.
pub fn names_the_same(said: ObjectClass, labelled: ObjectClass) -> bool {
    use ObjectClass::{Car, Truck};
    said == labelled || matches!((said, labelled), (Car, Truck) | (Truck, Car))
}

/// Counts for one class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassCount {
    /// Labelled things (not difficult) found.
    pub found: u32,
    /// Labelled things (not difficult) not found.
    pub missed: u32,
    /// Boxes of this class that found nothing.
    pub false_boxes: u32,
}

impl ClassCount {
    /// found / (found + missed), `None` with nothing labelled.
    pub fn recall(&self) -> Option<f64> {
        let n = self.found + self.missed;
        (n > 0).then(|| f64::from(self.found) / f64::from(n))
    }

    /// Right boxes / all boxes, `None` with no boxes.
    pub fn precision(&self) -> Option<f64> {
        let n = self.found + self.false_boxes;
        (n > 0).then(|| f64::from(self.found) / f64::from(n))
    }
}

/// Per-class counts over a set of photos (a box's class keys its false boxes; a labelled
/// thing's class keys its found and missed).
pub type Score = BTreeMap<ObjectClass, ClassCount>;

/// Adds one photo's `boxes` (scoring at least `min_score` are used) against its `labels`
/// to `score`.
pub fn add_photo(score: &mut Score, labels: &[Label], boxes: &[Detection], min_score: f32) {
    let mut used: Vec<bool> = vec![false; labels.len()];
    let mut boxes: Vec<&Detection> = boxes.iter().filter(|d| d.score >= min_score).collect();
    boxes.sort_by(|a, b| b.score.total_cmp(&a.score));
    for d in boxes {
        let best = labels
            .iter()
            .enumerate()
            .filter(|(i, l)| !used[*i] && names_the_same(d.class, l.class))
            .map(|(i, l)| (i, d.box_px.iou(&l.box_px)))
            .filter(|(_, iou)| *iou >= MATCH_IOU)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((i, _)) => {
                used[i] = true;
                if !labels[i].difficult {
                    score.entry(labels[i].class).or_default().found += 1;
                }
            }
            None => {
                // A second box on a thing already found, or a box on a difficult thing, is
                // judged by its overlap with any label of the class.
                let on_difficult = labels.iter().any(|l| {
                    l.difficult
                        && names_the_same(d.class, l.class)
                        && d.box_px.iou(&l.box_px) >= MATCH_IOU
                });
                if !on_difficult {
                    score.entry(d.class).or_default().false_boxes += 1;
                }
            }
        }
    }
    for (l, used) in labels.iter().zip(used) {
        if !used && !l.difficult {
            score.entry(l.class).or_default().missed += 1;
        }
    }
}

/// All classes together.
pub fn total(score: &Score) -> ClassCount {
    score
        .values()
        .fold(ClassCount::default(), |a, c| ClassCount {
            found: a.found + c.found,
            missed: a.missed + c.missed,
            false_boxes: a.false_boxes + c.false_boxes,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x0: f32, y0: f32, x1: f32, y1: f32) -> PixelBox {
        PixelBox { x0, y0, x1, y1 }
    }

    fn det(class: ObjectClass, score: f32, box_px: PixelBox) -> Detection {
        Detection {
            class,
            score,
            box_px,
        }
    }

    fn label(class: ObjectClass, box_px: PixelBox, difficult: bool) -> Label {
        Label {
            class,
            box_px,
            difficult,
        }
    }

    #[test]
    fn found_missed_false_and_difficult() {
        use ObjectClass::*;
        let labels = [
            label(Person, b(0.0, 0.0, 10.0, 20.0), false),
            label(Dog, b(50.0, 50.0, 70.0, 60.0), false),
            label(Person, b(100.0, 0.0, 103.0, 6.0), true),
            label(Truck, b(200.0, 0.0, 260.0, 30.0), false),
        ];
        let boxes = [
            det(Person, 0.9, b(1.0, 0.0, 10.0, 19.0)), // finds the person
            det(Person, 0.8, b(0.0, 1.0, 10.0, 20.0)), // a second box on it: false
            det(Person, 0.7, b(100.0, 0.0, 103.0, 6.0)), // the difficult one: ignored
            det(Car, 0.6, b(202.0, 0.0, 260.0, 30.0)), // a pickup called a car: found
            det(Cat, 0.95, b(50.0, 50.0, 70.0, 60.0)), // the dog called a cat: false
            det(Dog, 0.3, b(50.0, 50.0, 70.0, 60.0)),  // below the score: not used
        ];
        let mut score = Score::new();
        add_photo(&mut score, &labels, &boxes, 0.5);
        assert_eq!(
            score[&Person],
            ClassCount {
                found: 1,
                missed: 0,
                false_boxes: 1
            }
        );
        assert_eq!(score[&Truck].found, 1);
        assert_eq!(score[&Dog].missed, 1);
        assert_eq!(score[&Cat].false_boxes, 1);
        assert_eq!(score[&Person].recall(), Some(1.0));
        assert_eq!(score[&Person].precision(), Some(0.5));
        let all = total(&score);
        assert_eq!((all.found, all.missed, all.false_boxes), (2, 1, 2));
    }

    #[test]
    fn a_box_overlapping_too_little_does_not_find() {
        let labels = [label(ObjectClass::Cup, b(0.0, 0.0, 10.0, 10.0), false)];
        let boxes = [det(ObjectClass::Cup, 0.9, b(5.0, 0.0, 15.0, 10.0))]; // IoU 1/3
        let mut score = Score::new();
        add_photo(&mut score, &labels, &boxes, 0.5);
        assert_eq!(
            score[&ObjectClass::Cup],
            ClassCount {
                found: 0,
                missed: 1,
                false_boxes: 1
            }
        );
    }

    #[test]
    fn bad_labels_name_file_and_place() {
        let p = Path::new("labels.json");
        let e = Labels::parse(
            "{\"photos\": {\"a.jpg\": [{\"class\": \"unicorn\", \"box\": [0,0,1,1]}]}}",
            p,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("unicorn") && e.to_string().contains("a.jpg"),
            "{e}"
        );
        let e = Labels::parse(
            "{\"photos\": {\"a.jpg\": [{\"class\": \"cup\", \"box\": [5,0,1,1]}]}}",
            p,
        )
        .unwrap_err();
        assert!(e.to_string().contains("not a box"), "{e}");
        let e = Labels::parse("{\"photos\": [}", p).unwrap_err();
        assert!(e.to_string().starts_with("labels.json:1:"), "{e}");
    }

    #[test]
    fn the_repositorys_labels_parse() {
        let text = include_str!("../../tests/data/photos/labels.json");
        let labels = Labels::parse(text, Path::new("labels.json")).unwrap();
        assert_eq!(labels.photos.len(), 12);
        assert!(labels
            .photos
            .values()
            .flatten()
            .any(|l| l.class == ObjectClass::Cup));
    }
}
