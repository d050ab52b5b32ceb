//! One failure type for whatever can end an LCM operation, an onboarding or a request
//! check: what kind of failure it is, the HTTP status and texts of its ProblemDetails,
//! and the label metrics count it under.

use crate::ProblemDetails;

/// What kind of failure it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// The request (or the package) is wrong: 400, 413, 415, 422.
    BadRequest,
    /// Refused by someone with the right to refuse (an NFVO's grant decision): 403.
    Refused,
    /// Something named does not exist: 404, 410.
    NotFound,
    /// The state of things forbids it now: 409, 412.
    Conflict,
    /// Something did not happen in time: 408, 504.
    Timeout,
    /// A VIM, NFVO or other system we depend on failed or could not be reached: 502,
    /// 503 and any other status a VIM answered.
    Vim,
    /// Our own fault: 500.
    Internal,
    /// Someone else ended or runs this work: nothing is recorded.
    Superseded,
}

/// A failure: becomes an operation occurrence's `error`, a package's
/// `onboardingFailureDetails`, or an API answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct Failure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// The HTTP status of its ProblemDetails.
    pub status: u16,
    /// A title other than the status' reason phrase.
    pub title: Option<String>,
    /// What went wrong, for people.
    pub detail: String,
}

impl Failure {
    /// A failure with this status and detail; the kind follows from the status.
    pub fn new(status: u16, detail: impl Into<String>) -> Self {
        Self {
            kind: kind_of(status),
            status,
            title: None,
            detail: detail.into(),
        }
    }

    /// 400: the request is wrong.
    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(400, detail)
    }

    /// 422: the request is well-formed but cannot be processed.
    pub fn unprocessable(detail: impl Into<String>) -> Self {
        Self::new(422, detail)
    }

    /// 404.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(404, detail)
    }

    /// 409.
    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(409, detail)
    }

    /// 504.
    pub fn timeout(detail: impl Into<String>) -> Self {
        Self::new(504, detail)
    }

    /// 500: our own fault.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(500, detail)
    }

    /// Someone else ended or runs the work.
    pub fn superseded() -> Self {
        Self {
            kind: FailureKind::Superseded,
            status: 409,
            title: None,
            detail: "someone else ended or runs this work".into(),
        }
    }

    /// The same failure under another title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Whether someone else ended or runs the work (nothing to record).
    pub fn is_superseded(&self) -> bool {
        self.kind == FailureKind::Superseded
    }

    /// The ProblemDetails recorded or answered.
    pub fn problem(&self) -> ProblemDetails {
        let mut p = ProblemDetails::new(self.status, self.detail.clone());
        if let Some(t) = &self.title {
            p.title = Some(t.clone());
        }
        p
    }

    /// The label metrics count this failure under.
    pub fn metric_label(&self) -> &'static str {
        match self.kind {
            FailureKind::BadRequest => "bad_request",
            FailureKind::Refused => "refused",
            FailureKind::NotFound => "not_found",
            FailureKind::Conflict => "conflict",
            FailureKind::Timeout => "timeout",
            FailureKind::Vim => "vim_error",
            FailureKind::Internal => "internal",
            FailureKind::Superseded => "superseded",
        }
    }
}

impl From<ProblemDetails> for Failure {
    fn from(p: ProblemDetails) -> Self {
        let mut f = Failure::new(p.status, p.detail);
        f.title = p
            .title
            .filter(|t| ProblemDetails::new(p.status, "").title.as_ref() != Some(t));
        f
    }
}

fn kind_of(status: u16) -> FailureKind {
    match status {
        400 | 413 | 415 | 422 => FailureKind::BadRequest,
        403 => FailureKind::Refused,
        404 | 410 => FailureKind::NotFound,
        409 | 412 => FailureKind::Conflict,
        408 | 504 => FailureKind::Timeout,
        500 => FailureKind::Internal,
        _ => FailureKind::Vim,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_statuses_and_problems_keep_texts() {
        let f = Failure::new(504, "Pods not ready");
        assert_eq!(f.kind, FailureKind::Timeout);
        assert_eq!(f.metric_label(), "timeout");
        let p = f.problem();
        assert_eq!((p.status, p.detail.as_str()), (504, "Pods not ready"));
        assert_eq!(p.title.as_deref(), Some("Gateway Timeout"));
        let titled = Failure::new(500, "exit 1").with_title("Mgmt driver execution failed");
        assert_eq!(
            titled.problem().title.as_deref(),
            Some("Mgmt driver execution failed")
        );
        assert_eq!(Failure::new(502, "x").kind, FailureKind::Vim);
        assert_eq!(Failure::new(422, "x").kind, FailureKind::BadRequest);
        assert!(Failure::superseded().is_superseded());
    }

    #[test]
    fn problems_round_trip() {
        let p = ProblemDetails::new(409, "busy");
        let f = Failure::from(p.clone());
        assert_eq!(f.title, None);
        assert_eq!(f.problem(), p);
        let mut titled = p;
        titled.title = Some("Other".into());
        assert_eq!(Failure::from(titled.clone()).problem(), titled);
    }
}
