use tacker_domain::vnfd::ArtifactKind;

use crate::fixtures::{Check, Csar, sha256, valid};

#[test]
fn a_package_declares_its_secret_parameters() {
    let declaring = tacker_testkit::csar::declaring_secret(valid(), "db_login");
    let v = declaring.validate().unwrap();
    assert_eq!(v.model.vnfd.secret_params, ["db_login"]);
    assert!(
        valid()
            .validate()
            .unwrap()
            .model
            .vnfd
            .secret_params
            .is_empty()
    );
}

#[test]
fn a_valid_package_yields_the_vnfd_model() {
    let v = valid().validate().unwrap();
    assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    let m = v.model;
    let d = &m.vnfd;
    assert_eq!(d.vnfd_id, "11111111-2222-3333-4444-555555555555");
    assert_eq!(d.provider, "Test Provider");
    assert_eq!(d.product_name, "Test CNF");
    assert_eq!(d.software_version, "1.5");
    assert_eq!(d.descriptor_version, "2.1");
    assert_eq!(d.vnfm_info, ["Tacker"]);
    assert_eq!(d.entry_definitions, "Definitions/test_top.vnfd.yaml");
    assert_eq!(d.definitions.len(), 4);
    let ids: Vec<&str> = d.flavours.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["simple", "large"]);

    let simple = d.flavour("simple").unwrap();
    assert_eq!(simple.description, "Simple flavour");
    assert_eq!(
        simple
            .vdus
            .iter()
            .map(|v| v.id.as_str())
            .collect::<Vec<_>>(),
        ["VDU1", "VDU2"]
    );
    let vdu1 = simple.vdu("VDU1").unwrap();
    assert_eq!(vdu1.name, "vdu1-deployment");
    assert_eq!((vdu1.min_instances, vdu1.max_instances), (1, 3));
    assert_eq!(vdu1.initial_delta, Some(1));
    assert_eq!(vdu1.scaling_deltas["vdu1_aspect"]["delta_1"], 1);
    assert_eq!(vdu1.instantiation_levels["instantiation_level_2"], 3);
    let img = vdu1.sw_image.as_ref().unwrap();
    assert_eq!(img.artifact.as_deref(), Some("Files/images/test.img"));
    assert_eq!(img.disk_format, "qcow2");
    assert_eq!(simple.vdu("VDU2").unwrap().storages, ["VirtualStorage"]);
    assert_eq!(simple.storages[0].size, "1 GB");
    assert_eq!(simple.cps[0].vdu.as_deref(), Some("VDU1"));
    assert_eq!(simple.cps[0].virtual_link.as_deref(), Some("internalVL1"));
    assert_eq!(simple.virtual_links[0].layer_protocols, ["ipv4"]);
    assert_eq!(simple.scaling_aspects[0].max_scale_level, 2);
    assert_eq!(
        simple.default_instantiation_level.as_deref(),
        Some("instantiation_level_1")
    );
    assert_eq!(simple.instantiation_levels[1].scale_info["vdu1_aspect"], 2);
    let hook = simple.hook("heal_end").unwrap();
    assert_eq!(hook.artifact.as_deref(), Some("mgmt-driver"));
    assert_eq!(hook.artifact_path.as_deref(), Some("Scripts/mgmt.py"));
    assert_eq!(hook.inputs["retries"], 3);
    assert!(simple.hook("instantiate_end").is_some() && simple.hook("scale_end").is_none());
    assert_eq!(
        d.flavour("large")
            .unwrap()
            .vdu("VDU1")
            .unwrap()
            .min_instances,
        2
    );

    let kinds: Vec<(&str, ArtifactKind, bool)> = m
        .artifacts
        .iter()
        .map(|a| (a.path.as_str(), a.kind, a.verified))
        .collect();
    assert_eq!(
        kinds,
        [
            ("Files/images/test.img", ArtifactKind::SwImage, true),
            (
                "Files/kubernetes/deployment.yaml",
                ArtifactKind::Other,
                true
            ),
            ("Scripts/mgmt.py", ArtifactKind::Implementation, true),
        ]
    );
    let img = &m.artifacts[0];
    assert_eq!(img.size, 4096);
    assert_eq!(img.checksum.algorithm, "SHA-256");
    assert_eq!(img.checksum.hash, sha256(&[7u8; 4096]));
    assert_eq!(m.manifest_metadata["vnf_provider_id"], "Test Provider");
}

