//! `{"href": url}`, the link object of every representation's `_links`.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// A link to `url`.
pub(crate) struct Href<'a>(pub &'a str);

impl Serialize for Href<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("href", self.0)?;
        m.end()
    }
}
