//! Package changes: every workload rolled, rolled back, objects dropped and added.

use super::*;

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
