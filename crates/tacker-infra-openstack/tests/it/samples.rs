//! Upstream Tacker's sample packages instantiate on heat-sim (their Python artifacts as
//! placeholders: we never run them).

use serde_json::json;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::InfraDriver;
use tacker_infra_openstack::OpenStackDriver;
use tacker_testkit::samples::package;

use crate::fixture::{Fixture, ssh_hostname};
use crate::lifecycle::driver;

#[macro_export]
macro_rules! need_samples {
    () => {
        match tacker_testkit::samples::samples_dir() {
            Some(d) => d,
            None => {
                eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
                return;
            }
        }
    };
}

/// Runs `op` with `params` through the driver and records its outcome, as the engine
/// would.
async fn done(f: &mut Fixture, d: &OpenStackDriver, op: LcmOperation, params: serde_json::Value) {
    let ctx = f.ctx(op, params);
    let o = match op {
        LcmOperation::Instantiate => d.instantiate(&ctx).await,
        LcmOperation::Scale => d.scale(&ctx).await,
        LcmOperation::Heal => d.heal(&ctx).await,
        LcmOperation::Terminate => d.terminate(&ctx).await,
        other => panic!("not run here: {other:?}"),
    }
    .unwrap_or_else(|e| panic!("{op:?}: {e:?}"));
    f.apply(&o);
}

/// Terminates (FORCEFUL): no VM is left running.
async fn terminated(f: &mut Fixture, d: &OpenStackDriver) {
    let params = json!({"terminationType": "FORCEFUL"});
    done(f, d, LcmOperation::Terminate, params).await;
    assert!(f.sim.sim.engine.hosts.running().is_empty());
}

async fn instantiate_and_terminate(
    mut f: Fixture,
    params: serde_json::Value,
    expect: &[(&str, usize)],
) {
    let d = driver();
    done(&mut f, &d, LcmOperation::Instantiate, params).await;
    let vnfcs = f.vnfcs();
    for (vdu, n) in expect {
        assert_eq!(
            vnfcs.iter().filter(|v| v.0 == *vdu).count(),
            *n,
            "{vdu}: {vnfcs:?}"
        );
    }
    for (vdu, _, ip) in &vnfcs {
        let cp_ips = f
            .instance
            .instantiated_vnf_info
            .as_ref()
            .unwrap()
            .vnfc_resource_info
            .iter()
            .find(|r| r.vdu_id == *vdu)
            .map(|r| r.vnfc_cp_info.len())
            .unwrap_or(0);
        assert!(cp_ips > 0, "{vdu} reports no CP");
        if !ip.is_empty() {
            assert_eq!(ssh_hostname(ip).unwrap(), *vdu);
        }
    }
    terminated(&mut f, &d).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tacker_sample_basic_lcms_min_instantiates() {
    let root = need_samples!();
    let base = root.join("tests/functional/sol_v2_common");
    let csar = package(
        &base.join("basic_lcms_min/contents"),
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    );
    let f = Fixture::with_package(csar);
    instantiate_and_terminate(
        f,
        json!({"flavourId": "simple"}),
        &[("VDU1", 1), ("VDU2", 1)],
    )
    .await;
}

/// Upstream's v2 sample without its Base HOT: the HOT is built from the VNFD (VDU1 in an
/// autoscaling group of 1..3, VDU2 a server, both on the internal virtual link's network
/// with its subnet) and runs every operation: instantiate, scale out and in through
/// `desired_capacity`, heal of one VNFC, terminate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vnfd_without_base_hot_is_built_into_one_that_scales_and_heals() {
    let root = need_samples!();
    let base = root.join("tests/functional/sol_v2_common");
    let csar = package(
        &base.join("basic_lcms_min/contents"),
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    )
    .without("BaseHOT/simple/sample2.yaml")
    .without("BaseHOT/simple/nested/VDU1.yaml");
    let mut f = Fixture::with_package(csar);
    let d = driver();
    done(
        &mut f,
        &d,
        LcmOperation::Instantiate,
        json!({"flavourId": "simple"}),
    )
    .await;
    let count = |f: &Fixture, vdu: &str| f.vnfcs().iter().filter(|v| v.0 == vdu).count();
    assert_eq!((count(&f, "VDU1"), count(&f, "VDU2")), (1, 1));
    for (_, _, ip) in f.vnfcs() {
        assert!(!ip.is_empty(), "every VNFC has an address on internalVL3");
    }
    let subnet = {
        let st = f.sim.sim.engine.lock();
        st.stacks
            .values()
            .filter(|s| !s.deleted)
            .flat_map(|s| s.resources.iter())
            .find(|r| r.name == "internalVL3_subnet")
            .map(|r| r.properties["cidr"].clone())
    };
    assert_eq!(subnet, Some(json!("192.168.5.0/24")));
    let first = f.vnfcs();
    let scale = |kind: &str| json!({"type": kind, "aspectId": "VDU1_scale", "numberOfSteps": 1});
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_OUT")).await;
    assert_eq!(count(&f, "VDU1"), 2, "{:?}", f.vnfcs());
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 3);
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_IN")).await;
    assert_eq!(count(&f, "VDU1"), 1);
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 2);
    // Heal VDU2's VNFC only: it gets a new server, VDU1's stays.
    let vdu2 = f.vnfc_info_id("VDU2");
    done(
        &mut f,
        &d,
        LcmOperation::Heal,
        json!({"vnfcInstanceId": [vdu2]}),
    )
    .await;
    let now = f.vnfcs();
    let id_of = |l: &[(String, String, String)], vdu: &str| {
        l.iter().find(|v| v.0 == vdu).map(|v| v.1.clone())
    };
    assert_eq!(id_of(&now, "VDU1"), id_of(&first, "VDU1"));
    assert_ne!(id_of(&now, "VDU2"), id_of(&first, "VDU2"));
    terminated(&mut f, &d).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tacker_kubernetes_cluster_sample_base_hot_instantiates() {
    let root = need_samples!();
    let csar = package(
        &root.join("mgmt_driver/kubernetes/kubernetes_vnf_package"),
        Some(&root.join("tests/etc/samples/etsi/nfv/common/Definitions")),
        &[
            "Scripts/kubernetes_mgmt.py",
            "Scripts/install_k8s_cluster.sh",
            "Scripts/install_helm.sh",
            "Files/images/ubuntu-20.04-server-cloudimg-amd64.img",
        ],
    );
    let f = Fixture::with_package(csar);
    let params = json!({"flavourId": "simple", "extVirtualLinks": [
        tacker_testkit::vm::ext_virtual_link("net0", "sim-net", &["masterNode_CP1", "workerNode_CP2"])],
        "additionalParams": {"lcm-operation-user-data": "./UserData/k8s_cluster_user_data.py",
            "lcm-operation-user-data-class": "KubernetesClusterUserData"}});
    instantiate_and_terminate(f, params, &[("masterNode", 1), ("workerNode", 2)]).await;
}

