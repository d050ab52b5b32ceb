//! The Helm driver with the real helm binary against kube-sim over TLS: instantiate
//! (from a chart archive, as Tacker's samples ship it), a retried instantiate, scale,
//! heal SOL002 and SOL003, a package change whose rollout fails and is rolled back
//! through Helm's history, the change again, terminate.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim, Pod, Secret, Service};
use kube::api::{Api, ListParams};
use serde_json::json;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::{InfraDriver, TargetPackage};
use tacker_infra_k8s::{HelmDriver, K8sSettings};
use tacker_testkit::helm::{CHART, HELM_V2_VNFD_ID, helm_bin, helm_cnf, helm_cnf_v2, helm_params};

use crate::fixture::{Fixture, changes};
use crate::lifecycle::{Target, target_package};

fn driver(ready: Duration) -> HelmDriver {
    HelmDriver::new(
        K8sSettings {
            ready_timeout: ready,
            delete_timeout: Duration::from_secs(60),
            poll_interval: Duration::from_millis(100),
            request_timeout: Duration::from_secs(10),
            ..crate::lifecycle::tested()
        },
        helm_bin(),
    )
}

/// `(Pod name, image)` of the Pods in the namespace, sorted.
async fn pods(t: &Target) -> Vec<(String, String)> {
    let api: Api<Pod> = Api::namespaced(t.client.clone(), &t.namespace);
    let mut v: Vec<(String, String)> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| {
            let image = p.spec.unwrap().containers[0]
                .image
                .clone()
                .unwrap_or_default();
            (p.metadata.name.unwrap_or_default(), image)
        })
        .collect();
    v.sort();
    v
}

/// The release Secrets Helm keeps (`owner=helm`), by name.
async fn releases(t: &Target) -> BTreeSet<String> {
    let api: Api<Secret> = Api::namespaced(t.client.clone(), &t.namespace);
    api.list(&ListParams::default().labels("owner=helm"))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|s| s.metadata.name.unwrap_or_default())
        .collect()
}

async fn service(t: &Target, name: &str) -> Option<Service> {
    let api: Api<Service> = Api::namespaced(t.client.clone(), &t.namespace);
    api.get_opt(name).await.unwrap()
}

/// The Helm VIM of `t`, its API server named `localhost`: the driver resolves and checks
/// it, and points helm at the checked address (`tls-server-name` keeps TLS verified).
fn helm_vim(t: &Target) -> tacker_domain::lcm::driver::VimConnection {
    let mut v = t.vim.clone();
    v.vim_type = "ETSINFV.HELM.V_3".into();
    let endpoint = v
        .interface(&["endpoint"])
        .unwrap()
        .replace("127.0.0.1", "localhost");
    v.info.set(
        tacker_domain::vim::connection::Place::Interface,
        "endpoint",
        serde_json::Value::String(endpoint),
    );
    v
}

