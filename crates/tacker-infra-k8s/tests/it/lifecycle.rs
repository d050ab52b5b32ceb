//! Instantiate, scale, heal (SOL002 per kind, SOL003), sync and terminate through the
//! driver, checked against what the cluster says.

use std::collections::BTreeSet;
use std::time::Duration;

use base64::Engine;
use k8s_openapi::api::core::v1::{Namespace, PersistentVolumeClaim, Pod};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::{InfraDriver, TargetPackage, VimConnection};
use tacker_domain::vim::connection::Place;
use tacker_infra_k8s::{INSTANCE_LABEL, K8sSettings, KubernetesDriver};

use crate::fixture::{Fixture, changes, params};

/// A cluster to run against.
pub(crate) struct Target {
    pub(crate) vim: VimConnection,
    pub(crate) client: kube::Client,
    pub(crate) namespace: String,
    pub(crate) sim: Option<kube_sim::Handle>,
}

pub(crate) fn vim(endpoint: &str, ca: Option<&str>, token: &str) -> VimConnection {
    let mut interface = json!({"endpoint": endpoint});
    if let Some(ca) = ca {
        interface["ssl_ca_cert"] = json!(ca);
    }
    VimConnection::from_json(
        "vim1",
        &json!({"vimType": "ETSINFV.KUBERNETES.V_1", "interfaceInfo": interface,
            "accessInfo": {"bearer_token": token}}),
    )
    .unwrap()
}

async fn create_namespace(client: &kube::Client, ns: &str) {
    let api: Api<Namespace> = Api::all(client.clone());
    let n: Namespace = serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap();
    api.create(&PostParams::default(), &n).await.unwrap();
}

impl Target {
    /// kube-sim over TLS with a bearer token.
    pub(crate) async fn sim() -> Self {
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let mut s = kube_sim::Settings {
            token: Some("driver-token".into()),
            tls: true,
            ..Default::default()
        };
        s.timing.ready_delay_ms = 30;
        s.timing.terminate_delay_ms = 150;
        s.timing.nodes = 2;
        let h = kube_sim::spawn(s).unwrap();
        let vim = vim(&h.url, h.ca_pem.as_deref(), "driver-token");
        let client = tacker_infra_k8s::connect(&vim, &tested()).unwrap();
        create_namespace(&client, "cnf-test").await;
        Self {
            vim,
            client,
            namespace: "cnf-test".into(),
            sim: Some(h),
        }
    }

    /// The cluster `KUBECONFIG` points at (a token user), in a fresh namespace.
    async fn real() -> Self {
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let cfg = kube::Config::infer()
            .await
            .expect("KUBECONFIG must point at a cluster");
        let token = cfg
            .auth_info
            .token
            .as_ref()
            .map(|t| t.expose_secret().to_owned())
            .expect("the KUBECONFIG user must authenticate with a bearer token");
        let ca = cfg.root_cert.as_ref().map(|certs| {
            certs
                .iter()
                .map(|der| {
                    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
                    let lines: Vec<&str> = b64
                        .as_bytes()
                        .chunks(64)
                        .map(|c| std::str::from_utf8(c).unwrap())
                        .collect();
                    format!(
                        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
                        lines.join("\n")
                    )
                })
                .collect::<String>()
        });
        let vim = vim(&cfg.cluster_url.to_string(), ca.as_deref(), &token);
        let client = tacker_infra_k8s::connect(&vim, &tested()).unwrap();
        let ns = format!(
            "tacker-it-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        create_namespace(&client, &ns).await;
        Self {
            vim,
            client,
            namespace: ns,
            sim: None,
        }
    }

    fn nodes(&self) -> usize {
        self.sim.as_ref().map_or(0, |h| h.sim.lock().timing.nodes)
    }

    async fn pods(&self, instance: &str) -> Vec<Pod> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &self.namespace);
        api.list(&ListParams::default().labels(&format!("{INSTANCE_LABEL}={instance}")))
            .await
            .unwrap()
            .items
    }

    async fn pod_uid(&self, name: &str) -> Option<String> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &self.namespace);
        api.get_opt(name)
            .await
            .unwrap()
            .and_then(|p| p.metadata.uid)
    }

    async fn claims(&self) -> Vec<(String, String)> {
        let api: Api<PersistentVolumeClaim> = Api::namespaced(self.client.clone(), &self.namespace);
        let mut v: Vec<(String, String)> = api
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .map(|c| {
                (
                    c.metadata.name.unwrap_or_default(),
                    c.metadata.uid.unwrap_or_default(),
                )
            })
            .collect();
        v.sort();
        v
    }

    async fn cleanup(&self) {
        if self.sim.is_none() {
            let api: Api<Namespace> = Api::all(self.client.clone());
            let _ = api.delete(&self.namespace, &DeleteParams::default()).await;
        }
    }
}

