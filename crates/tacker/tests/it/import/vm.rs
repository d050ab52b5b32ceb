//! VM VNFs Tacker instantiated on Heat (heat-sim behind the real Keystone), imported
//! and operated here: upstream's basic sample (an autoscaling group and a server) and the
//! StandardUserData layout (a nested stack per VNFC).

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::keystone::{OpenStack, Tenant};

use reqwest::Method;

use super::session::{InTacker, Ours};
use super::{
    Example, Upstream, example_for_tacker, sample_csar, start, stop_tackers_conductor, until,
    walkthrough,
};
use crate::procs::Cluster;
use crate::vm::layouts::copies_of;

/// A server heat-sim runs.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Server {
    stack: String,
    name: String,
    id: String,
    image: String,
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
            image: text(s, "image"),
        })
        .collect();
    out.sort();
    out
}

/// The ids of the servers heat-sim runs.
async fn server_ids(sim: &heat_sim::Handle) -> Vec<String> {
    servers(sim).await.into_iter().map(|s| s.id).collect()
}

/// heat-sim behind the real Keystone, and the VIM's project, whose catalog names only it
/// (Tacker's Heat client picks Heat by service type alone).
async fn heat_vim(os: &OpenStack) -> (heat_sim::Handle, Tenant) {
    let sim = crate::vm::sim_with(heat_sim::Settings {
        keystone_url: Some(os.keystone.clone()),
        ..Default::default()
    });
    let vim = os.tenant(&sim.url).await;
    os.confine_catalog(&vim).await;
    (sim, vim)
}

/// An image shipped in a package (raw: Glance checks an upload against its format).
fn image() -> Vec<u8> {
    (0..200_000u32).map(|n| (n % 241) as u8).collect()
}

/// Tacker instantiates `i` with flavour `simple` on `vim` and `more` of the request; the
/// occurrence COMPLETED.
async fn tacker_instantiates(t: &InTacker, os: &OpenStack, vim: &Tenant, i: &str, more: Value) {
    let mut body = json!({"flavourId": "simple",
        "vimConnectionInfo": {"vim1": {"vimId": uuid::Uuid::new_v4().to_string(),
            "vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            "interfaceInfo": {"endpoint": os.keystone},
            "accessInfo": {"username": vim.name, "password": vim.password,
                "project": vim.name, "projectDomain": "Default",
                "userDomain": "Default", "region": vim.name}}}});
    if let (Some(b), Value::Object(more)) = (body.as_object_mut(), more) {
        b.extend(more);
    }
    let path = format!("/vnflcm/v2/vnf_instances/{i}/instantiate");
    let occ = t.operation(Method::POST, &path, &body).await;
    until(&t.http, &occ, &t.token, "operationState", "COMPLETED", 180).await;
}

/// The images in `vim`'s Glance Tacker tagged with instance `i`'s id.
async fn tagged(os: &OpenStack, vim: &Tenant, i: &str) -> usize {
    os.images(vim)
        .await
        .into_iter()
        .filter(|g| g["tags"].as_array().is_some_and(|t| t.contains(&json!(i))))
        .count()
}

/// The cut-over: Tacker's conductor stops, the guide's walkthrough imports into ours (on
/// the same Keystone), and instance `i` came over instantiated.
async fn cut_over(os: &OpenStack, up: &Upstream, t: &InTacker, i: &str) -> (Cluster, Ours) {
    stop_tackers_conductor();
    let c = Cluster::with_keystone(os, &["c1"], &[]).await;
    let summary = walkthrough(&c, up, "tacker-import");
    assert!(!summary.contains(i), "{i} skipped: {summary}");
    let ours = Ours {
        http: t.http.clone(),
        api: c.api.clone(),
        token: t.token.clone(),
    };
    let v = ours.instance(i).await;
    assert_eq!(v["instantiationState"], "INSTANTIATED", "{v}");
    (c, ours)
}

