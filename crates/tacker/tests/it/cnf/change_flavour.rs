//! change_flavour on Kubernetes: the CNF rolled to another flavour's manifests and
//! counts, rolled back to its flavour when the new one never gets ready.

use super::*;

/// The names of the instance's Pods not being deleted, once they settle on `want`
/// VDU name prefixes (a Pod's name starts with its workload's).
async fn pods_settle(e: &Cnf, i: &str, want: &[&str]) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let names: Vec<String> = e
            .sim
            .sim
            .lock()
            .list("/pods", Some(NS))
            .into_iter()
            .filter(|(_, p)| {
                p.pointer(&format!("/metadata/labels/{}", LABEL.replace('/', "~1")))
                    .and_then(Value::as_str)
                    == Some(i)
                    && p.pointer("/metadata/deletionTimestamp").is_none()
            })
            .map(|(k, _)| k.2)
            .collect();
        let settled = names.iter().all(|n| want.iter().any(|w| n.starts_with(w)))
            && want.iter().all(|w| names.iter().any(|n| n.starts_with(w)));
        if settled {
            return names;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{names:?}, want {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn change_flavour_rolls_the_cnf_to_the_new_flavour_and_back_on_failure() {
    use tacker_testkit::cnf::WEB_FILES;
    let e = cnf_cluster(&[("TACKER__KUBERNETES__READY_TIMEOUT", "3s")], timing()).await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let simple = ["vdu1-pod", "vdu2-deploy", "vdu3-rs", "vdu4-sts", "vdu5-ds"];
    pods_settle(&e, &i, &simple).await;
    let before = e.vnfcs(&i).await;
    let web = || json!({"newFlavourId": "web", "additionalParams": {"lcm-kubernetes-def-files": WEB_FILES}});

    // Refused before anything changes.
    for (body, needle) in [
        (json!({"newFlavourId": "simple"}), "already"),
        (json!({"newFlavourId": "huge"}), "not a flavour"),
        (
            json!({"newFlavourId": "web", "instantiationLevelId": "nope"}),
            "instantiationLevelId",
        ),
        (
            json!({"newFlavourId": "web", "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/nope.yaml"]}}),
            "not an artifact",
        ),
    ] {
        let (status, _) = e.c.task(0, &i, "change_flavour", body).await;
        assert_eq!(status, 422, "{needle}");
    }
    assert_eq!(e.vnfcs(&i).await, before);

    // The web flavour's image never gets ready: FAILED_TEMP 504, rolled back to simple.
    e.sim
        .sim
        .lock()
        .faults
        .never_ready
        .push("image:nginx:web".into());
    let op = e
        .run(&i, "change_flavour", web(), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["status"], 504, "{op}");
    let op_id = op["id"].as_str().unwrap();
    let r = e.post(&format!("/vnf_lcm_op_occs/{op_id}/rollback")).await;
    assert_eq!(r.status(), 202);
    let op = e.c.wait_op(op_id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    let inst = e.instance(&i).await;
    assert_eq!(inst["instantiatedVnfInfo"]["flavourId"], "simple");
    pods_settle(&e, &i, &simple).await;
    let vdus = |v: &[(String, String, String)]| {
        let mut d: Vec<String> = v.iter().map(|x| x.0.clone()).collect();
        d.sort();
        d
    };
    assert_eq!(vdus(&e.vnfcs(&i).await), vdus(&before));

    // The fault gone: COMPLETED on web, the Deployment alone at three replicas of the
    // new image, the old flavour's other workloads deleted.
    e.sim.sim.lock().faults.never_ready.clear();
    let op = e
        .run(&i, "change_flavour", web(), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let inst = e.instance(&i).await;
    let info = &inst["instantiatedVnfInfo"];
    assert_eq!(info["flavourId"], "web", "{inst}");
    assert_eq!(
        info["scaleStatus"],
        json!([{"aspectId": "vdu2_aspect", "scaleLevel": 0, "vnfdId": CNF_VNFD_ID}]),
        "{inst}"
    );
    assert_eq!(info["maxScaleLevels"][0]["scaleLevel"], 1, "{inst}");
    let now = e.vnfcs(&i).await;
    assert_eq!(of(&now, "VDU2").len(), 3, "{now:?}");
    assert_eq!(now.len(), 3, "{now:?}");
    pods_settle(&e, &i, &["vdu2-deploy"]).await;
    let affected = op["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    assert!(
        affected
            .iter()
            .any(|a| a["changeType"] == "REMOVED" && a["vduId"] == "VDU1")
    );
    assert!(
        affected
            .iter()
            .any(|a| a["changeType"] == "ADDED" && a["vduId"] == "VDU2")
    );
    // The new flavour's aspect scales it (its maximum level is 1).
    let out = json!({"type": "SCALE_OUT", "aspectId": "vdu2_aspect", "numberOfSteps": 1});
    let op = e
        .run(&i, "scale", out.clone(), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(of(&e.vnfcs(&i).await, "VDU2").len(), 4);
    let (status, _) = e.c.task(0, &i, "scale", out).await;
    assert_eq!(status, 400, "beyond the web flavour's max_scale_level");
    // Terminate removes what the web flavour made.
    let op = e
        .run(
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    pods_settle(&e, &i, &[]).await;
}
