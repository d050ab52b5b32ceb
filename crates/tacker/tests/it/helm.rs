//! Helm CNFs end to end: the REST API, a server and two conductors as processes on
//! PostgreSQL and RabbitMQ, the real helm binary, kube-sim over TLS with a token.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use tacker_testkit::helm::{
    CHART, HELM_V2_VNFD_ID, HELM_VNFD_ID, helm_bin, helm_cnf, helm_cnf_v2, helm_params,
};

use crate::cnf::{Cnf, package_of, timing};
use crate::procs::Cluster;

const T: std::time::Duration = std::time::Duration::from_secs(60);

async fn helm_cluster(ready_timeout: &str) -> Cnf {
    let sim = kube_sim::spawn(kube_sim::Settings {
        token: Some("e2e-token".into()),
        basic: None,
        tls: true,
        timing: timing(),
    })
    .unwrap();
    let helm = helm_bin();
    let env = [
        ("TACKER__KUBERNETES__POLL_INTERVAL", "200ms"),
        ("TACKER__KUBERNETES__READY_TIMEOUT", ready_timeout),
        ("TACKER__LCM__SYNC_INTERVAL", "0s"),
        ("TACKER__HELM__BINARY", helm.to_str().unwrap()),
    ];
    let c = Cluster::start_with(1, &["c1", "c2"], &env).await;
    for csar in [helm_cnf(), helm_cnf_v2()] {
        let pkg = c.upload(csar.zip()).await;
        let p = c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    }
    Cnf { c, sim }
}

