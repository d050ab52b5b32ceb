//! Attribute selectors: `all_fields`, `fields`, `exclude_fields`, `exclude_default`.

use serde_json::{Map, Value};

use crate::{Error, Result};

/// What to keep of each representation in a list answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Everything (`all_fields`).
    All,
    /// The default set plus these paths (`fields`, with or without `exclude_default`).
    DefaultPlus(Vec<Vec<String>>),
    /// Everything but these paths (`exclude_fields`).
    Exclude(Vec<Vec<String>>),
    /// The default set (`exclude_default`, or no selector at all).
    Default,
}

impl Selector {
    /// Builds a selector from the query parameters (each `None` when absent);
    /// `attributes` lists the top-level attributes the resource has: a path that starts
    /// elsewhere names nothing (400, as SOL013 says).
    pub fn from_query(
        all_fields: bool,
        fields: Option<&str>,
        exclude_fields: Option<&str>,
        exclude_default: bool,
        attributes: &[&str],
    ) -> Result<Self> {
        let paths = |list| paths(list, attributes);
        let bad = |m: &str| Err(Error::InvalidSelector(m.to_owned()));
        match (all_fields, fields, exclude_fields, exclude_default) {
            (true, None, None, false) => Ok(Selector::All),
            (true, ..) => bad("all_fields cannot be combined with other selectors"),
            (false, Some(_), Some(_), _) => bad("fields and exclude_fields are exclusive"),
            (false, None, Some(_), true) => bad("exclude_fields and exclude_default are exclusive"),
            (false, Some(f), None, _) => Ok(Selector::DefaultPlus(paths(f)?)),
            (false, None, Some(f), false) => Ok(Selector::Exclude(paths(f)?)),
            (false, None, None, _) => Ok(Selector::Default),
        }
    }

    /// Whether [`apply`](Self::apply) removes top-level `attribute` whole, so that an
    /// answer need not build it in the first place.
    pub fn drops(&self, attribute: &str, default_excluded: &[&str]) -> bool {
        let by_default = default_excluded.contains(&attribute);
        match self {
            Selector::All => false,
            Selector::Default => by_default,
            Selector::Exclude(paths) => paths.iter().any(|p| p.len() == 1 && p[0] == attribute),
            Selector::DefaultPlus(wanted) => by_default && wanted.iter().all(|p| p[0] != attribute),
        }
    }

