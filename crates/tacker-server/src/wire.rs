//! What every answer looks like on the wire, whoever produced it: header names in their
//! canonical capitalisation on HTTP/1.1 (`Content-Type`, `Location`; some ETSI tooling
//! looks them up case-sensitively), and every error a ProblemDetails, including those
//! the HTTP layer produces before a handler runs (except the token endpoint's, whose
//! shape RFC 6749 §5.2 fixes). A NUL character anywhere in the path or query (`%00`) is
//! refused here with 400: no id, name or filter holds one, and the database cannot.

use actix_web::HttpResponse;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use tacker_domain::ProblemDetails;

use crate::ApiError;

const PROBLEM: &str = "application/problem+json";

/// The middleware.
pub async fn shape(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // Errors reach here as answers already (handlers' and extractors'); an `Err` is
    // left to actix, which renders it with our ResponseError (a ProblemDetails).
    let oauth = req.path().starts_with("/oauth2/");
    let mut res = if has_nul(req.uri().path()) || req.uri().query().is_some_and(has_nul) {
        let e = ApiError::BadRequest(
            "the path or query holds a NUL character (%00), which no resource name or filter \
             value may contain"
                .into(),
        );
        req.error_response(e).map_into_boxed_body()
    } else {
        next.call(req).await?.map_into_boxed_body()
    };
    let status = res.status();
    let is_problem = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM));
    if (status.is_client_error() || status.is_server_error()) && !is_problem && !oauth {
        let (req, old) = res.into_parts();
        let detail = status
            .canonical_reason()
            .unwrap_or("the request could not be served")
            .to_owned();
        let mut new = HttpResponse::build(status)
            .content_type(PROBLEM)
            .json(ProblemDetails::new(status.as_u16(), detail));
        for (name, value) in old.headers() {
            if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
                new.headers_mut().insert(name.clone(), value.clone());
            }
        }
        res = ServiceResponse::new(req, new);
    }
    res.response_mut().head_mut().set_camel_case_headers(true);
    Ok(res)
}

/// Whether a raw (percent-encoded) path or query holds a NUL, encoded or not.
fn has_nul(raw: &str) -> bool {
    raw.contains('\0')
        || raw
            .as_bytes()
            .windows(3)
            .any(|w| w[0] == b'%' && w[1] == b'0' && w[2] == b'0')
}

#[cfg(test)]
mod tests {
    use super::has_nul;

    #[test]
    fn an_encoded_nul_is_found_and_a_double_encoded_one_is_not() {
        assert!(has_nul("/vnf_packages/%00"));
        assert!(has_nul("filter=(eq,vnfdId,a%00b)"));
        assert!(!has_nul("filter=(eq,vnfdId,a%2500b)"));
        assert!(!has_nul("/vnf_packages/abc%20"));
    }
}
