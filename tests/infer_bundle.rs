//! Model bundle manifests: the default bundle, path resolution, and one test per error.

use std::path::{Path, PathBuf};

use vista::infer::bundle::{Bundle, BundleError, Precision, DEFAULT_MAX_TOKENS};
use vista::window::{StatsAccumulator, WindowConfig, BINS};

/// A bundle folder and a model cache folder, with the files a full bundle names.
struct Fixture {
    _dir: tempfile::TempDir,
    bundle: PathBuf,
    cache: PathBuf,
}

const BIN_NS: i64 = 100_000_000;

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("smollm2")).unwrap();
    std::fs::create_dir_all(&bundle).unwrap();
    std::fs::write(cache.join("smollm2/lm.gguf"), b"GGUF").unwrap();
    std::fs::write(bundle.join("mmproj.gguf"), b"GGUF").unwrap();
    std::fs::write(bundle.join("template.jinja"), b"{{ messages }}").unwrap();
    std::fs::write(bundle.join("fusion.onnx"), b"onnx").unwrap();
    let stats = StatsAccumulator::new(BIN_NS).finish();
    std::fs::write(
        bundle.join("norm_stats.json"),
        serde_json::to_string(&stats).unwrap(),
    )
    .unwrap();
    Fixture {
        _dir: dir,
        bundle,
        cache,
    }
}

const FULL: &str = r#"
format = "vista-bundle/1"
name = "test"

[lm]
gguf = "cache:smollm2/lm.gguf"
mmproj = "mmproj.gguf"
embedding_width = 576
chat_template = "template.jinja"

[fusion]
onnx = "fusion.onnx"
precision = "int8"
n_tokens = 28
width = 576
norm_stats = "norm_stats.json"

[prompt]
image_placeholder = "<img>"
sensor_placeholder = "<sens>"
sensor_tokens = 28

[generation]
greedy = true
max_tokens = 512
"#;

fn load(f: &Fixture, text: &str) -> Result<Bundle, BundleError> {
    let p = f.bundle.join("bundle.toml");
    std::fs::write(&p, text).unwrap();
    Bundle::load_with_cache(&f.bundle, &f.cache)
}

fn edit(from: &str, to: &str) -> String {
    assert!(FULL.contains(from), "{from}");
    FULL.replacen(from, to, 1)
}

#[test]
fn a_full_bundle_resolves_every_path() {
    let f = fixture();
    let b = load(&f, FULL).unwrap();
    assert_eq!(b.name, "test");
    assert_eq!(b.manifest, f.bundle.join("bundle.toml"));
    assert_eq!(b.lm.gguf, f.cache.join("smollm2/lm.gguf"));
    assert_eq!(b.lm.mmproj, Some(f.bundle.join("mmproj.gguf")));
    assert_eq!(b.lm.chat_template, Some(f.bundle.join("template.jinja")));
    let fu = b.fusion.as_ref().unwrap();
    assert_eq!(fu.onnx, f.bundle.join("fusion.onnx"));
    assert_eq!(fu.precision, Precision::Int8);
    assert_eq!(
        (fu.n_tokens, fu.width, fu.bins, fu.bin_ns),
        (28, 576, 64, BIN_NS)
    );
    assert_eq!(fu.shape().question_dim, 576);
    assert_eq!(b.prompt.image_placeholder, "<img>");
    assert_eq!(b.prompt.sensor_placeholder, "<sens>");
    assert_eq!(b.prompt.sensor_tokens, 28);
    assert!(b.generation.greedy);
    assert_eq!(b.generation.max_tokens, 512);
    b.check_fusion_width(576).unwrap();
    b.check_window(BINS, &WindowConfig { bin_ns: BIN_NS })
        .unwrap();
}

