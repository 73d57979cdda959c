//! The request parser on the paraphrase yardstick (`tests/data/understanding/`): what wearers
//! ask, however it is phrased, parsed to the right typed request. The targets: 90 % of the
//! requests written with the parser (dev and held alike), and no fall on the set written by
//! someone who never saw it (`unseen.tsv`, measured, never tuned on). The keyword dispatch
//! the parser replaced stays far below, so the figures measure the parser, not the set.

use std::path::Path;

use vista::assistant::understand::keywords::keyword_ask;
use vista::assistant::understand::{understand, Ask};
use vista::eval::understanding::{read_paraphrases, score, Understanding};

fn scored(file: &str, parse: fn(&str) -> Ask) -> Understanding {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/understanding")
        .join(file);
    score(&read_paraphrases(&path).unwrap(), parse)
}

fn percent(u: &Understanding, split: &str) -> f64 {
    u.by_split.get(split).map_or(0.0, |t| t.percent())
}

#[test]
fn the_parser_meets_its_targets_on_the_paraphrase_set() {
    let u = scored("requests.tsv", understand);
    assert!(u.all.all >= 300, "{} requests", u.all.all);
    for split in ["dev", "held"] {
        assert!(
            percent(&u, split) >= 90.0,
            "{split}: {:?}\n{:#?}",
            u.by_split.get(split),
            u.misses
        );
    }
    let k = scored("requests.tsv", keyword_ask);
    assert!(k.all.percent() < 50.0, "{:?}", k.all);
}

#[test]
fn the_parser_holds_on_requests_written_without_seeing_it() {
    let u = scored("unseen.tsv", understand);
    assert!(u.all.all >= 200, "{} requests", u.all.all);
    // Measured when the parser first met the set: 253/315 (80 %); after it learnt from more
    // phrasings of its own dev split (the set unseen): 267/315 (85 %). Misses are not listed
    // here: the set is for measuring, not for tuning.
    assert!(percent(&u, "unseen") >= 84.0, "{:?}", u.all);
    let k = scored("unseen.tsv", keyword_ask);
    assert!(k.all.percent() < u.all.percent() - 20.0, "{:?}", k.all);
}

/// all-MiniLM-L6-v2 from the model cache, or the test fails naming `models/fetch`.
fn encoder() -> vista::infer::sentence::SentenceEncoder {
    vista::infer::sentence::load_minilm()
        .unwrap_or_else(|e| panic!("the sentence encoder (run models/fetch): {e}"))
}

#[test]
fn the_sentence_encoder_matches_an_independent_forward_pass_and_the_reference_tokenizer() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sentence/reference.json");
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let enc = encoder();
    let sentences = reference["sentences"].as_array().unwrap();
    assert!(sentences.len() >= 5);
    for s in sentences {
        let text = s["text"].as_str().unwrap();
        let ids: Vec<u32> = s["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(enc.tokens(text), ids, "{text:?}");
        let want: Vec<f32> = s["embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let got = enc.embed(text);
        assert_eq!(got.len(), want.len());
        let worst = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{text:?}: largest difference {worst}");
    }
    // Meaning, not spelling: a paraphrase is nearer than a request of another kind.
    let dot = |a: &str, b: &str| -> f32 {
        enc.embed(a)
            .iter()
            .zip(enc.embed(b))
            .map(|(x, y)| x * y)
            .sum()
    };
    assert!(
        dot("How far is the door?", "What's the distance to the door?")
            > dot("How far is the door?", "Speak a bit slower.") + 0.3
    );
}

#[test]
fn likeness_only_types_what_the_rules_leave_open_and_never_lowers_a_set() {
    use std::sync::Arc;
    use vista::assistant::understand::similar::{understand_with, SimilarAsks};

    let dir = std::env::temp_dir().join(format!("vista-likeness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (similar, source) = SimilarAsks::new(Arc::new(encoder()), Some(&dir));
    assert_eq!(source, vista::infer::sentence::cache::Source::Computed);
    assert!(similar.len() >= 200);
    // Kept: a second start reads the vectors back.
    let (_, again) = SimilarAsks::new(Arc::new(encoder()), Some(&dir));
    assert_eq!(again, vista::infer::sentence::cache::Source::File);
    std::fs::remove_dir_all(&dir).unwrap();

    for file in ["requests.tsv", "unseen.tsv"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/understanding")
            .join(file);
        let set = read_paraphrases(&path).unwrap();
        let rules = score(&set, understand);
        let both = score(&set, |t: &str| understand_with(Some(&similar), t));
        // Whatever the rules type is kept; only their open requests may change.
        for p in &set {
            let r = understand(&p.text);
            if r != Ask::Open {
                assert_eq!(understand_with(Some(&similar), &p.text), r);
            }
        }
        assert!(
            both.all.right >= rules.all.right,
            "{file}: {:?} < {:?}",
            both.all,
            rules.all
        );
    }
    // Nonsense is not made into a request.
    assert_eq!(
        understand_with(Some(&similar), "purple elephant banana"),
        Ask::Open
    );
}
