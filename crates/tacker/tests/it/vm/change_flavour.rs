//! change_flavour on OpenStack: the stack updated to the new flavour's base HOT (heat-sim,
//! its servers SSH test hosts), rolled back to the old one when the update fails.

use super::*;

/// VDU ids of the instance's VNFCs, sorted.
async fn vdus(vm: &Vm, i: &str) -> Vec<String> {
    let mut v: Vec<String> = vm.vnfcs(i).await.into_iter().map(|x| x.0).collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_flavour_moves_the_vms_to_the_new_flavours_base_hot_and_back() {
    let vm = vm_cluster_on_keystone().await;
    let vim_id = vm.register("heat-sim").await;
    let i = vm.create("v2").await;
    let end = &["COMPLETED", "FAILED_TEMP"];
    let body = instantiate_body(json!({"vim1": {"vimId": vim_id, "vimType": "openstack"}}));
    let op = vm.run("v2", &i, "instantiate", body, end).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(vdus(&vm, &i).await, ["VDU1", "VDU2"]);
    let stack_of = |v: &Value| v["instantiatedVnfInfo"]["metadata"]["stack_id"].clone();
    let stack = stack_of(&vm.instance(&i).await);

    // The new flavour's VDU1 servers fail to build: FAILED_TEMP; rollback puts the stack
    // back on the simple flavour's base HOT, VDU2 included.
    *vm.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("ubuntu-22.04-pair".into()),
        ..Default::default()
    };
    let to_pair = json!({"newFlavourId": "pair"});
    let op = vm
        .run("v2", &i, "change_flavour", to_pair.clone(), end)
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    let op_id = op["id"].as_str().unwrap();
    let r =
        vm.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op_id}/rollback"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let op =
        vm.c.wait_op(op_id, &["ROLLED_BACK", "FAILED_TEMP"], T)
            .await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    let shown = vm.instance(&i).await;
    assert_eq!(shown["instantiatedVnfInfo"]["flavourId"], "simple");
    assert_eq!(vdus(&vm, &i).await, ["VDU1", "VDU2"]);

    // The fault gone: COMPLETED on the pair flavour, two VDU1 servers answering SSH, VDU2
    // gone, the same stack.
    *vm.sim.sim.engine.faults() = Default::default();
    let op = vm.run("v2", &i, "change_flavour", to_pair, end).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let shown = vm.instance(&i).await;
    let info = &shown["instantiatedVnfInfo"];
    assert_eq!(info["flavourId"], "pair", "{shown}");
    assert_eq!(info["scaleStatus"][0]["aspectId"], "VDU1_scale", "{shown}");
    assert_eq!(info["maxScaleLevels"][0]["scaleLevel"], 1, "{shown}");
    assert_eq!(
        stack_of(&shown),
        stack,
        "the stack was updated, not replaced"
    );
    let vnfcs = vm.vnfcs(&i).await;
    assert_eq!(vdus(&vm, &i).await, ["VDU1", "VDU1"], "{vnfcs:?}");
    for (_, _, _, ip) in &vnfcs {
        ssh_hostname(ip).unwrap_or_else(|e| panic!("{ip}: {e}"));
    }
    let affected = op["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    assert!(
        affected
            .iter()
            .any(|a| a["changeType"] == "REMOVED" && a["vduId"] == "VDU2"),
        "{op}"
    );
    assert!(
        affected
            .iter()
            .any(|a| a["changeType"] == "ADDED" && a["vduId"] == "VDU1"),
        "{op}"
    );
    // Back to simple is a flavour change too; a flavour the VNFD lacks is refused.
    let (status, _) =
        vm.c.task(0, &i, "change_flavour", json!({"newFlavourId": "huge"}))
            .await;
    assert_eq!(status, 422);
    let op = vm
        .run(
            "v2",
            &i,
            "change_flavour",
            json!({"newFlavourId": "simple"}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(vdus(&vm, &i).await, ["VDU1", "VDU2"]);
    let op = vm
        .run(
            "v2",
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
}
