//! The resource types the simulator serves: what discovery answers and how URLs map to
//! stored objects.

/// Verbs of an ordinary persisted resource.
pub const FULL: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
/// Verbs of a resource that is only ever created (reviews, bindings).
pub const CREATE_ONLY: &[&str] = &["create"];
/// Verbs of a read-only resource (nodes).
pub const READ_ONLY: &[&str] = &["get", "list", "watch"];

/// One resource type.
#[derive(Debug)]
pub struct Kind {
    /// API group (`""` for core).
    pub group: &'static str,
    /// Versions served, preferred first.
    pub versions: &'static [&'static str],
    /// `kind`.
    pub kind: &'static str,
    /// Plural resource name used in URLs.
    pub plural: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Verbs allowed.
    pub verbs: &'static [&'static str],
    /// Subresources (`scale`, `status`, ...).
    pub subresources: &'static [&'static str],
    /// Short names for kubectl.
    pub short: &'static [&'static str],
}

impl Kind {
    /// The storage key of the type (`apps/deployments`, `/pods`).
    pub fn resource(&self) -> String {
        format!("{}/{}", self.group, self.plural)
    }

    /// `apiVersion` for objects of this type.
    pub fn api_version(&self) -> String {
        let v = self.versions.first().copied().unwrap_or("v1");
        if self.group.is_empty() {
            v.to_owned()
        } else {
            format!("{}/{v}", self.group)
        }
    }

    /// Whether objects are stored (reviews and bindings are not).
    pub fn persisted(&self) -> bool {
        self.verbs.contains(&"get")
    }

    /// Whether `verb` is allowed.
    pub fn allows(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }
}

macro_rules! kind {
    ($g:expr, [$($v:expr),+], $k:expr, $p:expr, $ns:expr, $verbs:expr, [$($s:expr),*], [$($sh:expr),*]) => {
        Kind { group: $g, versions: &[$($v),+], kind: $k, plural: $p, namespaced: $ns,
               verbs: $verbs, subresources: &[$($s),*], short: &[$($sh),*] }
    };
}

