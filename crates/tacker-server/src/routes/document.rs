//! One representation in a list answer: built as a JSON value for the filter and the
//! selector to work on, or written out at once when the query keeps it as it renders.
//! A page is the representations' JSON text between brackets, copied as written.

use serde::Serialize;
use serde_json::Value;
use tacker_domain::sol013::{Filter, Selector};

use crate::query::ListQuery;

/// What a list answer needs of a representation.
pub trait Document {
    /// Whether the SOL013 filter keeps it.
    fn matches(&self, filter: &Filter) -> bool;
    /// Shapes it by the selector (`default_excluded`: what the resource leaves out by
    /// default).
    fn select(&mut self, selector: &Selector, default_excluded: &[&str]);
    /// Appends its JSON text to `out`.
    fn write(&self, out: &mut Vec<u8>);
    /// About how many bytes [`Document::write`] appends (to size a page once).
    fn size_hint(&self) -> usize;
}

/// What a representation of ours takes, about, in JSON text: the first buffer it is
/// written into.
const TYPICAL_SIZE: usize = 1024;

/// Appends `v` as JSON text: our own renderings and values (maps with string keys,
/// strings, numbers) cannot fail to serialise; were one to fail part-way, what it wrote
/// is taken back and `null` stands in its place, so the page stays JSON.
fn write_json(out: &mut Vec<u8>, v: &impl Serialize) {
    let start = out.len();
    if serde_json::to_writer(&mut *out, v).is_err() {
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
}

impl Document for Value {
    fn matches(&self, filter: &Filter) -> bool {
        filter.matches(self)
    }

    fn select(&mut self, selector: &Selector, default_excluded: &[&str]) {
        selector.apply(self, default_excluded)
    }

    fn write(&self, out: &mut Vec<u8>) {
        write_json(out, self)
    }

    fn size_hint(&self) -> usize {
        TYPICAL_SIZE
    }
}

/// A representation of a page.
pub enum Doc {
    /// Built as a value: a filter or a selector works on it.
    Value(Value),
    /// Written out already: the query has no filter and keeps every representation as
    /// it renders (all fields, or the default set, which the rendering leaves out
    /// itself).
    Written(Vec<u8>),
}

impl Doc {
    /// Which top-level attributes a rendering for query `q` leaves out: those its
    /// selector drops, when no filter looks at them.
    pub fn left_out<'q>(
        q: &'q ListQuery,
        default_excluded: &'q [&'q str],
    ) -> impl Fn(&str) -> bool + 'q {
        move |a: &str| q.filter.is_none() && q.selector.drops(a, default_excluded)
    }

    /// A rendering for query `q` (one that honours [`Doc::left_out`] of `q`): written
    /// out at once when nothing is left to do on it, else a value for the filter and the
    /// selector.
    pub fn rendered(q: &ListQuery, rendering: &impl Serialize) -> Doc {
        let as_rendered = q.filter.is_none() && kept_as_rendered(&q.selector);
        // Our own renderings (maps, strings, numbers): serialising them cannot fail.
        if as_rendered {
            let mut out = Vec::with_capacity(TYPICAL_SIZE);
            write_json(&mut out, rendering);
            Doc::Written(out)
        } else {
            Doc::Value(serde_json::to_value(rendering).unwrap_or(Value::Null))
        }
    }
}

/// Whether `selector` keeps a rendering that left out what it drops as it is: all
/// fields, or the default set (which the rendering left out itself).
fn kept_as_rendered(selector: &Selector) -> bool {
    matches!(selector, Selector::Default | Selector::All)
}

/// A written representation read back as a value.
fn read(written: &[u8]) -> Value {
    serde_json::from_slice(written).unwrap_or(Value::Null)
}

impl Document for Doc {
    fn matches(&self, filter: &Filter) -> bool {
        match self {
            Doc::Value(v) => v.matches(filter),
            Doc::Written(raw) => read(raw).matches(filter),
        }
    }

    fn select(&mut self, selector: &Selector, default_excluded: &[&str]) {
        match self {
            Doc::Value(v) => v.select(selector, default_excluded),
            Doc::Written(_) if kept_as_rendered(selector) => {}
            Doc::Written(raw) => {
                let mut v = read(raw);
                v.select(selector, default_excluded);
                *self = Doc::Value(v);
            }
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Doc::Value(v) => v.write(out),
            Doc::Written(text) => out.extend_from_slice(text),
        }
    }

    fn size_hint(&self) -> usize {
        match self {
            Doc::Value(v) => v.size_hint(),
            Doc::Written(text) => text.len(),
        }
    }
}

/// The JSON array of `docs`, as [`serde_json`] would write it (no spaces).
pub fn page_body<D: Document>(docs: &[D]) -> Vec<u8> {
    let size = docs.iter().map(|d| d.size_hint() + 1).sum::<usize>() + 2;
    let mut out = Vec::with_capacity(size);
    out.push(b'[');
    for (n, d) in docs.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        d.write(&mut out);
    }
    out.push(b']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_the_json_array_serde_json_writes_of_its_documents() {
        let a = json!({"id": "a", "n": 1, "s": "a \"quote\", é and \u{1}"});
        let b = json!({"x": null, "list": [1, 2.5, true]});
        let docs = vec![
            Doc::Written(serde_json::to_vec(&a).unwrap()),
            Doc::Value(b.clone()),
        ];
        assert_eq!(
            page_body(&docs),
            serde_json::to_vec(&json!([a, b])).unwrap()
        );
        assert_eq!(page_body::<Doc>(&[]), b"[]");
        assert_eq!(
            page_body(std::slice::from_ref(&b)),
            serde_json::to_vec(&[b]).unwrap()
        );
    }
}
