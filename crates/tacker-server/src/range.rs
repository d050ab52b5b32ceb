//! HTTP `Range: bytes=...` for package content and artifacts (one range only).

use std::ops::Range;

use actix_web::HttpRequest;
use actix_web::http::header;

use crate::ApiError;

/// What to send of an object of `size` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// All of it (200).
    All,
    /// This part (206).
    Part(Range<u64>),
}

/// Reads the request's `Range`: none -> All; one satisfiable range -> Part; several ->
/// 400; unsatisfiable -> 416 (with the size, for `Content-Range: bytes */size`).
pub fn parse(req: &HttpRequest, size: u64) -> Result<Want, ApiError> {
    let Some(raw) = req.headers().get(header::RANGE) else {
        return Ok(Want::All);
    };
    let raw = raw
        .to_str()
        .map_err(|_| ApiError::BadRequest("unreadable Range header".into()))?;
    let Some(spec) = raw.trim().strip_prefix("bytes=") else {
        return Err(ApiError::BadRequest(format!(
            "unsupported Range unit in {raw:?}; use bytes="
        )));
    };
    if spec.contains(',') {
        return Err(ApiError::BadRequest(
            "multiple ranges are not supported; ask for one".into(),
        ));
    }
    let bad = || ApiError::BadRequest(format!("malformed Range {raw:?}"));
    let (first, last) = spec.split_once('-').ok_or_else(bad)?;
    let (first, last) = (first.trim(), last.trim());
    let unsatisfiable = || ApiError::RangeNotSatisfiable(size);
    let range = if first.is_empty() {
        let n: u64 = last.parse().map_err(|_| bad())?;
        if n == 0 || size == 0 {
            return Err(unsatisfiable());
        }
        size.saturating_sub(n)..size
    } else {
        let start: u64 = first.parse().map_err(|_| bad())?;
        let end = if last.is_empty() {
            size
        } else {
            last.parse::<u64>()
                .map_err(|_| bad())?
                .saturating_add(1)
                .min(size)
        };
        if start >= size || end <= start {
            return Err(unsatisfiable());
        }
        start..end
    };
    Ok(Want::Part(range))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn p(h: Option<&str>, size: u64) -> Result<Want, ApiError> {
        let mut r = TestRequest::default();
        if let Some(h) = h {
            r = r.insert_header((header::RANGE, h));
        }
        parse(&r.to_http_request(), size)
    }

    #[test]
    fn ranges() {
        assert_eq!(p(None, 10).unwrap(), Want::All);
        assert_eq!(p(Some("bytes=0-4"), 10).unwrap(), Want::Part(0..5));
        assert_eq!(p(Some("bytes=5-"), 10).unwrap(), Want::Part(5..10));
        assert_eq!(p(Some("bytes=-3"), 10).unwrap(), Want::Part(7..10));
        assert_eq!(p(Some("bytes=8-100"), 10).unwrap(), Want::Part(8..10));
        assert!(matches!(
            p(Some("bytes=10-"), 10),
            Err(ApiError::RangeNotSatisfiable(10))
        ));
        assert!(matches!(
            p(Some("bytes=0-1,3-4"), 10),
            Err(ApiError::BadRequest(_))
        ));
        assert!(matches!(
            p(Some("items=0-1"), 10),
            Err(ApiError::BadRequest(_))
        ));
        assert!(matches!(
            p(Some("bytes=x-1"), 10),
            Err(ApiError::BadRequest(_))
        ));
    }
}
