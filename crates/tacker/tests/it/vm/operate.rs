//! Operate on OpenStack: Nova stops and starts the VNF's servers (heat-sim's Nova takes a
//! stopped server's network link down), the whole VNF or named VNFCs.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operate_stops_and_starts_vms_through_nova() {
    let vm = vm_cluster_on_keystone().await;
    let vim_id = vm.register("heat-sim").await;
    let i = vm.create("v2").await;
    let end = &["COMPLETED", "FAILED_TEMP"];
    let body = instantiate_body(json!({"vim1": {"vimId": vim_id, "vimType": "openstack"}}));
    let op = vm.run("v2", &i, "instantiate", body, end).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let vnfcs = vm.vnfcs(&i).await;
    assert_eq!(vnfcs.len(), 2);
    // Per VDU, sorted (the stored order is Heat's).
    let states = |v: &Value| -> Vec<String> {
        let mut s: Vec<String> = v["instantiatedVnfInfo"]["vnfcInfo"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                format!(
                    "{}={}",
                    c["vduId"].as_str().unwrap(),
                    c["vnfcState"].as_str().unwrap()
                )
            })
            .collect();
        s.sort();
        s
    };

    // Stop the whole VNF: every server off, no VM answers SSH.
    let op = vm
        .run(
            "v2",
            &i,
            "operate",
            json!({"changeStateTo": "STOPPED", "stopType": "GRACEFUL", "gracefulStopTimeout": 30}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(
        op["resourceChanges"]["affectedVnfcs"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "{op}"
    );
    let shown = vm.instance(&i).await;
    assert_eq!(shown["instantiatedVnfInfo"]["vnfState"], "STOPPED");
    assert_eq!(states(&shown), ["VDU1=STOPPED", "VDU2=STOPPED"]);
    for (_, _, _, ip) in &vnfcs {
        assert!(ssh_hostname(ip).is_err(), "{ip} still answers SSH");
    }
    // Nothing to change, or nothing a stopped VNF may do: 409 at the request.
    for (task, body) in [
        ("operate", json!({"changeStateTo": "STOPPED"})),
        (
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"}),
        ),
    ] {
        let r =
            vm.c.lcm(
                0,
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/{task}"),
            )
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 409, "{task}: {}", r.text().await.unwrap());
    }

    // Start one VNFC: only its server comes back; the sync keeps the other stopped.
    let (vdu2, vdu2_ip) = vnfcs
        .iter()
        .find(|v| v.0 == "VDU2")
        .map(|v| (v.2.clone(), v.3.clone()))
        .unwrap();
    let vdu1_ip = vnfcs.iter().find(|v| v.0 == "VDU1").unwrap().3.clone();
    let op = vm
        .run(
            "v2",
            &i,
            "operate",
            json!({"changeStateTo": "STARTED", "vnfcInstanceId": [vdu2]}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(ssh_hostname(&vdu2_ip).unwrap(), "VDU2");
    assert!(ssh_hostname(&vdu1_ip).is_err());
    let shown = vm.instance(&i).await;
    assert_eq!(states(&shown), ["VDU1=STOPPED", "VDU2=STARTED"]);

    // Start the whole VNF: the rest comes back, the started one is left alone.
    let op = vm
        .run(
            "v2",
            &i,
            "operate",
            json!({"changeStateTo": "STARTED"}),
            end,
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(
        op["resourceChanges"]["affectedVnfcs"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{op}"
    );
    let shown = vm.instance(&i).await;
    assert_eq!(shown["instantiatedVnfInfo"]["vnfState"], "STARTED");
    assert_eq!(states(&shown), ["VDU1=STARTED", "VDU2=STARTED"]);
    assert_eq!(ssh_hostname(&vdu1_ip).unwrap(), "VDU1");
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
