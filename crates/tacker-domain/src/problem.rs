//! ProblemDetails (IETF RFC 7807), the error body of every SOL API.

use serde::{Deserialize, Serialize};

/// The error body of every SOL API (SOL013 clause 6.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemDetails {
    /// A URI reference that identifies the problem type.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// A short summary of the problem type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The HTTP status code.
    pub status: u16,
    /// A human-readable explanation specific to this occurrence.
    pub detail: String,
    /// A URI reference that identifies this occurrence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

impl ProblemDetails {
    /// A problem with the given status and detail; the title is the status' reason phrase.
    pub fn new(status: u16, detail: impl Into<String>) -> Self {
        Self {
            type_: None,
            title: reason_phrase(status).map(str::to_owned),
            status,
            detail: detail.into(),
            instance: None,
        }
    }
}

fn reason_phrase(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        409 => "Conflict",
        412 => "Precondition Failed",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        422 => "Unprocessable Entity",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_with_type_and_without_empty_fields() {
        let p = ProblemDetails::new(404, "no such package");
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["status"], 404);
        assert_eq!(v["title"], "Not Found");
        assert!(v.get("type").is_none());
        assert!(v.get("instance").is_none());
    }
}