fn package_chart(dir: &std::path::Path) -> String {
    let out = std::process::Command::new(helm_bin())
        .args(["package", CHART, "--destination", "Files/kubernetes"])
        .current_dir(dir)
        .env("HELM_CACHE_HOME", dir.join(".h/cache"))
        .env("HELM_CONFIG_HOME", dir.join(".h/config"))
        .env("HELM_DATA_HOME", dir.join(".h/data"))
        .output()
        .unwrap_or_else(|e| panic!("helm not found ({e}); run tests/infra/k8s-tools.sh"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    "Files/kubernetes/test-chart-0.1.0.tgz".into()
}

fn vnfc_ids(f: &Fixture, vdu: &str) -> Vec<String> {
    let i = f.instance.instantiated_vnf_info.as_ref().unwrap();
    i.vnfc_info
        .iter()
        .filter(|c| c.vdu_id == vdu)
        .map(|c| c.id.clone())
        .collect()
}

#[tokio::test]
async fn a_helm_cnf_lives_its_whole_lifecycle_through_the_helm_binary() {
    let t = Target::sim().await;
    let d = driver(Duration::from_secs(60));
    let mut f = Fixture::of(helm_cnf(), helm_vim(&t));
    let release = tacker_infra_k8s::helm::release_name(&f.instance.id.to_string());
    let chart = package_chart(f.dir.path());
    let inst =
        json!({"flavourId": "simple", "additionalParams": helm_params(&chart, &t.namespace)});

    // Instantiate: one release, the parameters applied, a VNFC per Pod.
    let ctx = f.ctx(LcmOperation::Instantiate, inst.clone());
    let o = d.instantiate(&ctx).await.unwrap();
    f.apply(&o);
    let v = f.vnfcs();
    assert_eq!(v.iter().filter(|(d, _)| d == "VDU1").count(), 1, "{v:?}");
    assert_eq!(
        v,
        vec![
            ("VDU1".into(), v[0].1.clone()),
            ("VDU2".into(), "vdu2-0".into())
        ]
    );
    assert!(v[0].1.starts_with("vdu1-"), "{v:?}");
    assert_eq!(
        releases(&t).await,
        BTreeSet::from([format!("sh.helm.release.v1.{release}.v1")])
    );
    let port = service(&t, &format!("{release}-web"))
        .await
        .unwrap()
        .spec
        .unwrap()
        .ports
        .unwrap()[0]
        .port;
    assert_eq!(port, 8081, "helm_parameters reach the chart");
    let meta = &o.instantiated_vnf_info.as_ref().unwrap().other["metadata"];
    assert_eq!(meta["release_name"], json!(release));
    assert_eq!(meta["helm_chart_path"], json!(chart));
    assert_eq!(
        meta["vdus"]["VDU2"],
        json!({"kind": "StatefulSet", "name": "vdu2"})
    );

    // A retried instantiate upgrades the release in place: no second install, the same Pods.
    let again = d.instantiate(&ctx).await.unwrap();
    assert_eq!(
        releases(&t).await.len(),
        2,
        "revision 2 of the same release"
    );
    let mut again_v: Vec<String> = again
        .instantiated_vnf_info
        .unwrap()
        .vnfc_resource_info
        .iter()
        .map(|r| r.id.clone())
        .collect();
    again_v.sort();
    assert_eq!(
        again_v,
        v.iter().map(|(_, n)| n.clone()).collect::<Vec<_>>()
    );

    // Scale out VDU1 through its replica value; beyond the VNFD's maximum is refused.
    let scale =
        |n: u32, ty: &str| json!({"type": ty, "aspectId": "vdu1_aspect", "numberOfSteps": n});
    let o = d
        .scale(&f.ctx(LcmOperation::Scale, scale(1, "SCALE_OUT")))
        .await
        .unwrap();
    f.apply(&o);
    assert_eq!(f.vnfcs().iter().filter(|(d, _)| d == "VDU1").count(), 2);
    assert_eq!(changes(&o).iter().filter(|(c, _)| c == "ADDED").count(), 1);
    let e = d
        .scale(&f.ctx(LcmOperation::Scale, scale(2, "SCALE_OUT")))
        .await
        .unwrap_err();
    assert_eq!(e.status, 400, "{e:?}");
    assert_eq!(f.vnfcs().iter().filter(|(d, _)| d == "VDU1").count(), 2);

    // Heal SOL002: that one Pod is replaced by its controller.
    let target = vnfc_ids(&f, "VDU1")[0].clone();
    let old_pod = target.trim_start_matches("VDU1-").to_owned();
    let o = d
        .heal(&f.ctx(LcmOperation::Heal, json!({"vnfcInstanceId": [target]})))
        .await
        .unwrap();
    f.apply(&o);
    let names: Vec<String> = f.vnfcs().into_iter().map(|(_, n)| n).collect();
    assert!(!names.contains(&old_pod), "{names:?}");
    assert_eq!(names.len(), 3);

    // A package change whose new image never gets ready: 504; rollback goes back
    // through Helm's history to the old images, the new Service gone again.
    let (_d2, v2) = target_package(helm_cnf_v2());
    let change = |f: &Fixture, target: &TargetPackage| {
        let mut c = f.ctx(
            LcmOperation::ChangeVnfpkg,
            json!({"vnfdId": HELM_V2_VNFD_ID, "additionalParams": {"upgrade_type": "RollingUpdate",
                "helm_chart_path": CHART}}),
        );
        c.target = Some(target.clone());
        c
    };
    let sim = t.sim.as_ref().unwrap();
    sim.sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:v2".into());
    let ctx2 = change(&f, &v2);
    let e = driver(Duration::from_secs(3))
        .change_vnfpkg(&ctx2)
        .await
        .unwrap_err();
    assert_eq!(e.status, 504, "{e:?}");
    assert!(
        service(&t, &format!("{release}-metrics")).await.is_some(),
        "the upgrade was applied"
    );
    sim.sim.lock().faults.never_ready.clear();
    let o = d.rollback(&ctx2).await.unwrap();
    f.apply(&o);
    let images: BTreeSet<String> = pods(&t).await.into_iter().map(|(_, i)| i).collect();
    assert_eq!(
        images,
        BTreeSet::from(["nginx".to_owned(), "postgres".to_owned()])
    );
    assert!(service(&t, &format!("{release}-metrics")).await.is_none());
    assert_eq!(f.vnfcs().len(), 3, "{:?}", f.vnfcs());

    // The change again: every workload rolled to v2, the scale kept, the new Service
    // created, the configuration changed; the Pods REMOVED and ADDED.
    let before: Vec<String> = f.vnfcs().into_iter().map(|(_, n)| n).collect();
    let o = d.change_vnfpkg(&change(&f, &v2)).await.unwrap();
    f.apply(&o);
    let after = pods(&t).await;
    assert!(after.iter().all(|(_, i)| i.ends_with(":v2")), "{after:?}");
    assert_eq!(f.vnfcs().iter().filter(|(d, _)| d == "VDU1").count(), 2);
    assert!(
        f.vnfcs()
            .iter()
            .all(|(_, n)| !before.contains(n) || n == "vdu2-0")
    );
    let c = changes(&o);
    assert!(
        c.iter().any(|(k, _)| k == "REMOVED") && c.iter().any(|(k, _)| k == "ADDED"),
        "{c:?}"
    );
    assert!(service(&t, &format!("{release}-metrics")).await.is_some());
    let cm: Api<ConfigMap> = Api::namespaced(t.client.clone(), &t.namespace);
    let greeting = cm
        .get(&format!("{release}-config"))
        .await
        .unwrap()
        .data
        .unwrap()["greeting"]
        .clone();
    assert_eq!(greeting, "hello-v2");
    let meta = &o.instantiated_vnf_info.as_ref().unwrap().other["metadata"];
    assert_eq!(meta["helm_chart_path"], json!(CHART));
    f.model.vnfd = v2.vnfd.clone();
    f.dir = _d2;

    // Heal SOL003: the release reinstalled, the StatefulSet's volume kept.
    let pvc: Api<PersistentVolumeClaim> = Api::namespaced(t.client.clone(), &t.namespace);
    let claim = pvc.get("data-vdu2-0").await.unwrap().metadata.uid;
    let o = d.heal(&f.ctx(LcmOperation::Heal, json!({}))).await.unwrap();
    f.apply(&o);
    assert_eq!(pvc.get("data-vdu2-0").await.unwrap().metadata.uid, claim);
    assert_eq!(f.vnfcs().len(), 3);
    assert!(pods(&t).await.iter().all(|(_, i)| i.ends_with(":v2")));

    // Terminate: nothing of the VNF stays, the release included; terminating again (a
    // retry after a crash) finds nothing left to do.
    let term = f.ctx(
        LcmOperation::Terminate,
        json!({"terminationType": "FORCEFUL"}),
    );
    let o = d.terminate(&term).await.unwrap();
    assert!(pods(&t).await.is_empty(), "{:?}", pods(&t).await);
    assert!(releases(&t).await.is_empty());
    assert!(pvc.get_opt("data-vdu2-0").await.unwrap().is_none());
    assert_eq!(
        changes(&o).iter().filter(|(c, _)| c == "REMOVED").count(),
        3
    );
    d.terminate(&term).await.unwrap();
}

/// Leaves a copy of the release's revision 1 as revision 2 `pending-upgrade`: what a
/// `helm upgrade` that died with its conductor leaves behind.
/// Helm's record of revision `version` of `release` (its Secret's `release`, decoded).
async fn read_release(t: &Target, release: &str, version: u32) -> serde_json::Value {
    use base64::Engine;
    use std::io::Read;
    let api: Api<Secret> = Api::namespaced(t.client.clone(), &t.namespace);
    let secret = api
        .get(&format!("sh.helm.release.v1.{release}.v{version}"))
        .await
        .unwrap();
    let raw = secret.data.unwrap()["release"].0.clone();
    let gz = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz.as_slice())
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Stores `rel` as Helm stores a release's revision (its `name`, `version`, status).
async fn write_release(t: &Target, rel: &serde_json::Value) {
    use base64::Engine;
    use std::io::Write;
    let (name, version) = (rel["name"].as_str().unwrap(), &rel["version"]);
    let status = rel["info"]["status"].as_str().unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(rel.to_string().as_bytes()).unwrap();
    let data = b64.encode(enc.finish().unwrap());
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": format!("sh.helm.release.v1.{name}.v{version}"),
            "labels": {"name": name, "owner": "helm", "status": status,
                "version": version.to_string()}},
        "type": "helm.sh/release.v1",
        "data": {"release": b64.encode(data)},
    }))
    .unwrap();
    let api: Api<Secret> = Api::namespaced(t.client.clone(), &t.namespace);
    api.create(&Default::default(), &secret).await.unwrap();
}

