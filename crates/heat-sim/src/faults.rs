//! Faults injected through `/sim/faults`: servers that fail to build, slow builds,
//! servers that come up unreachable.
//! (A server gone behind the client's back: `POST /sim/servers/{id}/kill`.)

use serde::{Deserialize, Serialize};

/// What goes wrong, until cleared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Faults {
    /// Servers whose image or name contains this text fail to build.
    pub fail_build: Option<String>,
    /// How many builds fail (absent: every one until cleared).
    pub fail_times: Option<u32>,
    /// The fault message Nova reports.
    pub fail_reason: Option<String>,
    /// Extra milliseconds every server takes to build.
    pub build_delay_ms: u64,
    /// Servers whose image or name contains this text come up unreachable (their link
    /// down, as a VM stuck booting) until `POST /sim/servers/{id}/link/up`.
    pub unreachable: Option<String>,
}

impl Faults {
    /// Whether a server with this image and name comes up unreachable.
    pub fn unreachable(&self, image: &str, name: &str) -> bool {
        self.unreachable
            .as_deref()
            .is_some_and(|p| image.contains(p) || name.contains(p))
    }

    /// Whether building a server with this image and name fails now (counts it).
    pub fn build_fails(&mut self, image: &str, name: &str) -> Option<String> {
        let pattern = self.fail_build.as_deref()?;
        if !(image.contains(pattern) || name.contains(pattern)) {
            return None;
        }
        match &mut self.fail_times {
            Some(0) => return None,
            Some(n) => *n -= 1,
            None => {}
        }
        Some(self.fail_reason.clone().unwrap_or_else(|| {
            "No valid host was found. There are not enough hosts available.".into()
        }))
    }
}