/// Every type served.
pub static KINDS: &[Kind] = &[
    kind!(
        "monitoring.coreos.com",
        ["v1"],
        "PrometheusRule",
        "prometheusrules",
        true,
        FULL,
        [],
        ["promrule"]
    ),
    kind!(
        "",
        ["v1"],
        "Pod",
        "pods",
        true,
        FULL,
        ["status", "binding", "eviction"],
        ["po"]
    ),
    kind!(
        "",
        ["v1"],
        "Service",
        "services",
        true,
        FULL,
        ["status"],
        ["svc"]
    ),
    kind!(
        "",
        ["v1"],
        "ConfigMap",
        "configmaps",
        true,
        FULL,
        [],
        ["cm"]
    ),
    kind!("", ["v1"], "Secret", "secrets", true, FULL, [], []),
    kind!(
        "",
        ["v1"],
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
        FULL,
        ["status"],
        ["pvc"]
    ),
    kind!(
        "",
        ["v1"],
        "PersistentVolume",
        "persistentvolumes",
        false,
        FULL,
        ["status"],
        ["pv"]
    ),
    kind!(
        "",
        ["v1"],
        "Namespace",
        "namespaces",
        false,
        FULL,
        ["status", "finalize"],
        ["ns"]
    ),
    kind!("", ["v1"], "Node", "nodes", false, FULL, ["status"], ["no"]),
    kind!(
        "",
        ["v1"],
        "ServiceAccount",
        "serviceaccounts",
        true,
        FULL,
        [],
        ["sa"]
    ),
    kind!(
        "",
        ["v1"],
        "LimitRange",
        "limitranges",
        true,
        FULL,
        [],
        ["limits"]
    ),
    kind!(
        "",
        ["v1"],
        "ResourceQuota",
        "resourcequotas",
        true,
        FULL,
        ["status"],
        ["quota"]
    ),
    kind!(
        "",
        ["v1"],
        "PodTemplate",
        "podtemplates",
        true,
        FULL,
        [],
        []
    ),
    kind!("", ["v1"], "Endpoints", "endpoints", true, FULL, [], ["ep"]),
    kind!("", ["v1"], "Event", "events", true, FULL, [], ["ev"]),
    kind!("", ["v1"], "Binding", "bindings", true, CREATE_ONLY, [], []),
    kind!(
        "apps",
        ["v1"],
        "Deployment",
        "deployments",
        true,
        FULL,
        ["scale", "status"],
        ["deploy"]
    ),
    kind!(
        "apps",
        ["v1"],
        "ReplicaSet",
        "replicasets",
        true,
        FULL,
        ["scale", "status"],
        ["rs"]
    ),
    kind!(
        "apps",
        ["v1"],
        "StatefulSet",
        "statefulsets",
        true,
        FULL,
        ["scale", "status"],
        ["sts"]
    ),
    kind!(
        "apps",
        ["v1"],
        "DaemonSet",
        "daemonsets",
        true,
        FULL,
        ["status"],
        ["ds"]
    ),
    kind!(
        "apps",
        ["v1"],
        "ControllerRevision",
        "controllerrevisions",
        true,
        FULL,
        [],
        []
    ),
    kind!("batch", ["v1"], "Job", "jobs", true, FULL, ["status"], []),
    kind!(
        "batch",
        ["v1"],
        "CronJob",
        "cronjobs",
        true,
        FULL,
        ["status"],
        ["cj"]
    ),
    kind!(
        "autoscaling",
        ["v2", "v1"],
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        true,
        FULL,
        ["status"],
        ["hpa"]
    ),
    kind!(
        "coordination.k8s.io",
        ["v1"],
        "Lease",
        "leases",
        true,
        FULL,
        [],
        []
    ),
    kind!(
        "networking.k8s.io",
        ["v1"],
        "NetworkPolicy",
        "networkpolicies",
        true,
        FULL,
        [],
        ["netpol"]
    ),
    kind!(
        "networking.k8s.io",
        ["v1"],
        "Ingress",
        "ingresses",
        true,
        FULL,
        ["status"],
        ["ing"]
    ),
    kind!(
        "policy",
        ["v1"],
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
        FULL,
        ["status"],
        ["pdb"]
    ),
    kind!(
        "rbac.authorization.k8s.io",
        ["v1"],
        "Role",
        "roles",
        true,
        FULL,
        [],
        []
    ),
    kind!(
        "rbac.authorization.k8s.io",
        ["v1"],
        "RoleBinding",
        "rolebindings",
        true,
        FULL,
        [],
        []
    ),
    kind!(
        "rbac.authorization.k8s.io",
        ["v1"],
        "ClusterRole",
        "clusterroles",
        false,
        FULL,
        [],
        []
    ),
    kind!(
        "rbac.authorization.k8s.io",
        ["v1"],
        "ClusterRoleBinding",
        "clusterrolebindings",
        false,
        FULL,
        [],
        []
    ),
    kind!(
        "scheduling.k8s.io",
        ["v1"],
        "PriorityClass",
        "priorityclasses",
        false,
        FULL,
        [],
        ["pc"]
    ),
    kind!(
        "storage.k8s.io",
        ["v1"],
        "StorageClass",
        "storageclasses",
        false,
        FULL,
        [],
        ["sc"]
    ),
    kind!(
        "authentication.k8s.io",
        ["v1"],
        "TokenReview",
        "tokenreviews",
        false,
        CREATE_ONLY,
        [],
        []
    ),
    kind!(
        "authorization.k8s.io",
        ["v1"],
        "SubjectAccessReview",
        "subjectaccessreviews",
        false,
        CREATE_ONLY,
        [],
        []
    ),
    kind!(
        "authorization.k8s.io",
        ["v1"],
        "SelfSubjectAccessReview",
        "selfsubjectaccessreviews",
        false,
        CREATE_ONLY,
        [],
        []
    ),
    kind!(
        "authorization.k8s.io",
        ["v1"],
        "SelfSubjectRulesReview",
        "selfsubjectrulesreviews",
        false,
        CREATE_ONLY,
        [],
        []
    ),
    kind!(
        "authorization.k8s.io",
        ["v1"],
        "LocalSubjectAccessReview",
        "localsubjectaccessreviews",
        true,
        CREATE_ONLY,
        [],
        []
    ),
];

/// The type served at `group`/`version` under `plural`.
pub fn by_plural(group: &str, version: &str, plural: &str) -> Option<&'static Kind> {
    KINDS
        .iter()
        .find(|k| k.group == group && k.plural == plural && k.versions.contains(&version))
}

/// The type of `kind` in `group`.
pub fn by_kind(group: &str, kind: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.group == group && k.kind == kind)
}

/// The type of an object (from its `apiVersion` and `kind`).
pub fn of(api_version: &str, kind: &str) -> Option<&'static Kind> {
    let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    by_kind(group, kind)
}

/// The type stored under `resource` (`apps/deployments`).
pub fn by_resource(resource: &str) -> Option<&'static Kind> {
    let (group, plural) = resource.split_once('/')?;
    KINDS
        .iter()
        .find(|k| k.group == group && k.plural == plural)
}

/// Every `(group, versions)` served, core excluded, in table order.
pub fn groups() -> Vec<(&'static str, &'static [&'static str])> {
    let mut out: Vec<(&str, &[&str])> = Vec::new();
    for k in KINDS.iter().filter(|k| !k.group.is_empty()) {
        if !out.iter().any(|(g, _)| *g == k.group) {
            out.push((k.group, k.versions));
        }
    }
    out
}