/// Upstream's Kubernetes-cluster sample package (the v1 layout: fixed
/// `desired_capacity`, `OS::Heat::ScalingPolicy` per aspect and direction).
fn k8s_cluster_sample(root: &std::path::Path) -> tacker_testkit::csar::Csar {
    package(
        &root.join("mgmt_driver/kubernetes/kubernetes_vnf_package"),
        Some(&root.join("tests/etc/samples/etsi/nfv/common/Definitions")),
        &[
            "Scripts/kubernetes_mgmt.py",
            "Scripts/install_k8s_cluster.sh",
            "Scripts/install_helm.sh",
            "Files/images/ubuntu-20.04-server-cloudimg-amd64.img",
        ],
    )
}

fn scale(kind: &str, steps: u32) -> serde_json::Value {
    json!({"type": kind, "aspectId": "worker_instance", "numberOfSteps": steps})
}

fn cluster_params() -> serde_json::Value {
    json!({"flavourId": "simple", "extVirtualLinks": [
        tacker_testkit::vm::ext_virtual_link("net0", "sim-net", &["masterNode_CP1", "workerNode_CP2"])]})
}

fn workers(f: &Fixture) -> Vec<String> {
    f.vnfcs()
        .into_iter()
        .filter(|v| v.0 == "workerNode")
        .map(|v| v.1)
        .collect()
}

