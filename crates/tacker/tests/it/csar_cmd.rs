use serde_json::Value;
use tacker_testkit::csar::valid;

use crate::support::tacker;

#[test]
fn csar_validate_prints_the_summary_or_every_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.zip");
    valid().write_to(&good);
    let out = tacker()
        .args(["csar", "validate"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "vnfdId:           11111111-2222-3333-4444-555555555555",
        "provider:         Test Provider",
        "simple (Simple flavour)",
        "VDU VDU1 name=vdu1-deployment instances=1..3 image=test-image",
        "hook instantiate_end -> Scripts/mgmt.py",
        "Files/images/test.img 4096 bytes SwImage SHA-256",
        "valid",
        // The default configuration maps no driver to the test package's hooks.
        "hook instantiate_end names artifact Scripts/mgmt.py, which no management driver is configured for",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    // With the hooks mapped, no warning.
    let out = tacker()
        .env("TACKER__MGMT__DRIVERS", "Scripts/mgmt.py=noop")
        .args(["csar", "validate"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("no management driver"), "{text}");

    let bad = dir.path().join("bad.zip");
    valid()
        .with("Files/kubernetes/deployment.yaml", "tampered")
        .without("Scripts/mgmt.py")
        .write_to(&bad);
    let out = tacker()
        .args(["csar", "validate"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("invalid"), "{text}");
    assert!(
        text.contains("deployment.yaml: Hash") && text.contains("Scripts/mgmt.py: Source"),
        "{text}"
    );

    let out = tacker()
        .args(["csar", "validate", "--json"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert!(
        v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["file"] == "test_top.vnfd.mf")
    );

    let out = tacker()
        .args(["csar", "validate", "--json"])
        .arg(&good)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["package"]["vnfd"]["vnfdId"],
        "11111111-2222-3333-4444-555555555555"
    );

    let out = tacker()
        .args(["csar", "validate"])
        .arg(dir.path().join("missing.zip"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
