//! Label selectors (query string and `spec.selector` forms) and field selectors.

use serde_json::{Map, Value};

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq)]
enum Req {
    Eq(String, String),
    Ne(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A parsed label selector (all requirements must hold).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector(Vec<Req>);

/// A selector that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("invalid selector {0:?}")]
pub struct Invalid(pub String);

fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn set_of(s: &str) -> Option<Vec<String>> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|x| x.trim().to_owned())
            .filter(|x| !x.is_empty())
            .collect(),
    )
}

impl Selector {
    /// Parses the `labelSelector` query form.
    pub fn parse(s: &str) -> Result<Self, Invalid> {
        let bad = || Invalid(s.to_owned());
        let mut reqs = Vec::new();
        for part in split_top(s) {
            let r = if let Some(k) = part.strip_prefix('!') {
                Req::NotExists(k.trim().to_owned())
            } else if let Some((k, v)) = part.split_once("!=") {
                Req::Ne(k.trim().to_owned(), v.trim().to_owned())
            } else if let Some((k, v)) = part.split_once("==") {
                Req::Eq(k.trim().to_owned(), v.trim().to_owned())
            } else if let Some((k, v)) = part.split_once('=') {
                Req::Eq(k.trim().to_owned(), v.trim().to_owned())
            } else if let Some((k, v)) = part.split_once(" notin ") {
                Req::NotIn(k.trim().to_owned(), set_of(v).ok_or_else(bad)?)
            } else if let Some((k, v)) = part.split_once(" in ") {
                Req::In(k.trim().to_owned(), set_of(v).ok_or_else(bad)?)
            } else if part.contains(' ') || part.contains('(') {
                return Err(bad());
            } else {
                Req::Exists(part)
            };
            reqs.push(r);
        }
        Ok(Self(reqs))
    }

    /// Reads a `spec.selector` (`matchLabels`, `matchExpressions`).
    pub fn from_spec(sel: &Value) -> Self {
        let mut reqs = Vec::new();
        if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
            for (k, v) in m {
                reqs.push(Req::Eq(
                    k.clone(),
                    v.as_str().unwrap_or_default().to_owned(),
                ));
            }
        }
        for e in sel
            .get("matchExpressions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = e
                .get("key")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let values = crate::meta::strings(e.get("values"));
            match e.get("operator").and_then(Value::as_str) {
                Some("In") => reqs.push(Req::In(key, values)),
                Some("NotIn") => reqs.push(Req::NotIn(key, values)),
                Some("Exists") => reqs.push(Req::Exists(key)),
                Some("DoesNotExist") => reqs.push(Req::NotExists(key)),
                _ => {}
            }
        }
        Self(reqs)
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &Map<String, Value>) -> bool {
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            Req::Eq(k, v) => get(k) == Some(v.as_str()),
            Req::Ne(k, v) => get(k) != Some(v.as_str()),
            Req::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Req::NotIn(k, vs) => !get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Req::Exists(k) => labels.contains_key(k),
            Req::NotExists(k) => !labels.contains_key(k),
        })
    }

    /// Whether it selects nothing in particular (matches everything).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A field selector: `metadata.name=x,status.phase!=Running`.
#[derive(Debug, Clone, Default)]
pub struct Fields(Vec<(String, bool, String)>);

impl Fields {
    /// Parses the `fieldSelector` query form.
    pub fn parse(s: &str) -> Result<Self, Invalid> {
        let mut out = Vec::new();
        for part in split_top(s) {
            let (k, eq, v) = if let Some((k, v)) = part.split_once("!=") {
                (k, false, v)
            } else if let Some((k, v)) = part.split_once("==") {
                (k, true, v)
            } else if let Some((k, v)) = part.split_once('=') {
                (k, true, v)
            } else {
                return Err(Invalid(s.to_owned()));
            };
            let pointer = format!("/{}", k.trim().replace('.', "/"));
            out.push((pointer, eq, v.trim().to_owned()));
        }
        Ok(Self(out))
    }

    /// Whether `obj` satisfies every requirement.
    pub fn matches(&self, obj: &Value) -> bool {
        self.0.iter().all(|(p, eq, v)| {
            let actual = obj.pointer(p).and_then(Value::as_str).unwrap_or_default();
            (actual == v) == *eq
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn query_selectors() {
        let l = labels(json!({"app": "web", "tier": "fe"}));
        for (s, want) in [
            ("app=web", true),
            ("app==web,tier=fe", true),
            ("app!=web", false),
            ("app in (web, db)", true),
            ("app notin (web)", false),
            ("tier", true),
            ("!tier", false),
            ("missing", false),
            ("", true),
        ] {
            assert_eq!(Selector::parse(s).unwrap().matches(&l), want, "{s}");
        }
        assert!(Selector::parse("app in web").is_err());
    }

    #[test]
    fn spec_selectors() {
        let s = Selector::from_spec(&json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe"]}]
        }));
        assert!(s.matches(&labels(json!({"app": "web", "tier": "fe"}))));
        assert!(!s.matches(&labels(json!({"app": "web"}))));
    }

    #[test]
    fn field_selectors() {
        let f = Fields::parse("metadata.name=a,status.phase!=Running").unwrap();
        assert!(f.matches(&json!({"metadata": {"name": "a"}, "status": {"phase": "Pending"}})));
        assert!(!f.matches(&json!({"metadata": {"name": "a"}, "status": {"phase": "Running"}})));
    }
}
