//! Operations through the example out-of-process (gRPC) driver, `tacker-mgmt-example`:
//! the test package's hooks mapped to its endpoint, on the simulated VIM.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::csar::valid;
use tacker_testkit::mgmt::workspace_bin;

use crate::procs::Cluster;
use crate::support::{Proc, free_port};

const VNFD: &str = "11111111-2222-3333-4444-555555555555";
const T: Duration = Duration::from_secs(60);

fn records(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_run_on_an_out_of_process_driver_over_grpc() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let record = dir.path().join("calls.jsonl");
    let mut driver = Proc::spawn(
        Command::new(workspace_bin("tacker-mgmt-example"))
            .args(["--listen", &format!("127.0.0.1:{port}"), "--record"])
            .arg(&record)
            .stdin(Stdio::null()),
        &dir.path().join("driver.log"),
    );
    let endpoint = format!("Scripts/mgmt.py=grpc://127.0.0.1:{port}");
    let c = Cluster::start_with(
        1,
        &["c1"],
        &[
            ("TACKER__LCM__SIMULATED_VIM", "true"),
            ("TACKER__MGMT__DRIVERS", &endpoint),
        ],
    )
    .await;
    let pkg = c.upload(valid().zip()).await;
    assert_eq!(
        c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await["onboardingState"],
        "ONBOARDED"
    );
    let vim = json!({"vim1": {"vimType": "TACKER.SIM.V_1"}});

    // The hooks run there, with the instance as the operation leaves it and the
    // package files the parameters name inline.
    let i = c.instance().await;
    let body = json!({"flavourId": "simple", "vimConnectionInfo": vim,
        "additionalParams": {"manifest": "Files/kubernetes/deployment.yaml"}});
    let (status, op) = c.task(0, &i, "instantiate", body).await;
    assert_eq!(status, 202);
    let op = op.unwrap();
    let done = c
        .wait_op(&op, &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"], T)
        .await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let calls = records(&record);
    let hooks: Vec<&str> = calls.iter().map(|c| c["rpc"].as_str().unwrap()).collect();
    assert_eq!(hooks, ["check", "instantiate_end"], "{calls:?}");
    let end = &calls[1];
    assert_eq!(end["vnfLcmOpOccId"], op.as_str());
    assert_eq!(end["vnfInstanceId"], i.as_str());
    assert!(
        !end["vnfcs"].as_array().unwrap().is_empty(),
        "the *_end hook sees the new VNFCs: {end}"
    );
    assert!(end["resourceChanges"]["affectedVnfcs"].is_array(), "{end}");
    assert_eq!(end["files"][0]["path"], "Files/kubernetes/deployment.yaml");
    assert!(
        end["packageBaseUrl"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/vnfpkgm/v1/vnf_packages/{pkg}"))
    );

    // A driver's ProblemDetails becomes the occurrence's error (FAILED_TEMP).
    let i2 = c.instance().await;
    let body = json!({"flavourId": "simple", "vimConnectionInfo": {"vim1": {"vimType": "TACKER.SIM.V_1"}},
        "additionalParams": {"example_fail": "instantiate_end"}});
    let (_, op2) = c.task(0, &i2, "instantiate", body).await;
    let failed = c
        .wait_op(
            &op2.unwrap(),
            &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"],
            T,
        )
        .await;
    assert_eq!(failed["operationState"], "FAILED_TEMP", "{failed}");
    assert_eq!(failed["error"]["status"], 422);
    assert_eq!(failed["error"]["title"], "Example driver refused");
    assert!(
        failed["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("told to fail instantiate_end")
    );

    // The driver gone: the check before the grant fails, nothing is made.
    driver.signal("KILL");
    driver.wait(Duration::from_secs(5));
    let i3 = c.instance().await;
    let (_, op3) = c
        .task(0, &i3, "instantiate", json!({"flavourId": "simple", "vimConnectionInfo": {"vim1": {"vimType": "TACKER.SIM.V_1"}}}))
        .await;
    let ended = c
        .wait_op(
            &op3.unwrap(),
            &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"],
            T,
        )
        .await;
    assert_eq!(ended["operationState"], "ROLLED_BACK", "{ended}");
    assert!(
        ended["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("127.0.0.1"),
        "{ended}"
    );
    let _ = VNFD;
}
