//! Upstream Tacker's sample package trees, zipped the way Tacker's own tooling does
//! (with the common SOL001 type files added, placeholder scripts and images created,
//! `<Calculated value here>` digests computed).

use tacker_domain::vnfd::ArtifactKind;

use tacker_testkit::samples::{package, samples_dir};

use crate::fixtures::{Check, Csar};

struct Expect {
    vnfd_id: &'static str,
    flavours: &'static [&'static str],
    vdus: &'static [&'static str],
    hooks: &'static [&'static str],
}

fn check(csar: &Csar, e: &Expect) -> tacker_domain::vnfd::PackageModel {
    let v = csar.validate().unwrap_or_else(|err| panic!("{err}"));
    let d = &v.model.vnfd;
    assert_eq!(d.vnfd_id, e.vnfd_id);
    let mut fl: Vec<&str> = d.flavours.iter().map(|f| f.id.as_str()).collect();
    fl.sort();
    assert_eq!(fl, e.flavours);
    let first = &d.flavours[0];
    let vdus: Vec<&str> = first.vdus.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(vdus, e.vdus);
    let hooks: Vec<&str> = first.hooks.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(hooks, e.hooks);
    v.model
}

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

#[test]
fn cnf_sample_test_instantiate_cnf_resources() {
    let root = need_samples!();
    let base = root.join("tests/functional/sol_kubernetes_v2");
    let csar = package(
        &base.join("test_instantiate_cnf_resources/contents"),
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    );
    let m = check(
        &csar,
        &Expect {
            vnfd_id: "b1bb0ce7-ebca-4fa7-95ed-4840d7000000",
            flavours: &["simple"],
            vdus: &["VDU1", "VDU2", "VDU3", "VDU5", "VDU6"],
            hooks: &[
                "heal_end",
                "heal_start",
                "instantiate_end",
                "instantiate_start",
                "modify_information_end",
                "modify_information_start",
                "scale_end",
                "scale_start",
                "terminate_end",
                "terminate_start",
            ],
        },
    );
    let f = &m.vnfd.flavours[0];
    assert_eq!(f.vdu("VDU2").unwrap().name, "vdu2");
    assert_eq!(
        f.vdu("VDU2").unwrap().instantiation_levels["instantiation_level_2"],
        3
    );
    assert_eq!(
        f.hook("instantiate_start")
            .unwrap()
            .artifact_path
            .as_deref(),
        Some("Scripts/sample_script.py")
    );
    let k8s = m
        .artifacts
        .iter()
        .filter(|a| a.path.starts_with("Files/kubernetes/"))
        .count();
    assert_eq!(k8s, 28);
    assert!(
        m.artifacts
            .iter()
            .filter(|a| a.path.starts_with("Files/kubernetes/"))
            .all(|a| a.verified)
    );
}

#[test]
fn v2_sample_basic_lcms_min() {
    let root = need_samples!();
    let base = root.join("tests/functional/sol_v2_common");
    let csar = package(
        &base.join("basic_lcms_min/contents"),
        Some(&base.join("common/Definitions")),
        &["Scripts/sample_script.py"],
    );
    let m = check(
        &csar,
        &Expect {
            vnfd_id: "b1bb0ce7-ebca-4fa7-95ed-4840d7000000",
            flavours: &["simple"],
            vdus: &["VDU1", "VDU2"],
            hooks: &[
                "change_external_connectivity_start",
                "instantiate_end",
                "instantiate_start",
                "modify_information_start",
                "terminate_end",
                "terminate_start",
            ],
        },
    );
    let vdu1 = m.vnfd.flavours[0].vdu("VDU1").unwrap();
    assert_eq!(
        vdu1.sw_image.as_ref().unwrap().name,
        "cirros-0.5.2-x86_64-disk"
    );
}

#[test]
fn mgmt_driver_private_registry_package() {
    let root = need_samples!();
    let csar = package(
        &root.join("mgmt_driver/kubernetes/private_registry_vnf_package"),
        None,
        &[
            "Scripts/private_registry_mgmt.py",
            "Files/images/ubuntu-20.04-server-cloudimg-amd64.img",
        ],
    );
    let m = check(
        &csar,
        &Expect {
            vnfd_id: "b1bb0ce7-ebca-4fa7-95ed-4840d70a1189",
            flavours: &["simple"],
            vdus: &["PrivateRegistryVDU"],
            hooks: &["heal_end", "instantiate_end"],
        },
    );
    let img = m
        .artifacts
        .iter()
        .find(|a| a.path.ends_with(".img"))
        .unwrap();
    assert_eq!(img.kind, ArtifactKind::SwImage);
    let script = m
        .artifacts
        .iter()
        .find(|a| a.path.ends_with("private_registry_mgmt.py"))
        .unwrap();
    assert_eq!(script.kind, ArtifactKind::Implementation);
}

#[test]
fn mgmt_driver_kubernetes_cluster_package() {
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
    let v = csar.validate().unwrap_or_else(|e| panic!("{e}"));
    let mut fl: Vec<&str> = v
        .model
        .vnfd
        .flavours
        .iter()
        .map(|f| f.id.as_str())
        .collect();
    fl.sort();
    assert_eq!(fl, ["complex", "podaffinity", "simple"]);
    let simple = v.model.vnfd.flavour("simple").unwrap();
    assert_eq!(
        simple
            .vdus
            .iter()
            .map(|v| v.id.as_str())
            .collect::<Vec<_>>(),
        ["masterNode", "workerNode"]
    );
    assert!(simple.hook("instantiate_end").is_some() && simple.hook("scale_end").is_some());
    assert_eq!(
        simple
            .hook("instantiate_end")
            .unwrap()
            .artifact_path
            .as_deref(),
        Some("Scripts/kubernetes_mgmt.py")
    );
}