/// Upstream's v1 layout scales through its policies: scale out signals
/// `worker_instance_scale_out` once per step (2 workers become 4), scale in marks the
/// newest unhealthy and signals `worker_instance_scale_in` (back to 3, the oldest kept);
/// a later stack update (a heal) keeps the scaled size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstreams_scaling_policies_scale_the_cluster_sample() {
    let root = need_samples!();
    let mut f = Fixture::with_package(k8s_cluster_sample(&root));
    let d = driver();
    done(&mut f, &d, LcmOperation::Instantiate, cluster_params()).await;
    let first = workers(&f);
    assert_eq!(first.len(), 2);
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_OUT", 2)).await;
    let grown = workers(&f);
    assert_eq!(grown.len(), 4, "{grown:?}");
    assert!(
        first.iter().all(|w| grown.contains(w)),
        "the first two stay"
    );
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    let level = info
        .scale_status
        .iter()
        .find(|s| s.aspect_id == "worker_instance");
    assert_eq!(level.map(|s| s.scale_level), Some(2));
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 5);
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_IN", 1)).await;
    let shrunk = workers(&f);
    assert_eq!(shrunk.len(), 3, "{shrunk:?}");
    assert!(first.iter().all(|w| shrunk.contains(w)), "the oldest stay");
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 4);
    // Heal every VNFC (SOL003, a stack update): the group keeps its scaled size.
    done(&mut f, &d, LcmOperation::Heal, json!({})).await;
    assert_eq!(workers(&f).len(), 3);
    terminated(&mut f, &d).await;
}

/// A conductor that died after signalling a scale out, before its outcome was recorded,
/// left the group a step further than recorded: the retry (the same scale, from the
/// recorded level) signals only what is still missing, never beyond the level asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_policy_scale_signals_only_what_is_missing() {
    let root = need_samples!();
    let mut f = Fixture::with_package(k8s_cluster_sample(&root));
    let d = driver();
    done(&mut f, &d, LcmOperation::Instantiate, cluster_params()).await;
    // The scale signalled Heat, then its conductor died before the outcome was recorded.
    let unrecorded = f.ctx(LcmOperation::Scale, scale("SCALE_OUT", 1));
    d.scale(&unrecorded).await.unwrap();
    assert_eq!(workers(&f).len(), 2, "the instance still records two");
    // The retry: the same scale from the recorded level.
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_OUT", 1)).await;
    assert_eq!(workers(&f).len(), 3, "the level asked, not one beyond");
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 4);
    terminated(&mut f, &d).await;
}

/// The same layout without its policies sizes nothing through `nfv`: a scale changes
/// nothing there, and must fail saying so, not complete with no worker added.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scale_the_base_hot_does_not_follow_fails_with_the_reason() {
    let root = need_samples!();
    let csar = k8s_cluster_sample(&root).edit("BaseHOT/simple/simple_hot_top.yaml", |t| {
        t.replace("_scale_out:", "_grow:")
            .replace("_scale_in:", "_shrink:")
    });
    let mut f = Fixture::with_package(csar);
    let d = driver();
    done(&mut f, &d, LcmOperation::Instantiate, cluster_params()).await;
    assert_eq!(workers(&f).len(), 2);
    let e = d
        .scale(&f.ctx(LcmOperation::Scale, scale("SCALE_OUT", 1)))
        .await
        .unwrap_err();
    assert_eq!(e.status, 422, "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("workerNode has 2 VNFCs, 3 expected") && text.contains("ScalingPolicy"),
        "{text}"
    );
    // Nothing was recorded as scaled: the instance still has its two workers.
    assert_eq!(workers(&f).len(), 2);
    terminated(&mut f, &d).await;
}

/// The same layout instantiated at a level its fixed capacities do not have (3 masters
/// and 4 workers asked, 1 and 2 made): FAILED with the reason, never COMPLETED with
/// fewer VNFCs; the rollback removes what was made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instantiation_level_the_base_hot_does_not_make_fails_with_the_reason() {
    let root = need_samples!();
    let f = Fixture::with_package(k8s_cluster_sample(&root));
    let d = driver();
    let mut params = cluster_params();
    params["instantiationLevelId"] = json!("instantiation_level_2");
    let ctx = f.ctx(LcmOperation::Instantiate, params);
    let e = d.instantiate(&ctx).await.unwrap_err();
    assert_eq!(e.status, 422, "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("masterNode has 1 VNFCs, 3 expected")
            && text.contains("workerNode has 2 VNFCs, 4 expected"),
        "{text}"
    );
    d.rollback(&ctx).await.unwrap();
    assert!(f.sim.sim.engine.hosts.running().is_empty());
}

/// The top template of upstream's StandardUserData layout for the v2 sample: each VDU
/// named once as a nested template, read through `nfv` by VDU and CP name.
const STANDARD_TOP: &str = "heat_template_version: 2013-05-23
parameters:
  nfv: {type: json}
