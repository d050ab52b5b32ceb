//! `{"href": url}`, the link object of every representation's `_links`.

use std::fmt::{self, Display};

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// A link to `url`, written as it displays (a [`Joined`] URL is never built as a string).
pub(crate) struct Href<'a, U: Display + ?Sized>(pub &'a U);

impl<U: Display + ?Sized> Serialize for Href<'_, U> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry("href", &Shown(self.0))?;
        m.end()
    }
}

/// A string written as `.0` displays.
struct Shown<'a, U: Display + ?Sized>(&'a U);

impl<U: Display + ?Sized> Serialize for Shown<'_, U> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

/// Parts that display one after the other (`base`, `/vnf_packages/`, an id, `/vnfd`).
pub(crate) struct Joined<'a>(pub &'a [&'a dyn Display]);

impl Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|part| part.fmt(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joined_link_is_the_link_to_its_concatenation() {
        let id = uuid::Uuid::nil();
        let joined = Joined(&[&"http://h/v1", &"/vnf_packages/", &id, &"/vnfd"]);
        let url = format!("http://h/v1/vnf_packages/{id}/vnfd");
        assert_eq!(
            serde_json::to_string(&Href(&joined)).unwrap(),
            serde_json::to_string(&Href(url.as_str())).unwrap()
        );
        assert_eq!(
            serde_json::to_value(Href(&joined)).unwrap(),
            serde_json::json!({ "href": url })
        );
        assert_eq!(
            serde_json::to_string(&Href("a\"b")).unwrap(),
            r#"{"href":"a\"b"}"#,
            "escaped as any string"
        );
    }
}
