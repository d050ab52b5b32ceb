//! PATCH bodies: JSON merge patch (RFC 7386), strategic merge patch (lists of named
//! objects merged by name, `$patch` directives) and JSON patch (RFC 6902).

use serde_json::{Map, Value};

/// A patch that cannot be applied.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PatchError(pub String);

/// RFC 7386.
pub fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { return };
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            merge(t.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}

/// The key lists of named objects merge by (`name`, else `containerPort`, ...).
fn merge_key(items: &[Value]) -> Option<&'static str> {
    ["name", "containerPort", "mountPath", "ip", "port"]
        .into_iter()
        .find(|k| !items.is_empty() && items.iter().all(|i| i.get(*k).is_some()))
}

/// Kubernetes strategic merge patch, for the fields built-in types merge by key.
pub fn strategic(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if p.get("$patch").and_then(Value::as_str) == Some("replace") {
        let mut clean = p.clone();
        clean.remove("$patch");
        *target = Value::Object(clean);
        return;
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { return };
    for (k, v) in p {
        if k.starts_with('$') {
            continue;
        }
        match v {
            Value::Null => {
                t.remove(k);
            }
            Value::Array(items) => {
                let existing = t.get(k).and_then(Value::as_array).cloned();
                match (merge_key(items), existing) {
                    (Some(key), Some(mut cur)) if merge_key(&cur) == Some(key) => {
                        for item in items {
                            let id = item.get(key);
                            let delete =
                                item.get("$patch").and_then(Value::as_str) == Some("delete");
                            match cur.iter().position(|c| c.get(key) == id) {
                                Some(i) if delete => {
                                    cur.remove(i);
                                }
                                Some(i) => strategic(&mut cur[i], item),
                                None if delete => {}
                                None => cur.push(item.clone()),
                            }
                        }
                        t.insert(k.clone(), Value::Array(cur));
                    }
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(_) => strategic(t.entry(k.clone()).or_insert(Value::Null), v),
            _ => {
                t.insert(k.clone(), v.clone());
            }
        }
    }
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn parent<'a>(doc: &'a mut Value, path: &str) -> Result<(&'a mut Value, String), PatchError> {
    let (head, last) = path
        .rsplit_once('/')
        .ok_or_else(|| PatchError(format!("invalid path {path:?}")))?;
    let p = if head.is_empty() {
        Some(doc)
    } else {
        doc.pointer_mut(head)
    };
    Ok((
        p.ok_or_else(|| PatchError(format!("path {head:?} does not exist")))?,
        unescape(last),
    ))
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), PatchError> {
    let (p, last) = parent(doc, path)?;
    match p {
        Value::Object(m) => {
            m.insert(last, value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" {
                a.push(value);
                return Ok(());
            }
            let i: usize = last
                .parse()
                .map_err(|_| PatchError(format!("invalid index {last:?}")))?;
            if i > a.len() {
                return Err(PatchError(format!("index {i} out of range")));
            }
            a.insert(i, value);
            Ok(())
        }
        _ => Err(PatchError(format!("cannot add at {path:?}"))),
    }
}

fn take(doc: &mut Value, path: &str) -> Result<Value, PatchError> {
    let (p, last) = parent(doc, path)?;
    let gone = || PatchError(format!("path {path:?} does not exist"));
    match p {
        Value::Object(m) => m.remove(&last).ok_or_else(gone),
        Value::Array(a) => {
            let i: usize = last.parse().map_err(|_| gone())?;
            if i < a.len() {
                Ok(a.remove(i))
            } else {
                Err(gone())
            }
        }
        _ => Err(gone()),
    }
}

/// RFC 6902.
pub fn json_patch(doc: &mut Value, ops: &Value) -> Result<(), PatchError> {
    let ops = ops
        .as_array()
        .ok_or_else(|| PatchError("a JSON patch is an array of operations".into()))?;
    for op in ops {
        let path = op
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| PatchError("every operation needs a path".into()))?;
        let value = || {
            op.get("value")
                .cloned()
                .ok_or_else(|| PatchError(format!("operation at {path:?} needs a value")))
        };
        match op.get("op").and_then(Value::as_str) {
            Some("add") => add(doc, path, value()?)?,
            Some("remove") => {
                take(doc, path)?;
            }
            Some("replace") => {
                take(doc, path)?;
                add(doc, path, value()?)?;
            }
            Some("test") => {
                if doc.pointer(path) != Some(&value()?) {
                    return Err(PatchError(format!("test failed at {path:?}")));
                }
            }
            Some(m @ ("move" | "copy")) => {
                let from = op
                    .get("from")
                    .and_then(Value::as_str)
                    .ok_or_else(|| PatchError(format!("{m} needs from")))?;
                let v = if m == "move" {
                    take(doc, from)?
                } else {
                    doc.pointer(from)
                        .cloned()
                        .ok_or_else(|| PatchError(format!("path {from:?} does not exist")))?
                };
                add(doc, path, v)?;
            }
            other => return Err(PatchError(format!("unknown operation {other:?}"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn merge_patch_sets_and_deletes() {
        let mut v = json!({"a": 1, "b": {"c": 2, "d": 3}});
        merge(&mut v, &json!({"a": null, "b": {"c": 5}}));
        assert_eq!(v, json!({"b": {"c": 5, "d": 3}}));
    }

    #[test]
    fn strategic_merges_containers_by_name() {
        let mut v = json!({"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}});
        strategic(
            &mut v,
            &json!({"spec": {"containers": [{"name": "b", "image": "z"}, {"name": "a", "$patch": "delete"}], "$setElementOrder/containers": []}}),
        );
        assert_eq!(
            v,
            json!({"spec": {"containers": [{"name": "b", "image": "z"}]}})
        );
    }

    #[test]
    fn json_patch_ops() {
        let mut v = json!({"spec": {"replicas": 1, "list": [1, 2]}});
        json_patch(
            &mut v,
            &json!([
                {"op": "replace", "path": "/spec/replicas", "value": 3},
                {"op": "add", "path": "/spec/list/-", "value": 3},
                {"op": "remove", "path": "/spec/list/0"},
                {"op": "test", "path": "/spec/replicas", "value": 3}
            ]),
        )
        .unwrap();
        assert_eq!(v, json!({"spec": {"replicas": 3, "list": [2, 3]}}));
        assert!(json_patch(&mut v, &json!([{"op": "remove", "path": "/nope"}])).is_err());
    }
}
