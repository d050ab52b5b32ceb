//! Upstream Tacker's sample package trees, zipped the way Tacker's own tooling does
//! (with the common SOL001 type files added, placeholder scripts and images created,
//! `<Calculated value here>` digests computed).

use std::path::{Path, PathBuf};

use tacker_domain::vnfd::ArtifactKind;

use crate::fixtures::{Check, Csar, sha256};

/// `$TACKER_SAMPLES_DIR`, or `shared/reference/tacker-samples` beside a parent directory.
fn samples_dir() -> Option<PathBuf> {
    if let Ok(d) = std::env::var("TACKER_SAMPLES_DIR") {
        return Some(PathBuf::from(d));
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/reference/tacker-samples"))
        .find(|p| p.is_dir())
}

fn add_tree(mut csar: Csar, root: &Path, dir: &Path) -> Csar {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            csar = add_tree(csar, root, &p);
        } else {
            let name = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            csar = csar.with(&name, std::fs::read(&p).unwrap());
        }
    }
    csar
}

/// Zips `contents`, adds `common` type files under Definitions/, creates the files the
/// sample omits (scripts, images) and fills in placeholder digests.
fn package(contents: &Path, common: Option<&Path>, missing: &[&str]) -> Csar {
    let mut csar = add_tree(Csar::default(), contents, contents);
    if let Some(common) = common {
        for e in std::fs::read_dir(common).unwrap() {
            let p = e.unwrap().path();
            let name = format!("Definitions/{}", p.file_name().unwrap().to_string_lossy());
            if !csar.files.iter().any(|(n, _)| *n == name) {
                csar = csar.with(&name, std::fs::read(&p).unwrap());
            }
        }
    }
    for m in missing {
        csar = csar.with(m, format!("placeholder for {m}\n"));
    }
    // TOSCA.meta digests of files we created (or of `<Calculated value here>`).
    let files = csar.files.clone();
    csar.edit("TOSCA-Metadata/TOSCA.meta", |meta| {
        let mut out = String::new();
        let mut current: Option<String> = None;
        for line in meta.lines() {
            if let Some(n) = line.strip_prefix("Name:") {
                current = Some(n.trim().to_owned());
            }
            let fixed = match (line.strip_prefix("Hash:"), &current) {
                (Some(_), Some(name))
                    if missing.contains(&name.as_str()) || line.contains("<Calculated") =>
                {
                    let data = &files.iter().find(|(n, _)| n == name).unwrap().1;
                    format!("Hash: {}", sha256(data))
                }
                _ => line.to_owned(),
            };
            out.push_str(&fixed);
            out.push('\n');
        }
        out
    })
}

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
