//! Chart values: Tacker's `helm_parameters` (`--set` style dotted paths) and the value
//! paths `helm_value_names` gives per VDU, as the nested values Helm reads from a file.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Sets `path` (dotted, `a.b.c`) in `values` to `v`, creating the maps on the way; a
/// path through something that is not a map is an error.
pub fn set(values: &mut Value, path: &str, v: Value) -> Result<()> {
    if path.is_empty() || path.split('.').any(str::is_empty) {
        return Err(Error::Manifest(format!("{path:?} is not a value path")));
    }
    let mut here = values;
    let mut parts = path.split('.').peekable();
    while let Some(p) = parts.next() {
        if !here.is_object() {
            if here.is_null() {
                *here = Value::Object(Map::new());
            } else {
                return Err(Error::Manifest(format!(
                    "value path {path}: {p} is inside something that is not a map"
                )));
            }
        }
        let Value::Object(m) = here else {
            return Err(Error::Manifest(format!("value path {path}")));
        };
        if parts.peek().is_none() {
            m.insert(p.to_owned(), v);
            return Ok(());
        }
        here = m.entry(p).or_insert_with(|| Value::Object(Map::new()));
    }
    Ok(())
}

/// Merges `over` into `base` (maps merged key by key, anything else replaced).
pub fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The values `helm_parameters` (a map of dotted paths) stands for.
pub fn from_parameters(params: &Map<String, Value>) -> Result<Value> {
    let mut out = Value::Object(Map::new());
    for (path, v) in params {
        set(&mut out, path, v.clone())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dotted_parameters_nest_and_keep_their_types() {
        let v = from_parameters(
            json!({
                "service.port": 8081, "service.type": "NodePort", "replicaCount": 2, "a.b.c": true
            })
            .as_object()
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"service": {"port": 8081, "type": "NodePort"}, "replicaCount": 2, "a": {"b": {"c": true}}})
        );
        let params = |v: Value| v.as_object().cloned().unwrap();
        assert!(from_parameters(&params(json!({"a..b": 1}))).is_err());
        assert!(from_parameters(&params(json!({"a": 1, "a.b": 2}))).is_err());
    }

    #[test]
    fn merge_overrides_leaves_and_keeps_siblings() {
        let mut base = json!({"image": {"vdu1": "nginx", "vdu2": "pg"}, "n": 1});
        merge(&mut base, &json!({"image": {"vdu1": "nginx:v2"}, "n": 3}));
        assert_eq!(
            base,
            json!({"image": {"vdu1": "nginx:v2", "vdu2": "pg"}, "n": 3})
        );
    }
}
