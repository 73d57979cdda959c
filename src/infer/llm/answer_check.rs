//! Assistant-style evaluation prompts (surroundings as the assistant renders them, plus a
//! question) and two plain checks of an answer against its surroundings: which expected
//! facts it keeps, and which numbers it states that the surroundings do not hold (invented
//! distances, clock hours, counts). `vista bench lm --compare` runs them on two models.
use crate::lexicon::numbers::word_value;

/// One prompt: the surroundings text (in `assistant::render_state`'s format), the request,
/// and facts (lower-case words or numbers) a good answer mentions (any one of each group's
/// alternatives counts).
#[derive(Clone, Copy, Debug)]
pub struct EvalPrompt {
    /// The surroundings.
    pub surroundings: &'static str,
    /// The request.
    pub question: &'static str,
    /// Facts to keep: each entry is a `|`-separated list of alternatives.
    pub facts: &'static [&'static str],
}

/// Ten prompts over hallway, street, shop, stairs and station scenes.
pub const EVAL_PROMPTS: &[EvalPrompt] = &[
    EvalPrompt {
        surroundings: "Wearer: walking for 4.2 s, 1.1 m/s.\nThings (nearest first):\n\
- #3 metal pole (obstacle, in path): 12 o'clock, 2.0 m (3 steps), ground level, seen 0.5 s ago, confidence 0.90\n\
- #7 door (door): 9 o'clock, 3.5 m (5 steps), seen 1.2 s ago, confidence 0.70\n\
Text: none read.\nClear space: 1.8 m ahead, 3.0 m left, 0.5 m right.\n",
        question: "What is in front of me?",
        facts: &["pole", "2|two|3 steps|three steps"],
    },
    EvalPrompt {
        surroundings: "Wearer: standing for 6.0 s.\nThings (nearest first):\n\
- #2 door (door): 2 o'clock, 4.0 m (6 steps), seen 0.3 s ago, confidence 0.80\n\
Text:\n- \"EXIT\": 2 o'clock, 4.1 m, looked at, read 0.8 s ago, confidence 0.85\n\
Clear space: 4.5 m ahead, 1.0 m left, 2.0 m right.\n",
        question: "What does the sign say?",
        facts: &["exit"],
    },
    EvalPrompt {
        surroundings: "Wearer: walking for 12.5 s, 0.9 m/s.\nThings (nearest first):\n\
- #11 bench (obstacle): 10 o'clock, 1.5 m (2 steps), body height, seen 0.2 s ago, confidence 0.75\n\
- #4 trash can (obstacle, in path): 12 o'clock, 3.0 m (4 steps), ground level, seen 0.4 s ago, confidence 0.80\n\
Text: none read.\nClear space: 2.9 m ahead, 0.8 m left, 2.5 m right.\n",
        question: "Can I keep walking straight?",
        facts: &["trash|bin|can", "3|three|4 steps|four steps"],
    },
    EvalPrompt {
        surroundings: "Wearer: walking down stairs for 3.0 s, height change -1.2 m in 10 s.\n\
Things (nearest first):\n\
- #5 railing (object): 3 o'clock, 0.4 m (1 steps), body height, seen 0.1 s ago, confidence 0.85\n\
- #6 landing (drop-off): 12 o'clock, 2.5 m (4 steps), ground level, seen 0.6 s ago, confidence 0.60\n\
Text: none read.\n",
        question: "Where is the handrail?",
        facts: &["right|3 o'clock|three o'clock"],
    },
    EvalPrompt {
        surroundings: "Wearer: standing for 20.0 s.\nThings (nearest first):\n\
- #8 shelf (obstacle): 12 o'clock, 0.8 m (1 steps), body height, seen 0.3 s ago, confidence 0.90\n\
Text:\n- \"Oat milk 1 L  2.49\": 12 o'clock, 0.8 m, looked at, read 0.5 s ago, confidence 0.78\n\
- \"Whole milk 1 L  1.19\": 1 o'clock, 0.9 m, read 2.0 s ago, confidence 0.70\n",
        question: "How much is the oat milk?",
        facts: &["2.49"],
    },
    EvalPrompt {
        surroundings: "Wearer: walking for 8.0 s, 1.3 m/s.\nThings (nearest first):\n\
- #21 person (person, in path): 12 o'clock, 3.2 m (5 steps), body height, seen 0.1 s ago, confidence 0.70\n\
- #22 bicycle (vehicle): 2 o'clock, 5.0 m (7 steps), ground level, seen 0.9 s ago, confidence 0.65\n\
Text: none read.\nClear space: 3.0 m ahead, 2.2 m left, 1.0 m right.\n",
        question: "Is anyone coming towards me?",
        facts: &["person|someone|people", "3|three|5 steps|five steps|12 o'clock|ahead"],
    },
    EvalPrompt {
        surroundings: "Wearer: standing for 2.5 s.\nThings (nearest first):\n\
- #30 door (door): 12 o'clock, 1.5 m (2 steps), seen 0.2 s ago, confidence 0.80\n\
- #31 door (door): 3 o'clock, 2.0 m (3 steps), seen 0.4 s ago, confidence 0.75\n\
Text:\n- \"Room 214\": 12 o'clock, 1.6 m, read 0.6 s ago, confidence 0.82\n\
- \"Room 216\": 3 o'clock, 2.1 m, read 0.7 s ago, confidence 0.79\n",
        question: "Which door is room 216?",
        facts: &["3 o'clock|three o'clock|right", "2|two|3 steps|three steps"],
    },
    EvalPrompt {
        surroundings: "Wearer: walking for 1.5 s, 0.8 m/s.\nThings (nearest first):\n\
- #40 branch (head-height obstacle, in path): 12 o'clock, 1.2 m (2 steps), head height, seen 0.3 s ago, confidence 0.70\n\
Text: none read.\nClear space: 1.0 m ahead, 2.0 m left, 2.0 m right.\n",
        question: "Is anything at head height?",
        facts: &["branch", "1.2|2 steps|two steps"],
    },
    EvalPrompt {
        surroundings: "Wearer: standing for 30.0 s.\nThings: none seen.\n\
Text:\n- \"Platform 4\": 11 o'clock, 6.0 m, read 1.5 s ago, confidence 0.88\n\
- \"Trains to Airport\": 11 o'clock, 6.2 m, looked at, read 1.0 s ago, confidence 0.81\n\
Clear space: 6.0 m ahead, 3.0 m left, 3.0 m right.\n",
        question: "Which platform goes to the airport?",
        facts: &["4|four"],
    },
    EvalPrompt {
        surroundings: "Wearer: turning for 1.0 s.\nThings (nearest first):\n\
- #50 curb (drop-off, in path): 12 o'clock, 1.0 m (1 steps), ground level, seen 0.2 s ago, confidence 0.85\n\
- #51 car (vehicle): 1 o'clock, 8.0 m (11 steps), ground level, seen 0.5 s ago, confidence 0.60\n\
Text: none read.\nCannot: see traffic lights.\n",
        question: "Is it safe to cross the street?",
        facts: &["curb|kerb|drop", "car|vehicle|traffic"],
    },
];

