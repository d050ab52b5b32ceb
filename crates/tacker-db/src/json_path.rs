//! Filter equalities on a path into a JSON column (`(eq,userDefinedData/site/zone,a)`)
//! as database conditions: PostgreSQL matches them with a `jsonb` path (`@?`, which the
//! GIN indexes on these columns serve), SQLite with `json_extract`. A condition keeps
//! every row the in-memory filter would match (it may keep more: the filter still
//! decides on every row), so a list answers the same with or without it.

use tacker_domain::sol013::MAX_NESTED_ARRAYS;

/// One equality term on a JSON column, ready for either backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonEquality {
    /// The PostgreSQL `jsonpath` (lax: arrays on the way are descended into).
    pub jsonpath: String,
    /// The SQLite path of the value (`$."a"."b"`).
    pub sqlite_path: String,
    /// JSON array of the SQLite paths along the way (an array met there keeps the row).
    pub sqlite_prefixes: String,
    /// JSON array of the strings the value may equal.
    pub strings: String,
    /// JSON array of the JSON types (`true`, `false`, `null`) the value may be.
    pub types: String,
}

impl JsonEquality {
    /// The condition for `path` (below the column) equal to one of `values`; `None` when
    /// it cannot be expressed exactly enough: an operand that reads as a number (the
    /// filter compares numbers as `f64`, the databases exactly), or a key with a `"`
    /// (which SQLite paths cannot quote).
    pub(crate) fn new(path: &[&str], values: &[String]) -> Option<Self> {
        if path.is_empty() || values.iter().any(|v| v.parse::<f64>().is_ok()) {
            return None;
        }
        if path.iter().any(|k| k.contains('"')) {
            return None;
        }
        let unwrap = "[*]".repeat(MAX_NESTED_ARRAYS);
        let mut jsonpath = format!("lax ${unwrap}");
        let mut sqlite_path = String::from("$");
        let mut prefixes = Vec::with_capacity(path.len());
        for key in path {
            let quoted = serde_json::to_string(key).ok()?;
            jsonpath.push('.');
            jsonpath.push_str(&quoted);
            jsonpath.push_str(&unwrap);
            sqlite_path.push('.');
            sqlite_path.push_str(&quoted);
            prefixes.push(sqlite_path.clone());
        }
        let mut literals = Vec::new();
        let mut types = Vec::new();
        for v in values {
            literals.push(serde_json::to_string(v).ok()?);
            match v.as_str() {
                "true" | "false" | "null" => {
                    literals.push(v.clone());
                    types.push(v.clone());
                }
                _ => {}
            }
        }
        let tests: Vec<String> = literals.iter().map(|l| format!("@ == {l}")).collect();
        jsonpath.push_str(&format!(" ? ({})", tests.join(" || ")));
        Some(Self {
            jsonpath,
            sqlite_path,
            sqlite_prefixes: serde_json::to_string(&prefixes).ok()?,
            strings: serde_json::to_string(values).ok()?,
            types: serde_json::to_string(&types).ok()?,
        })
    }
}

/// Which of the two JSON dialects a backend speaks.
pub(crate) trait Dialect {
    /// PostgreSQL's `jsonb` paths (else SQLite's `json_extract`).
    const POSTGRES: bool;
}

impl Dialect for diesel::pg::Pg {
    const POSTGRES: bool = true;
}

impl Dialect for diesel::sqlite::Sqlite {
    const POSTGRES: bool = false;
}

/// Narrows a boxed query of backend `$B` by the filter equalities on paths into its JSON
/// columns (`"attribute" => "column"`).
macro_rules! json_narrowed {
    ($query:expr, $B:ty, $narrow:expr, { $( $attr:literal => $col:literal ),+ $(,)? }) => {{
        use diesel::prelude::*;
        use diesel::sql_types::{Bool, Text};
        let pg = <$B as $crate::json_path::Dialect>::POSTGRES;
        let mut q = $query;
        for (name, values) in &$narrow.0 {
            let mut segments = name.split('/');
            let head = segments.next().unwrap_or_default();
            let tail: Vec<&str> = segments.collect();
            $( if head == $attr
                && let Some(e) = $crate::json_path::JsonEquality::new(&tail, values)
            {
                q = if pg {
                    q.filter(
                        diesel::dsl::sql::<Bool>(concat!("(", $col, "::jsonb) @? CAST("))
                            .bind::<Text, _>(e.jsonpath)
                            .sql(" AS jsonpath)"),
                    )
                } else {
                    q.filter(
                        diesel::dsl::sql::<Bool>("(EXISTS (SELECT 1 FROM json_each(")
                        .bind::<Text, _>(e.sqlite_prefixes)
                        .sql(concat!(") AS p WHERE json_type(", $col, ", p.value) = 'array') OR json_extract(", $col, ", "))
                        .bind::<Text, _>(e.sqlite_path.clone())
                        .sql(") IN (SELECT value FROM json_each(")
                        .bind::<Text, _>(e.strings)
                        .sql(concat!(")) OR json_type(", $col, ", "))
                        .bind::<Text, _>(e.sqlite_path)
                        .sql(") IN (SELECT value FROM json_each(")
                        .bind::<Text, _>(e.types)
                        .sql(")))"),
                    )
                };
            } )+
        }
        q
    }};
}
pub(crate) use json_narrowed;

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn paths_and_literals_are_quoted_and_arrays_descended() {
        let e = JsonEquality::new(&["site", "zo\"ne"], &strings(&["a"]));
        assert_eq!(e, None, "a quote in a key is not narrowed");
        let e = JsonEquality::new(&["site", "zone.x"], &strings(&["a'b", "true"])).unwrap();
        assert_eq!(
            e.jsonpath,
            "lax $[*][*][*][*].\"site\"[*][*][*][*].\"zone.x\"[*][*][*][*] \
             ? (@ == \"a'b\" || @ == \"true\" || @ == true)"
        );
        assert_eq!(e.sqlite_path, "$.\"site\".\"zone.x\"");
        assert_eq!(
            e.sqlite_prefixes,
            r#"["$.\"site\"","$.\"site\".\"zone.x\""]"#
        );
        assert_eq!(e.strings, r#"["a'b","true"]"#);
        assert_eq!(e.types, r#"["true"]"#);
    }

    #[test]
    fn numbers_are_left_to_the_filter() {
        assert_eq!(JsonEquality::new(&["n"], &strings(&["x", "1.0"])), None);
        assert_eq!(JsonEquality::new(&[], &strings(&["x"])), None);
    }
}
