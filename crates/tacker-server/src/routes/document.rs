//! One representation in a list answer: built as a JSON value for the filter and the
//! selector to work on, or written out at once when the query keeps it as it renders.

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tacker_domain::sol013::{Filter, Selector};

use crate::query::ListQuery;

/// What a list answer needs of a representation.
pub trait Document: Serialize {
    /// Whether the SOL013 filter keeps it.
    fn matches(&self, filter: &Filter) -> bool;
    /// Shapes it by the selector (`default_excluded`: what the resource leaves out by
    /// default).
    fn select(&mut self, selector: &Selector, default_excluded: &[&str]);
}

impl Document for Value {
    fn matches(&self, filter: &Filter) -> bool {
        filter.matches(self)
    }

    fn select(&mut self, selector: &Selector, default_excluded: &[&str]) {
        selector.apply(self, default_excluded)
    }
}

/// A representation of a page.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Doc {
    /// Built as a value: a filter or a selector works on it.
    Value(Value),
    /// Written out already: the query has no filter and keeps every representation as
    /// it renders (all fields, or the default set, which the rendering leaves out
    /// itself).
    Written(Box<RawValue>),
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
        match as_rendered.then(|| serde_json::value::to_raw_value(rendering)) {
            Some(Ok(raw)) => Doc::Written(raw),
            _ => Doc::Value(serde_json::to_value(rendering).unwrap_or(Value::Null)),
        }
    }
}

/// Whether `selector` keeps a rendering that left out what it drops as it is: all
/// fields, or the default set (which the rendering left out itself).
fn kept_as_rendered(selector: &Selector) -> bool {
    matches!(selector, Selector::Default | Selector::All)
}

/// A written representation read back as a value.
fn read(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
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
}