#[test]
fn the_form_without_tosca_metadata_reads_the_root_yaml_and_its_manifest() {
    let top = "tosca_definitions_version: tosca_simple_yaml_1_2\nimports: [Definitions/test_types.yaml, Definitions/test_df_simple.yaml]\ntopology_template:\n  node_templates:\n    VNF:\n      type: test.provider.VNF\n";
    let csar = valid()
        .without("TOSCA-Metadata/TOSCA.meta")
        .without("test_top.vnfd.mf")
        .without("Definitions/test_top.vnfd.yaml")
        .with("vnfd.yaml", top);
    let mf = format!(
        "metadata:\nvnf_provider_id: P\nvnf_product_name: N\nvnf_release_date_time: 2026-01-01T00:00:00Z\nvnf_package_version: 1\n\nSource: vnfd.yaml\nAlgorithm: sha-256\nHash: {}\n",
        sha256(top.as_bytes())
    );
    let v = csar.with("vnfd.mf", mf).validate().unwrap();
    assert_eq!(v.model.vnfd.entry_definitions, "vnfd.yaml");
    assert_eq!(v.model.vnfd.flavours.len(), 1);
}

#[test]
fn every_sha2_algorithm_is_checked_and_urls_are_reported_not_fetched() {
    use sha2::Digest;
    let body = valid().get("Files/kubernetes/deployment.yaml");
    let csar = valid().edit("test_top.vnfd.mf", |mf| {
        format!(
            "{mf}\nSource: Files/kubernetes/deployment.yaml\nAlgorithm: sha-224\nHash: {}\n\nSource: Files/kubernetes/deployment.yaml\nAlgorithm: Sha384\nHash: {}\n\nSource: Files/kubernetes/deployment.yaml\nAlgorithm: SHA512\nHash: {}\n\nSource: https://images.example.com/big.qcow2\nAlgorithm: SHA-256\nHash: 00\n",
            hex::encode(sha2::Sha224::digest(body.as_bytes())),
            hex::encode(sha2::Sha384::digest(body.as_bytes())).to_uppercase(),
            hex::encode(sha2::Sha512::digest(body.as_bytes())),
        )
    });
    let v = csar.validate().unwrap();
    assert_eq!(
        v.model.external_sources,
        ["https://images.example.com/big.qcow2"]
    );
    // A wrong SHA-384 among them is caught.
    let bad = valid().edit("test_top.vnfd.mf", |mf| {
        format!(
            "{mf}\nSource: Files/kubernetes/deployment.yaml\nAlgorithm: SHA-384\nHash: {}\n",
            "ab".repeat(48)
        )
    });
    crate::fixtures::assert_problem(
        &bad.problems(),
        &["deployment.yaml: Hash", "SHA-384 digest mismatch"],
    );
}

#[test]
fn common_mistakes_are_warnings_not_errors() {
    let csar = valid()
        .edit("Definitions/test_df_simple.yaml", |d| {
            d.replace("          heal_end:", "          heal_finish:")
        })
        .with("Files/extra/notes.txt", "not listed anywhere");
    let csar = crate::fixtures::sealed(csar);
    let v = csar.validate().unwrap();
    let w: Vec<String> = v.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter()
            .any(|w| w.contains("Vnflcm.heal_finish") && w.contains("never run")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.contains("Files/extra/notes.txt") && w.contains("no digest declared")),
        "{w:?}"
    );
    assert_eq!(v.model.warnings.len(), v.warnings.len());
}

#[test]
fn artifacts_named_from_the_package_root_are_found_with_a_warning() {
    let csar = crate::fixtures::sealed(valid().edit("Definitions/test_df_simple.yaml", |d| {
        d.replace("file: ../Scripts/mgmt.py", "file: Scripts/mgmt.py")
    }));
    let v = csar.validate().unwrap();
    let hook = v
        .model
        .vnfd
        .flavour("simple")
        .unwrap()
        .hook("instantiate_end")
        .unwrap()
        .clone();
    assert_eq!(hook.artifact_path.as_deref(), Some("Scripts/mgmt.py"));
    assert!(v.warnings.iter().any(|w| w.reason.contains("package root")));
}

#[test]
fn csar_is_extracted_safely() {
    let bytes = valid().zip();
    let mut a =
        tacker_csar::Archive::open(std::io::Cursor::new(bytes), &tacker_csar::Limits::default())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    a.extract_to(dir.path()).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("Files/kubernetes/deployment.yaml")).unwrap(),
        crate::fixtures::DEPLOYMENT
    );
    let _ = Csar::default();
}

#[test]
fn every_file_location_reads_back_from_the_zip_bytes() {
    use std::io::Read;
    let csar = valid();
    let bytes = csar.zip();
    let v = tacker_csar::validate_reader(
        std::io::Cursor::new(bytes.clone()),
        &tacker_csar::Limits::default(),
    )
    .unwrap();
    assert_eq!(v.model.manifest.as_deref(), Some("test_top.vnfd.mf"));
    assert_eq!(v.model.entries.len(), csar.files.len());
    for (name, content) in &csar.files {
        let loc = v.model.entries[name];
        let raw = &bytes[loc.offset as usize..(loc.offset + loc.stored_size) as usize];
        let mut out = Vec::new();
        if loc.deflated {
            flate2::read::DeflateDecoder::new(raw)
                .read_to_end(&mut out)
                .unwrap();
        } else {
            out.extend_from_slice(raw);
        }
        assert_eq!(&out, content, "{name}");
        assert_eq!(loc.size, content.len() as u64);
    }
}