async fn leave_pending_upgrade(t: &Target, release: &str) {
    let mut rel = read_release(t, release, 1).await;
    rel["version"] = json!(2);
    rel["info"]["status"] = json!("pending-upgrade");
    write_release(t, &rel).await;
}

#[tokio::test]
async fn a_helm_run_cut_short_by_a_crash_is_settled_by_the_next_operation() {
    let t = Target::sim().await;
    let d = driver(Duration::from_secs(60));
    let mut f = Fixture::of(helm_cnf(), helm_vim(&t));
    let release = tacker_infra_k8s::helm::release_name(&f.instance.id.to_string());
    let inst = json!({"flavourId": "simple", "additionalParams": helm_params(CHART, &t.namespace)});
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, inst))
        .await
        .unwrap();
    f.apply(&o);
    leave_pending_upgrade(&t, &release).await;
    // Helm itself refuses the pending release ("another operation is in progress"); the
    // driver rolls the leftover back first, then scales.
    let o = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert_eq!(f.vnfcs().iter().filter(|(d, _)| d == "VDU1").count(), 2);
    let meta = &o.instantiated_vnf_info.as_ref().unwrap().other["metadata"];
    assert_eq!(
        meta["revision"], 4,
        "2 left pending, 3 its rollback, 4 the scale: {meta}"
    );
}