resources:
  VDU1:
    type: VDU1.yaml
    properties:
      flavor: { get_param: [ nfv, VDU, VDU1, computeFlavourId ] }
      image-VDU1: { get_param: [ nfv, VDU, VDU1, vcImageId ] }
      net: { get_resource: internalVL3 }
  VDU2:
    type: VDU2.yaml
    properties:
      flavor: { get_param: [ nfv, VDU, VDU2, computeFlavourId ] }
      image-VDU2: { get_param: [ nfv, VDU, VDU2, vcImageId ] }
      net: { get_resource: internalVL3 }
  internalVL3:
    type: OS::Neutron::Net
  internalVL3_subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: internalVL3}, cidr: 192.168.5.0/24}
";

/// A VDU's nested template in that layout: its server and port.
fn standard_nested(vdu: &str) -> String {
    format!(
        "heat_template_version: 2013-05-23
parameters:
  flavor: {{type: string}}
  image-{vdu}: {{type: string}}
  net: {{type: string}}
resources:
  {vdu}:
    type: OS::Nova::Server
    properties:
      flavor: {{ get_param: flavor }}
      image: {{ get_param: image-{vdu} }}
      name: {vdu}
      networks: [{{port: {{get_resource: {vdu}_CP1}}}}]
  {vdu}_CP1:
    type: OS::Neutron::Port
    properties: {{network: {{ get_param: net }}}}
"
    )
}

/// Upstream's v2 sample with its Base HOT in the StandardUserData layout.
pub fn standard_package(root: &std::path::Path) -> tacker_testkit::csar::Csar {
    let base = root.join("tests/functional/sol_v2_common");
    package(
        &base.join("basic_lcms_min/contents"),
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    )
    .without("BaseHOT/simple/nested/VDU1.yaml")
    .edit("BaseHOT/simple/sample2.yaml", |_| STANDARD_TOP.to_owned())
    .with("BaseHOT/simple/nested/VDU1.yaml", standard_nested("VDU1"))
    .with("BaseHOT/simple/nested/VDU2.yaml", standard_nested("VDU2"))
}

/// StandardUserData's instantiation parameters.
pub fn standard_params() -> serde_json::Value {
    json!({"flavourId": "simple", "additionalParams": {
        "lcm-operation-user-data": "./UserData/userdata_standard.py",
        "lcm-operation-user-data-class": "StandardUserData"}})
}

/// The image the server of copy `copy` (`VDU1-1`) was made with.
fn image_of_copy(f: &Fixture, copy: &str) -> Option<serde_json::Value> {
    let st = f.sim.sim.engine.lock();
    let nested = st
        .stacks
        .values()
        .filter(|s| !s.deleted)
        .flat_map(|s| s.resources.iter())
        .find(|r| r.name == copy)?
        .nested?;
    let s = st.stacks.get(&nested)?;
    s.resources
        .iter()
        .find(|r| r.kind == "OS::Nova::Server")
        .map(|r| r.properties["image"].clone())
}

