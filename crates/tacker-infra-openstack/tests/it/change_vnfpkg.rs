//! CHANGE_VNFPKG of VM VNFs: every VM moves to the new package's image (Heat replaces
//! it), the VNFCs run as before; a rollback puts the old package's image back.

use serde_json::json;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::InfraDriver;

use crate::fixture::{Fixture, instantiate_params, ssh_hostname};
use crate::lifecycle::driver;
use crate::samples::{standard_package, standard_params};

/// The request, moving to `vnfd_id`.
fn change(vnfd_id: &str) -> serde_json::Value {
    json!({"vnfdId": vnfd_id, "additionalParams": {"upgrade_type": "RollingUpdate"}})
}

/// `csar` under another VNFD id whose VDUs boot `image`.
fn upgraded(
    csar: tacker_testkit::csar::Csar,
    old_id: &str,
    old_image: &str,
    image: &str,
) -> (tacker_testkit::csar::Csar, String) {
    let new_id = uuid::Uuid::new_v4().to_string();
    let names: Vec<String> = csar.files.iter().map(|(n, _)| n.clone()).collect();
    let mut c = csar;
    for n in names.iter().filter(|n| n.starts_with("Definitions/")) {
        let (o, i, ni, nm) = (
            old_id.to_owned(),
            old_image.to_owned(),
            new_id.clone(),
            image.to_owned(),
        );
        c = c.edit(n, move |t| t.replace(&o, &ni).replace(&i, &nm));
    }
    (c, new_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vm_vnf_moves_to_the_new_package_and_back() {
    let mut f = Fixture::new();
    let d = driver();
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, instantiate_params()))
        .await
        .unwrap();
    f.apply(&o);
    let before = f.vnfcs();
    f.assert_all_on("ubuntu-22.04");
    let (csar, new_id) = upgraded(
        tacker_testkit::vm::vm(),
        &f.model.vnfd.vnfd_id,
        "ubuntu-22.04",
        "ubuntu-24.04",
    );
    let (target, _dir) = Fixture::target(&csar);
    let mut ctx = f.ctx(LcmOperation::ChangeVnfpkg, change(&new_id));
    ctx.target = Some(target);
    // A change whose outcome was never recorded (a later step failed), rolled back: the
    // VMs run the old package's image again.
    d.change_vnfpkg(&ctx).await.unwrap();
    f.assert_all_on("ubuntu-24.04");
    d.rollback(&ctx).await.unwrap();
    f.assert_all_on("ubuntu-22.04");
    // The change again, recorded.
    let o = d.change_vnfpkg(&ctx).await.unwrap();
    f.apply(&o);
    let after = f.vnfcs();
    assert_eq!(after.len(), before.len());
    assert!(
        after.iter().all(|a| !before.iter().any(|b| b.1 == a.1)),
        "every VM replaced: {before:?} {after:?}"
    );
    f.assert_all_on("ubuntu-24.04");
    for (vdu, _, ip) in &after {
        assert_eq!(ssh_hostname(ip).unwrap(), *vdu);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standard_user_data_vnf_moves_vnfc_by_vnfc_and_a_failure_half_way_rolls_back() {
    let root = crate::need_samples!();
    let mut f = Fixture::with_package(standard_package(&root));
    let d = driver();
    let mut params = standard_params();
    params["instantiationLevelId"] = json!("instantiation_level_2");
    let o = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params))
        .await
        .unwrap();
    f.apply(&o);
    let before = f.vnfcs();
    assert_eq!(before.len(), 4, "three VDU1 and a VDU2: {before:?}");
    let (csar, new_id) = upgraded(
        standard_package(&root),
        &f.model.vnfd.vnfd_id,
        "name: cirros-0.5.2-x86_64-disk",
        "name: cirros-0.6.2-x86_64-disk",
    );
    let (target, _dir) = Fixture::target(&csar);
    let mut ctx = f.ctx(LcmOperation::ChangeVnfpkg, change(&new_id));
    ctx.target = Some(target);
    // VDU2's VM fails to build on the new image: the VDU1 copies moved one by one
    // before it, so the fault lands half-way; the change fails with Heat's reason.
    *f.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("VDU2".into()),
        fail_times: Some(1),
        fail_reason: Some("No valid host was found".into()),
        ..Default::default()
    };
    let e = d.change_vnfpkg(&ctx).await.unwrap_err();
    assert!(e.detail.contains("No valid host was found"), "{e:?}");
    let images = f.server_images();
    let moved = images
        .iter()
        .filter(|(_, i)| i == "cirros-0.6.2-x86_64-disk")
        .count();
    assert_eq!(
        moved, 3,
        "the three VDU1 copies moved before VDU2 failed: {images:?}"
    );
    // Rolled back: every VM on the old package's image again, four VNFCs answering.
    let back = d.rollback(&ctx).await.unwrap();
    f.apply(&back);
    f.assert_all_on("cirros-0.5.2-x86_64-disk");
    assert_eq!(f.vnfcs().len(), 4);
    for (vdu, _, ip) in f.vnfcs() {
        assert_eq!(ssh_hostname(&ip).unwrap(), vdu);
    }
    // The change again, the fault gone: every VNFC on the new package.
    let before = f.vnfcs();
    let o = d.change_vnfpkg(&ctx).await.unwrap();
    f.apply(&o);
    let after = f.vnfcs();
    assert_eq!(after.len(), 4);
    assert!(after.iter().all(|a| !before.iter().any(|b| b.1 == a.1)));
    f.assert_all_on("cirros-0.6.2-x86_64-disk");
    // The indexes stay: each VNFC is the same copy on the new package.
    let info = f.instance.instantiated_vnf_info.clone().unwrap();
    let mut idx: Vec<String> = info
        .vnfc_resource_info
        .iter()
        .map(|r| format!("{}-{}", r.vdu_id, r.metadata["vdu_idx"]))
        .collect();
    idx.sort();
    assert_eq!(idx, ["VDU1-0", "VDU1-1", "VDU1-2", "VDU2-0"]);
}