/// Terminates `i` here: heat-sim runs nothing afterwards and the images Tacker uploaded
/// for it went with it, as in Tacker.
async fn terminate(ours: &Ours, sim: &heat_sim::Handle, os: &OpenStack, vim: &Tenant, i: &str) {
    ours.task(i, "terminate", json!({"terminationType": "FORCEFUL"}))
        .await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !servers(sim).await.is_empty() {
        assert!(std::time::Instant::now() < deadline, "servers left");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        ours.instance(i).await["instantiationState"],
        "NOT_INSTANTIATED"
    );
    assert_eq!(tagged(os, vim, i).await, 0);
}

/// Upstream's basic VM sample, instantiated by Tacker on heat-sim (VDU1 in an autoscaling
/// group, VDU2 a server), comes over instantiated: ours scales VDU1 out on the stack
/// Tacker made, heals a server Tacker made and terminates it, and heat-sim runs nothing
/// afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vm_vnf_tacker_instantiated_is_scaled_healed_and_terminated_here() {
    let Some((samples, os, up, p, work)) = start().await else {
        return;
    };
    let (sim, vim) = heat_vim(&os).await;

    let t = InTacker::open(&os, &up, &p).await;
    let (pkg, vnfd_id) = t.new_package();
    let base = samples.join("tests/functional/sol_v2_common");
    // Its VDUs' image shipped in it: Tacker uploads it to the VIM's Glance for the
    // instance.
    let image = image();
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
    tacker_instantiates(&t, &os, &vim, &i, json!({})).await;
    let stack = format!("vnf-{i}");
    assert_eq!(
        tagged(&os, &vim, &i).await,
        2,
        "Tacker's images of VDU1 and VDU2"
    );
    let made = servers(&sim).await;
    let mut names: Vec<&str> = made.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["VDU1", "VDU2"], "{made:?}");
    // The cut-over: Tacker's conductor stops; ours takes the VNF over.
    let (_c, ours) = cut_over(&os, &up, &t, &i).await;
    let v = ours.instance(&i).await;
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
    terminate(&ours, &sim, &os, &vim, &i).await;
    os.remove(&vim).await;
    t.close(&os).await;
    os.remove_project(&p).await;
}

/// The user guide's StandardUserData example as Tacker takes it (see
/// [`example_for_tacker`]; the image's checksum besides), its `lcm-operation-user-data`
/// Tacker's own `userdata_standard.py`, its VDUs' image `image` shipped in it.
fn standard_package(
    up: &Upstream,
    samples: &std::path::Path,
    vnfd_id: &str,
    image: &[u8],
) -> tacker_testkit::csar::Csar {
    let example = Example {
        name: "vm-standard",
        id: "c0ffee00-0000-4000-8000-0000000076d1",
        prefix: "vm",
        flavours: &["simple"],
    };
    let csar = example_for_tacker(samples, &example, vnfd_id);
    let checksum = format!(
        "          checksum:\n            algorithm: sha-256\n            hash: '{}'\n",
        tacker_testkit::csar::sha256(image)
    );
    crate::vm::glance::carrying_image(csar, image)
        .edit("Definitions/vm_df_simple.yaml", |t| {
            t.replace(
                "          version: '22.04'\n",
                &format!("          version: '22.04'\n{checksum}"),
            )
        })
        .with(
            "UserData/userdata_standard.py",
            std::fs::read(&up.userdata_standard).unwrap(),
        )
}

