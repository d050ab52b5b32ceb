//! A CNF's flows end to end: the API, bad requests, the openstack CLI, upstream's sample.

use super::*;

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
