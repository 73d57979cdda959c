//! The guard's tokenizer and plural-to-singular (pure).

/// Lower-case word tokens: letters, digits, apostrophes and decimal points are kept, a
/// trailing full stop is removed ("o'clock", "2.5", "can't" stay whole).
pub fn tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '.' || c == '-'))
        .map(|t| t.trim_matches(|c| c == '.' || c == '\'' || c == '-'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Singular of a plural noun ("boxes" → "box", "people" → "person").
pub fn singular(word: &str) -> String {
    match word {
        "people" => "person".into(),
        // Plural only, or plural as a thing of its own: a pair of glasses is not a glass.
        "stairs" | "steps" | "glasses" | "scissors" | "trousers" | "jeans" | "headphones" => {
            word.into()
        }
        "buses" => "bus".into(),
        // "-es" after a sibilant: boxes, benches, dishes, passes.
        w if w.len() > 4
            && ["xes", "ches", "shes", "sses", "zzes"]
                .iter()
                .any(|e| w.ends_with(e)) =>
        {
            w[..w.len() - 2].into()
        }
        w if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") => w[..w.len() - 1].into(),
        w => w.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_clock_and_decimals() {
        assert_eq!(
            tokens("Turn right: the door's at 2 o'clock, 2.5 metres."),
            vec!["turn", "right", "the", "door's", "at", "2", "o'clock", "2.5", "metres"]
        );
        assert_eq!(singular("boxes"), "box");
        assert_eq!(singular("people"), "person");
        assert_eq!(singular("glass"), "glass");
        for (plural, one) in [
            ("benches", "bench"),
            ("dishes", "dish"),
            ("watches", "watch"),
            ("addresses", "address"),
            ("buses", "bus"),
            ("cups", "cup"),
            ("glasses", "glasses"),
            ("stairs", "stairs"),
        ] {
            assert_eq!(singular(plural), one);
        }
    }
}
