//! The PP-OCRv4 pipeline against RapidOCR 1.4.4 itself: the images in `tests/data/ocr/` were
//! rendered with DejaVu fonts and read by RapidOCR (`scripts/ref_ocr.py`); vista must read
//! the same strings, with boxes within a few pixels and scores within a small tolerance.
//! Needs the models from `models/fetch` (CI runs it through `scripts/setup.sh`).

use std::sync::Mutex;

use serde_json::Value;
use vista::ocr::{
    read_region, BgrImage, OcrConfig, OcrEngine, OcrError, OcrModelPaths, Region, TextLine,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ocr");
/// Box corners: the pipelines decode JPEG with different libraries (zune-jpeg, libjpeg) and
/// resize/unclip slightly differently; a few pixels is what a reader of boxes cares about.
const BOX_TOL_PX: f32 = 3.0;
/// Recognition confidence, absolute.
const SCORE_TOL: f32 = 0.01;

static ENGINE: Mutex<Option<OcrEngine>> = Mutex::new(None);

fn with_engine<R>(f: impl FnOnce(&mut OcrEngine) -> R) -> R {
    let mut g = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    let engine = g.get_or_insert_with(|| {
        OcrEngine::new(OcrConfig::default())
            .unwrap_or_else(|e| panic!("OCR models needed for this test (run models/fetch): {e}"))
    });
    f(engine)
}

fn reference() -> Value {
    let text = std::fs::read_to_string(format!("{DATA}/reference.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn image(name: &str) -> BgrImage {
    BgrImage::from_jpeg(&std::fs::read(format!("{DATA}/{name}")).unwrap()).unwrap()
}

fn compare(name: &str, got: &[TextLine], want: &Value) {
    let want = want.as_array().unwrap();
    let texts: Vec<&str> = got.iter().map(|l| l.text.as_str()).collect();
    let want_texts: Vec<&str> = want.iter().map(|w| w["text"].as_str().unwrap()).collect();
    assert_eq!(texts, want_texts, "{name}: texts");
    for (g, w) in got.iter().zip(want) {
        let score = w["score"].as_f64().unwrap() as f32;
        assert!(
            (g.confidence - score).abs() <= SCORE_TOL,
            "{name} {:?}: score {} vs RapidOCR {score}",
            g.text,
            g.confidence
        );
        for (k, corner) in w["box"].as_array().unwrap().iter().enumerate() {
            let (x, y) = (
                corner[0].as_f64().unwrap() as f32,
                corner[1].as_f64().unwrap() as f32,
            );
            let p = g.quad[k];
            assert!(
                (p[0] - x).abs() <= BOX_TOL_PX && (p[1] - y).abs() <= BOX_TOL_PX,
                "{name} {:?}: corner {k} at {p:?}, RapidOCR ({x}, {y})",
                g.text
            );
        }
    }
}

#[test]
fn whole_images_read_as_rapidocr_reads_them() {
    let r = reference();
    let images = r["images"].as_object().unwrap();
    assert!(images.len() >= 6);
    for (name, want) in images {
        let img = image(name);
        let got = with_engine(|e| e.read(&img)).unwrap();
        for l in &got {
            eprintln!("{name}: {:?} {:.4} {:?}", l.text, l.confidence, l.quad);
        }
        compare(name, &got, want);
    }
}

#[test]
fn a_region_around_the_gaze_maps_back_to_the_frame() {
    let r = reference();
    let roi = &r["roi"];
    let img = image(roi["image"].as_str().unwrap());
    let c = roi["center_px"].as_array().unwrap();
    let region = Region::Around {
        center_px: [c[0].as_f64().unwrap() as f32, c[1].as_f64().unwrap() as f32],
        size_px: roi["size_px"].as_u64().unwrap() as u32,
    };
    let rect = vista::ocr::region_rect(img.width(), img.height(), region);
    let origin = roi["origin_px"].as_array().unwrap();
    assert_eq!(
        [rect.x0, rect.y0],
        [
            origin[0].as_u64().unwrap() as u32,
            origin[1].as_u64().unwrap() as u32
        ]
    );
    let got = with_engine(|e| read_region(e, &img, region)).unwrap();
    compare("roi", &got, &roi["lines"]);
    // Only the gazed sign is inside the square; the whole frame also has the other one.
    assert_eq!(got.len(), 1);
}

/// Distant signs in synthetic Aria frames (`vista synth distance_estimation`, frame 150;
/// `vista synth mixed_walk`, frame 350; the frames are turned a quarter as the Aria RGB
/// camera is): the recogniser gives the gap between the words to the blank, with the space
/// taking 15–30 % of it; greedy decoding alone read "ROOM12" and "CAFEOPEN".
#[test]
fn distant_signs_keep_the_gap_between_their_words() {
    for (name, want) in [
        ("synth_room_12.jpg", "ROOM 12"),
        ("synth_cafe_open.jpg", "CAFE OPEN"),
    ] {
        let img = image(name);
        let got = with_engine(|e| e.read(&img)).unwrap();
        let texts: Vec<&str> = got.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, [want], "{name}");
    }
}

#[test]
fn missing_models_name_the_path_and_the_fix() {
    let paths = OcrModelPaths {
        detection: "/nonexistent/det.onnx".into(),
        ..OcrModelPaths::default()
    };
    let e = OcrEngine::with_paths(&paths, OcrConfig::default()).unwrap_err();
    assert!(matches!(e, OcrError::ModelMissing { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("/nonexistent/det.onnx") && msg.contains("models/fetch"),
        "{msg}"
    );
}

#[test]
fn a_model_of_the_wrong_kind_is_a_shape_error() {
    // The direction classifier in the recogniser's place: rank-2 output, not [N, T, C].
    let p = OcrModelPaths::default();
    let paths = OcrModelPaths {
        recognition: p.direction.clone(),
        ..p
    };
    let e = OcrEngine::with_paths(&paths, OcrConfig::default()).unwrap_err();
    assert!(matches!(e, OcrError::Shape { .. }), "{e}");
}

#[test]
fn bad_images_are_errors_not_crashes() {
    assert!(BgrImage::from_jpeg(&[]).is_err());
    assert!(BgrImage::from_jpeg(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 1, 2]).is_err());
    // A blank image and a tiny one read as nothing.
    let blank = BgrImage::new(200, 100, vec![255; 200 * 100 * 3]).unwrap();
    assert!(with_engine(|e| e.read(&blank)).unwrap().is_empty());
    let tiny = BgrImage::new(3, 2, vec![0; 18]).unwrap();
    assert!(with_engine(|e| e.read(&tiny)).unwrap().is_empty());
}
