//! The example CNF package (`docs/examples/cnf`): a bare Pod, a Deployment (2 replicas), a ReplicaSet, a
//! StatefulSet with a volume claim template and a DaemonSet, plus a ConfigMap and a
//! Service; scaling aspects on the Deployment and the StatefulSet (flavour `simple`), and
//! a second flavour `web`: a Deployment of its own alone.

use crate::csar::{Csar, sha256};

/// Its `descriptor_id`.
pub const CNF_VNFD_ID: &str = "c0ffee00-0000-4000-8000-00000000c4f0";

/// Its manifests, in `lcm-kubernetes-def-files` order.
pub const CNF_FILES: [&str; 6] = [
    "Files/kubernetes/config.yaml",
    "Files/kubernetes/pod.yaml",
    "Files/kubernetes/deployment.yaml",
    "Files/kubernetes/replicaset.yaml",
    "Files/kubernetes/statefulset.yaml",
    "Files/kubernetes/daemonset.yaml",
];

macro_rules! example {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!("../../../docs/examples/cnf/", $path)),
        )
    };
}

/// The example CNF package, its TOSCA.meta listing every manifest's digest (as Tacker
/// samples do).
pub fn cnf() -> Csar {
    build(&EXAMPLE)
}

/// Its "v2": another vnfdId, new images for the bare Pod, the Deployment, the StatefulSet
/// and the DaemonSet, another ConfigMap value; the same VDUs.
pub fn cnf_v2() -> Csar {
    cnf_variant(CNF_V2_VNFD_ID, ":v2")
}

/// The vnfdId of [`cnf_v2`].
pub const CNF_V2_VNFD_ID: &str = "c0ffee00-0000-4000-8000-0000000002f0";

/// A variant of the example: vnfdId `vnfd_id`, every image but the ReplicaSet's tagged
/// `tag`, the ConfigMap's greeting set to the tag.
pub fn cnf_variant(vnfd_id: &str, tag: &str) -> Csar {
    let files: Vec<(&str, String)> = EXAMPLE
        .iter()
        .map(|(name, text)| {
            let t = text.replace(CNF_VNFD_ID, vnfd_id);
            let t = match *name {
                "Files/kubernetes/config.yaml" => {
                    t.replace("greeting: hello", &format!("greeting: hello{tag}"))
                }
                "Files/kubernetes/replicaset.yaml" => t,
                _ => ["busybox", "nginx", "postgres", "fluentd"]
                    .iter()
                    .fold(t, |t, img| {
                        t.replace(&format!("image: {img}\n"), &format!("image: {img}{tag}\n"))
                    }),
            };
            (*name, t)
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    build(&borrowed)
}

/// The manifests of the example's `web` flavour (its own Deployment `vdu2-deploy`, image
/// `nginx:web`, three replicas at its default level `web_level`, scalable to four).
pub const WEB_FILES: [&str; 2] = ["Files/kubernetes/config.yaml", "Files/kubernetes/web.yaml"];

const EXAMPLE: [(&str, &str); 11] = [
    example!("Definitions/cnf_top.vnfd.yaml"),
    example!("Definitions/cnf_types.yaml"),
    example!("Definitions/cnf_df_simple.yaml"),
    example!("Definitions/cnf_df_web.yaml"),
    example!("Files/kubernetes/config.yaml"),
    example!("Files/kubernetes/pod.yaml"),
    example!("Files/kubernetes/deployment.yaml"),
    example!("Files/kubernetes/replicaset.yaml"),
    example!("Files/kubernetes/statefulset.yaml"),
    example!("Files/kubernetes/daemonset.yaml"),
    example!("Files/kubernetes/web.yaml"),
];

fn build(files: &[(&str, &str)]) -> Csar {
    with_meta("Definitions/cnf_top.vnfd.yaml", files)
}

/// A package of `files` (TOSCA-Metadata left out) with a TOSCA.meta naming `entry` and
/// listing the SHA-256 of every file under `Files/` (as Tacker's samples do).
pub fn with_meta(entry: &str, files: &[(&str, &str)]) -> Csar {
    let mut meta = format!(
        "TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: tacker tests\nEntry-Definitions: {entry}\n"
    );
    let mut csar = Csar::default();
    for (name, text) in files.iter().copied() {
        if name.starts_with("TOSCA-Metadata/") {
            continue;
        }
        if name.starts_with("Files/") {
            meta.push_str(&format!(
                "\nName: {name}\nContent-Type: application/yaml\nAlgorithm: SHA-256\nHash: {}\n",
                sha256(text.as_bytes())
            ));
        }
        csar = csar.with(name, text);
    }
    csar.with("TOSCA-Metadata/TOSCA.meta", meta)
}

/// `additionalParams` instantiating it.
pub fn cnf_params(namespace: Option<&str>) -> serde_json::Value {
    let mut p = serde_json::json!({"lcm-kubernetes-def-files": CNF_FILES});
    if let Some(ns) = namespace {
        p["namespace"] = serde_json::Value::String(ns.to_owned());
    }
    p
}
