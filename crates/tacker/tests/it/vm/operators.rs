//! What operators drive: the openstack CLI on v1, a VM fault notification healing the VM.

use super::*;

/// The spec's requests as written: `openstack vim register`, then `openstack vnflcm`
/// without `--os-tacker-api-version` (the v1 API) naming the VIM by `vimId` only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openstack_cli_registers_the_vim_and_drives_v1() {
    use crate::openstack_cli::Osc;
    let vm = vm_cluster().await;
    let osc = Osc::new(vm.c.api.clone());
    let dir = tempfile::tempdir().unwrap();
    let s = heat_sim::Settings::default();
    let cfg = dir.path().join("vim.yaml");
    std::fs::write(
        &cfg,
        format!(
            "auth_url: '{}/v3'\nusername: '{}'\npassword: '{}'\nproject_name: '{}'\nproject_domain_name: 'Default'\nuser_domain_name: 'Default'\ncert_verify: 'True'\n",
            vm.sim.url, s.user, vm.password, s.project
        ),
    )
    .unwrap();
    let v = osc.json(&[
        "vim",
        "register",
        "--config-file",
        cfg.to_str().unwrap(),
        "--is-default",
        "heat-sim",
    ]);
    assert_eq!(v["auth_cred"]["password"], "***", "{v}");
    assert!(!v.to_string().contains(&vm.password));
    let vim_id = v["id"].as_str().unwrap().to_owned();
    let list = osc.json(&["vim", "list"]);
    assert_eq!(list[0]["Name"], "heat-sim", "{list}");
    assert_eq!(list[0]["Is Default"], true);
    // show and set work; a registration Keystone refuses fails and stores nothing.
    let shown = osc.json(&["vim", "show", "heat-sim"]);
    assert_eq!(shown["id"], v["id"], "{shown}");
    let (ok, out, err) = osc.run(&["vim", "set", "--description", "the simulator", "heat-sim"]);
    assert!(ok, "{out}{err}");
    assert_eq!(
        osc.json(&["vim", "show", "heat-sim"])["description"],
        "the simulator"
    );
    let wrong = dir.path().join("wrong.yaml");
    std::fs::write(
        &wrong,
        std::fs::read_to_string(&cfg).unwrap().replace(
            &format!("password: '{}'", vm.password),
            "password: 'not-it'",
        ),
    )
    .unwrap();
    let (ok, out, err) = osc.run(&[
        "vim",
        "register",
        "--config-file",
        wrong.to_str().unwrap(),
        "bad",
    ]);
    assert!(
        !ok && err.contains("Keystone refused the credentials"),
        "{out}{err}"
    );
    assert_eq!(osc.json(&["vim", "list"]).as_array().map(Vec::len), Some(1));

    let created = osc.json(&["vnflcm", "create", VM_VNFD_ID]);
    let i = created["ID"].as_str().unwrap().to_owned();
    let body = dir.path().join("instantiate.json");
    let mut b = instantiate_body(Value::Null);
    b["vimConnectionInfo"] = json!([{"id": "8a3adb69-0784-43c7-833e-aab0b6ab4470", "vimId": vim_id, "vimType": "openstack"}]);
    std::fs::write(&body, b.to_string()).unwrap();
    let (ok, out, err) = osc.run(&["vnflcm", "instantiate", &i, body.to_str().unwrap()]);
    assert!(ok && out.contains("accepted"), "{out}{err}");
    let op = wait_latest(&vm, &i, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let shown = osc.json(&["vnflcm", "show", &i]);
    assert_eq!(shown["Instantiation State"], "INSTANTIATED", "{shown}");
    let vnfcs = vm.vnfcs(&i).await;
    for v in &vnfcs {
        assert_eq!(ssh_hostname(&v.3).unwrap(), v.0);
    }
    // v1 heal names the vnfcResourceInfo id.
    let target = vnfcs.iter().find(|v| v.0 == "VDU2").unwrap().clone();
    let (ok, out, err) = osc.run(&["vnflcm", "heal", &i, "--vnfc-instance", &target.1]);
    assert!(ok && out.contains("accepted"), "{out}{err}");
    let op = wait_latest(&vm, &i, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(op["operation"], "HEAL", "{op}");
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(!vm.vnfcs(&i).await.iter().any(|v| v.1 == target.1));
    let ops = osc.json(&["vnflcm", "op", "list"]);
    assert_eq!(ops.as_array().unwrap().len(), 2, "{ops}");
    // Terminate and delete in one command; then the VIM can go.
    let (ok, out, err) = osc.run(&[
        "vnflcm",
        "terminate",
        &i,
        "--termination-type",
        "FORCEFUL",
        "--D",
    ]);
    assert!(ok && out.contains("deleted successfully"), "{out}{err}");
    assert!(vm.hosts().is_empty());
    let (ok, out, err) = osc.run(&["vim", "delete", "heat-sim"]);
    assert!(ok, "{out}{err}");
    assert_eq!(osc.json(&["vim", "list"]), json!([]));
}

/// A server monitor's fault notification for a VM of an instance that opted in to
/// auto-heal: the VM (whose host died behind Heat's back) is healed automatically, a
/// new server answering SSH in its place; the alarm names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vm_fault_notification_heals_the_vm_on_heat_sim() {
    let sim = sim_with(heat_sim::Settings::default());
    let vm = Vm::start(
        sim,
        &[
            ("TACKER__FM__AUTO_HEAL_WINDOW", "500ms"),
            ("TACKER__FM__LOOP_INTERVAL", "200ms"),
        ],
    )
    .await;
    let pkg = vm.c.upload(tacker_testkit::vm::vm().zip()).await;
    let p = vm.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
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
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let r =
        vm.c.lcm(0, reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
            .json(&json!({"vnfConfigurableProperties": {"isAutohealEnabled": true}}))
            .send()
            .await
            .unwrap();
    let modify = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    vm.c.wait_op(&modify, &["COMPLETED"], T).await;
    let shown = vm.instance(&i).await;
    let info = &shown["instantiatedVnfInfo"];
    let r2 = info["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["vduId"] == "VDU2")
        .unwrap()
        .clone();
    let server = r2["computeResource"]["resourceId"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = vm.vnfcs(&i).await;
    let old = before.iter().find(|v| v.0 == "VDU2").unwrap().clone();

    // The host dies; the monitor says so.
    let http = reqwest::Client::new();
    let killed = http
        .post(format!("{}/sim/servers/{server}/kill", vm.sim.url))
        .send()
        .await
        .unwrap();
    assert_eq!(killed.status(), 204);
    assert!(ssh_hostname(&old.3).is_err(), "the killed VM still answers");
    let r = http
        .post(format!("{}/server_notification/vnf_instances/{i}/servers/{server}/notify", vm.c.api))
        .json(&json!({"notification": {"host_id": "compute-1", "alarm_id": "a-1", "fault_id": "0001", "fault_type": "01"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204, "{}", r.text().await.unwrap());

    let deadline = tokio::time::Instant::now() + T;
    let heal = loop {
        let heals: Vec<Value> =
            vm.c.lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,operation,HEAL);(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(h) = heals.first() {
            break h["id"].as_str().unwrap().to_owned();
        }
        assert!(tokio::time::Instant::now() < deadline, "no automatic heal");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let done = vm.c.wait_op(&heal, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["isAutomaticInvocation"], true);
    assert_eq!(done["operationParams"]["vnfcInstanceId"], json!([old.2]));
    let after = vm.vnfcs(&i).await;
    let new = after.iter().find(|v| v.0 == "VDU2").unwrap();
    assert_ne!(new.1, old.1, "VDU2 not replaced: {after:?}");
    assert_eq!(ssh_hostname(&new.3).unwrap(), "VDU2");
    assert!(
        after.iter().any(|v| v.0 == "VDU1" && before.contains(v)),
        "VDU1 touched"
    );
    let alarms: Vec<Value> =
        vm.c.http
            .get(format!("{}/vnffm/v1/alarms", vm.c.api))
            .header("Version", "1.3.0")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(alarms.len(), 1, "{alarms:?}");
    assert_eq!(
        alarms[0]["rootCauseFaultyResource"]["faultyResource"]["resourceId"],
        server.as_str()
    );
}

/// Registering an OpenStack VIM authenticates with its credentials (through a
/// conductor's driver, on heat-sim's Keystone): a wrong password, or a region where the
/// catalog has no Heat, is 400 naming what failed and nothing is stored; the right
/// credentials register it, and changing them is checked the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vim_registration_authenticates_with_keystone() {
    let v = Vm::start(sim_with(heat_sim::Settings::default()), &[]).await;
    let s = heat_sim::Settings::default();
    let body = |name: &str, password: &str, region: Option<&str>| {
        let mut extra = json!({});
        if let Some(r) = region {
            extra["region"] = json!(r);
        }
        json!({"vim": {"name": name, "type": "openstack",
            "auth_url": format!("{}/v3", v.sim.url),
            "auth_cred": {"username": s.user, "password": password, "user_domain_name": "Default"},
            "vim_project": {"name": s.project, "project_domain_name": "Default"},
            "extra": extra}})
    };
    let post = |b: Value| {
        let http = v.c.http.clone();
        let url = format!("{}/v1.0/vims", v.c.api);
        async move { http.post(url).json(&b).send().await.unwrap() }
    };
    let r = post(body("wrong-password", "not-the-password", None)).await;
    assert_eq!(r.status(), 400);
    let p: Value = r.json().await.unwrap();
    let detail = p["detail"].as_str().unwrap();
    assert!(
        detail.contains("wrong-password") && detail.contains("Keystone refused the credentials"),
        "{p}"
    );
    assert!(!detail.contains("not-the-password"), "{p}");
    let r = post(body("no-heat", &v.password, Some("Nowhere"))).await;
    assert_eq!(r.status(), 400);
    let p: Value = r.json().await.unwrap();
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("no public Heat endpoint in region Nowhere"),
        "{p}"
    );
    let listed =
        v.c.http
            .get(format!("{}/v1.0/vims", v.c.api))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
    assert!(
        !listed.contains("wrong-password") && !listed.contains("no-heat"),
        "nothing was stored: {listed}"
    );
    let r = post(body("good", &v.password, None)).await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r =
        v.c.http
            .put(format!("{}/v1.0/vims/{id}", v.c.api))
            .json(&json!({"vim": {"auth_cred": {"password": "changed-wrongly"}}}))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 400);
}
