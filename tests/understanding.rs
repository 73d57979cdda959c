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