/// StandardUserData (upstream's v2 VM layout): one nested stack per VNFC, `VDU1-0..n`;
/// one VNFC's own image from `additionalParams.nfv`; scale out adds copies at the next
/// indexes and scale in removes the newest copy; a heal replaces only that VNFC's nested
/// stack; rollback of a scale out removes the added copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standard_user_data_runs_one_nested_stack_per_vnfc() {
    let root = need_samples!();
    let mut f = Fixture::with_package(standard_package(&root));
    let d = driver();
    // internalVL3 on an existing network (extManagedVirtualLinks).
    let params = json!({"flavourId": "simple", "additionalParams": {
        "lcm-operation-user-data": "./UserData/userdata_standard.py",
        "lcm-operation-user-data-class": "StandardUserData",
        "nfv": {"VDU": {"VDU1-1": {"vcImageId": "special-image"}}}},
        "extManagedVirtualLinks": [{"id": "mgmt", "vnfVirtualLinkDescId": "internalVL3",
            "resourceId": "existing-net"}]});
    done(&mut f, &d, LcmOperation::Instantiate, params).await;
    let on_existing_net = |f: &Fixture| {
        let st = f.sim.sim.engine.lock();
        let all: Vec<_> = st
            .stacks
            .values()
            .filter(|s| !s.deleted)
            .flat_map(|s| s.resources.iter())
            .collect();
        !all.iter().any(|r| r.name.starts_with("internalVL3"))
            && all
                .iter()
                .filter(|r| r.kind == "OS::Neutron::Port")
                .all(|r| r.properties["network"] == "existing-net")
    };
    assert!(
        on_existing_net(&f),
        "the VNF's ports on the existing network"
    );
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    assert_eq!(
        info.other["extManagedVirtualLinkInfo"][0]["networkResource"]["resourceId"],
        "existing-net"
    );
    let index_of = |f: &Fixture, vdu: &str| -> Vec<u64> {
        let info = f.instance.instantiated_vnf_info.as_ref().unwrap();
        let mut v: Vec<u64> = info
            .vnfc_resource_info
            .iter()
            .filter(|r| r.vdu_id == vdu)
            .map(|r| r.metadata["vdu_idx"].as_u64().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        (index_of(&f, "VDU1"), index_of(&f, "VDU2")),
        (vec![0], vec![0])
    );
    assert_eq!(
        image_of_copy(&f, "VDU1-0"),
        Some(json!("cirros-0.5.2-x86_64-disk"))
    );
    for (vdu, _, ip) in f.vnfcs() {
        assert_eq!(ssh_hostname(&ip).unwrap(), vdu, "{ip} answers SSH");
    }

    let scale = |kind: &str| json!({"type": kind, "aspectId": "VDU1_scale", "numberOfSteps": 1});
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_OUT")).await;
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_OUT")).await;
    assert_eq!(index_of(&f, "VDU1"), vec![0, 1, 2]);
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 4);
    assert!(
        on_existing_net(&f),
        "the template replaced by scaling keeps the network"
    );
    // VDU1-1 got the image given for it alone; the others the VDU's.
    assert_eq!(image_of_copy(&f, "VDU1-1"), Some(json!("special-image")));
    assert_eq!(
        image_of_copy(&f, "VDU1-2"),
        Some(json!("cirros-0.5.2-x86_64-disk"))
    );

    // Heal VDU1-1's VNFC: only its nested stack is replaced.
    let before = f.vnfcs();
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    let copy1 = info
        .vnfc_resource_info
        .iter()
        .find(|r| r.metadata["vdu_idx"] == 1)
        .unwrap()
        .id
        .clone();
    let vnfc1 = info
        .vnfc_info
        .iter()
        .find(|c| c.vnfc_resource_info_id == copy1)
        .unwrap()
        .id
        .clone();
    let stack_of = |f: &Fixture, copy: &str| {
        let st = f.sim.sim.engine.lock();
        st.stacks
            .values()
            .filter(|s| !s.deleted)
            .flat_map(|s| s.resources.iter())
            .find(|r| r.name == copy)
            .and_then(|r| r.nested)
    };
    let (s0, s1) = (stack_of(&f, "VDU1-0"), stack_of(&f, "VDU1-1"));
    done(
        &mut f,
        &d,
        LcmOperation::Heal,
        json!({"vnfcInstanceId": [vnfc1]}),
    )
    .await;
    assert_eq!(stack_of(&f, "VDU1-0"), s0, "VDU1-0 untouched");
    assert_ne!(stack_of(&f, "VDU1-1"), s1, "VDU1-1 replaced");
    let after = f.vnfcs();
    let changed: Vec<_> = before
        .iter()
        .filter(|b| !after.iter().any(|a| a.1 == b.1))
        .collect();
    assert_eq!(changed.len(), 1, "one VNFC replaced: {changed:?}");
    assert_eq!(changed[0].1, copy1);
    assert_eq!(index_of(&f, "VDU1"), vec![0, 1, 2]);
    assert_eq!(image_of_copy(&f, "VDU1-1"), Some(json!("special-image")));

    // Scale in: the newest VM goes, as in every layout — here VDU1-1's, made by the heal.
    done(&mut f, &d, LcmOperation::Scale, scale("SCALE_IN")).await;
    assert_eq!(index_of(&f, "VDU1"), vec![0, 2]);
    assert!(stack_of(&f, "VDU1-1").is_none());
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 3);

    // A scale out takes the lowest free index; one whose outcome is not recorded, then
    // rolled back: the copy goes again.
    let unrecorded = f.ctx(LcmOperation::Scale, scale("SCALE_OUT"));
    d.scale(&unrecorded).await.unwrap();
    assert!(stack_of(&f, "VDU1-1").is_some());
    let rollback = f.ctx(LcmOperation::Scale, scale("SCALE_OUT"));
    d.rollback(&rollback).await.unwrap();
    assert!(stack_of(&f, "VDU1-1").is_none());
    assert_eq!(f.sim.sim.engine.hosts.running().len(), 3);
    terminated(&mut f, &d).await;
}