/// The default settings (`defaults.toml`).
pub fn defaults() -> K8sSettings {
    K8sSettings::from_config(&tacker_config::Config::defaults().unwrap())
}

/// Settings for the test clusters (kube-sim, a kind cluster) on loopback.
pub fn tested() -> K8sSettings {
    K8sSettings {
        allowed_networks: vec!["127.0.0.0/8".parse().unwrap()],
        ..defaults()
    }
}

fn driver() -> KubernetesDriver {
    KubernetesDriver::new(K8sSettings {
        ready_timeout: Duration::from_secs(120),
        delete_timeout: Duration::from_secs(120),
        poll_interval: Duration::from_millis(500),
        request_timeout: Duration::from_secs(10),
        ..tested()
    })
}

fn count(v: &[(String, String)], vdu: &str) -> usize {
    v.iter().filter(|(d, _)| d == vdu).count()
}

async fn lifecycle(t: Target) {
    let d = driver();
    let mut f = Fixture::new(t.vim.clone());
    let id = f.instance.id.to_string();

    // Instantiate: one VNFC per Pod, every kind.
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap();
    f.apply(&o);
    let v = f.vnfcs();
    let nodes = if t.sim.is_some() {
        t.nodes()
    } else {
        count(&v, "VDU5")
    };
    assert_eq!(
        (
            count(&v, "VDU1"),
            count(&v, "VDU2"),
            count(&v, "VDU3"),
            count(&v, "VDU4")
        ),
        (1, 2, 1, 1),
        "{v:?}"
    );
    assert_eq!(count(&v, "VDU5"), nodes.max(1));
    assert!(v.contains(&("VDU1".into(), "vdu1-pod".into())));
    assert!(v.contains(&("VDU4".into(), "vdu4-sts-0".into())));
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    let kinds: BTreeSet<(String, String)> = info
        .vnfc_resource_info
        .iter()
        .map(|r| {
            (
                r.vdu_id.clone(),
                r.compute_resource.vim_level_resource_type.clone().unwrap(),
            )
        })
        .collect();
    assert!(
        kinds.contains(&("VDU2".into(), "Deployment".into()))
            && kinds.contains(&("VDU3".into(), "ReplicaSet".into()))
            && kinds.contains(&("VDU5".into(), "DaemonSet".into()))
    );
    for c in &info.vnfc_info {
        assert_eq!(c.id, format!("{}-{}", c.vdu_id, c.vnfc_resource_info_id));
    }
    assert_eq!(
        t.pods(&id).await.len(),
        v.len(),
        "every Pod is labelled with the instance"
    );
    assert_eq!(info.other["metadata"]["namespace"], t.namespace.as_str());

    // Scale out then in, a Deployment and a StatefulSet.
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_OUT", "aspectId": "vdu2_aspect", "numberOfSteps": 2}),
        ))
        .await
        .unwrap();
    assert_eq!(changes(&o).iter().filter(|(c, _)| c == "ADDED").count(), 2);
    f.apply(&o);
    assert_eq!(count(&f.vnfcs(), "VDU2"), 4);
    let beyond = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_OUT", "aspectId": "vdu2_aspect"}),
        ))
        .await
        .unwrap_err();
    assert_eq!(beyond.status, 400, "{beyond:?}");
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_IN", "aspectId": "vdu2_aspect", "numberOfSteps": 2}),
        ))
        .await
        .unwrap();
    assert_eq!(
        changes(&o).iter().filter(|(c, _)| c == "REMOVED").count(),
        2
    );
    f.apply(&o);
    assert_eq!(count(&f.vnfcs(), "VDU2"), 2);
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_OUT", "aspectId": "vdu4_aspect"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(f.vnfcs().contains(&("VDU4".into(), "vdu4-sts-1".into())));
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_IN", "aspectId": "vdu4_aspect"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert_eq!(
        changes(&o),
        [("REMOVED".to_owned(), "vdu4-sts-1".to_owned())]
    );

    // SOL002: a bare Pod and a StatefulSet Pod come back under their names, a
    // Deployment Pod under a new one; nothing else is touched.
    let before = f.vnfcs();
    let uids_before: Vec<(String, Option<String>)> = {
        let mut u = Vec::new();
        for (_, pod) in &before {
            u.push((pod.clone(), t.pod_uid(pod).await));
        }
        u
    };
    let deploy_pod = before.iter().find(|(v, _)| v == "VDU2").unwrap().1.clone();
    let targets = [
        f.vnfc_id("VDU1"),
        format!("VDU2-{deploy_pod}"),
        f.vnfc_id("VDU4"),
    ];
    let o = d
        .heal(&f.ctx(LcmOperation::Heal, json!({"vnfcInstanceId": targets})))
        .await
        .unwrap();
    f.apply(&o);
    let after = f.vnfcs();
    assert!(after.contains(&("VDU1".into(), "vdu1-pod".into())));
    assert!(after.contains(&("VDU4".into(), "vdu4-sts-0".into())));
    assert!(!after.iter().any(|(_, p)| *p == deploy_pod), "{after:?}");
    assert_eq!(count(&after, "VDU2"), 2);
    let mut kept = 0;
    for (pod, uid) in &uids_before {
        let now = t.pod_uid(pod).await;
        let healed = pod == "vdu1-pod" || pod == "vdu4-sts-0" || *pod == deploy_pod;
        if healed {
            assert_ne!(&now, uid, "{pod} was re-created");
        } else {
            assert_eq!(&now, uid, "{pod} is untouched");
            kept += 1;
        }
    }
    assert_eq!(kept, before.len() - 3);
    let c = changes(&o);
    assert!(
        c.contains(&("MODIFIED".into(), "vdu1-pod".into()))
            && c.contains(&("REMOVED".into(), deploy_pod.clone())),
        "{c:?}"
    );

    // Sync after Kubernetes replaced a ReplicaSet Pod on its own.
    let rs_pod = f.vnfcs().into_iter().find(|(v, _)| v == "VDU3").unwrap().1;
    let api: Api<Pod> = Api::namespaced(t.client.clone(), &t.namespace);
    api.delete(&rs_pod, &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let synced = loop {
        let s = d
            .sync(&f.ctx(LcmOperation::ModifyInfo, json!({})))
            .await
            .unwrap()
            .unwrap();
        let vdu3: Vec<String> = s
            .vnfc_resource_info
            .iter()
            .filter(|r| r.vdu_id == "VDU3")
            .map(|r| r.id.clone())
            .collect();
        if vdu3.len() == 1 && vdu3[0] != rs_pod {
            break s;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "sync never saw the replacement: {vdu3:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    f.instance.instantiated_vnf_info = Some(synced);

    // SOL003: everything re-created, the StatefulSet's claims (and volumes) kept.
    let claims = t.claims().await;
    assert!(
        claims.iter().any(|(n, _)| n == "data-vdu4-sts-0"),
        "{claims:?}"
    );
    let pods_before: BTreeSet<String> = t
        .pods(&id)
        .await
        .into_iter()
        .filter_map(|p| p.metadata.uid)
        .collect();
    let o = d.heal(&f.ctx(LcmOperation::Heal, json!({}))).await.unwrap();
    f.apply(&o);
    let pods_after: BTreeSet<String> = t
        .pods(&id)
        .await
        .into_iter()
        .filter_map(|p| p.metadata.uid)
        .collect();
    assert!(pods_before.is_disjoint(&pods_after), "every Pod is new");
    assert_eq!(pods_after.len(), f.vnfcs().len());
    let kept_claims = t.claims().await;
    assert!(
        kept_claims.contains(claims.iter().find(|(n, _)| n == "data-vdu4-sts-0").unwrap()),
        "same claim: {kept_claims:?}"
    );

    // Terminate: nothing left, claims included.
    let o = d
        .terminate(&f.ctx(
            LcmOperation::Terminate,
            json!({"terminationType": "GRACEFUL", "gracefulTerminationTimeout": 1}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(t.pods(&id).await.is_empty());
    assert!(t.claims().await.is_empty(), "{:?}", t.claims().await);
    let cms: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(t.client.clone(), &t.namespace);
    assert!(cms.get_opt("cnf-config").await.unwrap().is_none());
    t.cleanup().await;
}

#[tokio::test]
async fn lifecycle_on_kube_sim() {
    lifecycle(Target::sim().await).await;
}

#[tokio::test]
#[ignore = "needs cluster"]
async fn lifecycle_on_a_real_cluster() {
    lifecycle(Target::real().await).await;
}

#[tokio::test]
async fn bad_requests_and_api_errors_fail_with_the_reason() {
    let t = Target::sim().await;
    let d = driver();
    let f = Fixture::new(t.vim.clone());
    // No manifests named.
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, json!({"flavourId": "simple"})))
        .await
        .unwrap_err();
    assert_eq!(e.status, 400);
    assert!(e.detail.contains("lcm-kubernetes-def-files"), "{e:?}");
    // Not in the package.
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, json!({"flavourId": "simple", "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/nope.yaml"]}})))
        .await
        .unwrap_err();
    assert!(e.detail.contains("not an artifact"), "{e:?}");
    // Several namespaces and no override.
    let dep = f.dir.path().join("Files/kubernetes/deployment.yaml");
    let text = std::fs::read_to_string(&dep).unwrap().replace(
        "name: vdu2-deploy\n",
        "name: vdu2-deploy\n  namespace: one\n",
    );
    std::fs::write(&dep, text).unwrap();
    let pod = f.dir.path().join("Files/kubernetes/pod.yaml");
    let text = std::fs::read_to_string(&pod)
        .unwrap()
        .replace("name: vdu1-pod\n", "name: vdu1-pod\n  namespace: two\n");
    std::fs::write(&pod, text).unwrap();
    let p =
        json!({"flavourId": "simple", "additionalParams": tacker_testkit::cnf::cnf_params(None)});
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, p))
        .await
        .unwrap_err();
    assert!(e.detail.contains("several namespaces (one, two)"), "{e:?}");
    // The API refuses a create: its message is the reason.
    let h = t.sim.as_ref().unwrap();
    h.sim.lock().faults.api_errors.push(kube_sim::ApiFault {
        verb: "create".into(),
        resource: "statefulsets".into(),
        name: None,
        status: 403,
        message: "statefulsets are forbidden by policy".into(),
        times: None,
    });
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap_err();
    assert_eq!(e.status, 403);
    assert!(
        e.detail.contains("statefulsets are forbidden by policy") && e.detail.contains("vdu4-sts"),
        "{e:?}"
    );
    // A wrong token.
    let mut bad = t.vim.clone();
    bad.info
        .set(Place::Access, "bearer_token", Value::String("wrong".into()));
    let f2 = Fixture::new(bad);
    let e = d
        .instantiate(&f2.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap_err();
    assert_eq!(e.status, 401, "{e:?}");
}

