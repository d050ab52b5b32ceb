//! CNFs end to end: the REST API, a server and conductors as processes on PostgreSQL and
//! RabbitMQ, the Kubernetes driver, and kube-sim (over TLS, with a bearer token).

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::cnf::{CNF_VNFD_ID, cnf, cnf_params};
use tacker_testkit::peers::{Expect, Subscriber, states_of};

use crate::procs::Cluster;

const T: Duration = Duration::from_secs(60);
const LABEL: &str = "tacker.io/vnf-instance-id";
const NS: &str = "default";

pub struct Cnf {
    pub c: Cluster,
    pub sim: kube_sim::Handle,
}

/// kube-sim over TLS with a token, a server and two conductors, the CNF package onboarded.
pub async fn cnf_cluster(extra: &[(&str, &str)], timing: kube_sim::Timing) -> Cnf {
    let sim = kube_sim::spawn(kube_sim::Settings {
        token: Some("e2e-token".into()),
        basic: None,
        tls: true,
        timing,
    })
    .unwrap();
    let mut env = vec![
        ("TACKER__KUBERNETES__POLL_INTERVAL", "200ms"),
        ("TACKER__KUBERNETES__READY_TIMEOUT", "30s"),
        ("TACKER__LCM__SYNC_INTERVAL", "0s"),
    ];
    env.extend_from_slice(extra);
    let c = Cluster::start_with(1, &["c1", "c2"], &env).await;
    let pkg = c.upload(cnf().zip()).await;
    let p = c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    Cnf { c, sim }
}

pub fn timing() -> kube_sim::Timing {
    kube_sim::Timing {
        ready_delay_ms: 50,
        terminate_delay_ms: 200,
        nodes: 2,
    }
}

impl Cnf {
    pub fn vim(&self) -> Value {
        json!({"vim1": {
            "vimType": "ETSINFV.KUBERNETES.V_1",
            "interfaceInfo": {"endpoint": self.sim.url, "ssl_ca_cert": self.sim.ca_pem},
            "accessInfo": {"bearer_token": "e2e-token"},
        }})
    }

