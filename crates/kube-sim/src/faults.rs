//! Injected faults: Pods that never become ready, slow readiness, API errors.

use serde::{Deserialize, Serialize};

/// An API error returned instead of serving a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiFault {
    /// Verb: `get`, `list`, `create`, `update`, `patch`, `delete`, `watch`, or `*`.
    pub verb: String,
    /// Resource plural (`pods`, `deployments`), or `*`.
    #[serde(default = "any")]
    pub resource: String,
    /// Only for this object name (prefix match).
    #[serde(default)]
    pub name: Option<String>,
    /// HTTP status to answer.
    #[serde(default = "internal")]
    pub status: u16,
    /// The Status message.
    #[serde(default = "message")]
    pub message: String,
    /// How many times (`None`: until cleared).
    #[serde(default)]
    pub times: Option<u32>,
}

fn any() -> String {
    "*".into()
}

fn internal() -> u16 {
    500
}

fn message() -> String {
    "injected failure".into()
}

/// Slower readiness for Pods whose name starts with `prefix`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlowReady {
    /// Pod name prefix.
    pub prefix: String,
    /// Readiness delay for them, in milliseconds.
    pub delay_ms: u64,
}

/// Every fault in force.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Faults {
    /// Pods whose name starts with one of these run but never become ready; an entry
    /// `image:<image>` holds the Pods with a container of that image instead.
    pub never_ready: Vec<String>,
    /// Slower readiness by name prefix.
    pub slow_ready: Vec<SlowReady>,
    /// API errors.
    pub api_errors: Vec<ApiFault>,
}

impl Faults {
    /// The readiness delay of a new Pod (`None`: never), given the default.
    pub fn ready_delay(&self, pod: &str, default_ms: u64) -> Option<u64> {
        if self.never_ready.iter().any(|p| pod.starts_with(p.as_str())) {
            return None;
        }
        Some(
            self.slow_ready
                .iter()
                .find(|s| pod.starts_with(s.prefix.as_str()))
                .map(|s| s.delay_ms)
                .unwrap_or(default_ms),
        )
    }

    /// Whether a Pod is held unready by a fault now (faults can be cleared later).
    pub fn held(&self, pod: &serde_json::Value) -> bool {
        let name = crate::meta::name(pod);
        let images: Vec<&str> = pod
            .pointer("/spec/containers")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("image").and_then(serde_json::Value::as_str))
            .collect();
        self.never_ready
            .iter()
            .any(|p| match p.strip_prefix("image:") {
                Some(image) => images.contains(&image),
                None => name.starts_with(p.as_str()),
            })
    }

    /// The error to answer a request with, if one is injected (used up once answered).
    pub fn api_error(&mut self, verb: &str, resource: &str, name: &str) -> Option<(u16, String)> {
        let i = self.api_errors.iter().position(|f| {
            (f.verb == "*" || f.verb == verb)
                && (f.resource == "*" || f.resource == resource)
                && f.name.as_deref().is_none_or(|n| name.starts_with(n))
        })?;
        let f = &mut self.api_errors[i];
        let out = (f.status, f.message.clone());
        if let Some(t) = f.times.as_mut() {
            *t = t.saturating_sub(1);
            if *t == 0 {
                self.api_errors.remove(i);
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_errors_are_used_up() {
        let mut f = Faults {
            api_errors: vec![ApiFault {
                verb: "create".into(),
                resource: "pods".into(),
                name: None,
                status: 500,
                message: "boom".into(),
                times: Some(1),
            }],
            ..Default::default()
        };
        assert_eq!(f.api_error("get", "pods", "a"), None);
        assert_eq!(
            f.api_error("create", "pods", "a"),
            Some((500, "boom".into()))
        );
        assert_eq!(f.api_error("create", "pods", "a"), None);
    }

    #[test]
    fn readiness_faults_match_by_prefix() {
        let f = Faults {
            never_ready: vec!["vdu2-".into()],
            slow_ready: vec![SlowReady {
                prefix: "vdu3".into(),
                delay_ms: 500,
            }],
            ..Default::default()
        };
        assert_eq!(f.ready_delay("vdu2-abc", 10), None);
        assert_eq!(f.ready_delay("vdu3-abc", 10), Some(500));
        assert_eq!(f.ready_delay("vdu4", 10), Some(10));
    }
}
