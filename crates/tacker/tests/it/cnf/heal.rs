//! Heal and the resource sync on kube-sim: SOL003 heal, replaced Pods, readiness timeouts.

use super::*;

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
