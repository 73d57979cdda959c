//! Character error rate (pure compute): Levenshtein distance (substitutions, insertions,
//! deletions, each cost 1) between a hypothesis and a reference, over Unicode scalar values,
//! divided by the reference length.

/// Edit distance between `hyp` and `reference`, in characters. Memory is one row of the
/// shorter dimension (O(min(len)) words); time O(len(hyp) × len(reference)).
pub fn edit_distance(hyp: &str, reference: &str) -> usize {
    let a: Vec<char> = hyp.chars().collect();
    let b: Vec<char> = reference.chars().collect();
    let (long, short) = if a.len() >= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let mut row: Vec<usize> = (0..=short.len()).collect();
    for (i, lc) in long.iter().enumerate() {
        let mut diag = i; // row[0] before the update
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, sc) in short.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let sub = diag + usize::from(lc != sc);
            let best = sub.min(up.saturating_add(1)).min(left.saturating_add(1));
            diag = up;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = best;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// `(edits, reference length)`: the character error rate is their ratio.
pub fn cer_counts(hyp: &str, reference: &str) -> (usize, usize) {
    (edit_distance(hyp, reference), reference.chars().count())
}

/// Character error rate of `hyp` against `reference`; an empty reference gives 0 when the
/// hypothesis is empty too and 1 otherwise.
pub fn cer(hyp: &str, reference: &str) -> f64 {
    let (e, n) = cer_counts(hyp, reference);
    if n == 0 {
        return if hyp.is_empty() { 0.0 } else { 1.0 };
    }
    e as f64 / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook full-matrix dynamic programme, as an independent reference.
    fn reference_distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let c = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1)
                    .min(d[i][j - 1] + 1)
                    .min(d[i - 1][j - 1] + c);
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn known_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("Platform 3", "Platform 3"), 0);
        assert_eq!(edit_distance("Platfrom 3", "Platform 3"), 2);
        assert_eq!(edit_distance("naïve", "naive"), 1);
        assert!((cer("Platfrom 3", "Platform 3") - 0.2).abs() < 1e-12);
        assert_eq!(cer("", ""), 0.0);
        assert_eq!(cer("x", ""), 1.0);
    }

    proptest::proptest! {
        #[test]
        fn matches_the_full_matrix(a in "[abc ]{0,12}", b in "[abcé]{0,12}") {
            proptest::prop_assert_eq!(edit_distance(&a, &b), reference_distance(&a, &b));
            proptest::prop_assert_eq!(edit_distance(&a, &b), edit_distance(&b, &a));
        }
    }
}
