//! List query parameters (SOL013): filter, attribute selectors, paging marker.

use tacker_domain::sol013::{Filter, Marker, Selector};

use crate::ApiError;

/// A parsed list query.
#[derive(Debug)]
pub struct ListQuery {
    pub filter: Option<Filter>,
    pub selector: Selector,
    pub marker: Option<Marker>,
    /// Every parameter but the marker, to build the next page's link.
    pub rest: Vec<(String, String)>,
}

impl ListQuery {
    /// Parses `query` for a resource with the given top-level attributes; unknown
    /// parameters, repeated ones and filters of more than `max_terms` comparisons are
    /// 400.
    pub fn parse(query: &str, attributes: &[&str], max_terms: usize) -> Result<Self, ApiError> {
        let mut filter = None;
        let (mut all, mut fields, mut exclude, mut exclude_default) = (false, None, None, false);
        let mut marker = None;
        let mut seen = std::collections::HashSet::new();
        let mut rest = Vec::new();
        for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
            if !seen.insert(k.to_string()) {
                return Err(ApiError::BadRequest(format!(
                    "query parameter {k:?} given twice"
                )));
            }
            match k.as_ref() {
                "filter" => {
                    let f = Filter::parse(&v, attributes)?;
                    if f.size() > max_terms {
                        return Err(ApiError::BadRequest(format!(
                            "the filter makes {} comparisons; at most {max_terms} are allowed \
                             (server.max_filter_terms)",
                            f.size()
                        )));
                    }
                    filter = Some(f);
                }
                "all_fields" => all = true,
                "fields" => fields = Some(v.to_string()),
                // python-tackerclient spells it `exclude-fields`.
                "exclude_fields" | "exclude-fields" => exclude = Some(v.to_string()),
                "exclude_default" => exclude_default = true,
                "nextpage_opaque_marker" => {
                    marker = Some(Marker::decode(&v)?);
                    continue;
                }
                other => {
                    return Err(ApiError::BadRequest(format!(
                        "unknown query parameter {other:?}; expected filter, all_fields, fields, \
                         exclude_fields, exclude_default or nextpage_opaque_marker"
                    )));
                }
            }
            rest.push((k.into_owned(), v.into_owned()));
        }
        let selector = Selector::from_query(
            all,
            fields.as_deref(),
            exclude.as_deref(),
            exclude_default,
            attributes,
        )?;
        Ok(Self {
            filter,
            selector,
            marker,
            rest,
        })
    }

    /// The query string of the page after `next`.
    pub fn next_query(&self, next: &Marker) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &self.rest {
            if v.is_empty() {
                q.append_key_only(k);
            } else {
                q.append_pair(k, v);
            }
        }
        q.append_pair("nextpage_opaque_marker", &next.encode());
        q.finish()
    }
}