/// Numbers written in `text` (digits with an optional decimal part, and the words one to
/// twelve), as values.
pub fn numbers(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if let Ok(v) = text[start..i].parse::<f64>() {
                out.push(v);
            }
        } else {
            i += 1;
        }
    }
    for w in text
        .split(|c: char| !c.is_ascii_alphabetic())
        .map(str::to_ascii_lowercase)
    {
        if let Some(v) = word_value(&w).filter(|v| (1..=12).contains(v)) {
            out.push(f64::from(v));
        }
    }
    out
}

/// Numbers in `answer` that `surroundings` does not hold (compared as values, so `2` and
/// `2.0` match).
pub fn invented_numbers(answer: &str, surroundings: &str) -> Vec<f64> {
    let known = numbers(surroundings);
    numbers(answer)
        .into_iter()
        .filter(|v| !known.iter().any(|k| (k - v).abs() < 1e-9))
        .collect()
}

/// How many of `facts` (each a `|`-separated list of alternatives) `answer` mentions,
/// case-insensitively.
pub fn facts_kept(answer: &str, facts: &[&str]) -> usize {
    let a = answer.to_lowercase();
    facts
        .iter()
        .filter(|f| f.split('|').any(|alt| a.contains(alt)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_digits_decimals_and_words() {
        assert_eq!(
            numbers("The pole is 2.0 m away, three steps, at 12 o'clock; costs 2.49."),
            vec![2.0, 12.0, 2.49, 3.0]
        );
        assert!(numbers("no numbers here. none").is_empty());
        assert_eq!(numbers("Room 214."), vec![214.0]);
    }

    #[test]
    fn invented_numbers_are_the_ones_not_in_the_surroundings() {
        let s = "- #3 metal pole: 12 o'clock, 2.0 m (3 steps)";
        assert!(invented_numbers("A pole 2 m ahead at 12 o'clock.", s).is_empty());
        assert_eq!(
            invented_numbers("A pole 5 m ahead, three steps.", s),
            vec![5.0]
        );
    }

    #[test]
    fn facts_count_any_alternative() {
        let f = ["pole", "2|two"];
        assert_eq!(facts_kept("A Pole, two metres ahead.", &f), 2);
        assert_eq!(facts_kept("A pole ahead.", &f), 1);
        assert_eq!(facts_kept("Nothing.", &f), 0);
    }

    #[test]
    fn every_prompt_states_its_facts() {
        // A fact the surroundings do not hold could never be kept honestly.
        for p in EVAL_PROMPTS {
            let s = format!("{} {}", p.surroundings, p.question);
            for f in p.facts {
                assert!(
                    facts_kept(&s, &[f]) == 1,
                    "{f:?} not in {:?}",
                    p.surroundings
                );
            }
        }
    }
}