async fn create(e: &Cnf) -> String {
    let r =
        e.c.lcm(0, reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": HELM_VNFD_ID, "vnfInstanceName": "helm-cnf"}))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn helm_vim(e: &Cnf) -> Value {
    json!({"vim1": {
        "vimType": "ETSINFV.HELM.V_3",
        "interfaceInfo": {"endpoint": e.sim.url, "ssl_ca_cert": e.sim.ca_pem},
        "accessInfo": {"bearer_token": "e2e-token"},
    }})
}

/// The change_vnfpkg request to the Helm package v2.
fn to_v2() -> Value {
    json!({"vnfdId": HELM_V2_VNFD_ID, "additionalParams": {"upgrade_type": "RollingUpdate",
        "helm_chart_path": CHART}})
}

fn images_of(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// Images of the Pods in `default`, and the release Secrets there (one per revision).
fn cluster_state(e: &Cnf) -> (BTreeSet<String>, usize, usize) {
    let s = e.sim.sim.lock();
    let mut images = BTreeSet::new();
    let mut pods = 0;
    for (_, p) in s.list("/pods", Some("default")) {
        if p.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        pods += 1;
        for c in p
            .pointer("/spec/containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            images.insert(c["image"].as_str().unwrap_or_default().to_owned());
        }
    }
    let releases = s
        .list("/secrets", Some("default"))
        .into_iter()
        .filter(|(_, v)| {
            v.pointer("/metadata/labels/owner").and_then(Value::as_str) == Some("helm")
        })
        .count();
    (images, pods, releases)
}

// Multi-threaded: kube-sim answers Helm while the test waits on the openstack CLI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_helm_cnf_through_the_api_instantiates_scales_upgrades_rolls_back_and_terminates() {
    let e = helm_cluster("4s").await;
    let i = create(&e).await;

    // Refused before anything starts: no chart, a chart the package does not have,
    // parameters of the wrong shape.
    for (params, needle) in [
        (json!({"namespace": "default"}), "helm_chart_path"),
        (
            json!({"helm_chart_path": "Files/kubernetes/none.tgz"}),
            "not a chart",
        ),
        (
            json!({"helm_chart_path": CHART, "helm_value_names": {"VDU9": {"replica": "x"}}}),
            "VDU9",
        ),
        // Shapes the driver used to find wrong only after the grant (FAILED_TEMP).
        (
            json!({"helm_chart_path": CHART, "helm_value_names": {"VDU1": {"replicas": "x"}}}),
            "helm_value_names.VDU1 must be",
        ),
        (
            json!({"helm_chart_path": CHART, "helm_parameters": ["a=1"]}),
            "helm_parameters must be a map",
        ),
    ] {
        let body = json!({"flavourId": "simple", "vimConnectionInfo": helm_vim(&e), "additionalParams": params});
        let r =
            e.c.lcm(
                0,
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/instantiate"),
            )
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{needle}");
        let text = r.text().await.unwrap();
        assert!(text.contains(needle), "{text}");
    }

    let body = json!({"flavourId": "simple", "vimConnectionInfo": helm_vim(&e),
        "additionalParams": helm_params(CHART, "default")});
    let op = e
        .run(&i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let v = e.vnfcs(&i).await;
    assert_eq!(v.len(), 2, "{v:?}");
    let (images, pods, releases) = cluster_state(&e);
    assert_eq!(images, images_of(&["nginx", "postgres"]));
    assert_eq!((pods, releases), (2, 1));
    let inst = e.instance(&i).await;
    let meta = &inst["instantiatedVnfInfo"]["metadata"];
    // Upstream Tacker's name of the release.
    assert_eq!(
        meta["release_name"],
        format!("vnf{}", i.replace('-', "")),
        "{meta}"
    );
    assert!(!inst.to_string().contains("e2e-token"), "no token answered");

    // Scale out VDU1 through its replica value.
    let op = e
        .run(
            &i,
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(e.vnfcs(&i).await.len(), 3);
    assert_eq!(cluster_state(&e).1, 3);

    // Stop: the release's replica values at zero, no Pod left, the VNFCs kept STOPPED;
    // scale and named VNFCs refused; start: the three Pods back.
    let end = &["COMPLETED", "FAILED_TEMP"];
    let (status, _) =
        e.c.task(
            0,
            &i,
            "operate",
            json!({"changeStateTo": "STOPPED", "vnfcInstanceId": [e.vnfcs(&i).await[0].2]}),
        )
        .await;
    assert_eq!(status, 422, "named VNFCs of a CNF");
    let op = e
        .run(&i, "operate", json!({"changeStateTo": "STOPPED"}), end)
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(cluster_state(&e).1, 0, "no Pod runs");
    let inst = e.instance(&i).await;
    assert_eq!(inst["instantiatedVnfInfo"]["vnfState"], "STOPPED", "{inst}");
    let states: Vec<&Value> = inst["instantiatedVnfInfo"]["vnfcInfo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["vnfcState"])
        .collect();
    assert_eq!(states, [&json!("STOPPED"); 3], "{inst}");
    let (status, _) =
        e.c.task(
            0,
            &i,
            "scale",
            json!({"type": "SCALE_IN", "aspectId": "vdu1_aspect"}),
        )
        .await;
    assert_eq!(status, 409);
    let op = e
        .run(&i, "operate", json!({"changeStateTo": "STARTED"}), end)
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(cluster_state(&e).1, 3);
    let inst = e.instance(&i).await;
    assert_eq!(inst["instantiatedVnfInfo"]["vnfState"], "STARTED", "{inst}");
    assert_eq!(e.vnfcs(&i).await.len(), 3);

    // v2's web image never gets ready: FAILED_TEMP 504; rollback through Helm's
    // history brings back the old images on the old package.
    e.sim
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v2".into());
    let change = to_v2();
    let op = e
        .run(
            &i,
            "change_vnfpkg",
            change.clone(),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["status"], 504, "{op}");
    assert_eq!(
        package_of(&e.c, HELM_V2_VNFD_ID).await.1,
        "IN_USE",
        "pinned while it runs"
    );
    e.sim.sim.lock().faults.never_ready.clear();
    let op_id = op["id"].as_str().unwrap();
    assert_eq!(
        e.post(&format!("/vnf_lcm_op_occs/{op_id}/rollback"))
            .await
            .status(),
        202
    );
    let op = e.c.wait_op(op_id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    let (images, pods, _) = cluster_state(&e);
    assert_eq!(images, images_of(&["nginx", "postgres"]));
    assert_eq!(pods, 3);
    assert_eq!(e.instance(&i).await["vnfdId"], HELM_VNFD_ID);
    assert_eq!(package_of(&e.c, HELM_V2_VNFD_ID).await.1, "NOT_IN_USE");

    // The change again: COMPLETED, every Pod on v2, the scale kept, usage moved.
    let op = e
        .run(&i, "change_vnfpkg", change, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let (images, pods, _) = cluster_state(&e);
    assert_eq!(images, images_of(&["nginx:v2", "postgres:v2"]));
    assert_eq!(pods, 3);
    assert_eq!(e.instance(&i).await["vnfdId"], HELM_V2_VNFD_ID);
    assert_eq!(package_of(&e.c, HELM_V2_VNFD_ID).await.1, "IN_USE");
    assert_eq!(package_of(&e.c, HELM_VNFD_ID).await.1, "NOT_IN_USE");

    // Terminate: the release and its Pods gone.
    let op = e
        .run(
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let (_, pods, releases) = cluster_state(&e);
    assert_eq!((pods, releases), (0, 0));

    // A Kubernetes VIM registered for Helm (Tacker's extra.use_helm), named by vimId:
    // the CNF is installed as a Helm release, its credentials stay in the registry.
    let r =
        e.c.http
            .post(format!("{}/v1.0/vims.json", e.c.api))
            .json(
                &json!({"vim": {"name": "helm-k8s", "type": "kubernetes", "auth_url": e.sim.url,
            "auth_cred": {"bearer_token": "e2e-token", "ssl_ca_cert": e.sim.ca_pem},
            "vim_project": {"name": "default"}, "extra": {"use_helm": true}}}),
            )
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 201);
    let vim_id = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let i2 = create(&e).await;
    let body = json!({"flavourId": "simple",
        "vimConnectionInfo": {"vim1": {"vimId": vim_id, "vimType": "kubernetes"}},
        "additionalParams": helm_params(CHART, "default")});
    let op = e
        .run(&i2, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let (_, pods, releases) = cluster_state(&e);
    assert_eq!((pods, releases), (2, 1));
    assert!(!e.instance(&i2).await.to_string().contains("e2e-token"));

    // Its package change through `openstack vnflcm change-vnfpkg`: COMPLETED on v2.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("change.json");
    let change = to_v2();
    std::fs::write(&file, change.to_string()).unwrap();
    let osc = crate::openstack_cli::Osc::new(e.c.api.clone());
    let (ok, out, err) = osc.run(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "change-vnfpkg",
        &i2,
        file.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("accepted"), "{out} {err}");
    let op_id = crate::openstack_cli::last_op(&osc, "CHANGE_VNFPKG");
    let op = e.c.wait_op(&op_id, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(op["vnfInstanceId"], i2.as_str(), "{op}");
    let (images, pods, releases) = cluster_state(&e);
    assert_eq!(images, images_of(&["nginx:v2", "postgres:v2"]));
    assert_eq!((pods, releases), (2, 2), "two revisions of the one release");
    assert_eq!(e.instance(&i2).await["vnfdId"], HELM_V2_VNFD_ID);

    // Its flavour changed to big (two of each workload): the new replicas never get
    // ready, FAILED_TEMP; rollback through Helm's history; then COMPLETED.
    e.sim
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v2".into());
    let big = json!({"newFlavourId": "big"});
    let end = &["COMPLETED", "FAILED_TEMP"];
    let op = e.run(&i2, "change_flavour", big.clone(), end).await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["status"], 504, "{op}");
    e.sim.sim.lock().faults.never_ready.clear();
    let op_id = op["id"].as_str().unwrap();
    let r = e.post(&format!("/vnf_lcm_op_occs/{op_id}/rollback")).await;
    assert_eq!(r.status(), 202);
    let op = e.c.wait_op(op_id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    assert_eq!(cluster_state(&e).1, 2);
    let inst = e.instance(&i2).await;
    assert_eq!(inst["instantiatedVnfInfo"]["flavourId"], "simple", "{inst}");
    let op = e.run(&i2, "change_flavour", big, end).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(cluster_state(&e).1, 4);
    let inst = e.instance(&i2).await;
    assert_eq!(inst["instantiatedVnfInfo"]["flavourId"], "big", "{inst}");
    assert_eq!(e.vnfcs(&i2).await.len(), 4);
    let op = e
        .run(
            &i2,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(cluster_state(&e).2, 0);
}

#[test]
fn a_conductor_configured_with_a_missing_helm_does_not_start() {
    use crate::support::{ClusterEnv, Proc};
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    assert!(
        env.command(&[])
            .args(["db", "migrate"])
            .status()
            .unwrap()
            .success()
    );
    let mut conductor = Proc::spawn(
        env.command(&[
            ("TACKER__HELM__BINARY", "/nonexistent/helm".into()),
            ("TACKER__CONDUCTOR__ID", "c-helm".into()),
            (
                "TACKER__CONDUCTOR__HEALTH_BIND",
                format!("127.0.0.1:{}", crate::support::free_port()),
            ),
        ])
        .arg("conductor"),
        &env.log_path("conductor"),
    );
    assert_ne!(conductor.wait(std::time::Duration::from_secs(30)), Some(0));
    let log = conductor.log_text();
    assert!(log.contains("helm.binary \"/nonexistent/helm\""), "{log}");
}

#[tokio::test]
async fn a_helm_change_in_flight_when_its_conductors_die_is_settled_and_retried() {
    let mut e = helm_cluster("60s").await;
    let i = create(&e).await;
    let body = json!({"flavourId": "simple", "vimConnectionInfo": helm_vim(&e),
        "additionalParams": helm_params(CHART, "default")});
    let op = e
        .run(&i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    // The v2 web image hangs unready, so the change waits for its rollout...
    e.sim
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v2".into());
    let change = to_v2();
    let (status, op) = e.c.task(0, &i, "change_vnfpkg", change).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    // ...with helm's upgrade applied: Pods of the new image exist.
    let deadline = tokio::time::Instant::now() + T;
    while !cluster_state(&e).0.contains("nginx:v2") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the upgrade never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Both conductors die; one comes back under the same name (a StatefulSet pod).
    e.c.kill("c1");
    e.c.kill("c2");
    e.c.start_conductor("c1");
    e.c.wait_ready("c1").await;
    // What the dead incarnation owned is settled: FAILED_TEMP, both packages pinned.
    let o = e.c.wait_op(&op, &["FAILED_TEMP", "COMPLETED"], T).await;
    assert_eq!(o["operationState"], "FAILED_TEMP", "{o}");
    assert_eq!(package_of(&e.c, HELM_V2_VNFD_ID).await.1, "IN_USE");
    assert_eq!(package_of(&e.c, HELM_VNFD_ID).await.1, "IN_USE");
    // The fault clears; retry completes the change on the new incarnation, on the same
    // release.
    e.sim.sim.lock().faults.never_ready.clear();
    assert_eq!(
        e.post(&format!("/vnf_lcm_op_occs/{op}/retry"))
            .await
            .status(),
        202
    );
    let o = e.c.wait_op(&op, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(o["operationState"], "COMPLETED", "{o}");
    let (images, pods, _) = cluster_state(&e);
    assert_eq!(images, images_of(&["nginx:v2", "postgres:v2"]));
    assert_eq!(pods, 2);
    let inst = e.instance(&i).await;
    assert_eq!(inst["vnfdId"], HELM_V2_VNFD_ID);
    let release = inst["instantiatedVnfInfo"]["metadata"]["release_name"]
        .as_str()
        .unwrap()
        .to_owned();
    let names: BTreeSet<String> = e
        .sim
        .sim
        .lock()
        .list("/secrets", Some("default"))
        .into_iter()
        .filter_map(|(_, v)| {
            v.pointer("/metadata/labels/name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([release]),
        "one release, never a second install"
    );
    assert_eq!(package_of(&e.c, HELM_VNFD_ID).await.1, "NOT_IN_USE");
}
