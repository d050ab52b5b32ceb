//! What an import did (or, in a dry run, would do), per kind of object.

use std::collections::BTreeMap;
use std::fmt;

/// What became of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Imported (a dry run: would be).
    Imported,
    /// Imported earlier and changed in Tacker since: updated (a dry run: would be).
    Updated,
    /// Imported earlier, unchanged.
    Unchanged,
    /// Not imported, for this reason.
    Skipped(String),
}

/// The outcomes of an import.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    /// Whether nothing was written.
    pub dry_run: bool,
    /// (kind, Tacker's id, outcome), in the order they were met.
    pub objects: Vec<(&'static str, String, Outcome)>,
}

impl Summary {
    /// Records what became of `kind` `id`.
    pub fn record(&mut self, kind: &'static str, id: &str, outcome: Outcome) {
        self.objects.push((kind, id.to_owned(), outcome));
    }

    /// How many objects of `kind` ended as `what` (`imported`, `updated`, `unchanged`,
    /// `skipped`).
    pub fn count(&self, kind: &str, what: &str) -> usize {
        self.objects
            .iter()
            .filter(|(k, _, o)| *k == kind && label(o) == what)
            .count()
    }

    /// The skipped objects with their reasons.
    pub fn skipped(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.objects.iter().filter_map(|(k, id, o)| match o {
            Outcome::Skipped(why) => Some((*k, id.as_str(), why.as_str())),
            _ => None,
        })
    }
}

fn label(o: &Outcome) -> &'static str {
    match o {
        Outcome::Imported => "imported",
        Outcome::Updated => "updated",
        Outcome::Unchanged => "unchanged",
        Outcome::Skipped(_) => "skipped",
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut kinds: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
        for (k, _, o) in &self.objects {
            let i = match o {
                Outcome::Imported => 0,
                Outcome::Updated => 1,
                Outcome::Unchanged => 2,
                Outcome::Skipped(_) => 3,
            };
            kinds.entry(k).or_default()[i] += 1;
        }
        let (imported, updated) = if self.dry_run {
            ("would import", "would update")
        } else {
            ("imported", "updated")
        };
        writeln!(
            f,
            "{:<10} {imported:>12} {updated:>12} {:>10} {:>8}",
            "kind", "unchanged", "skipped"
        )?;
        for (k, [i, u, n, s]) in &kinds {
            writeln!(f, "{k:<10} {i:>12} {u:>12} {n:>10} {s:>8}")?;
        }
        for (k, id, why) in self.skipped() {
            writeln!(f, "skipped {k} {id}: {why}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_reasons_per_kind() {
        let mut s = Summary::default();
        s.record("vim", "a", Outcome::Imported);
        s.record(
            "vim",
            "b",
            Outcome::Skipped("no key opens its password".into()),
        );
        s.record("package", "p", Outcome::Unchanged);
        assert_eq!(s.count("vim", "imported"), 1);
        assert_eq!(s.count("vim", "skipped"), 1);
        assert_eq!(s.count("package", "unchanged"), 1);
        let text = s.to_string();
        assert!(
            text.contains("skipped vim b: no key opens its password"),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("package") && l.contains(" 1 ")),
            "{text}"
        );
    }
}
