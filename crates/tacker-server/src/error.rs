//! The one place errors become HTTP answers (ProblemDetails).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use tacker_domain::ProblemDetails;

/// An error answered to an API client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// 400: the request is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// 401: no valid token.
    #[error("{0}")]
    Unauthorized(String),
    /// 403: the caller lacks the role, or the host is not served.
    #[error("{0}")]
    Forbidden(String),
    /// 404: no such resource.
    #[error("{0}")]
    NotFound(String),
    /// 405: the resource does not support the method.
    #[error("method not allowed on this resource")]
    MethodNotAllowed,
    /// 406: no acceptable representation.
    #[error("{0}")]
    NotAcceptable(String),
    /// 409: the resource is not in a state that allows the request.
    #[error("{0}")]
    Conflict(String),
    /// 413: the body exceeds the limit.
    #[error("request body exceeds {0} bytes")]
    PayloadTooLarge(usize),
    /// 416: the requested range lies outside the content (of this size).
    #[error("the requested range is outside the content of {0} bytes")]
    RangeNotSatisfiable(u64),
    /// 415: wrong Content-Type.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// 422: well-formed but unprocessable.
    #[error("{0}")]
    Unprocessable(String),
    /// 408: the client stopped sending the body.
    #[error("{0}")]
    RequestTimeout(String),
    /// 429: too many requests; retry after this many seconds.
    #[error("too many requests; retry after {0} s")]
    TooManyRequests(u64),
    /// 503 with `Retry-After`: busy (a limit is reached), not broken.
    #[error("{0}")]
    Busy(String),
    /// 503 with `Retry-After`: a dependency (database, bus, Keystone) is unavailable.
    #[error("{0}")]
    Unavailable(String),
    /// 500: a bug or an unexpected failure; the detail is logged, not answered.
    #[error("{0}")]
    Internal(String),
}

impl From<tacker_domain::Failure> for ApiError {
    fn from(f: tacker_domain::Failure) -> Self {
        use tacker_domain::FailureKind as K;
        match f.kind {
            K::BadRequest if f.status == 422 => ApiError::Unprocessable(f.detail),
            K::BadRequest => ApiError::BadRequest(f.detail),
            K::NotFound => ApiError::NotFound(f.detail),
            K::Conflict | K::Superseded => ApiError::Conflict(f.detail),
            K::Internal => ApiError::Internal(f.detail),
            _ => ApiError::Unavailable(f.detail),
        }
    }
}

impl ApiError {
    /// The ProblemDetails body for this error.
    pub fn problem(&self) -> ProblemDetails {
        let status = self.status_code().as_u16();
        match self {
            ApiError::Internal(_) => {
                ProblemDetails::new(status, "internal error; see the server log")
            }
            other => ProblemDetails::new(status, other.to_string()),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NotAcceptable(_) => StatusCode::NOT_ACCEPTABLE,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::RangeNotSatisfiable(_) => StatusCode::RANGE_NOT_SATISFIABLE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unavailable(_) | ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(cause) => tracing::error!(%cause, "internal error"),
            ApiError::Unavailable(cause) => tracing::warn!(%cause, "dependency unavailable"),
            _ => {}
        }
        let mut resp = HttpResponse::build(self.status_code());
        if let ApiError::Unauthorized(_) = self {
            resp.insert_header(("WWW-Authenticate", "Bearer realm=\"tacker\""));
        }
        match self {
            ApiError::TooManyRequests(after) => {
                resp.insert_header(("Retry-After", after.to_string()));
            }
            // A dependency (the database, storage, Keystone) may be back soon.
            ApiError::Busy(_) | ApiError::Unavailable(_) => {
                resp.insert_header(("Retry-After", "5"));
            }
            _ => {}
        }
        if let ApiError::RangeNotSatisfiable(size) = self {
            resp.insert_header(("Content-Range", format!("bytes */{size}")));
        }
        resp.content_type("application/problem+json")
            .json(self.problem())
    }
}

impl From<tacker_db::Error> for ApiError {
    fn from(e: tacker_db::Error) -> Self {
        match e {
            tacker_db::Error::Unavailable(_) => ApiError::Unavailable(e.to_string()),
            other => ApiError::Internal(other.to_string()),
        }
    }
}

impl From<tacker_storage::Error> for ApiError {
    fn from(e: tacker_storage::Error) -> Self {
        match e {
            tacker_storage::Error::TooLarge { limit } => {
                ApiError::PayloadTooLarge(usize::try_from(limit).unwrap_or(usize::MAX))
            }
            tacker_storage::Error::Source(m) => {
                ApiError::BadRequest(format!("reading the upload: {m}"))
            }
            other => ApiError::Unavailable(format!("package storage: {other}")),
        }
    }
}

impl From<tacker_rpc::Error> for ApiError {
    fn from(e: tacker_rpc::Error) -> Self {
        ApiError::Unavailable(e.to_string())
    }
}

impl From<tacker_domain::Error> for ApiError {
    fn from(e: tacker_domain::Error) -> Self {
        match e {
            tacker_domain::Error::UnknownValue { .. } => ApiError::Internal(e.to_string()),
            other => ApiError::BadRequest(other.to_string()),
        }
    }
}
