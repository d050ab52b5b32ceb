//! Upstream Tacker's VM package layouts driven as its users drive them — StandardUserData
//! and VNFD-only packages through the `openstack` client on the v2 API
//! (`--os-tacker-api-version 2`), the v1 layout with scaling policies on the v1 API — the
//! user guide's example packages carrying their image, against the real Keystone and
//! Glance (`tests/infra/openstack.sh`) in front of heat-sim.

use super::*;
use crate::openstack_cli::Osc;
use tacker_testkit::keystone::OpenStack;

/// The user guide's example package `name` (`docs/examples/<name>`).
fn example(name: &str) -> tacker_testkit::csar::Csar {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples");
    tacker_testkit::samples::package(&dir.join(name), None, &[])
}

/// `openstack --os-tacker-api-version 2 vnflcm <args>` answered "accepted", then the
/// occurrence it started COMPLETED.
async fn v2(osc: &Osc, vm: &Vm, i: &str, args: &[&str]) -> Value {
    let mut all = vec!["--os-tacker-api-version", "2", "vnflcm"];
    all.extend_from_slice(args);
    let (ok, out, err) = osc.run(&all);
    assert!(ok, "openstack {args:?}: {out}{err}");
    let op = wait_latest(vm, i, &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"]).await;
    if op["operationState"] != "COMPLETED" {
        // The list leaves the error out: the occurrence itself says why.
        let id = op["id"].as_str().unwrap_or_default();
        let r =
            vm.c.lcm(0, reqwest::Method::GET, &format!("/vnf_lcm_op_occs/{id}"))
                .send()
                .await
                .unwrap();
        panic!("{args:?}: {}", r.text().await.unwrap_or_default());
    }
    op
}

/// `vduId-vdu_idx` of each VNFC, sorted.
async fn copies(vm: &Vm, i: &str) -> Vec<String> {
    copies_of(&vm.instance(i).await)
}

/// `vduId-vdu_idx` of each VNFC of instance `v`, sorted.
pub(crate) fn copies_of(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{}-{}",
                r["vduId"].as_str().unwrap(),
                r["metadata"]["vdu_idx"]
            )
        })
        .collect();
    out.sort();
    out
}