#[tokio::test]
async fn readiness_times_out_and_a_retry_completes() {
    let t = Target::sim().await;
    let d = KubernetesDriver::new(K8sSettings {
        ready_timeout: Duration::from_millis(1500),
        delete_timeout: Duration::from_secs(30),
        poll_interval: Duration::from_millis(100),
        request_timeout: Duration::from_secs(10),
        ..tested()
    });
    let mut f = Fixture::new(t.vim.clone());
    let h = t.sim.as_ref().unwrap();
    h.sim.lock().faults.never_ready.push("vdu3-rs-".into());
    let ctx = f.ctx(LcmOperation::Instantiate, params(&t.namespace));
    let e = d.instantiate(&ctx).await.unwrap_err();
    assert_eq!(e.status, 504);
    assert!(
        e.detail.contains("timed out") && e.detail.contains("vdu3-rs"),
        "{e:?}"
    );
    h.sim.lock().faults.never_ready.clear();
    // The same operation again: what exists is kept, and it completes.
    let o = d.instantiate(&ctx).await.unwrap();
    f.apply(&o);
    assert_eq!(count(&f.vnfcs(), "VDU3"), 1);
}

#[tokio::test]
async fn denied_namespaces_cluster_scoped_objects_and_plain_http_are_refused() {
    let t = Target::sim().await;
    let ctx = |f: &Fixture, ns: &str| {
        f.ctx(
            LcmOperation::Instantiate,
            json!({"flavourId": "simple", "additionalParams": tacker_testkit::cnf::cnf_params(Some(ns))}),
        )
    };
    // kube-* by default.
    let f = Fixture::new(t.vim.clone());
    let e = driver()
        .instantiate(&ctx(&f, "kube-system"))
        .await
        .unwrap_err();
    assert!(e.detail.contains("kubernetes.denied_namespaces"), "{e:?}");

    // A Namespace object in the manifests, with cluster_scoped = deny: nothing created.
    let dep = f.dir.path().join("Files/kubernetes/deployment.yaml");
    let text = std::fs::read_to_string(&dep).unwrap();
    std::fs::write(
        &dep,
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: escape\n---\n{text}"),
    )
    .unwrap();
    let strict = KubernetesDriver::new(K8sSettings {
        cluster_scoped: false,
        ..tested()
    });
    let e = strict
        .instantiate(&ctx(&f, &t.namespace))
        .await
        .unwrap_err();
    assert!(
        e.detail.contains("Namespace escape is cluster-scoped"),
        "{e:?}"
    );
    let h = t.sim.as_ref().unwrap();
    {
        let s = h.sim.lock();
        assert!(
            s.list("/namespaces", None)
                .iter()
                .all(|(k, _)| k.2 != "escape")
        );
        for r in ["/deployments", "/statefulsets", "/pods", "/services"] {
            assert!(s.list(r, Some(&t.namespace)).is_empty(), "{r} created");
        }
    }

    // Plain http beyond loopback: refused before any connection (TEST-NET address).
    let mut plain = t.vim.clone();
    plain.info.set(
        Place::Interface,
        "endpoint",
        Value::String("http://192.0.2.10:6443".into()),
    );
    let f = Fixture::new(plain);
    let e = driver()
        .instantiate(&ctx(&f, &t.namespace))
        .await
        .unwrap_err();
    assert!(e.detail.contains("kubernetes.allow_http"), "{e:?}");

    // The API server on loopback, which this conductor's outbound.allowed_networks does
    // not name: no request, by address or by a name resolving there.
    let guarded = KubernetesDriver::new(defaults());
    let port = reqwest::Url::parse(&h.url).unwrap().port().unwrap();
    for endpoint in [h.url.clone(), format!("https://localhost:{port}")] {
        let mut vim = t.vim.clone();
        vim.info.set(
            Place::Interface,
            "endpoint",
            Value::String(endpoint.clone()),
        );
        let f = Fixture::new(vim);
        let e = guarded
            .instantiate(&ctx(&f, &t.namespace))
            .await
            .unwrap_err();
        assert!(
            e.detail.contains("outbound.allowed_networks"),
            "{endpoint}: {e:?}"
        );
        let s = h.sim.lock();
        for r in ["/deployments", "/statefulsets", "/pods", "/services"] {
            assert!(s.list(r, Some(&t.namespace)).is_empty(), "{r} created");
        }
    }
}

