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
    let ok = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    // A pod-template-hash is a 32-bit number's decimal digits, safe-encoded: 1 to 10
    // characters; the random suffix is 5.
    if hashed {
        parts.len() == 2 && ok(parts[0], 1..=10) && ok(parts[1], 5..=5)
    } else {
        parts.len() == 1 && ok(parts[0], 5..=5)
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

mod change;
mod change_flavour;
mod flows;
mod heal;
