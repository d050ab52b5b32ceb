//! Errors as OpenStack services answer them.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

/// A failure answered to a client (Heat's and Keystone's error bodies).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SimError {
    /// HTTP status.
    pub status: u16,
    /// Heat's error type (e.g. `StackValidationFailed`, `EntityNotFound`).
    pub kind: &'static str,
    /// What went wrong.
    pub message: String,
}

impl SimError {
    /// 400: the request or template is wrong.
    pub fn bad(message: impl Into<String>) -> Self {
        Self {
            status: 400,
            kind: "StackValidationFailed",
            message: message.into(),
        }
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self {
            status: 404,
            kind: "EntityNotFound",
            message: message.into(),
        }
    }

    /// 409: a stack with this name exists, or an action is in progress.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self {
            status: 409,
            kind: "StackExists",
            message: message.into(),
        }
    }

    /// 500: the simulator could not do it.
    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            status: 500,
            kind: "InternalError",
            message: message.into(),
        }
    }

    /// 401: no valid token.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self {
            status: 401,
            kind: "Unauthorized",
            message: message.into(),
        }
    }
}

impl ResponseError for SimError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let title = status.canonical_reason().unwrap_or("Error");
        HttpResponse::build(status).json(json!({
            "code": self.status,
            "title": title,
            "explanation": self.message,
            "error": {"type": self.kind, "message": self.message, "traceback": null},
        }))
    }
}