/// Every VNFC's VM answers SSH with its VDU's name.
async fn all_answer(vm: &Vm, i: &str) {
    for (vdu, _, _, ip) in vm.vnfcs(i).await {
        assert_eq!(ssh_hostname(&ip).unwrap(), vdu, "{ip}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openstack_cli_runs_upstreams_vm_layouts_on_the_real_keystone_and_glance() {
    let os = OpenStack::up();
    // heat-sim asks Keystone about a token again after 2 s: a revoked one is refused
    // from then on.
    let sim = sim_with(heat_sim::Settings {
        keystone_url: Some(os.keystone.clone()),
        glance_url: Some(os.glance.clone()),
        token_cache: Duration::from_secs(2),
        ..Default::default()
    });
    let t = os.tenant(&sim.url).await;
    // One conductor: the token it holds is the one Keystone revokes below.
    let vm = Vm::start_with(sim, &["c1"], &[]).await;
    let image: Vec<u8> = (0..200_000u32).map(|i| (i % 241) as u8).collect();
    for name in ["vm-standard", "vm-vnfd-only"] {
        let csar = super::glance::carrying_image(example(name), &image);
        let pkg = vm.c.upload(csar.zip()).await;
        let p = vm.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{name}: {p}");
    }
    let osc = Osc::new(vm.c.api.clone());
    let dir = tempfile::tempdir().unwrap();
    // `openstack vim register` with a password Keystone refuses: nothing stored.
    let cfg = dir.path().join("wrong.yaml");
    std::fs::write(
        &cfg,
        format!(
            "auth_url: '{}'\nusername: '{}'\npassword: 'not-it'\nproject_name: '{}'\nproject_domain_name: 'Default'\nuser_domain_name: 'Default'\ncert_verify: 'True'\n",
            os.keystone, t.name, t.name
        ),
    )
    .unwrap();
    let (ok, out, err) = osc.run(&[
        "vim",
        "register",
        "--config-file",
        cfg.to_str().unwrap(),
        "bad",
    ]);
    assert!(
        !ok && err.contains("Keystone refused the credentials"),
        "{out}{err}"
    );
    assert_eq!(osc.json(&["vim", "list"]), json!([]));
    // The right ones, with the region whose catalog names this test's Heat.
    let r = vm
        .c
        .http
        .post(format!("{}/v1.0/vims", vm.c.api))
        .json(&json!({"vim": {"name": "keystone", "type": "openstack", "auth_url": os.keystone,
            "auth_cred": {"username": t.name, "password": t.password, "user_domain_name": "Default"},
            "vim_project": {"name": t.name, "project_domain_name": "Default"},
            "extra": {"region": t.name}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let vim = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let vci = json!({"vim1": {"vimId": vim, "vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3"}});

    // StandardUserData at level 2: VDU1-0, VDU1-1, VDU2-0, one nested stack each.
    let created = osc.json(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "create",
        "c0ffee00-0000-4000-8000-0000000076d1",
    ]);
    let i = created["ID"].as_str().unwrap().to_owned();
    let body = dir.path().join("standard.json");
    let b = json!({"flavourId": "simple", "instantiationLevelId": "instantiation_level_2",
        "vimConnectionInfo": vci,
        "extVirtualLinks": [ext_virtual_link("net0", "sim-net", &["VDU1_CP1", "VDU2_CP1"])],
        "additionalParams": {"lcm-operation-user-data": "./UserData/userdata_standard.py",
            "lcm-operation-user-data-class": "StandardUserData"}});
    std::fs::write(&body, b.to_string()).unwrap();
    v2(&osc, &vm, &i, &["instantiate", &i, body.to_str().unwrap()]).await;
    assert_eq!(copies(&vm, &i).await, ["VDU1-0", "VDU1-1", "VDU2-0"]);
    all_answer(&vm, &i).await;
    assert_eq!(os.images(&t).await.len(), 1, "the image uploaded once");
    // Keystone revokes the user's tokens: the conductor's token is refused, it logs in
    // again and the scale goes on.
    os.revoke_tokens_of(&t).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    v2(
        &osc,
        &vm,
        &i,
        &[
            "scale",
            &i,
            "--type",
            "SCALE_OUT",
            "--aspect-id",
            "VDU1_scale",
        ],
    )
    .await;
    assert_eq!(
        copies(&vm, &i).await,
        ["VDU1-0", "VDU1-1", "VDU1-2", "VDU2-0"]
    );
    assert_eq!(vm.hosts().len(), 4, "a VM really added");
    let logs: String = vm.c.nodes.values().map(|n| n.proc.log_text()).collect();
    assert!(
        logs.contains("Heat refused the token; authenticating again"),
        "the revoked token was refused and replaced"
    );
    all_answer(&vm, &i).await;
    // Heal VDU1-0's VNFC (v2 names vnfcInfo ids): a new VM there, the others kept.
    let before = vm.vnfcs(&i).await;
    let v = vm.instance(&i).await;
    let info = &v["instantiatedVnfInfo"];
    let res = info["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["vduId"] == "VDU1" && r["metadata"]["vdu_idx"] == 0)
        .unwrap()["id"]
        .clone();
    let vnfc = info["vnfcInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["vnfcResourceInfoId"] == res)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    v2(&osc, &vm, &i, &["heal", &i, "--vnfc-instance", &vnfc]).await;
    let after = vm.vnfcs(&i).await;
    let replaced: Vec<_> = before
        .iter()
        .filter(|b| !after.iter().any(|a| a.1 == b.1))
        .map(|b| b.1.clone())
        .collect();
    assert_eq!(replaced, [res.as_str().unwrap().to_owned()]);
    all_answer(&vm, &i).await;
    // change_vnfpkg (RollingUpdate) to the same VNF under another VNFD id, with another
    // image: every VNFC moves to it, each keeping its copy.
    let new_vnfd = "c0ffee00-0000-4000-8000-0000000076d3";
    let other: Vec<u8> = (0..200_000u32).map(|i| (i % 239) as u8).collect();
    let newer = super::glance::carrying_image(example("vm-standard"), &other)
        .edit("Definitions/vm_types.yaml", |t| {
            t.replace("c0ffee00-0000-4000-8000-0000000076d1", new_vnfd)
        });
    let pkg = vm.c.upload(newer.zip()).await;
    let p = vm.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let before = vm.vnfcs(&i).await;
    let body = dir.path().join("change.json");
    let b = json!({"vnfdId": new_vnfd, "additionalParams": {"upgrade_type": "RollingUpdate"}});
    std::fs::write(&body, b.to_string()).unwrap();
    v2(
        &osc,
        &vm,
        &i,
        &["change-vnfpkg", &i, body.to_str().unwrap()],
    )
    .await;
    let after = vm.vnfcs(&i).await;
    assert!(
        after.iter().all(|a| !before.iter().any(|b| b.1 == a.1)),
        "every VM replaced"
    );
    assert_eq!(
        copies(&vm, &i).await,
        ["VDU1-0", "VDU1-1", "VDU1-2", "VDU2-0"]
    );
    assert_eq!(vm.instance(&i).await["vnfdId"], new_vnfd);
    assert_eq!(
        os.images(&t).await.len(),
        2,
        "the new package's image uploaded"
    );
    all_answer(&vm, &i).await;
    v2(
        &osc,
        &vm,
        &i,
        &[
            "scale",
            &i,
            "--type",
            "SCALE_IN",
            "--aspect-id",
            "VDU1_scale",
        ],
    )
    .await;
    assert_eq!(copies(&vm, &i).await.len(), 3);
    assert_eq!(vm.hosts().len(), 3, "a VM really removed");
    v2(
        &osc,
        &vm,
        &i,
        &["terminate", &i, "--termination-type", "FORCEFUL"],
    )
    .await;
    assert!(vm.hosts().is_empty());
    assert!(os.images(&t).await.is_empty(), "the unused image deleted");

    // No Base HOT: the HOT built from the VNFD; scale out adds a VM to its group.
    let created = osc.json(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "create",
        "c0ffee00-0000-4000-8000-0000000076d2",
    ]);
    let j = created["ID"].as_str().unwrap().to_owned();
    let body = dir.path().join("vnfd-only.json");
    let b = json!({"flavourId": "simple", "vimConnectionInfo": vci,
        "extVirtualLinks": [ext_virtual_link("net0", "sim-net", &["VDU1_CP1", "VDU2_CP1"])]});
    std::fs::write(&body, b.to_string()).unwrap();
    v2(&osc, &vm, &j, &["instantiate", &j, body.to_str().unwrap()]).await;
    assert_eq!(vm.vnfcs(&j).await.len(), 2);
    all_answer(&vm, &j).await;
    v2(
        &osc,
        &vm,
        &j,
        &[
            "scale",
            &j,
            "--type",
            "SCALE_OUT",
            "--aspect-id",
            "VDU1_scale",
        ],
    )
    .await;
    assert_eq!(vm.vnfcs(&j).await.len(), 3);
    assert_eq!(vm.hosts().len(), 3);
    all_answer(&vm, &j).await;
    v2(
        &osc,
        &vm,
        &j,
        &["terminate", &j, "--termination-type", "FORCEFUL"],
    )
    .await;
    assert!(vm.hosts().is_empty());
    assert!(os.images(&t).await.is_empty());

    // Upstream's v1 layout (a fixed desired_capacity, a scaling policy per aspect and
    // direction) through the v1 API, as `openstack vnflcm` sends it by default.
    let v1_layout = super::glance::carrying_image(tacker_testkit::vm::vm(), &image).edit(
        "BaseHOT/simple/vm_top.yaml",
        |t| {
            t.replace(
                "desired_capacity: { get_param: [ nfv, VDU, VDU1, desired_capacity ] }",
                "desired_capacity: 1",
            )
            // upstream names the policies <aspect>_scale_out and <aspect>_scale_in.
            .replace("  VDU1_scale_out:\n", "  VDU1_scale_scale_out:\n")
            .replace(
                "  VDU2:\n",
                "  VDU1_scale_scale_in:\n    type: OS::Heat::ScalingPolicy\n    properties:\n      scaling_adjustment: -1\n      auto_scaling_group_id: { get_resource: VDU1_scale_group }\n      adjustment_type: change_in_capacity\n\n  VDU2:\n",
            )
        },
    );
    let pkg = vm.c.upload(v1_layout.zip()).await;
    let p = vm.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let created = osc.json(&["vnflcm", "create", VM_VNFD_ID]);
    let k = created["ID"].as_str().unwrap().to_owned();
    let body = dir.path().join("v1.json");
    let mut b = instantiate_body(Value::Null);
    b["vimConnectionInfo"] = json!([{"id": "8a3adb69-0784-43c7-833e-aab0b6ab4470", "vimId": vim, "vimType": "openstack"}]);
    std::fs::write(&body, b.to_string()).unwrap();
    let v1 = |args: Vec<String>| {
        let osc = &osc;
        let vm = &vm;
        let k = k.clone();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut all = vec!["vnflcm"];
            all.extend_from_slice(&args);
            let (ok, out, err) = osc.run(&all);
            assert!(ok, "openstack {args:?}: {out}{err}");
            let op = wait_latest(vm, &k, &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"]).await;
            assert_eq!(op["operationState"], "COMPLETED", "{args:?}: {op}");
        }
    };
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    v1(s(&["instantiate", &k, body.to_str().unwrap()])).await;
    assert_eq!(vm.vnfcs(&k).await.len(), 2);
    v1(s(&[
        "scale",
        &k,
        "--type",
        "SCALE_OUT",
        "--aspect-id",
        "VDU1_scale",
    ]))
    .await;
    assert_eq!(
        vm.vnfcs(&k).await.len(),
        3,
        "the policy signalled: a VM added"
    );
    assert_eq!(vm.hosts().len(), 3);
    all_answer(&vm, &k).await;
    v1(s(&[
        "scale",
        &k,
        "--type",
        "SCALE_IN",
        "--aspect-id",
        "VDU1_scale",
    ]))
    .await;
    assert_eq!(vm.vnfcs(&k).await.len(), 2, "a VM removed");
    assert_eq!(vm.hosts().len(), 2);
    v1(s(&["terminate", &k, "--termination-type", "FORCEFUL"])).await;
    assert!(vm.hosts().is_empty());
    assert!(os.images(&t).await.is_empty());
    os.remove(&t).await;
}