    /// Applies the selector to one representation; `default_excluded` are the complex
    /// attributes the resource leaves out by default.
    pub fn apply(&self, doc: &mut Value, default_excluded: &[&str]) {
        let Value::Object(map) = doc else { return };
        match self {
            Selector::All => {}
            Selector::Exclude(paths) => paths.iter().for_each(|p| remove_path(map, p)),
            Selector::Default => default_excluded.iter().for_each(|k| {
                map.remove(*k);
            }),
            Selector::DefaultPlus(wanted) => {
                for k in default_excluded {
                    let picks: Vec<&[String]> = wanted
                        .iter()
                        .filter(|p| p[0] == *k)
                        .map(|p| &p[1..])
                        .collect();
                    if picks.iter().any(|p| p.is_empty()) {
                        continue;
                    }
                    match map.remove(*k) {
                        Some(v) if !picks.is_empty() => {
                            map.insert((*k).to_owned(), keep_only(v, &picks));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

fn paths(list: &str, attributes: &[&str]) -> Result<Vec<Vec<String>>> {
    list.split(',')
        .map(|p| {
            let parts: Vec<String> = p.trim().split('/').map(str::to_owned).collect();
            if parts.iter().any(String::is_empty) {
                Err(Error::InvalidSelector(format!(
                    "invalid attribute path {p:?}"
                )))
            } else if !attributes.contains(&parts[0].as_str()) {
                Err(Error::InvalidSelector(format!(
                    "unknown attribute {:?} (known: {})",
                    parts[0],
                    attributes.join(", ")
                )))
            } else {
                Ok(parts)
            }
        })
        .collect()
}

fn remove_path(map: &mut Map<String, Value>, path: &[String]) {
    match path {
        [] => {}
        [last] => {
            map.remove(last);
        }
        [head, tail @ ..] => match map.get_mut(head) {
            Some(Value::Object(m)) => remove_path(m, tail),
            Some(Value::Array(items)) => items.iter_mut().for_each(|i| {
                if let Value::Object(m) = i {
                    remove_path(m, tail)
                }
            }),
            _ => {}
        },
    }
}

/// Keeps only the given sub-paths of `v` (arrays: in every element).
fn keep_only(v: Value, picks: &[&[String]]) -> Value {
    match v {
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|i| keep_only(i, picks)).collect())
        }
        Value::Object(mut m) => {
            let mut out = Map::new();
            for p in picks {
                let Some((head, tail)) = p.split_first() else {
                    continue;
                };
                if let Some(child) = m.remove(head) {
                    let kept = if tail.is_empty() {
                        child
                    } else {
                        keep_only(child, &[tail])
                    };
                    out.insert(head.clone(), kept);
                }
            }
            Value::Object(out)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DEF: &[&str] = &["softwareImages", "userDefinedData"];
    const ATTRS: &[&str] = &[
        "id",
        "a",
        "b",
        "softwareImages",
        "userDefinedData",
        "_links",
    ];

    fn doc() -> Value {
        json!({"id": "1", "softwareImages": [{"a": 1, "b": 2}], "userDefinedData": {"k": "v", "j": "w"}, "_links": {"self": {}}})
    }

    fn sel(a: bool, f: Option<&str>, x: Option<&str>, d: bool) -> Value {
        let mut v = doc();
        Selector::from_query(a, f, x, d, ATTRS)
            .unwrap()
            .apply(&mut v, DEF);
        v
    }

    #[test]
    fn an_attribute_said_dropped_is_never_in_the_answer_and_a_kept_one_is_built() {
        let cases = [
            (true, None, None, false),
            (false, None, None, false),
            (false, None, None, true),
            (false, Some("softwareImages/a"), None, false),
            (false, Some("userDefinedData"), None, true),
            (false, None, Some("softwareImages,a"), false),
            (false, None, Some("userDefinedData/k"), false),
        ];
        for (a, f, x, d) in cases {
            let s = Selector::from_query(a, f, x, d, ATTRS).unwrap();
            let mut v = doc();
            s.apply(&mut v, DEF);
            for attr in ["id", "softwareImages", "userDefinedData", "_links"] {
                let dropped = s.drops(attr, DEF);
                let answered = v.get(attr).is_some();
                assert_eq!(dropped, !answered, "{attr} with {s:?}");
            }
        }
    }

    #[test]
    fn selectors_shape_the_representation() {
        assert_eq!(sel(true, None, None, false), doc());
        assert_eq!(
            sel(false, None, None, false),
            json!({"id": "1", "_links": {"self": {}}})
        );
        assert_eq!(
            sel(false, None, None, true),
            json!({"id": "1", "_links": {"self": {}}})
        );
        assert_eq!(
            sel(false, Some("userDefinedData/k"), None, false),
            json!({"id": "1", "userDefinedData": {"k": "v"}, "_links": {"self": {}}})
        );
        assert_eq!(
            sel(false, Some("softwareImages"), None, true),
            json!({"id": "1", "softwareImages": [{"a": 1, "b": 2}], "_links": {"self": {}}})
        );
        assert_eq!(
            sel(false, None, Some("softwareImages/b,_links"), false),
            json!({"id": "1", "softwareImages": [{"a": 1}], "userDefinedData": {"k": "v", "j": "w"}})
        );
    }

    #[test]
    fn conflicting_selectors_are_rejected() {
        assert!(Selector::from_query(true, Some("a"), None, false, ATTRS).is_err());
        assert!(Selector::from_query(true, None, None, true, ATTRS).is_err());
        assert!(Selector::from_query(false, Some("a"), Some("b"), false, ATTRS).is_err());
        assert!(Selector::from_query(false, None, Some("b"), true, ATTRS).is_err());
        assert!(Selector::from_query(false, Some("a//b"), None, false, ATTRS).is_err());
        // A path naming no attribute of the resource (SOL013 5.3: 400).
        for (f, x) in [(Some("wrong_field"), None), (None, Some("id,wrong/x"))] {
            let e = Selector::from_query(false, f, x, false, ATTRS).unwrap_err();
            assert!(e.to_string().contains("unknown attribute \"wrong"), "{e}");
        }
    }
}
