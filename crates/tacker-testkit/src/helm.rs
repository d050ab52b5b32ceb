//! The Helm example CNF (`docs/examples/helm-cnf`): one chart with a Deployment (VDU1,
//! scalable to 3), a StatefulSet with a volume claim template (VDU2, scalable to 2), a
//! ConfigMap and a Service; and the helm binary tests run.

use std::path::{Path, PathBuf};

use crate::csar::Csar;

/// Its `descriptor_id`.
pub const HELM_VNFD_ID: &str = "c0ffee00-0000-4000-8000-000000004e10";
/// The vnfdId of [`helm_cnf_v2`].
pub const HELM_V2_VNFD_ID: &str = "c0ffee00-0000-4000-8000-000000004e20";
/// The chart directory in the package.
pub const CHART: &str = "Files/kubernetes/test-chart";

macro_rules! example {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!("../../../docs/examples/helm-cnf/", $path)),
        )
    };
}

const EXAMPLE: [(&str, &str); 11] = [
    example!("Definitions/helm_top.vnfd.yaml"),
    example!("Definitions/helm_types.yaml"),
    example!("Definitions/helm_df_simple.yaml"),
    example!("Definitions/helm_df_big.yaml"),
    example!("Files/kubernetes/test-chart/Chart.yaml"),
    example!("Files/kubernetes/test-chart/values.yaml"),
    example!("Files/kubernetes/test-chart/templates/configmap.yaml"),
    example!("Files/kubernetes/test-chart/templates/service.yaml"),
    example!("Files/kubernetes/test-chart/templates/deployment.yaml"),
    example!("Files/kubernetes/test-chart/templates/statefulset.yaml"),
    example!("TOSCA-Metadata/TOSCA.meta"),
];

fn build(files: &[(&str, String)]) -> Csar {
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    crate::cnf::with_meta("Definitions/helm_top.vnfd.yaml", &borrowed)
}

/// The example Helm CNF package.
pub fn helm_cnf() -> Csar {
    let files: Vec<(&str, String)> = EXAMPLE.iter().map(|(n, t)| (*n, (*t).to_owned())).collect();
    build(&files)
}

/// The example with its workloads named after the release, as charts written for
/// upstream Tacker name them (its Helm driver binds `<VDU name>-<suffix>`):
/// `vdu1-{{ .Release.Name }}`, `vdu2-{{ .Release.Name }}`.
pub fn helm_cnf_named_after_the_release() -> Csar {
    let files: Vec<(&str, String)> = EXAMPLE
        .iter()
        .map(|(name, text)| {
            let t = match *name {
                "Files/kubernetes/test-chart/templates/deployment.yaml" => {
                    text.replacen("  name: vdu1\n", "  name: vdu1-{{ .Release.Name }}\n", 1)
                }
                "Files/kubernetes/test-chart/templates/statefulset.yaml" => {
                    text.replacen("  name: vdu2\n", "  name: vdu2-{{ .Release.Name }}\n", 1)
                }
                _ => (*text).to_owned(),
            };
            (*name, t)
        })
        .collect();
    build(&files)
}

/// Its "v2": another vnfdId, chart 0.2.0 with images tagged `:v2`, another greeting,
/// and a Service that the first version does not have; the same VDUs.
pub fn helm_cnf_v2() -> Csar {
    let files: Vec<(&str, String)> = EXAMPLE
        .iter()
        .map(|(name, text)| {
            let t = text.replace(HELM_VNFD_ID, HELM_V2_VNFD_ID);
            let t = match *name {
                "Files/kubernetes/test-chart/Chart.yaml" => t.replace("version: 0.1.0", "version: 0.2.0"),
                "Files/kubernetes/test-chart/values.yaml" => t
                    .replace("vdu1: nginx", "vdu1: nginx:v2")
                    .replace("vdu2: postgres", "vdu2: postgres:v2")
                    .replace("greeting: hello", "greeting: hello-v2"),
                _ => t,
            };
            (*name, t)
        })
        .chain([(
            "Files/kubernetes/test-chart/templates/metrics.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-metrics\nspec:\n  selector: { app: vdu1 }\n  ports:\n  - port: 9090\n".to_owned(),
        )])
        .collect();
    build(&files)
}

/// `additionalParams` instantiating it with the chart `chart` (the directory, or an
/// archive made of it).
pub fn helm_params(chart: &str, namespace: &str) -> serde_json::Value {
    serde_json::json!({
        "helm_chart_path": chart,
        "helm_parameters": {"service.port": 8081},
        "helm_value_names": {
            "VDU1": {"replica": "replicaCountVdu1"},
            "VDU2": {"replica": "replicaCountVdu2"}
        },
        "namespace": namespace,
    })
}

/// helm: `$HELM`, else the one `tests/infra/k8s-tools.sh` installs, else `PATH`'s.
pub fn helm_bin() -> PathBuf {
    if let Ok(h) = std::env::var("HELM") {
        return h.into();
    }
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/bin/helm");
    if tools.exists() {
        return tools.canonicalize().unwrap_or(tools);
    }
    "helm".into()
}