/// The server of copy `copy` (`VDU1-0`) of instance `v`.
fn server_of(v: &Value, copy: &str) -> String {
    v["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            format!(
                "{}-{}",
                r["vduId"].as_str().unwrap(),
                r["metadata"]["vdu_idx"]
            ) == copy
        })
        .unwrap_or_else(|| panic!("no {copy}: {v}"))["computeResource"]["resourceId"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A VM VNF Tacker laid out per VNFC (StandardUserData, instantiation level 2: VDU1-0,
/// VDU1-1 and VDU2-0, a nested stack each) comes over in that layout: ours scales VDU1
/// out by a copy VDU1-2 booting Tacker's image, heals VDU1-0 alone and terminates it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standard_user_data_vm_vnf_tacker_instantiated_is_scaled_healed_and_terminated_here() {
    let Some((samples, os, up, p, work)) = start().await else {
        return;
    };
    let (sim, vim) = heat_vim(&os).await;
    let t = InTacker::open(&os, &up, &p).await;
    let (pkg, vnfd_id) = t.new_package();
    let csar = standard_package(&up, &samples, &vnfd_id, &image());
    t.onboard(&pkg, &csar.zip(), work.path()).await;

    let i = t.create_v2("standard-from-tacker", &vnfd_id);
    let link = tacker_testkit::vm::ext_virtual_link("net0", "sim-net", &["VDU1_CP1", "VDU2_CP1"]);
    let more = json!({"instantiationLevelId": "instantiation_level_2",
        "extVirtualLinks": [link],
        "additionalParams": {"lcm-operation-user-data": "./UserData/userdata_standard.py",
            "lcm-operation-user-data-class": "StandardUserData"}});
    tacker_instantiates(&t, &os, &vim, &i, more).await;
    // Tacker's layout: a nested stack per VNFC, booting the image Tacker uploaded.
    let made = servers(&sim).await;
    let mut names: Vec<&str> = made.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["VDU1", "VDU1", "VDU2"], "{made:?}");
    let stacks: std::collections::BTreeSet<&str> = made.iter().map(|s| s.stack.as_str()).collect();
    assert_eq!(stacks.len(), 3, "{made:?}");
    let tackers_image = made[0].image.clone();
    assert!(!tackers_image.is_empty(), "{made:?}");

    let (_c, ours) = cut_over(&os, &up, &t, &i).await;
    let v = ours.instance(&i).await;
    assert_eq!(copies_of(&v), ["VDU1-0", "VDU1-1", "VDU2-0"], "{v}");

    // Scale VDU1 out: copy VDU1-2, a nested stack of its own, on Tacker's image.
    let out = json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"});
    ours.task(&i, "scale", out).await;
    let v = ours.instance(&i).await;
    assert_eq!(
        copies_of(&v),
        ["VDU1-0", "VDU1-1", "VDU1-2", "VDU2-0"],
        "{v}"
    );
    let scaled = servers(&sim).await;
    assert_eq!(scaled.len(), 4, "{scaled:?}");
    let added = server_of(&v, "VDU1-2");
    let new = scaled
        .iter()
        .find(|s| s.id == added)
        .unwrap_or_else(|| panic!("{added} not run: {scaled:?}"));
    assert_eq!(new.image, tackers_image, "{scaled:?}");
    assert!(made.iter().all(|m| m.stack != new.stack), "{scaled:?}");

    // Heal VDU1-0: its server replaced, the other copies' kept.
    let healed = server_of(&v, "VDU1-0");
    let kept: Vec<String> = ["VDU1-1", "VDU1-2", "VDU2-0"]
        .iter()
        .map(|c| server_of(&v, c))
        .collect();
    let vnfc = format!("VDU1-{healed}");
    ours.task(&i, "heal", json!({"vnfcInstanceId": [vnfc]}))
        .await;
    let ids = server_ids(&sim).await;
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert!(!ids.contains(&healed), "{healed} still runs: {ids:?}");
    assert!(kept.iter().all(|k| ids.contains(k)), "{kept:?} {ids:?}");
    let v = ours.instance(&i).await;
    assert_eq!(
        copies_of(&v),
        ["VDU1-0", "VDU1-1", "VDU1-2", "VDU2-0"],
        "{v}"
    );
    assert_ne!(server_of(&v, "VDU1-0"), healed);

    terminate(&ours, &sim, &os, &vim, &i).await;
    os.remove(&vim).await;
    t.close(&os).await;
    os.remove_project(&p).await;
}