#[test]
fn the_default_bundle_names_smollm2_from_the_cache_and_no_fusion() {
    let f = fixture();
    std::fs::write(
        f.cache.join("smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
        b"GGUF",
    )
    .unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default");
    let b = Bundle::load_with_cache(&dir, &f.cache).unwrap();
    assert_eq!(
        b.lm.gguf,
        f.cache.join("smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    );
    assert_eq!(b.lm.embedding_width, Some(576));
    assert!(b.fusion.is_none());
    assert_eq!(b.prompt.sensor_tokens, 0);
    assert_eq!(b.generation.max_tokens, DEFAULT_MAX_TOKENS);
    assert!(b.generation.greedy);
    // Without a fusion network every width and window is acceptable.
    b.check_fusion_width(960).unwrap();
    b.check_window(BINS, &WindowConfig { bin_ns: 1 }).unwrap();
}

#[test]
fn defaults_apply_when_sections_are_left_out() {
    let f = fixture();
    let text =
        "format = \"vista-bundle/1\"\nname = \"x\"\n[lm]\ngguf = \"cache:smollm2/lm.gguf\"\n";
    let b = load(&f, text).unwrap();
    assert_eq!(b.prompt.image_placeholder, "<image>");
    assert_eq!(b.prompt.sensor_placeholder, "<sensor>");
    assert_eq!(b.generation.max_tokens, 4096);
    assert!(b.lm.mmproj.is_none() && b.lm.chat_template.is_none());
    // The prompt's sensor token count follows the fusion network.
    let no_prompt_count = edit("sensor_tokens = 28\n", "");
    assert_eq!(load(&f, &no_prompt_count).unwrap().prompt.sensor_tokens, 28);
}

#[test]
fn a_missing_manifest_is_an_io_error_naming_it() {
    let f = fixture();
    let e = Bundle::load_with_cache(&f.bundle, &f.cache).unwrap_err();
    assert!(matches!(e, BundleError::Io { .. }), "{e}");
    assert!(e.to_string().contains("bundle.toml"), "{e}");
}

#[test]
fn bad_toml_names_line_and_column() {
    let f = fixture();
    let e = load(&f, &edit("n_tokens = 28", "n_tokens = = 28")).unwrap_err();
    match &e {
        BundleError::Parse { line, column, .. } => {
            let want_line = FULL
                .lines()
                .position(|l| l.starts_with("n_tokens"))
                .unwrap()
                + 1;
            assert_eq!(*line, want_line, "{e}");
            assert!(*column > 1, "{e}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn unknown_and_mistyped_fields_are_parse_errors() {
    let f = fixture();
    let e = load(
        &f,
        &edit("max_tokens = 512", "max_tokens = 512\ntemperature = 0.7"),
    )
    .unwrap_err();
    assert!(
        matches!(e, BundleError::Parse { .. }) && e.to_string().contains("temperature"),
        "{e}"
    );
    let e = load(&f, &edit("precision = \"int8\"", "precision = \"fp16\"")).unwrap_err();
    assert!(
        matches!(e, BundleError::Parse { .. }) && e.to_string().contains("fp16"),
        "{e}"
    );
    let e = load(&f, &edit("\nwidth = 576", "\nwidth = \"576\"")).unwrap_err();
    assert!(matches!(e, BundleError::Parse { .. }), "{e}");
    let e = load(&f, &edit("gguf = \"cache:smollm2/lm.gguf\"\n", "")).unwrap_err();
    assert!(
        matches!(e, BundleError::Parse { .. }) && e.to_string().contains("gguf"),
        "{e}"
    );
}

fn invalid_field(e: &BundleError) -> &'static str {
    match e {
        BundleError::Invalid { field, .. } => field,
        other => panic!("expected Invalid, got {other}"),
    }
}

#[test]
fn invalid_values_name_their_field() {
    let f = fixture();
    let cases = [
        (edit("vista-bundle/1", "vista-bundle/2"), "format"),
        (edit("name = \"test\"", "name = \" \""), "name"),
        (
            edit("embedding_width = 576", "embedding_width = 0"),
            "lm.embedding_width",
        ),
        (edit("n_tokens = 28", "n_tokens = 12"), "fusion.n_tokens"),
        (edit("\nwidth = 576", "\nwidth = 0"), "fusion.width"),
        (
            edit(
                "norm_stats = \"norm_stats.json\"",
                "norm_stats = \"norm_stats.json\"\nbins = 32",
            ),
            "fusion.bins",
        ),
        (
            edit("image_placeholder = \"<img>\"", "image_placeholder = \"\""),
            "prompt.image_placeholder",
        ),
        (
            edit(
                "sensor_placeholder = \"<sens>\"",
                "sensor_placeholder = \"\"",
            ),
            "prompt.sensor_placeholder",
        ),
        (
            edit(
                "sensor_placeholder = \"<sens>\"",
                "sensor_placeholder = \"<img>\"",
            ),
            "prompt.sensor_placeholder",
        ),
        (
            edit("sensor_tokens = 28", "sensor_tokens = 8"),
            "prompt.sensor_tokens",
        ),
        (
            edit("max_tokens = 512", "max_tokens = 0"),
            "generation.max_tokens",
        ),
        (edit("greedy = true", "greedy = false"), "generation.greedy"),
        (edit("onnx = \"fusion.onnx\"", "onnx = \"\""), "fusion.onnx"),
    ];
    for (text, field) in cases {
        let e = load(&f, &text).unwrap_err();
        assert_eq!(invalid_field(&e), field, "{e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    let e = load(&f, &edit("n_tokens = 28", "n_tokens = 12")).unwrap_err();
    assert!(
        e.to_string().contains("12") && e.to_string().contains("28"),
        "{e}"
    );
}

#[test]
fn missing_files_name_field_and_resolved_path() {
    let f = fixture();
    let cases = [
        (
            "smollm2/lm.gguf",
            "lm.gguf",
            f.cache.join("smollm2/nope.gguf"),
            "smollm2/nope.gguf",
        ),
        (
            "mmproj.gguf",
            "lm.mmproj",
            f.bundle.join("nope.gguf"),
            "nope.gguf",
        ),
        (
            "template.jinja",
            "lm.chat_template",
            f.bundle.join("nope.jinja"),
            "nope.jinja",
        ),
        (
            "fusion.onnx",
            "fusion.onnx",
            f.bundle.join("nope.onnx"),
            "nope.onnx",
        ),
        (
            "norm_stats.json",
            "fusion.norm_stats",
            f.bundle.join("nope.json"),
            "nope.json",
        ),
    ];
    for (from, field, resolved, to) in cases {
        let e = load(&f, &edit(from, to)).unwrap_err();
        match &e {
            BundleError::MissingFile {
                field: fl, file, ..
            } => {
                assert_eq!(*fl, field);
                assert_eq!(file, &resolved);
            }
            other => panic!("{field}: {other}"),
        }
    }
    // An absolute path is taken as it is.
    let abs = f.bundle.join("fusion.onnx");
    let b = load(
        &f,
        &edit(
            "\"fusion.onnx\"",
            &format!("{:?}", abs.display().to_string()),
        ),
    )
    .unwrap();
    assert_eq!(b.fusion.unwrap().onnx, abs);
}

#[test]
fn bad_normalisation_statistics_are_refused() {
    let f = fixture();
    std::fs::write(f.bundle.join("norm_stats.json"), b"{\"format\": 1}").unwrap();
    let e = load(&f, FULL).unwrap_err();
    assert!(matches!(e, BundleError::NormStats { .. }), "{e}");
    assert!(e.to_string().contains("norm_stats.json"), "{e}");
}

#[test]
fn fusion_width_errors_name_both_widths() {
    let f = fixture();
    let b = load(&f, FULL).unwrap();
    let e = b.check_fusion_width(960).unwrap_err();
    assert!(
        matches!(
            e,
            BundleError::FusionWidth {
                fusion_width: 576,
                lm_width: 960,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("576") && e.to_string().contains("960"),
        "{e}"
    );
    // A stated LM width is checked at load.
    let e = load(&f, &edit("embedding_width = 576", "embedding_width = 960")).unwrap_err();
    assert!(
        matches!(e, BundleError::FusionWidth { lm_width: 960, .. }),
        "{e}"
    );
}

#[test]
fn window_shape_errors_name_both_numbers() {
    let f = fixture();
    let b = load(&f, FULL).unwrap();
    let e = b
        .check_window(BINS, &WindowConfig { bin_ns: 50_000_000 })
        .unwrap_err();
    assert!(
        matches!(
            e,
            BundleError::WindowShape {
                bundle: BIN_NS,
                runtime: 50_000_000,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("100000000") && e.to_string().contains("50000000"),
        "{e}"
    );
    let e = b
        .check_window(32, &WindowConfig { bin_ns: BIN_NS })
        .unwrap_err();
    assert!(
        matches!(
            e,
            BundleError::WindowShape {
                what: "bins",
                bundle: 64,
                runtime: 32,
                ..
            }
        ),
        "{e}"
    );
}
