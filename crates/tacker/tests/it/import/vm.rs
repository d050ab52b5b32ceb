//! A VM VNF Tacker instantiated on Heat (heat-sim behind the real Keystone), imported
//! and operated here.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::keystone::OpenStack;

use super::{Upstream, sample, stop_tackers_conductor, until, walkthrough};
use crate::openstack_cli::Osc;
use crate::procs::Cluster;

/// The servers heat-sim runs: `(stack, name)`, sorted.
async fn servers(sim: &heat_sim::Handle) -> Vec<(String, String)> {
    let v: Vec<Value> = reqwest::get(format!("{}/sim/servers", sim.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut out: Vec<(String, String)> = v
        .iter()
        .map(|s| {
            (
                s["stack"].as_str().unwrap_or_default().to_owned(),
                s["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The ids of the servers heat-sim runs.
async fn server_ids(sim: &heat_sim::Handle) -> Vec<String> {
    let v: Vec<Value> = reqwest::get(format!("{}/sim/servers", sim.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v.iter()
        .filter_map(|s| s["id"].as_str().map(str::to_owned))
        .collect()
}

/// Upstream's basic VM sample, instantiated by Tacker on heat-sim (VDU1 in an autoscaling
/// group, VDU2 a server), comes over instantiated: ours scales VDU1 out on the stack
/// Tacker made, heals a server Tacker made and terminates it, and heat-sim runs nothing
/// afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vm_vnf_tacker_instantiated_is_scaled_healed_and_terminated_here() {
    let Some(samples) = tacker_testkit::samples::samples_dir() else {
        eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
        return;
    };
    let os = OpenStack::up();
    let up = Upstream::up();
    let p = os.project(&[("member", &["member"])]).await;
    let token = os.token_of(&p, "member").await;
    let http = reqwest::Client::new();
    let work = tempfile::tempdir().unwrap();
    // The VIM: heat-sim behind the real Keystone, its project's catalog naming only it
    // (Tacker's Heat client picks Heat by service type alone).
    let sim = crate::vm::sim_with(heat_sim::Settings {
        keystone_url: Some(os.keystone.clone()),
        ..Default::default()
    });
    let t = os.tenant(&sim.url).await;
    os.confine_catalog(&t).await;

    let region = os.region().await;
    os.endpoint(&region, "tacker", "nfv-orchestration", &up.api)
        .await;
    let m = p.user("member");
    let osc = Osc::keystone(&os.keystone, &m.login, &m.password, &p.name, &region);
    let pkg = osc.json(&["vnf", "package", "create"]);
    let pkg = pkg["ID"]
        .as_str()
        .unwrap_or_else(|| panic!("{pkg}"))
        .to_owned();
    let vnfd_id = uuid::Uuid::new_v4().to_string();
    let zip = work.path().join("vm.zip");
    let base = samples.join("tests/functional/sol_v2_common");
    std::fs::write(&zip, sample(&base, "basic_lcms_min", &vnfd_id, work.path())).unwrap();
    let (ok, out, err) = osc.run(&[
        "vnf",
        "package",
        "upload",
        "--path",
        zip.to_str().unwrap(),
        &pkg,
    ]);
    assert!(ok, "{out}{err}");
    let url = format!("{}/vnfpkgm/v1/vnf_packages/{pkg}", up.api);
    until(&http, &url, &token, "onboardingState", "ONBOARDED", 120).await;

    // Tacker instantiates it: stack vnf-<id> with VDU1 and VDU2.
    let i = osc.json(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "create",
        "--name",
        "vm-from-tacker",
        &vnfd_id,
    ]);
    let i = i["ID"].as_str().unwrap_or_else(|| panic!("{i}")).to_owned();
    let r = http
        .post(format!(
            "{}/vnflcm/v2/vnf_instances/{i}/instantiate",
            up.api
        ))
        .header("X-Auth-Token", &token)
        .header("Version", "2.0.0")
        .json(&json!({"flavourId": "simple",
            "vimConnectionInfo": {"vim1": {"vimId": uuid::Uuid::new_v4().to_string(),
                "vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
                "interfaceInfo": {"endpoint": os.keystone},
                "accessInfo": {"username": t.name, "password": t.password,
                    "project": t.name, "projectDomain": "Default",
                    "userDomain": "Default", "region": t.name}}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202, "{}", r.text().await.unwrap());
    let occ = r.headers()["location"].to_str().unwrap().to_owned();
    until(&http, &occ, &token, "operationState", "COMPLETED", 180).await;
    let stack = format!("vnf-{i}");
    let made = servers(&sim).await;
    let mut names: Vec<&str> = made.iter().map(|(_, n)| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["VDU1", "VDU2"], "{made:?}");
    // The cut-over: Tacker's conductor stops; ours takes the VNF over.
    stop_tackers_conductor();

    // Ours, after the import: the instance is instantiated on Tacker's stack.
    let c = Cluster::with_keystone(&os, &["c1"], &[]).await;
    let summary = walkthrough(&c, &up, "tacker-import");
    assert!(!summary.contains(&i), "{i} skipped: {summary}");
    let ours = || {
        let (http, url, token) = (
            http.clone(),
            format!("{}/vnflcm/v2/vnf_instances/{i}", c.api),
            token.clone(),
        );
        async move {
            let r = http
                .get(url)
                .header("X-Auth-Token", token)
                .header("Version", "2.0.0")
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    let v = ours().await;
    assert_eq!(v["instantiationState"], "INSTANTIATED", "{v}");
    let vdu1 = |v: &Value| {
        v["instantiatedVnfInfo"]["vnfcResourceInfo"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["vduId"] == "VDU1")
            .count()
    };
    assert_eq!(vdu1(&v), 1, "{v}");
    let task = |path: &str, body: Value| {
        let (http, token) = (http.clone(), token.clone());
        let url = format!("{}/vnflcm/v2/vnf_instances/{i}/{path}", c.api);
        async move {
            let r = http
                .post(url)
                .header("X-Auth-Token", &token)
                .header("Version", "2.0.0")
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = r.status();
            let location = r
                .headers()
                .get("location")
                .map(|l| l.to_str().unwrap().to_owned());
            assert_eq!(status, 202, "{}", r.text().await.unwrap());
            until(
                &http,
                &location.unwrap(),
                &token,
                "operationState",
                "COMPLETED",
                90,
            )
            .await;
        }
    };

    // Scale VDU1 out: a second VDU1 server in Tacker's stack.
    task(
        "scale",
        json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"}),
    )
    .await;
    let scaled = servers(&sim).await;
    let vdu1_servers = scaled.iter().filter(|(_, n)| n == "VDU1").count();
    assert_eq!(vdu1_servers, 2, "{scaled:?}");
    assert!(
        scaled.iter().all(|(s, _)| s.starts_with(&stack)),
        "{scaled:?}"
    );
    assert_eq!(vdu1(&ours().await), 2);

    // Heal the VDU1 server Tacker made: a new server takes its place in its group.
    let v = ours().await;
    let vnfcs = v["instantiatedVnfInfo"]["vnfcInfo"]
        .as_array()
        .unwrap()
        .clone();
    let first = vnfcs
        .iter()
        .find(|c| c["vduId"] == "VDU1")
        .unwrap_or_else(|| panic!("{v}"));
    let server = first["vnfcResourceInfoId"].as_str().unwrap().to_owned();
    assert!(server_ids(&sim).await.contains(&server));
    task("heal", json!({"vnfcInstanceId": [first["id"]]})).await;
    let ids = server_ids(&sim).await;
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(!ids.contains(&server), "{server} still runs: {ids:?}");
    assert_eq!(vdu1(&ours().await), 2);

    // Terminate: Tacker's stack is deleted, heat-sim runs nothing.
    task("terminate", json!({"terminationType": "FORCEFUL"})).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !servers(&sim).await.is_empty() {
        assert!(std::time::Instant::now() < deadline, "servers left");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(ours().await["instantiationState"], "NOT_INSTANTIATED");
    os.remove(&t).await;
    os.remove_region(&region).await;
    os.remove_project(&p).await;
}
