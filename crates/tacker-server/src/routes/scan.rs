//! Lists read from the database a chunk at a time in key order (creation time, id),
//! filtered as they stream and cut at one page: a request holds a chunk and a page in
//! memory, never the table, and the page marker stays what it was.

use actix_web::HttpResponse;
use tacker_db::DbConnection;
use tacker_db::scan::{From, Narrow};
use tacker_domain::sol013::Marker;

use super::{Doc, Document};
use crate::auth::Principal;
use crate::extract::{Listable, Listed};
use crate::query::ListQuery;
use crate::{ApiError, ServerState};

/// One list request: its query, page size, collection URL, default exclusions, and the
/// tenant the caller is confined to.
pub struct Listing<'a> {
    pub query: &'a ListQuery,
    pub page_size: usize,
    pub url: String,
    pub default_excluded: &'a [&'a str],
    pub tenant: Option<&'a str>,
}

impl<T: Listable> Listed<T> {
    /// The list at `url` that `who` asked for, in the server's page size, narrowed to the
    /// caller's tenant.
    pub fn listing<'a>(&'a self, st: &ServerState, who: &'a Principal, url: String) -> Listing<'a> {
        Listing {
            query: &self.0,
            page_size: st.settings.page_size,
            url,
            default_excluded: T::DEFAULT_EXCLUDED,
            tenant: who.scope(),
        }
    }

    /// Which top-level attributes a rendering for this query leaves out (see
    /// [`Doc::left_out`]).
    pub fn left_out(&self) -> impl Fn(&str) -> bool + '_ {
        Doc::left_out(&self.0, T::DEFAULT_EXCLUDED)
    }
}

/// Rows read per database round trip: at least a page, one more (is there a next
/// page?) and the marker's own row (a resumed scan starts at it), so an unfiltered page
/// is one round trip.
fn chunk(page_size: usize) -> i64 {
    i64::try_from((page_size + 2).clamp(100, 1000)).unwrap_or(1000)
}

/// Answers the list with rows read by `fetch` (up to a limit, from a position, in key
/// order); `doc` gives each row's key (creation time, id) and its document;
/// `visible` whether the caller sees it (the database narrows by the caller's tenant,
/// and every row is checked again here: tenant, vendor, area).
pub async fn scanned<T, F, D, V>(
    st: &ServerState,
    l: Listing<'_>,
    fetch: F,
    doc: D,
    visible: V,
) -> Result<HttpResponse, ApiError>
where
    T: Send + 'static,
    F: Fn(&mut DbConnection, &From, &Narrow, i64) -> tacker_db::Result<Vec<T>>
        + Send
        + Clone
        + 'static,
    D: Fn(&T) -> (chrono::DateTime<chrono::Utc>, String, Doc),
    V: Fn(&T) -> bool,
{
    let q = l.query;
    let limit = chunk(l.page_size);
    let mut from = match &q.marker {
        None => From::Start,
        Some(m) => From::AtOrAfter(
            chrono::DateTime::from_timestamp_micros(m.created_micros)
                .ok_or_else(|| ApiError::BadRequest("invalid nextpage_opaque_marker".into()))?,
        ),
    };
    // The database narrows by the filter's equalities it can (columns, paths into JSON
    // columns); the filter decides on every row either way.
    let mut narrow = Narrow(
        q.filter
            .as_ref()
            .map(|f| {
                f.equalities()
                    .into_iter()
                    .map(|(a, v)| (a, v.to_vec()))
                    .collect()
            })
            .unwrap_or_default(),
    );
    if let Some(t) = l.tenant {
        narrow
            .0
            .push((tacker_db::scan::TENANT.to_owned(), vec![t.to_owned()]));
    }
    let mut kept: Vec<(Marker, Doc)> = Vec::new();
    loop {
        let (at, by, fetch) = (from.clone(), narrow.clone(), fetch.clone());
        let rows = st.db.run(move |c| fetch(c, &at, &by, limit)).await?;
        let read = rows.len();
        for row in &rows {
            let (at, id, d) = doc(row);
            let marker = Marker::of(at, id.clone());
            from = From::After(at, id);
            if q.marker.as_ref().is_some_and(|after| &marker <= after) || !visible(row) {
                continue;
            }
            if q.filter.as_ref().is_none_or(|f| d.matches(f)) {
                kept.push((marker, d));
            }
            if kept.len() > l.page_size {
                break;
            }
        }
        if kept.len() > l.page_size || i64::try_from(read).unwrap_or(0) < limit {
            break;
        }
    }
    super::paged(q, kept, l.page_size, &l.url, l.default_excluded)
}
