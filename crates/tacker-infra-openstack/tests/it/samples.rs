//! Upstream Tacker's sample packages instantiate on heat-sim (their Python artifacts as
//! placeholders: we never run them).

use serde_json::json;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::InfraDriver;
use tacker_testkit::samples::{package, samples_dir};

use crate::fixture::{Fixture, ssh_hostname};
use crate::lifecycle::driver;

macro_rules! need_samples {
    () => {
        match samples_dir() {
            Some(d) => d,
            None => {
                eprintln!("SKIPPED: reference samples not found; set TACKER_SAMPLES_DIR");
                return;
            }
        }
    };
}

async fn instantiate_and_terminate(
    mut f: Fixture,
    params: serde_json::Value,
    expect: &[(&str, usize)],
) {
    let d = driver();
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params))
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    f.apply(&o);
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
    let o = d
        .terminate(&f.ctx(
            LcmOperation::Terminate,
            json!({"terminationType": "FORCEFUL"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(f.sim.sim.engine.hosts.running().is_empty());
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

/// Upstream's v1 layout sizes its groups with a fixed `desired_capacity` and scales them
/// through `OS::Heat::ScalingPolicy` signals: a scale through `nfv` changes nothing
/// there, and must fail saying so, not complete with no worker added.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scale_the_base_hot_does_not_follow_fails_with_the_reason() {
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
    let mut f = Fixture::with_package(csar);
    let d = driver();
    let params = json!({"flavourId": "simple", "extVirtualLinks": [
        tacker_testkit::vm::ext_virtual_link("net0", "sim-net", &["masterNode_CP1", "workerNode_CP2"])]});
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params))
        .await
        .unwrap_or_else(|e| panic!("{e:?}"));
    f.apply(&o);
    let workers = |f: &Fixture| f.vnfcs().iter().filter(|v| v.0 == "workerNode").count();
    assert_eq!(workers(&f), 2);
    let e = d
        .scale(&f.ctx(
            LcmOperation::Scale,
            json!({"type": "SCALE_OUT", "aspectId": "worker_instance", "numberOfSteps": 1}),
        ))
        .await
        .unwrap_err();
    assert_eq!(e.status, 422, "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("workerNode has 2 VNFCs, 3 expected") && text.contains("ScalingPolicy"),
        "{text}"
    );
    // Nothing was recorded as scaled: the instance still has its two workers.
    assert_eq!(workers(&f), 2);
    let o = d
        .terminate(&f.ctx(
            LcmOperation::Terminate,
            json!({"terminationType": "FORCEFUL"}),
        ))
        .await
        .unwrap();
    f.apply(&o);
    assert!(f.sim.sim.engine.hosts.running().is_empty());
}

/// The same layout instantiated at a level its fixed capacities do not have (3 masters
/// and 4 workers asked, 1 and 2 made): FAILED with the reason, never COMPLETED with
/// fewer VNFCs; the rollback removes what was made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instantiation_level_the_base_hot_does_not_make_fails_with_the_reason() {
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
    let d = driver();
    let params = json!({"flavourId": "simple", "instantiationLevelId": "instantiation_level_2",
        "extVirtualLinks": [tacker_testkit::vm::ext_virtual_link(
            "net0", "sim-net", &["masterNode_CP1", "workerNode_CP2"])]});
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
