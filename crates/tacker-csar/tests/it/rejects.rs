//! Every rejection the issue lists, with the file, key and reason it reports.

use crate::fixtures::{Check, Csar, assert_problem, sealed, sha256, valid};

const META: &str = "TOSCA-Metadata/TOSCA.meta";
const MF: &str = "test_top.vnfd.mf";
const DF: &str = "Definitions/test_df_simple.yaml";

#[test]
fn missing_tosca_meta_keys() {
    let p = valid()
        .edit(META, |m| m.replace("Created-By: tacker tests\n", ""))
        .problems();
    assert_problem(&p, &["TOSCA-Metadata/TOSCA.meta: Created-By: missing"]);
    let p = valid()
        .edit(META, |m| {
            m.replace("Entry-Definitions: Definitions/test_top.vnfd.yaml\n", "")
        })
        .problems();
    assert_problem(&p, &["Entry-Definitions: missing"]);
}

#[test]
fn entry_definitions_target_missing() {
    let p = valid()
        .edit(META, |m| {
            m.replace("Definitions/test_top.vnfd.yaml", "Definitions/nope.yaml")
        })
        .problems();
    assert_problem(
        &p,
        &[
            "Entry-Definitions",
            "\"Definitions/nope.yaml\" is not in the package",
        ],
    );
}

#[test]
fn manifest_block_missing_a_field_or_with_an_empty_value() {
    let p = valid()
        .edit(MF, |m| m.replacen("Algorithm: SHA-256\n", "", 1))
        .problems();
    assert_problem(
        &p,
        &[
            "test_top.vnfd.mf",
            "Definitions/test_top.vnfd.yaml: Algorithm: missing",
        ],
    );
    let p = valid()
        .edit(MF, |m| m.replacen("Algorithm: SHA-256", "Algorithm:", 1))
        .problems();
    assert_problem(&p, &["Algorithm: empty value"]);
    let p = valid()
        .edit(MF, |m| {
            m.replacen("Source: Definitions/test_top.vnfd.yaml\n", "", 1)
        })
        .problems();
    assert_problem(&p, &["test_top.vnfd.mf", "Source: missing"]);
    let p = valid()
        .edit(MF, |m| {
            format!("{m}\nSource: Scripts/mgmt.py\nAlgorithm: SHA-256\nHash:\n")
        })
        .problems();
    assert_problem(&p, &["Scripts/mgmt.py: Hash: empty value"]);
}

#[test]
fn unknown_algorithm() {
    let p = valid()
        .edit(MF, |m| {
            m.replacen("Algorithm: SHA-256", "Algorithm: MD5", 1)
        })
        .problems();
    assert_problem(&p, &["test_top.vnfd.mf", "unknown algorithm \"MD5\""]);
}

#[test]
fn digest_mismatch_names_the_file_and_both_digests() {
    let csar = valid();
    let original = sha256(csar.get("Files/kubernetes/deployment.yaml").as_bytes());
    let p = csar
        .with("Files/kubernetes/deployment.yaml", "kind: Tampered\n")
        .problems();
    assert_problem(
        &p,
        &[
            "test_top.vnfd.mf: Files/kubernetes/deployment.yaml: Hash",
            "mismatch",
            &original,
        ],
    );
    assert_problem(
        &p,
        &["TOSCA-Metadata/TOSCA.meta: Files/kubernetes/deployment.yaml: Hash"],
    );
}

#[test]
fn source_path_not_in_the_zip() {
    let p = valid().without("Scripts/mgmt.py").problems();
    assert_problem(
        &p,
        &[
            "test_top.vnfd.mf: Scripts/mgmt.py: Source",
            "not in the package",
        ],
    );
    let p = valid()
        .edit(META, |m| {
            format!("{m}\nName: Files/missing.yaml\nContent-Type: text/plain\n")
        })
        .problems();
    assert_problem(&p, &["Files/missing.yaml: Name", "not in the package"]);
}

#[test]
fn manifest_whose_name_does_not_match() {
    let top = valid().get("Definitions/test_top.vnfd.yaml");
    let csar = Csar::default()
        .with("vnfd.yaml", top)
        .with("other.mf", "metadata:\nvnf_provider_id: P\n");
    let p = csar.problems();
    assert_problem(
        &p,
        &["other.mf", "manifest name does not match", "\"vnfd.mf\""],
    );
    let p = Csar::default()
        .with("a.yaml", "x: 1")
        .with("b.yaml", "y: 2")
        .problems();
    assert_problem(&p, &["no TOSCA-Metadata", "2 YAML files at the root"]);
}

