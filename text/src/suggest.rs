//! "Did you mean" for misspelt names: attribute keys in the derives, tool,
//! tenant and toolset names in configuration.

use alloc::vec;
use alloc::vec::Vec;

/// The candidate closest to `input`, if it is close enough to be a likely
/// misspelling: at most one edit per three characters (and at least one).
///
/// ```
/// use toolschema_text::suggest::closest;
///
/// assert_eq!(closest("renam", ["rename", "skip"]), Some("rename"));
/// assert_eq!(closest("billing.get-invioce", ["billing.get-invoice"]), Some("billing.get-invoice"));
/// assert_eq!(closest("zzz", ["rename"]), None);
/// ```
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let length = input.chars().count();
    candidates
        .into_iter()
        .filter_map(|candidate| {
            let limit = (candidate.len().max(input.len()) / 3).max(1);
            // The distance is at least the difference in length: a name
            // far longer than every candidate costs no comparison.
            if length.abs_diff(candidate.chars().count()) > limit {
                return None;
            }
            let d = distance(input, candidate);
            (d <= limit).then_some((d, candidate))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and transpositions of neighbours each cost one.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::distance;

    #[test]
    fn transpositions_cost_one() {
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }
}
