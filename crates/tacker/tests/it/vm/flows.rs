//! A VM VNF's flows on heat-sim and SSH hosts: v2 and v1 (the VIM on the real Keystone),
//! build failures, retry, rollback, token refresh (heat-sim's own Keystone, whose tokens
//! the test expires at will).

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vm_vnf_lifecycle_through_v2_and_v1_on_ssh_hosts() {
    let vm = vm_cluster_on_keystone().await;
    let sub = Subscriber::start(Expect::Nothing);
    vm.c.subscribe(&sub).await;
    let sub1 = Subscriber::start(Expect::Nothing);
    let r = vm
        .v1(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": sub1.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let vim_id = vm.register("heat-sim").await;

    // v2, the VIM named by vimId only: two VMs, each answering SSH at its address.
    let i = vm.create("v2").await;
    let body = instantiate_body(json!({"vim1": {"vimId": vim_id, "vimType": "openstack"}}));
    let op = vm
        .run("v2", &i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let vnfcs = vm.vnfcs(&i).await;
    assert_eq!(vnfcs.len(), 2, "{vnfcs:?}");
    for (vdu, rid, cid, ip) in &vnfcs {
        assert!(ip.starts_with("10.250."), "{vnfcs:?}");
        assert_eq!(ssh_hostname(ip).unwrap(), *vdu);
        assert_eq!(*cid, format!("{vdu}-{rid}"));
    }
    let shown = vm.instance(&i).await;
    assert_eq!(shown["vimConnectionInfo"]["vim1"]["vimId"], vim_id.as_str());
    assert_eq!(
        shown["instantiatedVnfInfo"]["vnfcResourceInfo"][0]["computeResource"]["vimLevelResourceType"],
        "OS::Nova::Server"
    );

    // Scale out and in: a new host appears, then exactly it goes (namespace removed).
    let hosts_before = vm.hosts();
    let op = vm
        .run(
            "v2",
            &i,
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let out = vm.vnfcs(&i).await;
    assert_eq!(out.len(), 3);
    let added = out.iter().find(|v| !vnfcs.contains(v)).unwrap().clone();
    assert_eq!(ssh_hostname(&added.3).unwrap(), "VDU1");
    let new_host: Vec<String> = vm
        .hosts()
        .into_iter()
        .filter(|h| !hosts_before.contains(h))
        .collect();
    assert_eq!(new_host.len(), 1);
    assert!(netns_exists(&new_host[0]));
    let op = vm
        .run(
            "v2",
            &i,
            "scale",
            json!({"type": "SCALE_IN", "aspectId": "VDU1_scale"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(vm.vnfcs(&i).await, vnfcs);
    assert_eq!(
        op["resourceChanges"]["affectedVnfcs"][0]["changeType"],
        "REMOVED"
    );
    assert_eq!(
        op["resourceChanges"]["affectedVnfcs"][0]["id"],
        added.1.as_str()
    );
    assert!(
        !netns_exists(&new_host[0]),
        "the removed VM's namespace is gone"
    );

    // SOL002 heal of VDU2: a new host and address; VDU1 untouched.
    let (v1c, v2c) = (
        vnfcs.iter().find(|v| v.0 == "VDU1").unwrap().clone(),
        vnfcs.iter().find(|v| v.0 == "VDU2").unwrap().clone(),
    );
    let op = vm
        .run(
            "v2",
            &i,
            "heal",
            json!({"vnfcInstanceId": [v2c.2]}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let healed = vm.vnfcs(&i).await;
    assert!(healed.contains(&v1c), "VDU1 untouched: {healed:?}");
    let new2 = healed.iter().find(|v| v.0 == "VDU2").unwrap();
    assert_ne!(new2.1, v2c.1);
    assert_ne!(new2.3, v2c.3);
    assert_eq!(ssh_hostname(&new2.3).unwrap(), "VDU2");
    assert!(ssh_hostname(&v2c.3).is_err(), "the old VM is gone");

    // SOL003 heal: every VM replaced.
    let op = vm
        .run("v2", &i, "heal", json!({}), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let all = vm.vnfcs(&i).await;
    assert!(
        all.iter().all(|v| !healed.iter().any(|h| h.1 == v.1)),
        "{all:?}"
    );
    for v in &all {
        assert_eq!(ssh_hostname(&v.3).unwrap(), v.0);
    }

    // v1: the same flow with v1 bodies (vimConnectionInfo a list; heal names
    // vnfcResourceInfo ids, as Tacker's v1 does); answers in the v1 shape.
    let j = vm.create("v1").await;
    let mut b1 = instantiate_body(Value::Null);
    b1["vimConnectionInfo"] = json!([{"id": "vim1", "vimId": vim_id, "vimType": "openstack"}]);
    let op = vm
        .run("v1", &j, "instantiate", b1, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let v1i: Value = vm
        .v1(reqwest::Method::GET, &format!("/vnf_instances/{j}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(v1i["vimConnectionInfo"].is_array(), "{v1i}");
    assert_eq!(v1i["vimConnectionInfo"][0]["id"], "vim1");
    assert!(
        v1i["_links"]["self"]["href"]
            .as_str()
            .unwrap()
            .contains("/vnflcm/v1/")
    );
    let jv = vm.vnfcs(&j).await;
    let target = jv.iter().find(|v| v.0 == "VDU1").unwrap().clone();
    let op = vm
        .run(
            "v1",
            &j,
            "heal",
            json!({"vnfcInstanceId": [target.1]}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let after = vm.vnfcs(&j).await;
    assert!(!after.iter().any(|v| v.1 == target.1));
    assert!(after.contains(jv.iter().find(|v| v.0 == "VDU2").unwrap()));
    let op = vm
        .run(
            "v1",
            &j,
            "terminate",
            json!({"terminationType": "GRACEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let r = vm
        .v1(reqwest::Method::DELETE, &format!("/vnf_instances/{j}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);

    // Terminate the v2 instance: every VM, every namespace gone.
    let op = vm
        .run(
            "v2",
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(vm.hosts().is_empty(), "{:?}", vm.hosts());
    for v in &all {
        assert!(ssh_hostname(&v.3).is_err());
    }

    // Notifications in order, linked into the subscription's API version.
    let got = sub
        .wait("the v2 terminate result", |n| {
            states_of(n, op["id"].as_str().unwrap()).contains(&"RESULT:COMPLETED".to_owned())
        })
        .await;
    let iop = &got[0];
    assert!(
        iop["_links"]["vnfInstance"]["href"]
            .as_str()
            .unwrap()
            .contains("/vnflcm/v2/")
    );
    let got1 = sub1
        .wait("the v1 instance's notifications", |n| n.len() >= 10)
        .await;
    assert!(got1.iter().all(|n| {
        n["_links"]["vnfInstance"]["href"]
            .as_str()
            .unwrap()
            .contains("/vnflcm/v1/")
    }));

    // The VIM's password is in no answer and no notification, and sealed at rest.
    let mut answers = Vec::new();
    for path in [
        "/vnflcm/v2/vnf_instances?all_fields",
        "/vnflcm/v2/vnf_lcm_op_occs?all_fields",
        "/vnflcm/v1/vnf_instances?all_fields",
        "/vnflcm/v1/vnf_lcm_op_occs?all_fields",
        "/v1.0/vims.json",
    ] {
        answers.push(
            vm.c.http
                .get(format!("{}{path}", vm.c.api))
                .header("Version", "2.0.0")
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap(),
        );
    }
    answers.push(serde_json::to_string(&sub.received()).unwrap());
    answers.push(serde_json::to_string(&sub1.received()).unwrap());
    for a in &answers {
        assert!(!a.contains(&vm.password), "the VIM password leaked: {a}");
    }
    let id: uuid::Uuid = vim_id.parse().unwrap();
    let stored =
        vm.c.db
            .vims()
            .stored_credentials(id)
            .await
            .unwrap()
            .unwrap();
    assert!(
        stored.starts_with("enc:v1:t1:") && !stored.contains(&vm.password),
        "{stored}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vm_build_failure_retry_rollback_and_token_refresh() {
    let vm = vm_cluster().await;
    // The build fails once: FAILED_TEMP with Heat's reason.
    *vm.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("VDU2".into()),
        fail_times: Some(1),
        fail_reason: Some("No valid host was found".into()),
        ..Default::default()
    };
    let i = vm.create("v2").await;
    let op = vm
        .run(
            "v2",
            &i,
            "instantiate",
            instantiate_body(vm.vim()),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["title"], "Stack create failed");
    assert!(
        op["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("No valid host was found"),
        "{op}"
    );
    // Retry: the same stack is updated (never a second one), with tokens expiring while
    // the VMs build.
    vm.sim.sim.engine.faults().build_delay_ms = 500;
    let id = op["id"].as_str().unwrap().to_owned();
    let r =
        vm.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{id}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    tokio::time::sleep(Duration::from_millis(300)).await;
    vm.sim.sim.tokens.expire_all();
    let op = vm.c.wait_op(&id, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let stacks: Vec<String> = {
        let st = vm.sim.sim.engine.lock();
        st.stacks
            .values()
            .filter(|s| s.parent.is_none() && !s.deleted)
            .map(|s| s.name.clone())
            .collect()
    };
    assert_eq!(stacks, vec![format!("vnf-{i}")]);
    for v in vm.vnfcs(&i).await {
        assert_eq!(ssh_hostname(&v.3).unwrap(), v.0);
    }

    // A build that keeps failing: rollback leaves nothing behind.
    *vm.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("VDU1".into()),
        ..Default::default()
    };
    let hosts = vm.hosts();
    let j = vm.create("v2").await;
    let op = vm
        .run(
            "v2",
            &j,
            "instantiate",
            instantiate_body(vm.vim()),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    let id = op["id"].as_str().unwrap().to_owned();
    let r =
        vm.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{id}/rollback"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let op = vm.c.wait_op(&id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    assert_eq!(
        vm.hosts(),
        hosts,
        "the failed VNF's VMs are gone, the other's stay"
    );
    assert!(
        vm.sim
            .sim
            .engine
            .lock()
            .by_name(&format!("vnf-{j}"))
            .is_none()
    );

    // Terminate: every host gone.
    *vm.sim.sim.engine.faults() = Default::default();
    let op = vm
        .run(
            "v2",
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(vm.hosts().is_empty());
}
