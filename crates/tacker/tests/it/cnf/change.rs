//! change_vnfpkg: rolled forward and back, and settled when its conductors die.

use super::*;

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
