//! Validation helpers over the testkit's generated packages.

use std::io::Cursor;

use tacker_csar::{Error, Limits, Validated};
pub use tacker_testkit::csar::{Csar, DEPLOYMENT, sealed, sha256, valid};

pub trait Check {
    fn validate(&self) -> Result<Validated, Error>;
    /// The problems, as `file: key: reason` lines; panics if the package is valid.
    fn problems(&self) -> Vec<String>;
}

impl Check for Csar {
    fn validate(&self) -> Result<Validated, Error> {
        tacker_csar::validate_reader(Cursor::new(self.zip()), &Limits::default())
    }

    fn problems(&self) -> Vec<String> {
        match self.validate() {
            Ok(v) => panic!("expected errors, the package is valid: {:?}", v.warnings),
            Err(e) => {
                let p = e
                    .problems()
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>();
                assert!(!p.is_empty(), "{e}");
                p
            }
        }
    }
}

/// Asserts that one of `problems` contains every needle.
pub fn assert_problem(problems: &[String], needles: &[&str]) {
    assert!(
        problems
            .iter()
            .any(|p| needles.iter().all(|n| p.contains(n))),
        "no problem contains {needles:?}: {problems:#?}"
    );
}
