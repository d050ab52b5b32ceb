//! Tacker's JSON columns.

use serde_json::{Map, Value};

/// A JSON object column (`{}` when empty or null).
pub(crate) fn object(
    text: Option<&str>,
    what: &str,
) -> std::result::Result<Map<String, Value>, String> {
    match text.map(serde_json::from_str::<Value>) {
        None => Ok(Map::new()),
        Some(Ok(Value::Object(m))) => Ok(m),
        Some(Ok(Value::Null)) => Ok(Map::new()),
        // A JSON string holding the object (some of Tacker's columns are encoded twice).
        Some(Ok(Value::String(s))) => object(Some(&s), what),
        Some(Ok(_)) => Err(format!("{what} is not an object")),
        Some(Err(e)) => Err(format!("{what} is not JSON: {e}")),
    }
}

/// A JSON column of any kind (`None` when empty or null), decoded twice when Tacker
/// encoded it twice (a JSON string holding JSON).
pub(crate) fn value(text: Option<&str>, what: &str) -> std::result::Result<Option<Value>, String> {
    let Some(text) = text else { return Ok(None) };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(None),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(v) => Ok((!v.is_null()).then_some(v)),
            // A string that is not JSON is the value itself.
            Err(_) => Ok(Some(Value::String(inner))),
        },
        Ok(v) => Ok(Some(v)),
        Err(e) => Err(format!("{what} is not JSON: {e}")),
    }
}

/// `message` with what it quotes left out: serde's errors quote the value they met, which
/// may be a credential.
pub(crate) fn unquoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut inside = false;
    for ch in message.chars() {
        match (ch, inside) {
            ('"', false) => {
                inside = true;
                out.push_str("\"…\"");
            }
            ('"', true) => inside = false,
            (_, false) => out.push(ch),
            (_, true) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoted_values_are_left_out() {
        assert_eq!(
            super::unquoted(r#"invalid type: string "s3cret", expected a map"#),
            r#"invalid type: string "…", expected a map"#
        );
    }
}
