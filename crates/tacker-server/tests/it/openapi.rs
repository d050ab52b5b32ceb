//! `/openapi.json` matches what is routed, and what it says is standard is in the ETSI
//! definitions.

use std::path::PathBuf;

use serde_json::Value;
use tacker_testkit::TestDb;

use crate::support::TestApp;

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn concrete(path: &str) -> String {
    path.split('/')
        .map(|seg| match seg {
            "{id}" => "0b3cbb1d-7a52-4e7c-a7a4-3f3f1c3e9a11".to_owned(),
            "{path}" => "Files/a.txt".to_owned(),
            other => other.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn the_document_lists_exactly_the_routed_operations() {
    let app = TestApp::start(TestDb::sqlite()).await;
    let doc: Value = app
        .http
        .get(app.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["openapi"], "3.0.3");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() > 25, "{}", paths.len());
    for (path, item) in paths {
        let item = item.as_object().unwrap();
        for method in METHODS {
            let url = app.url(&concrete(path));
            let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let version = if path.starts_with("/vnffm/") {
                "1.3.0"
            } else if path.starts_with("/vnfpm/") {
                "2.1.0"
            } else {
                "2.0.0"
            };
            let r = app
                .http
                .request(m, url)
                .header("Version", version)
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body = r.text().await.unwrap_or_default();
            if item.contains_key(method) {
                assert_ne!(status, 405, "{method} {path} is documented but not allowed");
                assert!(
                    !(status == 404 && body.contains("no resource at")),
                    "{method} {path} is documented but not routed"
                );
            } else {
                assert_eq!(
                    status, 405,
                    "{method} {path} is routed but not documented: {body}"
                );
            }
        }
    }
    // Something not documented is not routed.
    let r = app
        .http
        .get(app.url("/vnflcm/v2/nothing_here"))
        .header("Version", "2.0.0")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

fn etsi_dir() -> Option<PathBuf> {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/reference/etsi-openapi"))
        .find(|p| p.is_dir())
}

fn shape(path: &str) -> String {
    path.split('/')
        .map(|s| if s.starts_with('{') { "{}" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn standard_operations_are_in_the_etsi_definitions() {
    let Some(dir) = etsi_dir() else {
        eprintln!("SKIPPED: shared/reference/etsi-openapi not found");
        return;
    };
    let load = |f: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap()
    };
    let sol003 = load("SOL003-v3.3.1-bundled/sol003_lifecycle_openapi.json");
    let sol003_v1: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(
            dir.join("SOL003-v2.4.1-bundled/SOL003-VNFLifecycleManagement-API.yaml"),
        )
        .unwrap(),
    )
    .unwrap();
    let sol005 = load("SOL005-v2.4.1-bundled/SOL005-VNFPackageManagement-API.json");
    let sol003_fm = load("SOL003-v3.3.1-bundled/sol003_fault_openapi.json");
    let sol003_pm = load("SOL003-v3.3.1-bundled/sol003_perf_openapi.json");
    let app = TestApp::start(TestDb::sqlite()).await;
    let doc: Value = app
        .http
        .get(app.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let desc = op["description"].as_str().unwrap();
            let (etsi, rel) = if desc.contains("VNF fault management") {
                (&sol003_fm, path.trim_start_matches("/vnffm/v1"))
            } else if desc.contains("VNF performance management") {
                (&sol003_pm, path.trim_start_matches("/vnfpm/v2"))
            } else if desc.contains("SOL003 v2.4.1") {
                (&sol003_v1, path.trim_start_matches("/vnflcm/v1"))
            } else if desc.contains("SOL003") {
                (&sol003, path.trim_start_matches("/vnflcm/v2"))
            } else if desc.contains("SOL005") {
                (&sol005, path.trim_start_matches("/vnfpkgm/v1"))
            } else {
                continue;
            };
            let found = etsi["paths"]
                .as_object()
                .unwrap()
                .iter()
                .find(|(p, _)| shape(p) == shape(rel))
                .unwrap_or_else(|| panic!("{path} is not in the ETSI definitions"));
            assert!(
                found.1.get(method.as_str()).is_some(),
                "{method} {path} is not an ETSI operation"
            );
            checked += 1;
        }
    }
    assert!(checked >= 45, "{checked}");
}
