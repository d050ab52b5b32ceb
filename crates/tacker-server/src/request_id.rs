//! Every request gets an id (the client's `X-Request-Id`, else a new UUID): answered in
//! `X-Request-Id`, on every log line of the request (a `request` span), and sent with
//! every bus message the request causes, so conductors log it too.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use tracing::Instrument;

const HEADER: &str = "x-request-id";

fn usable(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

/// The middleware.
pub async fn assign(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = req
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| usable(v))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.path(),
    );
    let mut res =
        tacker_rpc::request_id::scope(id.clone(), next.call(req).instrument(span)).await?;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(HeaderName::from_static(HEADER), v);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::usable;

    #[test]
    fn only_plain_ids_are_taken_from_clients() {
        assert!(usable("req-123_a.b"));
        assert!(!usable(""));
        assert!(!usable("a b"));
        assert!(!usable(&"x".repeat(200)));
    }
}
