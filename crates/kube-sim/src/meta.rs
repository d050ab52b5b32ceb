//! Small helpers over JSON objects: metadata fields, owner references, generated names.

use serde_json::{Map, Value, json};

/// `metadata.name`.
pub fn name(v: &Value) -> String {
    str_at(v, "/metadata/name")
}

/// `metadata.namespace`.
pub fn namespace(v: &Value) -> String {
    str_at(v, "/metadata/namespace")
}

/// `metadata.uid`.
pub fn uid(v: &Value) -> Option<String> {
    v.pointer("/metadata/uid")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The string at `pointer`, or `""`.
pub fn str_at(v: &Value, pointer: &str) -> String {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The integer at `pointer`, or `default`.
pub fn int_at(v: &Value, pointer: &str, default: i64) -> i64 {
    v.pointer(pointer)
        .and_then(Value::as_i64)
        .unwrap_or(default)
}

/// The strings of a JSON array (others skipped; none when absent).
pub fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `metadata.finalizers`.
pub fn finalizers(v: &Value) -> Vec<String> {
    strings(v.pointer("/metadata/finalizers"))
}

/// `metadata.labels`.
pub fn labels(v: &Value) -> Map<String, Value> {
    v.pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// Whether the object is being deleted.
pub fn terminating(v: &Value) -> bool {
    v.pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
}

/// The uids of the object's owners.
pub fn owner_uids(v: &Value) -> Vec<String> {
    v.pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|o| o.get("uid").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The controller owner's uid.
pub fn controller_uid(v: &Value) -> Option<String> {
    v.pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)?
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))
        .and_then(|o| o.get("uid").and_then(Value::as_str).map(str::to_owned))
}

/// An owner reference to `owner` (a controller reference).
pub fn owner_ref(owner: &Value) -> Value {
    json!({
        "apiVersion": owner.get("apiVersion").cloned().unwrap_or(Value::Null),
        "kind": owner.get("kind").cloned().unwrap_or(Value::Null),
        "name": name(owner),
        "uid": uid(owner),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// Creates every object along `pointer` and sets a string there.
pub fn set_str(v: &mut Value, pointer: &str, s: &str) {
    set(v, pointer, Value::String(s.to_owned()));
}

/// Creates every object along `pointer` and sets `value` there.
pub fn set(v: &mut Value, pointer: &str, value: Value) {
    let mut cur = v;
    let parts: Vec<String> = pointer
        .trim_start_matches('/')
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    for (i, p) in parts.iter().enumerate() {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        let Value::Object(m) = cur else { return };
        if i + 1 == parts.len() {
            m.insert(p.clone(), value);
            return;
        }
        cur = m.entry(p.clone()).or_insert_with(|| json!({}));
    }
}

/// Removes the field at `pointer` if present.
pub fn remove(v: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let target = if parent.is_empty() {
        Some(v)
    } else {
        v.pointer_mut(parent)
    };
    if let Some(Value::Object(m)) = target {
        m.remove(last);
    }
}

/// Now, as Kubernetes writes timestamps.
pub fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

const SAFE: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// Five characters of the alphabet Kubernetes uses for generated names.
pub fn suffix() -> String {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    bytes[..5]
        .iter()
        .map(|b| SAFE[usize::from(*b) % SAFE.len()] as char)
        .collect()
}

/// A stable short hash of a value (`pod-template-hash`) as Kubernetes writes it: a 32-bit
/// FNV-1a hash in decimal, each digit mapped into the alphabet above (so only `bcdf` and
/// `4`-`9` occur, which tools such as Tacker's Pod naming rule rely on).
pub fn hash(v: &Value) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in v.to_string().bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h.to_string()
        .bytes()
        .map(|d| SAFE[usize::from(d) % SAFE.len()] as char)
        .collect()
}

/// Whether `name` is a valid DNS subdomain (object names).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name.as_bytes()[name.len() - 1].is_ascii_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_remove_make_and_drop_paths() {
        let mut v = json!({});
        set_str(&mut v, "/metadata/labels/app", "x");
        assert_eq!(v["metadata"]["labels"]["app"], "x");
        set_str(&mut v, "/metadata/labels/example.io~1name", "y");
        assert_eq!(v["metadata"]["labels"]["example.io/name"], "y");
        remove(&mut v, "/metadata/labels/app");
        assert_eq!(v["metadata"]["labels"], json!({"example.io/name": "y"}));
    }

    #[test]
    fn generated_names_use_the_safe_alphabet() {
        let s = suffix();
        assert_eq!(s.len(), 5);
        assert!(s.bytes().all(|b| SAFE.contains(&b)));
        assert_eq!(hash(&json!({"a": 1})), hash(&json!({"a": 1})));
        assert_ne!(hash(&json!({"a": 1})), hash(&json!({"a": 2})));
        let h = hash(&json!({"spec": {"containers": []}}));
        assert!((1..=10).contains(&h.len()), "{h}");
        assert!(h.bytes().all(|b| b.is_ascii_hexdigit()), "{h}");
    }

    #[test]
    fn names_are_checked() {
        assert!(valid_name("vdu1-abc.x"));
        assert!(!valid_name("Vdu1"));
        assert!(!valid_name("-a"));
        assert!(!valid_name(""));
    }
}