/// A package unpacked as the conductor's cache holds it, as a change's target.
pub(crate) fn target_package(
    csar: tacker_testkit::csar::Csar,
) -> (tempfile::TempDir, TargetPackage) {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in &csar.files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    let v = tacker_csar::validate_reader(
        std::io::Cursor::new(csar.zip()),
        &tacker_csar::Limits::default(),
    )
    .unwrap();
    let t = TargetPackage {
        id: uuid::Uuid::new_v4(),
        vnfd: v.model.vnfd,
        package_dir: dir.path().to_owned(),
    };
    (dir, t)
}

/// `(Pod name, images)` of the instance's Pods.
async fn images(t: &Target, instance: &str) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = t
        .pods(instance)
        .await
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| {
            let images = p
                .spec
                .map(|s| s.containers.into_iter().filter_map(|c| c.image).collect())
                .unwrap_or_default();
            (p.metadata.name.unwrap_or_default(), images)
        })
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn a_package_change_rolls_every_workload_and_a_failed_one_rolls_back() {
    use tacker_testkit::cnf::{CNF_FILES, CNF_V2_VNFD_ID, cnf_v2, cnf_variant};
    let t = Target::sim().await;
    let quick = KubernetesDriver::new(K8sSettings {
        ready_timeout: Duration::from_secs(2),
        poll_interval: Duration::from_millis(100),
        request_timeout: Duration::from_secs(10),
        ..tested()
    });
    let mut f = Fixture::new(t.vim.clone());
    let id = f.instance.id.to_string();
    let o = driver()
        .instantiate(&f.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap();
    f.apply(&o);
    let v1 = images(&t, &id).await;
    let change = |f: &Fixture, vnfd: &str, target: &TargetPackage| {
        let mut c = f.ctx(
            LcmOperation::ChangeVnfpkg,
            json!({"vnfdId": vnfd, "additionalParams": {"upgrade_type": "RollingUpdate",
                "lcm-kubernetes-def-files": CNF_FILES}}),
        );
        c.target = Some(target.clone());
        c
    };

    // A v3 whose web image never gets ready: 504 naming the Deployment; rollback brings
    // back v1 everywhere, every Pod ready.
    let (_d3, v3) = target_package(cnf_variant("c0ffee00-0000-4000-8000-0000000003f0", ":v3"));
    t.sim
        .as_ref()
        .unwrap()
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v3".into());
    let ctx3 = change(&f, "c0ffee00-0000-4000-8000-0000000003f0", &v3);
    let e = quick.change_vnfpkg(&ctx3).await.unwrap_err();
    assert_eq!(e.status, 504, "{e:?}");
    assert!(e.detail.contains("vdu2-deploy"), "{e:?}");
    let o = driver().rollback(&ctx3).await.unwrap();
    f.apply(&o);
    let back = images(&t, &id).await;
    let image_set = |v: &[(String, Vec<String>)]| {
        let mut s: Vec<String> = v.iter().flat_map(|(_, i)| i.clone()).collect();
        s.sort();
        s
    };
    assert_eq!(image_set(&back), image_set(&v1), "{back:?}");
    assert_eq!(f.vnfcs().len(), v1.len());

    // v2: every Deployment, StatefulSet, DaemonSet and the bare Pod run the new images.
    let (_d2, v2) = target_package(cnf_v2());
    let sts_uid = t.pod_uid("vdu4-sts-0").await.unwrap();
    let deploy_before: Vec<String> = f
        .vnfcs()
        .into_iter()
        .filter(|(v, _)| v == "VDU2")
        .map(|(_, n)| n)
        .collect();
    let o = driver()
        .change_vnfpkg(&change(&f, CNF_V2_VNFD_ID, &v2))
        .await
        .unwrap();
    let affected = changes(&o);
    f.apply(&o);
    let now = images(&t, &id).await;
    for (pod, imgs) in &now {
        let want_v2 = !pod.starts_with("vdu3-rs");
        assert_eq!(
            imgs.iter().all(|i| i.ends_with(":v2")),
            want_v2,
            "{pod}: {imgs:?}"
        );
    }
    assert_eq!(now.len(), v1.len(), "{now:?}");
    // New Pod names for the Deployment; the StatefulSet's Pod came back under its name.
    let deploy_after: Vec<String> = f
        .vnfcs()
        .into_iter()
        .filter(|(v, _)| v == "VDU2")
        .map(|(_, n)| n)
        .collect();
    assert_eq!(deploy_after.len(), 2);
    assert!(deploy_after.iter().all(|n| !deploy_before.contains(n)));
    assert_ne!(t.pod_uid("vdu4-sts-0").await.unwrap(), sts_uid);
    for old in &deploy_before {
        assert!(
            affected.iter().any(|(c, _)| c == "REMOVED"),
            "{old}: {affected:?}"
        );
    }
    assert!(
        affected.iter().filter(|(c, _)| c == "ADDED").count() >= 2,
        "{affected:?}"
    );
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    assert_eq!(info.other["metadata"]["namespace"], t.namespace.as_str());
    // The ConfigMap was replaced.
    let cm: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(t.client.clone(), &t.namespace);
    let data = cm.get("cnf-config").await.unwrap().data.unwrap();
    assert_eq!(data["greeting"], "hello:v2");
}

#[tokio::test]
async fn a_package_change_deletes_what_the_new_package_drops_and_creates_what_it_adds() {
    use tacker_testkit::cnf::{CNF_FILES, CNF_V2_VNFD_ID, cnf_v2};
    let t = Target::sim().await;
    let mut f = Fixture::new(t.vim.clone());
    // The running package has a helper Deployment (no VDU) besides the example's.
    let dep = f.dir.path().join("Files/kubernetes/deployment.yaml");
    let text = std::fs::read_to_string(&dep).unwrap();
    std::fs::write(
        &dep,
        format!(
            "{text}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: helper\nspec:\n  replicas: 1\n  selector: {{ matchLabels: {{ app: helper }} }}\n  template:\n    metadata: {{ labels: {{ app: helper }} }}\n    spec:\n      containers:\n      - {{ name: h, image: busybox }}\n"
        ),
    )
    .unwrap();
    let o = driver()
        .instantiate(&f.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap();
    f.apply(&o);
    // The new one has no helper, and its Service is another.
    let (dir, v2) = target_package(cnf_v2());
    let cfg = dir.path().join("Files/kubernetes/config.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("cnf-web", "cnf-api");
    std::fs::write(&cfg, text).unwrap();
    let mut ctx = f.ctx(
        LcmOperation::ChangeVnfpkg,
        json!({"vnfdId": CNF_V2_VNFD_ID, "additionalParams": {"upgrade_type": "RollingUpdate",
            "lcm-kubernetes-def-files": CNF_FILES}}),
    );
    ctx.target = Some(v2);
    driver().change_vnfpkg(&ctx).await.unwrap();
    let s = t.sim.as_ref().unwrap().sim.lock();
    let names = |r: &str| -> Vec<String> {
        s.list(r, Some(&t.namespace))
            .into_iter()
            .filter(|(_, v)| v.pointer("/metadata/deletionTimestamp").is_none())
            .map(|(k, _)| k.2)
            .collect()
    };
    assert!(!names("apps/deployments").contains(&"helper".to_owned()));
    assert!(names("apps/deployments").contains(&"vdu2-deploy".to_owned()));
    assert!(names("/services").contains(&"cnf-api".to_owned()));
    assert!(!names("/services").contains(&"cnf-web".to_owned()));
}
