//! A CNF package of our own: a bare Pod, a Deployment (2 replicas), a ReplicaSet, a
//! StatefulSet with a volume claim template and a DaemonSet, plus a ConfigMap and a
//! Service; scaling aspects on the Deployment and the StatefulSet.

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

const TYPES: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: types of the test CNF
node_types:
  test.cnf.VNF:
    derived_from: tosca.nodes.nfv.VNF
    properties:
      descriptor_id:
        type: string
        default: c0ffee00-0000-4000-8000-00000000c4f0
      descriptor_version:
        type: string
        default: '1.0'
      provider:
        type: string
        default: Test Provider
      product_name:
        type: string
        default: Test Kubernetes CNF
      software_version:
        type: string
        default: '1.0'
      vnfm_info:
        type: list
        default: [ Tacker ]
      flavour_id:
        type: string
        default: simple
"#;

const TOP: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: test CNF
imports:
  - cnf_types.yaml
  - cnf_df_simple.yaml
topology_template:
  inputs:
    selected_flavour:
      type: string
  node_templates:
    VNF:
      type: test.cnf.VNF
      properties:
        flavour_id: { get_input: selected_flavour }
"#;

const DF: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_2
description: simple flavour of the test CNF
imports:
  - cnf_types.yaml
topology_template:
  substitution_mappings:
    node_type: test.cnf.VNF
    properties:
      flavour_id: simple
  node_templates:
    VNF:
      type: test.cnf.VNF
      properties:
        flavour_description: one of each workload kind
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu1-pod
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 1 }
    VDU2:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu2-deploy
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 4 }
    VDU3:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu3-rs
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 1 }
    VDU4:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu4-sts
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 3 }
    VDU5:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu5-ds
        vdu_profile: { min_number_of_instances: 1, max_number_of_instances: 8 }
  policies:
    - scaling_aspects:
        type: tosca.policies.nfv.ScalingAspects
        properties:
          aspects:
            vdu2_aspect:
              name: vdu2_aspect
              description: Deployment replicas
              max_scale_level: 2
              step_deltas: [ delta_1 ]
            vdu4_aspect:
              name: vdu4_aspect
              description: StatefulSet replicas
              max_scale_level: 2
              step_deltas: [ delta_1 ]
    - VDU2_scaling_aspect_deltas:
        type: tosca.policies.nfv.VduScalingAspectDeltas
        properties:
          aspect: vdu2_aspect
          deltas:
            delta_1:
              number_of_instances: 1
        targets: [ VDU2 ]
    - VDU4_scaling_aspect_deltas:
        type: tosca.policies.nfv.VduScalingAspectDeltas
        properties:
          aspect: vdu4_aspect
          deltas:
            delta_1:
              number_of_instances: 1
        targets: [ VDU4 ]
    - instantiation_levels:
        type: tosca.policies.nfv.InstantiationLevels
        properties:
          levels:
            instantiation_level_1:
              description: Smallest size
              scale_info:
                vdu2_aspect: { scale_level: 0 }
                vdu4_aspect: { scale_level: 0 }
          default_level: instantiation_level_1
    - VDU1_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            instantiation_level_1: { number_of_instances: 1 }
        targets: [ VDU1 ]
    - VDU2_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            instantiation_level_1: { number_of_instances: 2 }
        targets: [ VDU2 ]
    - VDU3_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            instantiation_level_1: { number_of_instances: 1 }
        targets: [ VDU3 ]
    - VDU4_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            instantiation_level_1: { number_of_instances: 1 }
        targets: [ VDU4 ]
    - VDU5_instantiation_levels:
        type: tosca.policies.nfv.VduInstantiationLevels
        properties:
          levels:
            instantiation_level_1: { number_of_instances: 2 }
        targets: [ VDU5 ]
"#;

const CONFIG: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: cnf-config
data:
  greeting: hello
---
apiVersion: v1
kind: Service
metadata:
  name: cnf-web
spec:
  selector: { app: web }
  ports:
  - { port: 80, targetPort: 8080 }
"#;

const POD: &str = r#"apiVersion: v1
kind: Pod
metadata:
  name: vdu1-pod
  labels: { app: solo }
spec:
  containers:
  - name: app
    image: busybox
    command: ["sleep", "infinity"]
"#;

const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: vdu2-deploy
spec:
  replicas: 1
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: nginx
        image: nginx
"#;

const REPLICASET: &str = r#"apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: vdu3-rs
spec:
  replicas: 1
  selector:
    matchLabels: { app: cache }
  template:
    metadata:
      labels: { app: cache }
    spec:
      containers:
      - name: cache
        image: redis
"#;

const STATEFULSET: &str = r#"apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: vdu4-sts
spec:
  replicas: 1
  serviceName: db
  selector:
    matchLabels: { app: db }
  template:
    metadata:
      labels: { app: db }
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: db
        image: postgres
        volumeMounts:
        - { name: data, mountPath: /var/lib/postgresql/data }
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ ReadWriteOnce ]
      resources:
        requests: { storage: 1Gi }
"#;

const DAEMONSET: &str = r#"apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: vdu5-ds
spec:
  selector:
    matchLabels: { app: agent }
  template:
    metadata:
      labels: { app: agent }
    spec:
      containers:
      - name: agent
        image: fluentd
"#;

/// The CNF package (TOSCA.meta lists every manifest's digest, as Tacker samples do).
pub fn cnf() -> Csar {
    let files = [
        ("Definitions/cnf_top.vnfd.yaml", TOP),
        ("Definitions/cnf_types.yaml", TYPES),
        ("Definitions/cnf_df_simple.yaml", DF),
        (CNF_FILES[0], CONFIG),
        (CNF_FILES[1], POD),
        (CNF_FILES[2], DEPLOYMENT),
        (CNF_FILES[3], REPLICASET),
        (CNF_FILES[4], STATEFULSET),
        (CNF_FILES[5], DAEMONSET),
    ];
    let mut meta = String::from(
        "TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: tacker tests\nEntry-Definitions: Definitions/cnf_top.vnfd.yaml\n",
    );
    let mut csar = Csar::default();
    for (name, text) in files {
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
