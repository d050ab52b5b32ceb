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
