//! Errors: a fatal I/O error, or the list of problems found in the package.

/// One problem found in a package, located as precisely as possible.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// The file inside the package (or the package itself: `""`).
    pub file: String,
    /// The key, block or node concerned, if any.
    pub key: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl Problem {
    /// A problem in `file` at `key`.
    pub fn at(file: impl Into<String>, key: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            key: Some(key.into()),
            reason: reason.into(),
        }
    }

    /// A problem in `file` as a whole.
    pub fn file(file: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            key: None,
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = if self.file.is_empty() {
            "<package>"
        } else {
            &self.file
        };
        match &self.key {
            Some(k) => write!(f, "{file}: {k}: {}", self.reason),
            None => write!(f, "{file}: {}", self.reason),
        }
    }
}

/// Why a package could not be validated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The package file could not be read.
    #[error("reading the package: {0}")]
    Io(#[from] std::io::Error),
    /// The package is invalid; every problem found.
    #[error("invalid package:\n  - {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  - "))]
    Invalid(Vec<Problem>),
}

impl Error {
    /// The problems, when the package is invalid.
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::Invalid(p) => p,
            Error::Io(_) => &[],
        }
    }
}

/// Result with the CSAR [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors and warnings collected while reading a package.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

impl Findings {
    pub fn error(&mut self, p: Problem) {
        self.errors.push(p);
    }

    pub fn warn(&mut self, p: Problem) {
        self.warnings.push(p);
    }
}
