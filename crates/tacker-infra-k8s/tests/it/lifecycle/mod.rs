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

mod change;
mod refusals;
