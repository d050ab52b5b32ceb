//! Paging with `nextpage_opaque_marker` (SOL013 clause 5.4).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};

use crate::{Error, Result};

/// Where a page ends: the sort key (creation time, id) of its last item.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Marker {
    /// Creation time in microseconds since the epoch.
    pub created_micros: i64,
    /// The id, to break ties.
    pub id: String,
}

impl Marker {
    /// The marker of an item.
    pub fn of(created_at: DateTime<Utc>, id: impl Into<String>) -> Self {
        Self {
            created_micros: created_at.timestamp_micros(),
            id: id.into(),
        }
    }

    /// The opaque text handed to clients.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}:{}", self.created_micros, self.id))
    }

    /// Parses a marker a client sent back.
    pub fn decode(s: &str) -> Result<Self> {
        let raw = URL_SAFE_NO_PAD
            .decode(s)
            .map_err(|_| Error::InvalidMarker)?;
        let text = String::from_utf8(raw).map_err(|_| Error::InvalidMarker)?;
        let (t, id) = text.split_once(':').ok_or(Error::InvalidMarker)?;
        let created_micros = t.parse().map_err(|_| Error::InvalidMarker)?;
        Ok(Self {
            created_micros,
            id: id.to_owned(),
        })
    }
}

/// One page of a list and the marker of the next page, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// The marker to ask for the next page with.
    pub next: Option<Marker>,
}

/// Takes the page after `after` (items must be sorted by their marker) of at most `size`.
pub fn paginate<T>(
    items: impl IntoIterator<Item = T>,
    key: impl Fn(&T) -> Marker,
    after: Option<&Marker>,
    size: usize,
) -> Page<T> {
    let size = size.max(1);
    let mut out = Vec::with_capacity(size.min(1024));
    let mut next = None;
    for item in items {
        let k = key(&item);
        if after.is_some_and(|a| &k <= a) {
            continue;
        }
        if out.len() == size {
            next = out.last().map(&key);
            break;
        }
        out.push(item);
    }
    Page { items: out, next }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_round_trips_and_rejects_garbage() {
        let m = Marker {
            created_micros: 1_700_000_000_123_456,
            id: "abc".into(),
        };
        assert_eq!(Marker::decode(&m.encode()).unwrap(), m);
        assert!(Marker::decode("!!!").is_err());
        assert!(Marker::decode(&URL_SAFE_NO_PAD.encode("nocolon")).is_err());
    }

    #[test]
    fn pages_cover_every_item_once() {
        let items: Vec<(i64, String)> = (0..7).map(|i| (i / 2, format!("id{i}"))).collect();
        let key = |t: &(i64, String)| Marker {
            created_micros: t.0,
            id: t.1.clone(),
        };
        let mut seen = Vec::new();
        let mut after = None;
        loop {
            let page = paginate(items.clone(), key, after.as_ref(), 3);
            seen.extend(page.items.iter().map(|t| t.1.clone()));
            match page.next {
                Some(m) => after = Some(m),
                None => break,
            }
        }
        assert_eq!(seen, items.iter().map(|t| t.1.clone()).collect::<Vec<_>>());
    }

    #[test]
    fn no_next_marker_when_the_last_page_is_exactly_full() {
        let page = paginate(
            vec![1, 2, 3],
            |i| Marker {
                created_micros: *i,
                id: String::new(),
            },
            None,
            3,
        );
        assert_eq!(page.items, vec![1, 2, 3]);
        assert!(page.next.is_none());
    }
}
