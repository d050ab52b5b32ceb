//! A CNF Tacker instantiated, imported and operated here.

use serde_json::{Value, json};
use tacker_testkit::keystone::OpenStack;

use super::{Upstream, cnf_sample, stop_tackers_conductor, until, walkthrough};
use crate::openstack_cli::Osc;
use crate::procs::Cluster;

/// kube-sim over TLS with `token`, and a client that trusts it.
fn cluster(token: &str) -> (kube_sim::Handle, reqwest::Client) {
    let sim = kube_sim::spawn(kube_sim::Settings {
        token: Some(token.into()),
        basic: None,
        tls: true,
        timing: crate::cnf::timing(),
    })
    .unwrap();
    let http = reqwest::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(sim.ca_pem.as_deref().unwrap().as_bytes()).unwrap(),
        )
        .build()
        .unwrap();
    (sim, http)
}

/// The names of the running Pods in `default` of `sim` that start with `prefix`, sorted.
async fn pods(sim: &kube_sim::Handle, http: &reqwest::Client, prefix: &str) -> Vec<String> {
    let v: Value = http
        .get(format!("{}/api/v1/namespaces/default/pods", sim.url))
        .bearer_auth("tacker-k8s-token")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut names: Vec<String> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
        .filter_map(|p| p["metadata"]["name"].as_str())
        .filter(|n| n.starts_with(prefix))
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

/// A CNF Tacker instantiated from upstream's manifests on a (kube-sim) cluster comes over
/// instantiated, and ours heals a Pod of it, scales it out and terminates it on the same
/// cluster: the objects Tacker made are the ones acted on, and nothing is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cnf_tacker_instantiated_is_healed_scaled_and_terminated_here() {
    let Some(samples) = tacker_testkit::samples::samples_dir() else {
        eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
        return;
    };
    let os = OpenStack::up();
    let up = Upstream::up();
    let p = os.project(&[("member", &["member"])]).await;
    let token = os.token_of(&p, "member").await;
    let http = reqwest::Client::new();
    let work = tempfile::tempdir().unwrap();
    let (sim, kube) = cluster("tacker-k8s-token");

    // In Tacker: upstream's CNF package onboarded. (Tacker 16 keeps a registered
    // Kubernetes VIM's key in Barbican only; its CNFs name their cluster in the request.)
    let region = os.region().await;
    os.endpoint(&region, "tacker", "nfv-orchestration", &up.api)
        .await;
    let m = p.user("member");
    let osc = Osc::keystone(&os.keystone, &m.login, &m.password, &p.name, &region);
    let pkg = osc.json(&["vnf", "package", "create"]);
    let pkg = pkg["ID"]
        .as_str()
        .unwrap_or_else(|| panic!("{pkg}"))
        .to_owned();
    let vnfd_id = uuid::Uuid::new_v4().to_string();
    let zip = work.path().join("cnf.zip");
    std::fs::write(&zip, cnf_sample(&samples, &vnfd_id, work.path())).unwrap();
    let (ok, out, err) = osc.run(&[
        "vnf",
        "package",
        "upload",
        "--path",
        zip.to_str().unwrap(),
        &pkg,
    ]);
    assert!(ok, "{out}{err}");
    let url = format!("{}/vnfpkgm/v1/vnf_packages/{pkg}", up.api);
    until(&http, &url, &token, "onboardingState", "ONBOARDED", 120).await;

    // Tacker instantiates VDU2's Deployment (two Pods) on the cluster; a second instance's
    // instantiation names a manifest the package lacks and stays FAILED_TEMP in Tacker.
    let instantiate = |name: &'static str, file: &'static str| {
        let (osc, http, token, vnfd_id) = (&osc, http.clone(), token.clone(), vnfd_id.clone());
        let (api, url, ca) = (up.api.clone(), sim.url.clone(), sim.ca_pem.clone());
        async move {
            let i = osc.json(&[
                "--os-tacker-api-version",
                "2",
                "vnflcm",
                "create",
                "--name",
                name,
                &vnfd_id,
            ]);
            let i = i["ID"].as_str().unwrap_or_else(|| panic!("{i}")).to_owned();
            let r = http
                .post(format!("{api}/vnflcm/v2/vnf_instances/{i}/instantiate"))
                .header("X-Auth-Token", &token)
                .header("Version", "2.0.0")
                .json(&json!({"flavourId": "simple",
                    "vimConnectionInfo": {"vim1": {"vimId": uuid::Uuid::new_v4().to_string(),
                        "vimType": "kubernetes",
                        "interfaceInfo": {"endpoint": url, "ssl_ca_cert": ca},
                        "accessInfo": {"bearer_token": "tacker-k8s-token"}}},
                    "additionalParams": {"namespace": "default",
                        "lcm-kubernetes-def-files": [file]}}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
            (i, r.headers()["location"].to_str().unwrap().to_owned())
        }
    };
    let (stuck, stuck_occ) = instantiate("cnf-stuck", "Files/kubernetes/missing.yaml").await;
    until(
        &http,
        &stuck_occ,
        &token,
        "operationState",
        "FAILED_TEMP",
        120,
    )
    .await;
    let (i, occ) = instantiate("cnf-from-tacker", "Files/kubernetes/deployment.yaml").await;
    // Tacker polls the cluster every 10 s.
    until(&http, &occ, &token, "operationState", "COMPLETED", 180).await;
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
    let ours = |path: String| {
        let (http, api, token) = (http.clone(), c.api.clone(), token.clone());
        async move {
            let r = http
                .get(format!("{api}{path}"))
                .header("X-Auth-Token", token)
                .header("Version", "2.0.0")
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{path}");
            r.json::<Value>().await.unwrap()
        }
    };
    let vnfcs = |v: &Value| -> Vec<String> {
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
    };
    let level = |v: &Value| {
        v["instantiatedVnfInfo"]["scaleStatus"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["aspectId"] == "vdu2_aspect")
            .map(|s| s["scaleLevel"].as_u64().unwrap())
    };
    let r = http
        .get(format!("{}/vnflcm/v2/vnf_instances/{stuck}", c.api))
        .header("X-Auth-Token", &token)
        .header("Version", "2.0.0")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let v = ours(format!("/vnflcm/v2/vnf_instances/{i}")).await;
    assert_eq!(v["instantiationState"], "INSTANTIATED", "{v}");
    assert_eq!(vnfcs(&v), made);
    let imported_level = level(&v).unwrap_or_else(|| panic!("{v}"));
    let task = |path: &str, body: Value| {
        let (http, api, token) = (http.clone(), c.api.clone(), token.clone());
        let url = format!("{api}/vnflcm/v2/vnf_instances/{i}/{path}");
        async move {
            let r = http
                .post(url)
                .header("X-Auth-Token", &token)
                .header("Version", "2.0.0")
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = r.status();
            let location = r
                .headers()
                .get("location")
                .map(|l| l.to_str().unwrap().to_owned());
            assert_eq!(status, 202, "{}", r.text().await.unwrap());
            let occ = location.unwrap();
            until(&http, &occ, &token, "operationState", "COMPLETED", 90).await;
        }
    };

    // Heal one of Tacker's Pods: it is replaced on the cluster and in the instance.
    let sick = made[0].clone();
    task("heal", json!({"vnfcInstanceId": [format!("VDU2-{sick}")]})).await;
    let after_heal = pods(&sim, &kube, "vdu2-").await;
    assert_eq!(after_heal.len(), 2, "{after_heal:?}");
    assert!(
        !after_heal.contains(&sick) && after_heal.contains(&made[1]),
        "{after_heal:?}"
    );
    let v = ours(format!("/vnflcm/v2/vnf_instances/{i}")).await;
    assert_eq!(vnfcs(&v), after_heal);

    // Scale out by one step: Tacker's Deployment runs a third Pod.
    task(
        "scale",
        json!({"type": "SCALE_OUT", "aspectId": "vdu2_aspect"}),
    )
    .await;
    let scaled = pods(&sim, &kube, "vdu2-").await;
    assert_eq!(scaled.len(), 3, "{scaled:?}");
    let v = ours(format!("/vnflcm/v2/vnf_instances/{i}")).await;
    assert_eq!(vnfcs(&v), scaled);
    assert_eq!(level(&v), Some(imported_level + 1), "{v}");

    // Terminate: Tacker's Deployment and its Pods are gone.
    task("terminate", json!({"terminationType": "FORCEFUL"})).await;
    assert_eq!(pods(&sim, &kube, "vdu2-").await, Vec::<String>::new());
    let r = kube
        .get(format!(
            "{}/apis/apps/v1/namespaces/default/deployments/vdu2",
            sim.url
        ))
        .bearer_auth("tacker-k8s-token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let v = ours(format!("/vnflcm/v2/vnf_instances/{i}")).await;
    assert_eq!(v["instantiationState"], "NOT_INSTANTIATED", "{v}");
    os.remove_region(&region).await;
    os.remove_project(&p).await;
}