/// A chart written for upstream Tacker names its workloads after the release
/// (`vdu1-{{ .Release.Name }}`, Tacker's Helm driver binding `<VDU name>-<suffix>`): the
/// release is named as Tacker names it, so each VDU binds to its workload here too, and
/// its Pods are the VNFCs.
#[tokio::test]
async fn a_chart_naming_its_workloads_after_the_release_as_for_tacker_binds_its_vdus() {
    let t = Target::sim().await;
    let d = driver(Duration::from_secs(60));
    let csar = tacker_testkit::helm::helm_cnf_named_after_the_release();
    let mut f = Fixture::of(csar, helm_vim(&t));
    let id = f.instance.id.to_string();
    let release = tacker_infra_k8s::helm::release_name(&id);
    assert_eq!(release, format!("vnf{}", id.replace('-', "")));
    let inst = json!({"flavourId": "simple", "additionalParams": helm_params(CHART, &t.namespace)});
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, inst))
        .await
        .unwrap();
    f.apply(&o);
    let meta = &o.instantiated_vnf_info.as_ref().unwrap().other["metadata"];
    assert_eq!(
        (&meta["vdus"]["VDU1"], &meta["vdus"]["VDU2"]),
        (
            &json!({"kind": "Deployment", "name": format!("vdu1-{release}")}),
            &json!({"kind": "StatefulSet", "name": format!("vdu2-{release}")})
        )
    );
    let v = f.vnfcs();
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[0].0 == "VDU1" && v[0].1.starts_with(&format!("vdu1-{release}-")),
        "{v:?}"
    );
    assert_eq!(v[1], ("VDU2".to_owned(), format!("vdu2-{release}-0")));
    let term = f.ctx(
        LcmOperation::Terminate,
        json!({"terminationType": "FORCEFUL"}),
    );
    d.terminate(&term).await.unwrap();
    assert!(pods(&t).await.is_empty(), "{:?}", pods(&t).await);
    assert!(releases(&t).await.is_empty());
}

/// An instantiate begun before releases were named as Tacker names them left release
/// `vnf-<id>`: its rollback now uninstalls that release, not the `vnf<id>` it would
/// install today (which is not there: uninstalling it would "succeed" and leave the
/// release behind).
#[tokio::test]
async fn the_rollback_of_an_instantiate_begun_under_the_old_release_name_uninstalls_it() {
    let t = Target::sim().await;
    let d = driver(Duration::from_secs(60));
    let inst = json!({"flavourId": "simple", "additionalParams": helm_params(CHART, &t.namespace)});
    // Instance `old`'s release as the old naming left it: another instance's, renamed.
    let mut other = Fixture::of(helm_cnf(), helm_vim(&t));
    let o = d
        .instantiate(&other.ctx(LcmOperation::Instantiate, inst.clone()))
        .await
        .unwrap();
    other.apply(&o);
    let old = Fixture::of(helm_cnf(), helm_vim(&t));
    let id = old.instance.id.to_string();
    let legacy = format!("vnf-{}", id.replace('-', ""));
    let mut rel = read_release(
        &t,
        &tacker_infra_k8s::helm::release_name(&other.instance.id.to_string()),
        1,
    )
    .await;
    rel["name"] = json!(legacy);
    write_release(&t, &rel).await;
    let legacy_record = format!("sh.helm.release.v1.{legacy}.v1");
    assert!(releases(&t).await.contains(&legacy_record));

    d.rollback(&old.ctx(LcmOperation::Instantiate, inst))
        .await
        .unwrap();
    let left = releases(&t).await;
    assert!(!left.contains(&legacy_record), "{left:?}");
}
