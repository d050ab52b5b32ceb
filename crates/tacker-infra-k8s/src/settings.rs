//! Timeouts, polling, and what the driver may touch.

use std::time::Duration;

/// How the driver waits, and what it may touch.
#[derive(Debug, Clone)]
pub struct K8sSettings {
    /// Longest wait for resources to become ready (instantiate, scale, heal).
    pub ready_timeout: Duration,
    /// Longest wait for resources to be gone (terminate, heal).
    pub delete_timeout: Duration,
    /// Longest pause between two polls (polls start fast and slow down to this).
    pub poll_interval: Duration,
    /// Timeout of one Kubernetes API request.
    pub request_timeout: Duration,
    /// Send credentials over plain http to non-loopback endpoints.
    pub allow_http: bool,
    /// Create cluster-scoped objects (Namespace, ClusterRole, PersistentVolume, CRD...).
    pub cluster_scoped: bool,
    /// Namespaces (a trailing `*` matches any suffix) no CNF may go into.
    pub denied_namespaces: Vec<String>,
    /// Networks the API server may be on besides public and private ones
    /// (`outbound.allowed_networks`: a cluster on loopback, say).
    pub allowed_networks: Vec<ipnet::IpNet>,
}

impl K8sSettings {
    /// Whether `ns` is one of [`K8sSettings::denied_namespaces`].
    pub fn denied(&self, ns: &str) -> bool {
        self.denied_namespaces
            .iter()
            .any(|d| match d.strip_suffix('*') {
                Some(prefix) => ns.starts_with(prefix),
                None => ns == d,
            })
    }
}

impl Default for K8sSettings {
    fn default() -> Self {
        Self {
            ready_timeout: Duration::from_secs(300),
            delete_timeout: Duration::from_secs(300),
            poll_interval: Duration::from_secs(1),
            request_timeout: Duration::from_secs(30),
            allow_http: false,
            cluster_scoped: true,
            denied_namespaces: vec!["kube-*".into()],
            allowed_networks: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn denied_namespaces_match_exactly_or_by_prefix() {
        let s = super::K8sSettings {
            denied_namespaces: vec!["kube-*".into(), "istio-system".into()],
            ..Default::default()
        };
        assert!(s.denied("kube-system"));
        assert!(s.denied("kube-public"));
        assert!(s.denied("istio-system"));
        assert!(!s.denied("istio-system2"));
        assert!(!s.denied("default"));
    }
}