    pub async fn create(&self) -> String {
        let r = self
            .c
            .lcm(0, reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": CNF_VNFD_ID, "vnfInstanceName": "cnf"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Runs a task to its end; returns the occurrence.
    pub async fn run(&self, i: &str, task: &str, body: Value, end: &[&str]) -> Value {
        let (status, op) = self.c.task(0, i, task, body).await;
        assert_eq!(status, 202, "{task}");
        self.c.wait_op(&op.unwrap(), end, T).await
    }

    pub async fn instantiate(&self, i: &str) -> Value {
        let body = json!({"flavourId": "simple", "vimConnectionInfo": self.vim(), "additionalParams": cnf_params(None)});
        self.run(i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
            .await
    }

    pub async fn instance(&self, i: &str) -> Value {
        self.c
            .lcm(0, reqwest::Method::GET, &format!("/vnf_instances/{i}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `(vduId, Pod name, vnfcInstanceId)` of every VNFC, sorted.
    pub async fn vnfcs(&self, i: &str) -> Vec<(String, String, String)> {
        let v = self.instance(i).await;
        let info = &v["instantiatedVnfInfo"];
        let mut out: Vec<(String, String, String)> = info["vnfcInfo"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| {
                        let rid = c["vnfcResourceInfoId"].as_str().unwrap();
                        let r = info["vnfcResourceInfo"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .find(|r| r["id"] == rid)
                            .unwrap();
                        (
                            c["vduId"].as_str().unwrap().to_owned(),
                            r["computeResource"]["resourceId"]
                                .as_str()
                                .unwrap()
                                .to_owned(),
                            c["id"].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }

    /// POSTs to an LCM path with no body (fail, retry, rollback, sync).
    pub async fn post(&self, path: &str) -> reqwest::Response {
        self.c
            .lcm(0, reqwest::Method::POST, path)
            .send()
            .await
            .unwrap()
    }

    pub fn pods(&self, i: &str) -> Vec<(String, String)> {
        self.sim.sim.pods(NS, LABEL, i)
    }
}

fn of<'a>(v: &'a [(String, String, String)], vdu: &str) -> Vec<&'a (String, String, String)> {
    v.iter().filter(|x| x.0 == vdu).collect()
}

fn is_generated(name: &str, prefix: &str, hashed: bool) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('-').collect();
    let ok = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    if hashed {
        parts.len() == 2 && ok(parts[0], 10) && ok(parts[1], 5)
    } else {
        parts.len() == 1 && ok(parts[0], 5)
    }
}

#[tokio::test]
async fn cnf_lifecycle_through_the_api() {
    let e = cnf_cluster(&[], timing()).await;
    let sub = Subscriber::start(Expect::Nothing);
    e.c.subscribe(&sub).await;
    let i = e.create().await;
    let op = e.instantiate(&i).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    // A VNFC per Pod, for every kind.
    let v = e.vnfcs(&i).await;
    assert_eq!(of(&v, "VDU1").len(), 1);
    assert_eq!(of(&v, "VDU1")[0].1, "vdu1-pod");
    assert_eq!(of(&v, "VDU2").len(), 2);
    assert!(
        of(&v, "VDU2")
            .iter()
            .all(|x| is_generated(&x.1, "vdu2-deploy-", true)),
        "{v:?}"
    );
    assert_eq!(of(&v, "VDU3").len(), 1);
    assert!(is_generated(&of(&v, "VDU3")[0].1, "vdu3-rs-", false));
    assert_eq!(of(&v, "VDU4")[0].1, "vdu4-sts-0");
    assert_eq!(of(&v, "VDU5").len(), 2, "one per node");
    for (vdu, pod, id) in &v {
        assert_eq!(*id, format!("{vdu}-{pod}"));
    }
    let inst = e.instance(&i).await;
    let types: Vec<&str> = inst["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["computeResource"]["vimLevelResourceType"]
                .as_str()
                .unwrap()
        })
        .collect();
    for k in [
        "Pod",
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "DaemonSet",
    ] {
        assert!(types.contains(&k), "{types:?}");
    }
    assert_eq!(e.pods(&i).len(), v.len());
    assert!(
        inst["vimConnectionInfo"]["vim1"]["accessInfo"]
            .get("bearer_token")
            .is_none(),
        "credentials are never answered"
    );

    // Scale out then in: a Deployment and a StatefulSet.
    for (aspect, vdu, steps, want) in [("vdu2_aspect", "VDU2", 2, 4), ("vdu4_aspect", "VDU4", 1, 2)]
    {
        let op = e
            .run(
                &i,
                "scale",
                json!({"type": "SCALE_OUT", "aspectId": aspect, "numberOfSteps": steps}),
                &["COMPLETED", "FAILED_TEMP"],
            )
            .await;
        assert_eq!(op["operationState"], "COMPLETED", "{op}");
        assert_eq!(of(&e.vnfcs(&i).await, vdu).len(), want);
        let added = op["resourceChanges"]["affectedVnfcs"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(added, steps as usize);
    }
    assert!(e.vnfcs(&i).await.iter().any(|x| x.1 == "vdu4-sts-1"));
    let r =
        e.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/scale"),
        )
        .json(&json!({"type": "SCALE_OUT", "aspectId": "vdu2_aspect"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "beyond the aspect's maximum");
    for (aspect, vdu, steps, want) in [("vdu2_aspect", "VDU2", 2, 2), ("vdu4_aspect", "VDU4", 1, 1)]
    {
        let op = e
            .run(
                &i,
                "scale",
                json!({"type": "SCALE_IN", "aspectId": aspect, "numberOfSteps": steps}),
                &["COMPLETED", "FAILED_TEMP"],
            )
            .await;
        assert_eq!(op["operationState"], "COMPLETED", "{op}");
        assert_eq!(of(&e.vnfcs(&i).await, vdu).len(), want);
    }
    assert_eq!(e.pods(&i).len(), 7);

    // SOL002 heal of one VNFC of each kind.
    for (vdu, same_name, prefix, hashed) in [
        ("VDU1", true, "vdu1-pod", false),
        ("VDU2", false, "vdu2-deploy-", true),
        ("VDU3", false, "vdu3-rs-", false),
        ("VDU4", true, "vdu4-sts-0", false),
        ("VDU5", false, "vdu5-ds-", false),
    ] {
        let before = e.vnfcs(&i).await;
        let pods_before = e.pods(&i);
        let target = of(&before, vdu)[0].clone();
        let op = e
            .run(
                &i,
                "heal",
                json!({"vnfcInstanceId": [target.2]}),
                &["COMPLETED", "FAILED_TEMP"],
            )
            .await;
        assert_eq!(op["operationState"], "COMPLETED", "{vdu}: {op}");
        let after = e.vnfcs(&i).await;
        let pods_after = e.pods(&i);
        let old_uid = &pods_before.iter().find(|p| p.0 == target.1).unwrap().1;
        if same_name {
            assert!(
                of(&after, vdu).iter().any(|x| x.1 == target.1),
                "{vdu} keeps its name"
            );
            let now = pods_after.iter().find(|p| p.0 == target.1).unwrap();
            assert_ne!(&now.1, old_uid, "{vdu}: a new Pod");
            assert_eq!(prefix, target.1);
        } else {
            assert!(
                !after.iter().any(|x| x.1 == target.1),
                "{vdu}: the old Pod is gone"
            );
            let new: Vec<_> = of(&after, vdu)
                .into_iter()
                .filter(|x| !before.contains(x))
                .collect();
            assert_eq!(new.len(), 1, "{vdu}: {after:?}");
            assert!(is_generated(&new[0].1, prefix, hashed), "{}", new[0].1);
        }
        // Every other Pod is untouched.
        for p in pods_before.iter().filter(|p| p.0 != target.1) {
            assert!(pods_after.contains(p), "{vdu}: {} was touched", p.0);
        }
        assert_eq!(after.len(), before.len());
        let changes = op["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
        assert!(!changes.is_empty());
    }

    // Terminate, delete; the package is free again.
    let op = e
        .run(
            &i,
            "terminate",
            json!({"terminationType": "GRACEFUL", "gracefulTerminationTimeout": 1}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(e.pods(&i).is_empty());
    assert!(
        e.sim
            .sim
            .lock()
            .list("/persistentvolumeclaims", Some(NS))
            .is_empty()
    );
    let r =
        e.c.lcm(0, reqwest::Method::DELETE, &format!("/vnf_instances/{i}"))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 204);
    let pkgs: Value =
        e.c.http
            .get(format!("{}/vnfpkgm/v1/vnf_packages", e.c.api))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(pkgs[0]["usageState"], "NOT_IN_USE");

    // Metrics: what the conductors did, as Prometheus sees it.
    let heals = metric(
        &e.c,
        "tacker_lcm_operations_total",
        "operation=\"HEAL\",state=\"COMPLETED\"",
    )
    .await;
    assert_eq!(heals, 5.0);
    let instantiated = metric(
        &e.c,
        "tacker_lcm_operation_duration_seconds_count",
        "operation=\"INSTANTIATE\",state=\"COMPLETED\"",
    )
    .await;
    assert_eq!(instantiated, 1.0);
    assert_eq!(
        metric(&e.c, "tacker_onboardings_total", "outcome=\"onboarded\"").await,
        1.0
    );
    // 11 operations cast to the conductors, plus onboarding's fan-outs.
    assert!(metric(&e.c, "tacker_bus_messages_handled_total", "").await >= 11.0);
    // The recovery sweep refreshes the gauges every 300 ms here.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(
        metric(&e.c, "tacker_conductors_live", "").await,
        4.0,
        "each of 2 sees 2"
    );

    // Notifications: every heal went STARTING -> PROCESSING -> COMPLETED.
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let got = sub.received();
        let heals: Vec<Vec<String>> = ops_of(&got, "HEAL");
        if heals.len() == 5 && heals.iter().all(|s| s.len() == 3) {
            assert!(
                metric(
                    &e.c,
                    "tacker_notification_deliveries_total",
                    "outcome=\"delivered\""
                )
                .await
                    >= 15.0
            );
            for s in heals {
                assert_eq!(
                    s,
                    ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
                );
            }
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{got:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The sum of a metric's samples whose labels include `labels`, over every conductor.
async fn metric(c: &Cluster, name: &str, labels: &str) -> f64 {
    let mut sum = 0.0;
    for node in c.nodes.values() {
        let text = c
            .http
            .get(format!("{}/metrics", node.health))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        for line in text.lines() {
            if line.starts_with(&format!("{name}{{")) && line.contains(labels)
                || line.starts_with(&format!("{name} "))
            {
                sum += line.rsplit(' ').next().unwrap().parse::<f64>().unwrap();
            }
        }
    }
    sum
}

/// The states notified for each occurrence of `operation`, in order.
fn ops_of(got: &[Value], operation: &str) -> Vec<Vec<String>> {
    let mut ids: Vec<String> = Vec::new();
    for n in got {
        if n["operation"] == operation
            && let Some(id) = n["vnfLcmOpOccId"].as_str()
            && !ids.iter().any(|x| x == id)
        {
            ids.push(id.to_owned());
        }
    }
    ids.iter().map(|id| states_of(got, id)).collect()
}

#[tokio::test]
async fn sol003_heal_recreates_everything_and_keeps_statefulset_volumes() {
    let e = cnf_cluster(&[], timing()).await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let claim = |e: &Cnf| {
        let s = e.sim.sim.lock();
        let pvc = s
            .get(&(
                "/persistentvolumeclaims".into(),
                NS.into(),
                "data-vdu4-sts-0".into(),
            ))
            .cloned()
            .unwrap();
        (
            pvc["metadata"]["uid"].as_str().unwrap().to_owned(),
            pvc["spec"]["volumeName"].as_str().unwrap().to_owned(),
        )
    };
    let (claim_uid, volume) = claim(&e);
    let before: Vec<String> = e.pods(&i).into_iter().map(|p| p.1).collect();
    let cm_uid = e
        .sim
        .sim
        .lock()
        .get(&("/configmaps".into(), NS.into(), "cnf-config".into()))
        .unwrap()["metadata"]["uid"]
        .clone();
    let op = e
        .run(&i, "heal", json!({}), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let after: Vec<String> = e.pods(&i).into_iter().map(|p| p.1).collect();
    assert_eq!(after.len(), before.len());
    assert!(
        after.iter().all(|u| !before.contains(u)),
        "every Pod re-created"
    );
    let cm_after = e
        .sim
        .sim
        .lock()
        .get(&("/configmaps".into(), NS.into(), "cnf-config".into()))
        .unwrap()["metadata"]["uid"]
        .clone();
    assert_ne!(cm_uid, cm_after, "every resource of the package re-created");
    assert_eq!(
        claim(&e),
        (claim_uid, volume.clone()),
        "the StatefulSet keeps its claim and volume"
    );
    assert!(
        e.sim
            .sim
            .lock()
            .get(&("/persistentvolumes".into(), String::new(), volume))
            .is_some()
    );
    assert_eq!(e.vnfcs(&i).await.len(), after.len());
}

#[tokio::test]
async fn a_pod_kubernetes_replaced_fails_heal_then_fail_sync_heal_recovers() {
    let e = cnf_cluster(&[], timing()).await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let old = of(&e.vnfcs(&i).await, "VDU2")[0].clone();
    e.sim.sim.replace_pod(NS, &old.1).unwrap();
    // Wait until Kubernetes has its replacement.
    let deadline = tokio::time::Instant::now() + T;
    while e.pods(&i).iter().any(|p| p.0 == old.1) || e.pods(&i).len() != 7 {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let op = e
        .run(
            &i,
            "heal",
            json!({"vnfcInstanceId": [old.2]}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    let detail = op["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&old.2),
        "the error names the stale vnfcInstanceId: {detail}"
    );
    let fail = e
        .post(&format!(
            "/vnf_lcm_op_occs/{}/fail",
            op["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(fail.status(), 200);
    let sync = e.post(&format!("/vnf_instances/{i}/sync")).await;
    assert_eq!(sync.status(), 200);
    let body: Value = sync.json().await.unwrap();
    assert_eq!(body["changed"], true);
    let now = e.vnfcs(&i).await;
    assert!(!now.iter().any(|x| x.1 == old.1));
    let fresh = of(&now, "VDU2")
        .into_iter()
        .find(|x| e.pods(&i).iter().any(|p| p.0 == x.1) && x.1 != old.1)
        .unwrap()
        .clone();
    let op = e
        .run(
            &i,
            "heal",
            json!({"vnfcInstanceId": [fresh.2]}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
}

#[tokio::test]
async fn the_periodic_sync_follows_pods_kubernetes_replaced() {
    let e = cnf_cluster(&[("TACKER__LCM__SYNC_INTERVAL", "500ms")], timing()).await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let old = of(&e.vnfcs(&i).await, "VDU3")[0].clone();
    e.sim.sim.replace_pod(NS, &old.1).unwrap();
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let v = e.vnfcs(&i).await;
        let vdu3 = of(&v, "VDU3");
        if vdu3.len() == 1 && vdu3[0].1 != old.1 {
            assert!(is_generated(&vdu3[0].1, "vdu3-rs-", false));
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stored VNFCs never followed: {v:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // No operation was needed.
    let ops: Vec<Value> =
        e.c.lcm(0, reqwest::Method::GET, "/vnf_lcm_op_occs")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(ops.len(), 1);
}

#[tokio::test]
async fn a_readiness_timeout_fails_temp_and_a_retry_completes_once_the_fault_clears() {
    let e = cnf_cluster(&[("TACKER__KUBERNETES__READY_TIMEOUT", "2s")], timing()).await;
    e.sim.sim.set_faults(kube_sim::Faults {
        never_ready: vec!["vdu3-rs-".into()],
        ..Default::default()
    });
    let i = e.create().await;
    let op = e.instantiate(&i).await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["status"], 504);
    assert!(
        op["error"]["detail"].as_str().unwrap().contains("vdu3-rs"),
        "{op}"
    );
    e.sim.sim.set_faults(kube_sim::Faults::default());
    let id = op["id"].as_str().unwrap();
    let r = e.post(&format!("/vnf_lcm_op_occs/{id}/retry")).await;
    assert_eq!(r.status(), 202);
    let op = e.c.wait_op(id, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(e.vnfcs(&i).await.len(), 7);
}

#[tokio::test]
async fn bad_cnf_requests_are_refused_and_kubernetes_errors_fail_with_their_message() {
    let e = cnf_cluster(&[], timing()).await;
    let i = e.create().await;
    let post = |body: Value| {
        e.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
        )
        .json(&body)
        .send()
    };
    let r = post(json!({"flavourId": "simple", "vimConnectionInfo": e.vim(), "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/missing.yaml"]}})).await.unwrap();
    assert_eq!(r.status(), 400);
    let p: Value = r.json().await.unwrap();
    assert!(
        p["detail"].as_str().unwrap().contains("not an artifact"),
        "{p}"
    );
    let r = post(json!({"flavourId": "simple", "additionalParams": {"lcm-kubernetes-def-files": cnf_params(None)["lcm-kubernetes-def-files"], "namespace": "Bad_NS"}})).await.unwrap();
    assert_eq!(r.status(), 400);
    // The API refuses the StatefulSet: FAILED_TEMP with its message, nothing half-made
    // once rolled back.
    e.sim.sim.set_faults(kube_sim::Faults {
        api_errors: vec![kube_sim::ApiFault {
            verb: "create".into(),
            resource: "statefulsets".into(),
            name: None,
            status: 422,
            message: "StatefulSet.apps \"vdu4-sts\" is invalid: spec.serviceName: Required value"
                .into(),
            times: None,
        }],
        ..Default::default()
    });
    let op = e.instantiate(&i).await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["status"], 422);
    assert!(
        op["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("spec.serviceName: Required value"),
        "{op}"
    );
    assert!(
        !e.pods(&i).is_empty(),
        "what was created before stays until rollback"
    );
    let id = op["id"].as_str().unwrap();
    let r = e.post(&format!("/vnf_lcm_op_occs/{id}/rollback")).await;
    assert_eq!(r.status(), 202);
    let op = e.c.wait_op(id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    assert!(e.pods(&i).is_empty());
    assert!(
        e.sim
            .sim
            .lock()
            .get(&("/configmaps".into(), NS.into(), "cnf-config".into()))
            .is_none()
    );
    assert_eq!(
        e.instance(&i).await["instantiationState"],
        "NOT_INSTANTIATED"
    );
}

// Multi-threaded: the CLI blocks while processes and kube-sim work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cnf_flow_through_the_openstack_cli() {
    use crate::openstack_cli::{Osc, last_op, wait_op};
    let e = cnf_cluster(&[], timing()).await;
    let dir = tempfile::tempdir().unwrap();
    let osc = Osc::new(e.c.api.clone());
    let run = |args: &[&str]| {
        let mut all = vec!["--os-tacker-api-version", "2"];
        all.extend_from_slice(args);
        let (ok, out, err) = osc.run(&all);
        assert!(ok, "openstack {args:?}: {err}");
        out
    };
    let show = |id: &str| osc.json(&["--os-tacker-api-version", "2", "vnflcm", "show", id]);
    let created = osc.json(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "create",
        CNF_VNFD_ID,
        "--name",
        "cnf-cli",
    ]);
    let id = created["ID"].as_str().unwrap().to_owned();
    let req = dir.path().join("instantiate.json");
    std::fs::write(
        &req,
        json!({"flavourId": "simple", "vimConnectionInfo": e.vim(), "additionalParams": cnf_params(None)}).to_string(),
    )
    .unwrap();
    assert!(run(&["vnflcm", "instantiate", &id, &req.display().to_string()]).contains("accepted"));
    wait_op(&osc, &last_op(&osc, "INSTANTIATE"), &["COMPLETED"]);
    let info = show(&id)["Instantiated Vnf Info"].clone();
    assert_eq!(info["vnfcInfo"].as_array().unwrap().len(), 7, "{info}");

    assert!(
        run(&[
            "vnflcm",
            "scale",
            &id,
            "--type",
            "SCALE_OUT",
            "--aspect-id",
            "vdu2_aspect"
        ])
        .contains("accepted")
    );
    wait_op(&osc, &last_op(&osc, "SCALE"), &["COMPLETED"]);
    assert_eq!(
        show(&id)["Instantiated Vnf Info"]["vnfcInfo"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
    assert!(
        run(&[
            "vnflcm",
            "scale",
            &id,
            "--type",
            "SCALE_IN",
            "--aspect-id",
            "vdu2_aspect"
        ])
        .contains("accepted")
    );
    wait_op(&osc, &last_op(&osc, "SCALE"), &["COMPLETED"]);

    let vnfcs = show(&id)["Instantiated Vnf Info"]["vnfcInfo"].clone();
    let target = vnfcs
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["vduId"] == "VDU2")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(run(&["vnflcm", "heal", &id, "--vnfc-instance", &target]).contains("accepted"));
    wait_op(&osc, &last_op(&osc, "HEAL"), &["COMPLETED"]);
    let after = show(&id)["Instantiated Vnf Info"]["vnfcInfo"].clone();
    assert!(
        !after
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == target.as_str())
    );
    assert_eq!(after.as_array().unwrap().len(), 7);

    assert!(run(&["vnflcm", "terminate", &id]).contains("accepted"));
    wait_op(&osc, &last_op(&osc, "TERMINATE"), &["COMPLETED"]);
    assert!(e.pods(&id).is_empty());
    assert!(run(&["vnflcm", "delete", &id]).contains("deleted successfully"));
    let pkgs = osc.json(&["vnf", "package", "list"]);
    assert_eq!(pkgs[0]["Usage State"], "NOT_IN_USE", "{pkgs}");
}

/// Upstream Tacker's CNF sample (`test_instantiate_cnf_resources`): every kind of
/// resource it ships, instantiated, healed (SOL002) and terminated.
#[tokio::test]
async fn the_tacker_cnf_sample_instantiates_heals_and_terminates() {
    let Some(root) = tacker_testkit::samples::samples_dir() else {
        eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
        return;
    };
    let base = root.join("tests/functional/sol_kubernetes_v2");
    let contents = base.join("test_instantiate_cnf_resources/contents");
    let csar = tacker_testkit::samples::package(
        &contents,
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    );
    let e = cnf_cluster(&[], timing()).await;
    let pkg = e.c.upload(csar.zip()).await;
    let p = e.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let r =
        e.c.lcm(0, reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": "b1bb0ce7-ebca-4fa7-95ed-4840d7000000"}))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 201);
    let i = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Every manifest but the one made to fail (it reuses VDU3's name).
    let mut files: Vec<String> = std::fs::read_dir(contents.join("Files/kubernetes"))
        .unwrap()
        .map(|f| {
            format!(
                "Files/kubernetes/{}",
                f.unwrap().file_name().to_string_lossy()
            )
        })
        .filter(|f| !f.ends_with("deployment_fail_test.yaml"))
        .collect();
    files.sort();
    let body = json!({
        "flavourId": "simple",
        "vimConnectionInfo": e.vim(),
        "additionalParams": {"lcm-kubernetes-def-files": files, "namespace": "default"},
    });
    let op = e
        .run(&i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let v = e.vnfcs(&i).await;
    for (vdu, n) in [("VDU1", 1), ("VDU2", 2), ("VDU3", 1), ("VDU5", 1)] {
        assert_eq!(of(&v, vdu).len(), n, "{vdu}: {v:?}");
    }
    assert_eq!(of(&v, "VDU1")[0].1, "vdu1");
    assert_eq!(of(&v, "VDU5")[0].1, "vdu5-0");
    {
        let s = e.sim.sim.lock();
        assert!(
            s.get(&("/namespaces".into(), String::new(), "curry".into()))
                .is_some()
        );
        let pvc = s
            .get(&(
                "/persistentvolumeclaims".into(),
                NS.into(),
                "www-vdu5-0".into(),
            ))
            .unwrap();
        assert_eq!(pvc["status"]["phase"], "Bound");
        let pod = s.get(&("/pods".into(), NS.into(), "vdu1".into())).unwrap();
        assert_eq!(
            pod["spec"]["nodeName"], "k8-worker2",
            "the Binding was applied"
        );
    }
    // SOL002 heal of a Deployment Pod and of the StatefulSet's Pod.
    let ids = [of(&v, "VDU2")[0].2.clone(), of(&v, "VDU5")[0].2.clone()];
    let op = e
        .run(
            &i,
            "heal",
            json!({"vnfcInstanceId": ids}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let after = e.vnfcs(&i).await;
    assert!(!after.iter().any(|x| x.2 == ids[0]));
    assert_eq!(of(&after, "VDU5")[0].1, "vdu5-0");
    let op = e
        .run(
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let s = e.sim.sim.lock();
    assert!(
        s.get(&("/namespaces".into(), String::new(), "curry".into()))
            .is_none()
    );
    assert!(
        s.list("/persistentvolumes", None).is_empty(),
        "{:?}",
        s.list("/persistentvolumes", None)
    );
    assert!(s.list("/pods", Some(NS)).is_empty());
}

/// The package of `vnfd` (its id and usage state).
pub async fn package_of(c: &Cluster, vnfd: &str) -> (String, String) {
    let list: Vec<Value> = c
        .http
        .get(format!(
            "{}/vnfpkgm/v1/vnf_packages?filter=(eq,vnfdId,{vnfd})",
            c.api
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let p = &list[0];
    (
        p["id"].as_str().unwrap().to_owned(),
        p["usageState"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn change_vnfpkg_rolls_the_cnf_to_the_new_package_and_back_on_failure() {
    use tacker_testkit::cnf::{CNF_FILES, CNF_V2_VNFD_ID, cnf_v2, cnf_variant};
    const V3: &str = "c0ffee00-0000-4000-8000-0000000003f0";
    let e = cnf_cluster(&[("TACKER__KUBERNETES__READY_TIMEOUT", "3s")], timing()).await;
    for csar in [cnf_v2(), cnf_variant(V3, ":v3")] {
        let id = e.c.upload(csar.zip()).await;
        let p = e.c.wait_state(&id, &["ONBOARDED", "CREATED"], T).await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    }
    let sub = Subscriber::start(Expect::Nothing);
    e.c.subscribe(&sub).await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let before = e.vnfcs(&i).await;
    let body = |vnfd: &str| {
        json!({"vnfdId": vnfd, "additionalParams": {"upgrade_type": "RollingUpdate",
            "lcm-kubernetes-def-files": CNF_FILES}})
    };

    // Refused before anything changes: unknown vnfdId, the current one, a coordinate
    // script, a manifest the package does not have.
    for (b, status, needle) in [
        (body("no-such-vnfd"), 422, "no ONBOARDED and ENABLED"),
        (body(CNF_VNFD_ID), 422, "already"),
        (
            json!({"vnfdId": CNF_V2_VNFD_ID, "additionalParams": {"upgrade_type": "RollingUpdate",
                "lcm-operation-coordinate-new-vnf": "Scripts/coordinate.py", "lcm-kubernetes-def-files": CNF_FILES}}),
            422,
            "never run",
        ),
        (
            json!({"vnfdId": CNF_V2_VNFD_ID, "additionalParams": {"upgrade_type": "RollingUpdate",
                "lcm-kubernetes-def-files": ["Files/kubernetes/nope.yaml"]}}),
            422,
            "not an artifact",
        ),
        (
            json!({"vnfdId": CNF_V2_VNFD_ID, "additionalParams": {"upgrade_type": "BlueGreen"}}),
            400,
            "RollingUpdate",
        ),
    ] {
        let (status_got, _) = e.c.task(0, &i, "change_vnfpkg", b).await;
        assert_eq!(status_got, status, "{needle}");
    }

    // v3's web image never gets ready: FAILED_TEMP 504; both packages are pinned.
    e.sim
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v3".into());
    let op = e
        .run(&i, "change_vnfpkg", body(V3), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["status"], 504, "{op}");
    let (v3_pkg, usage) = package_of(&e.c, V3).await;
    assert_eq!(usage, "IN_USE");
    let r =
        e.c.http
            .delete(format!("{}/vnfpkgm/v1/vnf_packages/{v3_pkg}", e.c.api))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 409, "a package under change cannot go");
    let op_id = op["id"].as_str().unwrap();
    let r = e.post(&format!("/vnf_lcm_op_occs/{op_id}/rollback")).await;
    assert_eq!(r.status(), 202);
    let op = e.c.wait_op(op_id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    assert_eq!(package_of(&e.c, V3).await.1, "NOT_IN_USE");
    let inst = e.instance(&i).await;
    assert_eq!(inst["vnfdId"], CNF_VNFD_ID);
    let now = e.vnfcs(&i).await;
    assert_eq!(now.len(), before.len());

    // v3 again: FAILED_TEMP; the fault clears; retry completes on v3.
    let op = e
        .run(&i, "change_vnfpkg", body(V3), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    e.sim.sim.lock().faults.never_ready.clear();
    let op_id = op["id"].as_str().unwrap();
    assert_eq!(
        e.post(&format!("/vnf_lcm_op_occs/{op_id}/retry"))
            .await
            .status(),
        202
    );
    let op = e.c.wait_op(op_id, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(e.instance(&i).await["vnfdId"], V3);
    assert_eq!(package_of(&e.c, V3).await.1, "IN_USE");
    assert_eq!(package_of(&e.c, CNF_VNFD_ID).await.1, "NOT_IN_USE");
    let before = e.vnfcs(&i).await;

    // v2 through the openstack CLI: COMPLETED; the instance on it, Pods rolled, usage
    // moved.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("change.json");
    std::fs::write(&file, body(CNF_V2_VNFD_ID).to_string()).unwrap();
    let osc = crate::openstack_cli::Osc::new(e.c.api.clone());
    let (ok, out, err) = osc.run(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "change-vnfpkg",
        &i,
        file.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("accepted"), "{out} {err}");
    let ops: Vec<Value> =
        e.c.lcm(
            0,
            reqwest::Method::GET,
            "/vnf_lcm_op_occs?filter=(eq,operation,CHANGE_VNFPKG)",
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let latest = ops
        .iter()
        .max_by_key(|o| o["startTime"].as_str().unwrap_or_default().to_owned())
        .unwrap();
    let op =
        e.c.wait_op(
            latest["id"].as_str().unwrap(),
            &["COMPLETED", "FAILED_TEMP"],
            T,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let inst = e.instance(&i).await;
    assert_eq!(inst["vnfdId"], CNF_V2_VNFD_ID);
    assert_eq!(package_of(&e.c, CNF_V2_VNFD_ID).await.1, "IN_USE");
    assert_eq!(package_of(&e.c, V3).await.1, "NOT_IN_USE");
    let after = e.vnfcs(&i).await;
    let old_web: Vec<&String> = of(&before, "VDU2").iter().map(|x| &x.1).collect();
    assert!(
        of(&after, "VDU2").iter().all(|x| !old_web.contains(&&x.1)),
        "{after:?}"
    );
    let affected = op["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    assert!(affected.iter().any(|a| a["changeType"] == "REMOVED"));
    assert!(affected.iter().any(|a| a["changeType"] == "ADDED"));
    // Every Pod of the instance runs a v2 image, but the ReplicaSet's.
    let pods = e.sim.sim.lock().list("/pods", Some(NS));
    for (k, pod) in pods {
        let mine = pod
            .pointer("/metadata/labels")
            .and_then(|l| l.get(LABEL))
            .and_then(Value::as_str)
            == Some(i.as_str());
        if !mine || pod.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let image = pod["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(
            image.ends_with(":v2"),
            !k.2.starts_with("vdu3-rs"),
            "{}: {image}",
            k.2
        );
    }
    // The notifications of the change, in order.
    let got = sub
        .wait("the change's COMPLETED", |g| {
            states_of(g, op["id"].as_str().unwrap()).len() >= 3
        })
        .await;
    assert_eq!(
        states_of(&got, op["id"].as_str().unwrap()),
        ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
    );
}

#[tokio::test]
async fn a_change_in_flight_when_its_conductors_die_is_settled_and_retried() {
    use tacker_testkit::cnf::{CNF_FILES, CNF_V2_VNFD_ID, cnf_v2};
    let mut e = cnf_cluster(&[("TACKER__KUBERNETES__READY_TIMEOUT", "60s")], timing()).await;
    let id = e.c.upload(cnf_v2().zip()).await;
    let p = e.c.wait_state(&id, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    // The v2 web image hangs unready, so the change waits in PROCESSING...
    e.sim
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v2".into());
    let body = json!({"vnfdId": CNF_V2_VNFD_ID, "additionalParams": {"upgrade_type": "RollingUpdate",
        "lcm-kubernetes-def-files": CNF_FILES}});
    let (status, op) = e.c.task(0, &i, "change_vnfpkg", body).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    let o = e.c.wait_op(&op, &["PROCESSING"], T).await;
    assert_eq!(o["operationState"], "PROCESSING");
    // ...and its runner is mid-rollout: Pods of the new image exist.
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let rolled = e
            .sim
            .sim
            .lock()
            .list("/pods", Some(NS))
            .iter()
            .any(|(_, p)| p["spec"]["containers"][0]["image"] == "nginx:v2");
        if rolled {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the rollout never started"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Both conductors die; one comes back under the same name (a StatefulSet pod).
    e.c.kill("c1");
    e.c.kill("c2");
    e.c.start_conductor("c1");
    e.c.wait_ready("c1").await;
    // What the dead incarnation owned is settled: FAILED_TEMP, both packages still pinned.
    let o = e.c.wait_op(&op, &["FAILED_TEMP", "COMPLETED"], T).await;
    assert_eq!(o["operationState"], "FAILED_TEMP", "{o}");
    assert_eq!(package_of(&e.c, CNF_V2_VNFD_ID).await.1, "IN_USE");
    assert_eq!(package_of(&e.c, CNF_VNFD_ID).await.1, "IN_USE");
    // The fault clears; retry completes the change on the new incarnation.
    e.sim.sim.lock().faults.never_ready.clear();
    assert_eq!(
        e.post(&format!("/vnf_lcm_op_occs/{op}/retry"))
            .await
            .status(),
        202
    );
    let o = e.c.wait_op(&op, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(o["operationState"], "COMPLETED", "{o}");
    assert_eq!(e.instance(&i).await["vnfdId"], CNF_V2_VNFD_ID);
    assert_eq!(package_of(&e.c, CNF_VNFD_ID).await.1, "NOT_IN_USE");
}
