//! Property tests of the clause chunker: whatever the tokenisation and timing, the chunks
//! give back the text (without whitespace), no punctuation or length cut is shorter than the
//! minimum, punctuation cuts end at their punctuation, and with no time passing nothing is
//! cut by timeout.

use proptest::prelude::*;
use vista::speech::chunker::{Chunk, ChunkReason, Chunker, ChunkerConfig};
use vista::time::HostTime;

fn words() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[a-zA-Z]{1,9}",
        "[0-9]{1,4}",
        Just("3.5".to_string()),
        Just("1,000".to_string()),
        Just("Dr.".to_string()),
        Just("e.g.".to_string()),
        Just("—".to_string()),
        Just("“quoted”".to_string()),
    ];
    let punct = prop_oneof![
        Just(""),
        Just(""),
        Just(""),
        Just("."),
        Just(","),
        Just("!"),
        Just("?"),
        Just(";"),
        Just(":"),
        Just("…"),
        Just(".\""),
    ];
    let space = prop_oneof![Just(" "), Just(" "), Just("  "), Just("\n"), Just("")];
    prop::collection::vec((word, punct, space), 0..40).prop_map(|v| {
        v.into_iter()
            .map(|(w, p, s)| format!("{w}{p}{s}"))
            .collect::<String>()
    })
}

/// Splits `text` at the given char positions into tokens.
fn tokenize(text: &str, cuts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut last = 0;
    for c in cuts.into_iter().chain(std::iter::once(chars.len())) {
        out.push(chars[last..c].iter().collect());
        last = c;
    }
    out
}

fn no_ws(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

fn run(config: ChunkerConfig, tokens: &[String], gaps_ns: &[i64]) -> Vec<Chunk> {
    let mut c = Chunker::new(config);
    let mut out = Vec::new();
    let mut t = 0i64;
    for (i, tok) in tokens.iter().enumerate() {
        t += gaps_ns.get(i % gaps_ns.len().max(1)).copied().unwrap_or(0);
        out.extend(c.push(tok, HostTime(t)));
    }
    out.extend(c.finish());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn chunks_reassemble_the_text_and_respect_the_minimum(
        text in words(),
        cuts in prop::collection::vec(0usize..400, 0..60),
        gaps in prop::collection::vec(0i64..400_000_000, 1..8),
        min_chars in 1usize..30,
        extra in 0usize..100,
    ) {
        let config = ChunkerConfig { min_chars, max_chars: min_chars + 10 + extra, timeout_ns: 500_000_000 };
        let tokens = tokenize(&text, &cuts);
        let chunks = run(config, &tokens, &gaps);
        let joined: String = chunks.iter().map(|c| c.text.as_str()).collect();
        prop_assert_eq!(no_ws(&joined), no_ws(&text));
        let n = chunks.len();
        for (i, c) in chunks.iter().enumerate() {
            prop_assert!(!c.text.is_empty());
            prop_assert_eq!(c.text.trim(), c.text.as_str());
            let short = c.text.chars().count() < min_chars;
            if short {
                prop_assert!(
                    i + 1 == n || c.reason == ChunkReason::Timeout,
                    "short chunk {:?} at {} of {}", c, i, n
                );
            }
        }
    }

    #[test]
    fn without_time_passing_nothing_times_out(
        text in words(),
        cuts in prop::collection::vec(0usize..400, 0..60),
    ) {
        let tokens = tokenize(&text, &cuts);
        let chunks = run(ChunkerConfig::default(), &tokens, &[0]);
        prop_assert!(chunks.iter().all(|c| c.reason != ChunkReason::Timeout));
        for c in &chunks {
            let last = c.text.trim_end_matches(['"', '\'', '”', '’', ')', ']']).chars().last();
            match c.reason {
                ChunkReason::Sentence => prop_assert!(matches!(last, Some('.' | '!' | '?' | '…'))),
                ChunkReason::Clause => prop_assert!(matches!(last, Some(',' | ';' | ':' | '—'))),
                _ => {}
            }
        }
    }
}
