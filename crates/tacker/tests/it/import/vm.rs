//! A VM VNF Tacker instantiated on Heat (heat-sim behind the real Keystone), imported
//! and operated here.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::keystone::OpenStack;

use reqwest::Method;

use super::session::{InTacker, Ours};
use super::{Upstream, sample_csar, stop_tackers_conductor, until, walkthrough};
use crate::procs::Cluster;

/// A server heat-sim runs.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Server {
    stack: String,
    name: String,
    id: String,
}

/// The servers heat-sim runs, sorted by stack and name.
async fn servers(sim: &heat_sim::Handle) -> Vec<Server> {
    let v: Vec<Value> = reqwest::get(format!("{}/sim/servers", sim.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let text = |s: &Value, k: &str| s[k].as_str().unwrap_or_default().to_owned();
    let mut out: Vec<Server> = v
        .iter()
        .map(|s| Server {
            stack: text(s, "stack"),
            name: text(s, "name"),
            id: text(s, "id"),
        })
        .collect();
    out.sort();
    out
}

/// The ids of the servers heat-sim runs.
async fn server_ids(sim: &heat_sim::Handle) -> Vec<String> {
    servers(sim).await.into_iter().map(|s| s.id).collect()
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
    let work = tempfile::tempdir().unwrap();
    // The VIM: heat-sim behind the real Keystone, its project's catalog naming only it
    // (Tacker's Heat client picks Heat by service type alone).
    let sim = crate::vm::sim_with(heat_sim::Settings {
        keystone_url: Some(os.keystone.clone()),
        ..Default::default()
    });
    let vim = os.tenant(&sim.url).await;
    os.confine_catalog(&vim).await;

    let t = InTacker::open(&os, &up, &p).await;
    let pkg = t.created(&["vnf", "package", "create"]);
    let vnfd_id = uuid::Uuid::new_v4().to_string();
    let base = samples.join("tests/functional/sol_v2_common");
    // Its VDUs' image shipped in it (raw: Glance checks an upload against its format):
    // Tacker uploads it to the VIM's Glance for the instance.
    let image: Vec<u8> = (0..200_000u32).map(|n| (n % 241) as u8).collect();
    let df = "Definitions/v2_sample2_df_simple.yaml";
    let csar = sample_csar(&base, "basic_lcms_min", &vnfd_id, work.path())
        .with("Files/images/cirros.img", &image)
        .edit(df, |t| {
            t.replace(
                "932fcae93574e242dc3d772d5235061747dfe537668443a1f0567d893614b464",
                &tacker_testkit::csar::sha256(&image),
            )
            .replace("disk_format: qcow2", "disk_format: raw")
            .replace(
                "          size: 12 GB\n      capabilities:",
                "          size: 12 GB\n      artifacts:\n        sw_image:\n          \
                 type: tosca.artifacts.nfv.SwImage\n          \
                 file: ../Files/images/cirros.img\n      capabilities:",
            )
        });
    t.onboard(&pkg, &csar.zip(), work.path()).await;

    // Tacker instantiates it: stack vnf-<id> with VDU1 and VDU2.
    let i = t.create_v2("vm-from-tacker", &vnfd_id);
    let body = json!({"flavourId": "simple",
        "vimConnectionInfo": {"vim1": {"vimId": uuid::Uuid::new_v4().to_string(),
            "vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            "interfaceInfo": {"endpoint": os.keystone},
            "accessInfo": {"username": vim.name, "password": vim.password,
                "project": vim.name, "projectDomain": "Default",
                "userDomain": "Default", "region": vim.name}}}});
    let path = format!("/vnflcm/v2/vnf_instances/{i}/instantiate");
    let occ = t.operation(Method::POST, &path, &body).await;
    until(&t.http, &occ, &t.token, "operationState", "COMPLETED", 180).await;
    let stack = format!("vnf-{i}");
    let tagged = |images: Vec<Value>| {
        images
            .into_iter()
            .filter(|g| g["tags"].as_array().is_some_and(|t| t.contains(&json!(i))))
            .count()
    };
    assert_eq!(
        tagged(os.images(&vim).await),
        2,
        "Tacker's images of VDU1 and VDU2"
    );
    let made = servers(&sim).await;
    let mut names: Vec<&str> = made.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["VDU1", "VDU2"], "{made:?}");
    // The cut-over: Tacker's conductor stops; ours takes the VNF over.
    stop_tackers_conductor();

    // Ours, after the import: the instance is instantiated on Tacker's stack.
    let c = Cluster::with_keystone(&os, &["c1"], &[]).await;
    let summary = walkthrough(&c, &up, "tacker-import");
    assert!(!summary.contains(&i), "{i} skipped: {summary}");
    let ours = Ours {
        http: t.http.clone(),
        api: c.api.clone(),
        token: t.token.clone(),
    };
    let v = ours.instance(&i).await;
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

    // Scale VDU1 out: a second VDU1 server in Tacker's stack.
    let out = json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"});
    ours.task(&i, "scale", out).await;
    let scaled = servers(&sim).await;
    let vdu1_servers = scaled.iter().filter(|s| s.name == "VDU1").count();
    assert_eq!(vdu1_servers, 2, "{scaled:?}");
    assert!(
        scaled.iter().all(|s| s.stack.starts_with(&stack)),
        "{scaled:?}"
    );
    assert_eq!(vdu1(&ours.instance(&i).await), 2);

    // Heal the VDU1 server Tacker made: a new server takes its place in its group.
    let v = ours.instance(&i).await;
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
    ours.task(&i, "heal", json!({"vnfcInstanceId": [first["id"]]}))
        .await;
    let ids = server_ids(&sim).await;
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(!ids.contains(&server), "{server} still runs: {ids:?}");
    assert_eq!(vdu1(&ours.instance(&i).await), 2);

    // Terminate: Tacker's stack is deleted, heat-sim runs nothing.
    ours.task(&i, "terminate", json!({"terminationType": "FORCEFUL"}))
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !servers(&sim).await.is_empty() {
        assert!(std::time::Instant::now() < deadline, "servers left");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        ours.instance(&i).await["instantiationState"],
        "NOT_INSTANTIATED"
    );
    // The images Tacker uploaded for it went with it, as in Tacker.
    assert_eq!(tagged(os.images(&vim).await), 0);
    os.remove(&vim).await;
    t.close(&os).await;
    os.remove_project(&p).await;
}
