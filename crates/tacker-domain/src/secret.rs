//! A value that is a secret (a password, a token, a key, whatever credential a VIM or a
//! subscriber needs): printed as `***`, exposed only by an explicit call, sealed and
//! opened with the keyring's functions. Its sealed form is one string `enc:v1:...`; a
//! value that is not a string is sealed as its JSON, marked so that opening gives it back
//! as it was.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a secret is answered as, where an answer shows that one is there.
pub const MASK: &str = "***";

/// The prefix of a sealed value (see `tacker_db::secrets::Keyring`).
pub const SEALED_PREFIX: &str = "enc:v1:";

/// What the plain text of a sealed non-string value starts with (its JSON follows).
const JSON_MARK: &str = "\u{1}json:";

/// A secret value.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(Value);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(MASK)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Self(Value::String(s.to_owned()))
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Self(Value::String(s))
    }
}

impl Secret {
    /// `v`, held as a secret.
    pub fn new(v: Value) -> Self {
        Self(v)
    }

    /// The value: for the one place that must send it (a driver's request, a sealing).
    pub fn expose(&self) -> &Value {
        &self.0
    }

    /// The value when it is a string.
    pub fn expose_str(&self) -> Option<&str> {
        self.0.as_str()
    }

    /// The text of a secret made from a string (a password, a proxy URL), for the one
    /// place that must send it; empty for one that is not a string.
    pub fn expose_text(&self) -> &str {
        self.expose_str().unwrap_or_default()
    }

    /// Whether it is sealed.
    pub fn is_sealed(&self) -> bool {
        self.0
            .as_str()
            .is_some_and(|s| s.starts_with(SEALED_PREFIX))
    }

    /// Seals it with `seal` (a sealed one stays as it is; `null` is nothing to seal).
    pub fn seal<E>(&mut self, seal: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        match &self.0 {
            Value::Null => {}
            _ if self.is_sealed() => {}
            Value::String(s) => self.0 = Value::String(seal(s)?),
            other => {
                let text = format!("{JSON_MARK}{other}");
                self.0 = Value::String(seal(&text)?);
            }
        }
        Ok(())
    }

    /// Opens it with `open` (one not sealed stays as it is).
    pub fn open<E>(&mut self, open: &mut dyn FnMut(&str) -> Result<String, E>) -> Result<(), E> {
        open_value(&mut self.0, open)
    }
}

/// Opens, with `open`, every sealed string at any depth of `v` (a sealed non-string
/// value becomes the value it was).
pub fn open_value<E>(
    v: &mut Value,
    open: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    match v {
        Value::String(s) if s.starts_with(SEALED_PREFIX) => {
            let plain = open(s)?;
            *v = match plain.strip_prefix(JSON_MARK) {
                Some(json) => serde_json::from_str(json).unwrap_or(Value::String(plain)),
                None => Value::String(plain),
            };
        }
        Value::Array(items) => {
            for x in items {
                open_value(x, open)?;
            }
        }
        Value::Object(m) => {
            for x in m.values_mut() {
                open_value(x, open)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Seals `v` whole, as a [`Secret`] is sealed.
pub fn seal_value<E>(
    v: &mut Value,
    seal: &mut dyn FnMut(&str) -> Result<String, E>,
) -> Result<(), E> {
    let mut s = Secret(std::mem::take(v));
    s.seal(seal)?;
    *v = s.0;
    Ok(())
}

/// A keyring stand-in for unit tests: "seals" by reversing the text behind the prefix.
#[cfg(test)]
pub(crate) mod fake {
    use super::SEALED_PREFIX;

    pub(crate) fn seal(s: &str) -> Result<String, ()> {
        Ok(format!(
            "{SEALED_PREFIX}k:{}",
            s.chars().rev().collect::<String>()
        ))
    }

    pub(crate) fn open(s: &str) -> Result<String, ()> {
        Ok(s.strip_prefix(&format!("{SEALED_PREFIX}k:"))
            .unwrap_or(s)
            .chars()
            .rev()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use super::fake::{open as fake_open, seal as fake_seal};

    #[test]
    fn a_secret_prints_masked_and_seals_and_opens_whatever_it_holds() {
        for v in [json!("pw"), json!({"token": "t"}), json!(42), json!(["a"])] {
            let mut s = Secret::new(v.clone());
            assert_eq!(format!("{s:?}"), "***");
            s.seal(&mut fake_seal).unwrap();
            assert!(s.is_sealed());
            let sealed = s.clone();
            s.seal(&mut fake_seal).unwrap();
            assert_eq!(s, sealed, "sealing twice seals once");
            s.open(&mut fake_open).unwrap();
            assert_eq!(s.expose(), &v);
        }
        assert_eq!(
            serde_json::to_value(Secret::from("x")).unwrap(),
            json!("x"),
            "stored as the value itself"
        );
    }
}
