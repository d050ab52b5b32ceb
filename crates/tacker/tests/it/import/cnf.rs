//! CNFs Tacker instantiated, imported and operated here: from manifests, and as a Helm
//! release.

use reqwest::Method;
use serde_json::{Value, json};

use super::session::{InTacker, Ours};
use super::{
    Example, cnf_sample, example_for_tacker, start, stop_tackers_conductor, until, walkthrough,
};
use crate::procs::Cluster;

/// The cluster's bearer token (`crate::tenancy::sim`'s).
const TOKEN: &str = "cluster-token";

/// A client that trusts `sim`'s CA.
fn client_of(sim: &kube_sim::Handle) -> reqwest::Client {
    reqwest::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(sim.ca_pem.as_deref().unwrap().as_bytes()).unwrap(),
        )
        .build()
        .unwrap()
}

/// The names of the running Pods in `default` of `sim` that start with `prefix`, sorted.
async fn pods(sim: &kube_sim::Handle, http: &reqwest::Client, prefix: &str) -> Vec<String> {
    let (_, v) = kube_get(sim, http, "/api/v1/namespaces/default/pods").await;
    let mut names: Vec<String> = v["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
        .filter_map(|p| p["metadata"]["name"].as_str())
        .filter(|n| n.starts_with(prefix))
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

/// Heals Pod `sick` of `vdu` (`VDU2`) of instance `i` through ours: the Pods of the VDU
/// afterwards (named `vdu2-...`), `sick` replaced and `kept` still running.
async fn heal_pod(
    ours: &Ours,
    sim: &kube_sim::Handle,
    http: &reqwest::Client,
    i: &str,
    vdu: &str,
    sick: &str,
    kept: &str,
) -> Vec<String> {
    let vnfc = format!("{vdu}-{sick}");
    ours.task(i, "heal", json!({ "vnfcInstanceId": [vnfc] }))
        .await;
    let after = pods(sim, http, &format!("{}-", vdu.to_lowercase())).await;
    assert!(
        after.len() == 2 && !after.iter().any(|p| p == sick) && after.iter().any(|p| p == kept),
        "{after:?}"
    );
    after
}

/// The Pods an instance lists as its VNFCs, sorted.
fn vnfcs(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> = v["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["computeResource"]["resourceId"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    ids.sort();
    ids
}

/// The scale level of `vdu2_aspect`.
fn level(v: &Value) -> Option<u64> {
    v["instantiatedVnfInfo"]["scaleStatus"]
        .as_array()?
        .iter()
        .find(|s| s["aspectId"] == "vdu2_aspect")
        .and_then(|s| s["scaleLevel"].as_u64())
}

/// A CNF Tacker instantiated from upstream's manifests on a (kube-sim) cluster comes over
/// instantiated, and ours heals a Pod of it, scales it out and terminates it on the same
/// cluster: the objects Tacker made are the ones acted on, and nothing is left. An
/// instance whose instantiation Tacker left FAILED_TEMP stays Tacker's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cnf_tacker_instantiated_is_healed_scaled_and_terminated_here() {
    let Some((samples, os, up, p, work)) = start().await else {
        return;
    };
    let sim = crate::tenancy::sim(&[]).await;
    let kube = client_of(&sim);

    // In Tacker: upstream's CNF package onboarded. (Tacker 16 keeps a registered
    // Kubernetes VIM's key in Barbican only; its CNFs name their cluster in the request.)
    let t = InTacker::open(&os, &up, &p).await;
    let (pkg, vnfd_id) = t.new_package();
    t.onboard(
        &pkg,
        &cnf_sample(&samples, &vnfd_id, work.path()),
        work.path(),
    )
    .await;

    // Tacker instantiates VDU2's Deployment (two Pods) on the cluster; a second instance's
    // instantiation names a manifest the package lacks and stays FAILED_TEMP in Tacker.
    let instantiate = |name: &'static str, file: &'static str| {
        let (t, vnfd_id) = (&t, vnfd_id.clone());
        let (url, ca) = (sim.url.clone(), sim.ca_pem.clone());
        async move {
            let i = t.create_v2(name, &vnfd_id);
            let body = json!({"flavourId": "simple",
                "vimConnectionInfo": {"vim1": {"vimId": uuid::Uuid::new_v4().to_string(),
                    "vimType": "kubernetes",
                    "interfaceInfo": {"endpoint": url, "ssl_ca_cert": ca},
                    "accessInfo": {"bearer_token": TOKEN}}},
                "additionalParams": {"namespace": "default",
                    "lcm-kubernetes-def-files": [file]}});
            let path = format!("/vnflcm/v2/vnf_instances/{i}/instantiate");
            let occ = t.operation(Method::POST, &path, &body).await;
            (i, occ)
        }
    };
    let (stuck, stuck_occ) = instantiate("cnf-stuck", "Files/kubernetes/missing.yaml").await;
    until(
        &t.http,
        &stuck_occ,
        &t.token,
        "operationState",
        "FAILED_TEMP",
        120,
    )
    .await;
    let (i, occ) = instantiate("cnf-from-tacker", "Files/kubernetes/deployment.yaml").await;
    // Tacker polls the cluster every 10 s.
    until(&t.http, &occ, &t.token, "operationState", "COMPLETED", 180).await;
    let made = pods(&sim, &kube, "vdu2-").await;
    assert_eq!(made.len(), 2, "{made:?}");
    // The cut-over: Tacker's conductor stops; ours takes the VNF over.
    stop_tackers_conductor();

    // Ours, after the import: the instance is instantiated, its VNFCs the Pods Tacker made.
    let c = Cluster::with_keystone(
        &os,
        &["c1"],
        &[("TACKER__KUBERNETES__POLL_INTERVAL", "200ms")],
    )
    .await;
    let summary = walkthrough(&c, &up, "tacker-import");
    assert!(!summary.contains(&i), "{i} skipped: {summary}");
    // The instance with an operation Tacker has not ended stays Tacker's, said so.
    let stuck_occ = stuck_occ.rsplit('/').next().unwrap();
    for want in [
        format!("skipped instance {stuck}: an operation on it has not ended in Tacker"),
        format!("skipped operation {stuck_occ}: it is FAILED_TEMP in Tacker"),
    ] {
        assert!(summary.contains(&want), "{want} not in {summary}");
    }
    let ours = Ours {
        http: t.http.clone(),
        api: c.api.clone(),
        token: t.token.clone(),
    };
    assert_eq!(ours.get(&stuck).await.0, 404);
    let v = ours.instance(&i).await;
    assert_eq!(v["instantiationState"], "INSTANTIATED", "{v}");
    assert_eq!(vnfcs(&v), made);
    let imported_level = level(&v).unwrap_or_else(|| panic!("{v}"));

    // Heal one of Tacker's Pods: it is replaced on the cluster and in the instance.
    let after_heal = heal_pod(&ours, &sim, &kube, &i, "VDU2", &made[0], &made[1]).await;
    assert_eq!(vnfcs(&ours.instance(&i).await), after_heal);

    // Scale out by one step: Tacker's Deployment runs a third Pod.
    let out = json!({"type": "SCALE_OUT", "aspectId": "vdu2_aspect"});
    ours.task(&i, "scale", out).await;
    let scaled = pods(&sim, &kube, "vdu2-").await;
    assert_eq!(scaled.len(), 3, "{scaled:?}");
    let v = ours.instance(&i).await;
    assert_eq!(vnfcs(&v), scaled);
    assert_eq!(level(&v), Some(imported_level + 1), "{v}");

    // Terminate: Tacker's Deployment and its Pods are gone.
    ours.task(&i, "terminate", json!({"terminationType": "FORCEFUL"}))
        .await;
    assert_eq!(pods(&sim, &kube, "vdu2-").await, Vec::<String>::new());
    let r = kube
        .get(format!(
            "{}/apis/apps/v1/namespaces/default/deployments/vdu2",
            sim.url
        ))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let v = ours.instance(&i).await;
    assert_eq!(v["instantiationState"], "NOT_INSTANTIATED", "{v}");
    t.close(&os).await;
    os.remove_project(&p).await;
}

/// `GET` `path` of `sim`'s API: the status and the object.
async fn kube_get(sim: &kube_sim::Handle, http: &reqwest::Client, path: &str) -> (u16, Value) {
    let r = http
        .get(format!("{}{path}", sim.url))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The user guide's Helm example (a Deployment for VDU1, a StatefulSet for VDU2, a Service
/// on `service.port`), installed by Tacker with a parameter of its own, comes over
/// instantiated: ours scales VDU1 out by upgrading Tacker's release (the parameter Tacker
/// gave kept), heals a Pod of it and terminates it, uninstalling the release.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_helm_cnf_tacker_installed_is_scaled_healed_and_terminated_here() {
    let Some((samples, os, up, p, work)) = start().await else {
        return;
    };
    let sim = crate::tenancy::sim(&[]).await;
    let kube = client_of(&sim);

    let t = InTacker::open(&os, &up, &p).await;
    let (pkg, vnfd_id) = t.new_package();
    let example = Example {
        name: "helm-cnf",
        id: "c0ffee00-0000-4000-8000-000000004e10",
        prefix: "helm",
        flavours: &["simple", "big"],
    };
    // Its workloads named as Tacker's Helm driver binds them to VDUs: `vdu1-<release>`.
    let templates = "Files/kubernetes/test-chart/templates";
    let csar = ["deployment", "statefulset"]
        .iter()
        .zip(["vdu1", "vdu2"])
        .fold(
            example_for_tacker(&samples, &example, &vnfd_id),
            |csar, (file, vdu)| {
                csar.edit(&format!("{templates}/{file}.yaml"), |t| {
                    t.replacen(
                        &format!("  name: {vdu}\n"),
                        &format!("  name: {vdu}-{{{{ .Release.Name }}}}\n"),
                        1,
                    )
                })
            },
        );
    t.onboard(&pkg, &csar.zip(), work.path()).await;

    // Tacker installs the chart (its helm, Tacker's release name) on the cluster.
    let i = t.create_v2("helm-from-tacker", &vnfd_id);
    let body = json!({"flavourId": "simple",
        "vimConnectionInfo": {"vim1": {"vimId": uuid::Uuid::new_v4().to_string(),
            "vimType": "ETSINFV.HELM.V_3",
            "interfaceInfo": {"endpoint": sim.url, "ssl_ca_cert": sim.ca_pem},
            "accessInfo": {"bearer_token": TOKEN}}},
        "additionalParams": {"namespace": "default",
            "helm_chart_path": "Files/kubernetes/test-chart",
            "helm_parameters": {"service.port": 8081},
            "helm_value_names": {"VDU1": {"replica": "replicaCountVdu1"},
                "VDU2": {"replica": "replicaCountVdu2"}}}});
    let path = format!("/vnflcm/v2/vnf_instances/{i}/instantiate");
    let occ = t.operation(Method::POST, &path, &body).await;
    until(&t.http, &occ, &t.token, "operationState", "COMPLETED", 180).await;
    let release = format!("vnf{}", i.replace('-', ""));
    let service = format!("/api/v1/namespaces/default/services/{release}-web");
    let port = |s: &Value| s["spec"]["ports"][0]["port"].clone();
    let (status, svc) = kube_get(&sim, &kube, &service).await;
    assert_eq!((status, port(&svc)), (200, json!(8081)), "{svc}");
    let made: Vec<String> = [
        pods(&sim, &kube, "vdu1-").await,
        pods(&sim, &kube, "vdu2-").await,
    ]
    .concat();
    assert_eq!(made.len(), 2, "{made:?}");
    stop_tackers_conductor();

    // Ours, after the import: Tacker's release, its Pods the VNFCs.
    let helm = tacker_testkit::helm::helm_bin();
    let c = Cluster::with_keystone(
        &os,
        &["c1"],
        &[
            ("TACKER__KUBERNETES__POLL_INTERVAL", "200ms"),
            ("TACKER__HELM__BINARY", helm.to_str().unwrap()),
        ],
    )
    .await;
    let summary = walkthrough(&c, &up, "tacker-import");
    assert!(!summary.contains(&i), "{i} skipped: {summary}");
    let ours = Ours {
        http: t.http.clone(),
        api: c.api.clone(),
        token: t.token.clone(),
    };
    let v = ours.instance(&i).await;
    assert_eq!(v["instantiationState"], "INSTANTIATED", "{v}");
    assert_eq!(
        v["instantiatedVnfInfo"]["metadata"]["release_name"], release,
        "{v}"
    );
    let mut sorted = made.clone();
    sorted.sort();
    assert_eq!(vnfcs(&v), sorted);

    // Scale VDU1 out: Tacker's release upgraded, its parameter kept.
    let out = json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect"});
    ours.task(&i, "scale", out).await;
    let vdu1 = pods(&sim, &kube, "vdu1-").await;
    assert_eq!(vdu1.len(), 2, "{vdu1:?}");
    let (_, svc) = kube_get(&sim, &kube, &service).await;
    assert_eq!(
        port(&svc),
        json!(8081),
        "Tacker's helm_parameters lost: {svc}"
    );
    let v = ours.instance(&i).await;
    assert_eq!(vnfcs(&v).len(), 3, "{v}");

    // Heal a VDU1 Pod: replaced, the other kept.
    heal_pod(&ours, &sim, &kube, &i, "VDU1", &vdu1[0], &vdu1[1]).await;

    // Terminate: the release is uninstalled, its objects and Pods gone.
    ours.task(&i, "terminate", json!({"terminationType": "FORCEFUL"}))
        .await;
    assert_eq!(pods(&sim, &kube, "vdu").await, Vec::<String>::new());
    for path in [
        format!("/apis/apps/v1/namespaces/default/deployments/vdu1-{release}"),
        format!("/apis/apps/v1/namespaces/default/statefulsets/vdu2-{release}"),
        service,
    ] {
        assert_eq!(kube_get(&sim, &kube, &path).await.0, 404, "{path}");
    }
    let (_, secrets) = kube_get(
        &sim,
        &kube,
        &format!(
            "/api/v1/namespaces/default/secrets?labelSelector=owner%3Dhelm%2Cname%3D{release}"
        ),
    )
    .await;
    assert_eq!(
        secrets["items"],
        json!([]),
        "Helm's release records: {secrets}"
    );
    let v = ours.instance(&i).await;
    assert_eq!(v["instantiationState"], "NOT_INSTANTIATED", "{v}");
    t.close(&os).await;
    os.remove_project(&p).await;
}
