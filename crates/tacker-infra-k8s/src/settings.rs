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

impl K8sSettings {
    /// The settings of `[kubernetes]`, the API server allowed on `outbound.allowed_networks`.
    pub fn from_config(cfg: &tacker_config::Config) -> Self {
        let k = &cfg.kubernetes;
        Self {
            ready_timeout: k.ready_timeout,
            delete_timeout: k.delete_timeout,
            poll_interval: k.poll_interval,
            request_timeout: k.request_timeout,
            allow_http: k.allow_http,
            cluster_scoped: k.cluster_scoped == tacker_config::ClusterScoped::Allow,
            denied_namespaces: k.denied_namespaces.clone(),
            allowed_networks: cfg.outbound.allowed_networks.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn denied_namespaces_match_exactly_or_by_prefix() {
        let s = super::K8sSettings {
            denied_namespaces: vec!["kube-*".into(), "istio-system".into()],
            ..super::K8sSettings::from_config(&tacker_config::Config::defaults().unwrap())
        };
        assert!(s.denied("kube-system"));
        assert!(s.denied("kube-public"));
        assert!(s.denied("istio-system"));
        assert!(!s.denied("istio-system2"));
        assert!(!s.denied("default"));
    }
}