#[test]
fn no_vnf_node() {
    let csar = sealed(valid().edit("Definitions/test_top.vnfd.yaml", |t| {
        t.replace("type: test.provider.VNF", "type: tosca.nodes.Root")
    }));
    // The flavours still name the VNF type: the entry file's node is the one read, so break them too.
    let csar = sealed(
        csar.edit(DF, |d| {
            d.replace("type: test.provider.VNF", "type: tosca.nodes.Root")
        })
        .edit("Definitions/test_df_large.yaml", |d| {
            d.replace("type: test.provider.VNF", "type: tosca.nodes.Root")
        }),
    );
    assert_problem(
        &csar.problems(),
        &["Definitions/test_top.vnfd.yaml", "no VNF node"],
    );
}

#[test]
fn missing_mandatory_vnf_property() {
    let csar = valid().edit("Definitions/test_types.yaml", |t| {
        t.replace(
            "      provider:\n        type: string\n        default: Test Provider\n",
            "",
        )
    });
    assert_problem(
        &csar.problems(),
        &[
            "node_templates.VNF.properties.provider",
            "missing (mandatory VNF property)",
        ],
    );
}

#[test]
fn no_flavour() {
    let csar = sealed(valid().edit("Definitions/test_top.vnfd.yaml", |t| {
        t.replace("  - test_df_simple.yaml\n  - test_df_large.yaml\n", "")
    }));
    assert_problem(&csar.problems(), &["no deployment flavour"]);
}

#[test]
fn instantiation_levels_referencing_unknown_aspects_or_vdus() {
    let p = valid()
        .edit(DF, |d| {
            d.replacen(
                "                vdu1_aspect:\n                  scale_level: 0",
                "                ghost_aspect:\n                  scale_level: 0",
                1,
            )
        })
        .problems();
    assert_problem(
        &p,
        &[
            DF,
            "instantiation_level_1",
            "unknown scaling aspect \"ghost_aspect\"",
        ],
    );
    let p = valid()
        .edit(DF, |d| {
            let i = d.rfind("targets: [ VDU1 ]").unwrap();
            format!(
                "{}targets: [ VDU9 ]{}",
                &d[..i],
                &d[i + "targets: [ VDU1 ]".len()..]
            )
        })
        .problems();
    assert_problem(
        &p,
        &["VDU1_instantiation_levels.targets", "unknown VDU \"VDU9\""],
    );
    let p = valid()
        .edit(DF, |d| {
            d.replace(
                "            instantiation_level_2:\n              number_of_instances: 3",
                "            level_x:\n              number_of_instances: 3",
            )
        })
        .problems();
    assert_problem(&p, &["levels.level_x", "unknown instantiation level"]);
    let p = valid()
        .edit(DF, |d| {
            d.replace(
                "          aspect: vdu1_aspect",
                "          aspect: nope_aspect",
            )
        })
        .problems();
    assert_problem(
        &p,
        &[
            "properties.aspect",
            "unknown scaling aspect \"nope_aspect\"",
        ],
    );
}

#[test]
fn sw_image_artifact_without_sw_image_data() {
    let csar = valid().edit(DF, |d| {
        let start = d.find("        sw_image_data:").unwrap();
        let end = d.find("      artifacts:\n        sw_image:").unwrap();
        format!("{}{}", &d[..start], &d[end..])
    });
    assert_problem(
        &csar.problems(),
        &[
            DF,
            "node_templates.VDU1.artifacts.sw_image",
            "without sw_image_data",
        ],
    );
}

#[test]
fn unresolvable_imports() {
    let p = valid()
        .edit("Definitions/test_top.vnfd.yaml", |t| {
            t.replace(
                "  - test_types.yaml\n",
                "  - test_types.yaml\n  - missing_types.yaml\n",
            )
        })
        .problems();
    assert_problem(
        &p,
        &[
            "Definitions/test_top.vnfd.yaml: imports",
            "unresolvable import \"Definitions/missing_types.yaml\"",
        ],
    );
    let p = valid()
        .edit("Definitions/test_top.vnfd.yaml", |t| {
            t.replace(
                "  - test_types.yaml\n",
                "  - https://forge.etsi.org/x.yaml\n",
            )
        })
        .problems();
    assert_problem(&p, &["URLs are not fetched"]);
    let p = valid()
        .edit("Definitions/test_top.vnfd.yaml", |t| {
            t.replace("  - test_types.yaml\n", "  - ../../../etc/passwd\n")
        })
        .problems();
    assert_problem(&p, &["outside the package"]);
}

#[test]
fn a_hook_naming_an_undefined_artifact() {
    let p = valid()
        .edit(DF, |d| {
            d.replacen(
                "implementation: mgmt-driver",
                "implementation: no-such-driver",
                1,
            )
        })
        .problems();
    assert_problem(
        &p,
        &[
            "Vnflcm.instantiate_end",
            "names artifact \"no-such-driver\"",
        ],
    );
}

#[test]
fn every_error_is_reported_not_just_the_first() {
    let p = valid()
        .with("Files/kubernetes/deployment.yaml", "tampered")
        .edit(DF, |d| {
            d.replace("          aspect: vdu1_aspect", "          aspect: nope")
        })
        .problems();
    assert!(p.len() >= 3, "{p:#?}");
}
