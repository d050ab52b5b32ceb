//! Errors answered as Kubernetes `Status` objects.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;

use crate::store::status;

/// A failed API request.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{reason}: {message}")]
pub struct ApiErr {
    /// HTTP status.
    pub code: u16,
    /// Status reason (`NotFound`, `AlreadyExists`, ...).
    pub reason: &'static str,
    /// Human message.
    pub message: String,
}

impl ApiErr {
    /// 404.
    pub fn not_found(what: &str, name: &str) -> Self {
        Self {
            code: 404,
            reason: "NotFound",
            message: format!("{what} \"{name}\" not found"),
        }
    }

    /// 409, the object exists.
    pub fn exists(what: &str, name: &str) -> Self {
        Self {
            code: 409,
            reason: "AlreadyExists",
            message: format!("{what} \"{name}\" already exists"),
        }
    }

    /// 409, stale resource version.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self {
            code: 409,
            reason: "Conflict",
            message: message.into(),
        }
    }

    /// 400.
    pub fn bad(message: impl Into<String>) -> Self {
        Self {
            code: 400,
            reason: "BadRequest",
            message: message.into(),
        }
    }

    /// 422.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: 422,
            reason: "Invalid",
            message: message.into(),
        }
    }

    /// 405.
    pub fn not_allowed(message: impl Into<String>) -> Self {
        Self {
            code: 405,
            reason: "MethodNotAllowed",
            message: message.into(),
        }
    }

    /// Any status, e.g. an injected fault.
    pub fn other(code: u16, message: impl Into<String>) -> Self {
        let reason = match code {
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "NotFound",
            409 => "Conflict",
            410 => "Expired",
            422 => "Invalid",
            429 => "TooManyRequests",
            503 => "ServiceUnavailable",
            504 => "Timeout",
            _ => "InternalError",
        };
        Self {
            code,
            reason,
            message: message.into(),
        }
    }

    /// As an HTTP response.
    pub fn response(&self) -> HttpResponse {
        HttpResponse::build(
            StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        )
        .json(status(self.code, self.reason, &self.message))
    }
}

impl actix_web::ResponseError for ApiErr {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        self.response()
    }
}
