//! Onboarding through the API with in-process conductors on the in-process bus, on
//! PostgreSQL and SQLite.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::csar::{valid, valid_with_vnfd_id};

use crate::support::{Options, TestApp, assert_problem};

const T: Duration = Duration::from_secs(20);

async fn cluster(tdb: TestDb, conductors: usize) -> TestApp {
    TestApp::with(
        tdb,
        Options {
            conductors,
            ..Options::default()
        },
    )
    .await
}

#[tokio::test]
async fn an_upload_reaches_onboarded_with_every_cache_holding_it() {
    for tdb in TestDb::each() {
        let app = cluster(tdb, 3).await;
        let zip = valid().zip();
        let (id, status) = app.upload(zip.clone()).await;
        assert_eq!(status, 202);
        let p = app.settled(&id, T).await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
        assert_eq!(p["operationalState"], "ENABLED");
        assert_eq!(p["vnfdId"], "11111111-2222-3333-4444-555555555555");
        assert_eq!(p["vnfProvider"], "Test Provider");
        assert_eq!(p["vnfProductName"], "Test CNF");
        assert_eq!(p["vnfSoftwareVersion"], "1.5");
        assert_eq!(p["vnfdVersion"], "2.1");
        assert_eq!(p["checksum"]["algorithm"], "SHA-512");
        assert_eq!(p["checksum"]["hash"], hex_sha512(&zip));
        assert_eq!(p["softwareImages"][0]["imagePath"], "Files/images/test.img");
        assert_eq!(p["softwareImages"][0]["diskFormat"], "QCOW2");
        let extra: Vec<&str> = p["additionalArtifacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["artifactPath"].as_str().unwrap())
            .collect();
        assert_eq!(
            extra,
            ["Files/kubernetes/deployment.yaml", "Scripts/mgmt.py"]
        );
        for n in 1..=3 {
            assert!(app.cached(n, &id), "conductor {n} holds it");
            assert!(
                !app.cache_dir(n).join(&id).join("contents").exists(),
                "nothing extracted before an operation needs it"
            );
        }
        assert!(p.get("onboardingFailureDetails").is_none());
    }
}

fn hex_sha512(data: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha512::digest(data))
}

#[tokio::test]
async fn multipart_uploads_onboard_too() {
    let app = cluster(TestDb::sqlite(), 2).await;
    let id = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let boundary = "XyZboundary";
    let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"pkg.zip\"\r\nContent-Type: application/zip\r\n\r\n").into_bytes();
    body.extend(valid().zip());
    body.extend(format!("\r\n--{boundary}--\r\n").into_bytes());
    let r = app
        .http
        .put(app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/package_content")))
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .send()
        .await
        .unwrap();
    let status = r.status();
    assert_eq!(status, 202, "{}", r.text().await.unwrap());
    assert_eq!(app.settled(&id, T).await["onboardingState"], "ONBOARDED");
}

#[tokio::test]
async fn uploads_are_refused_when_they_cannot_start() {
    let app = cluster(TestDb::sqlite(), 1).await;
    let id = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let url = app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/package_content"));
    let r = app
        .http
        .put(&url)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_problem(r, 415, "application/zip").await;
    let r = app
        .http
        .put(app.url(&format!(
            "/vnfpkgm/v1/vnf_packages/{}/package_content",
            uuid::Uuid::new_v4()
        )))
        .header("content-type", "application/zip")
        .body("x")
        .send()
        .await
        .unwrap();
    assert_problem(r, 404, "not found").await;
    // Over the size cap (1 MiB here): 413, and the package is CREATED again with details.
    let r = app
        .http
        .put(&url)
        .header("content-type", "application/zip")
        .body(vec![0u8; 2 * 1024 * 1024])
        .send()
        .await
        .unwrap();
    assert_problem(r, 413, "exceeds").await;
    let p = app.get_package(&id).await;
    assert_eq!(p["onboardingState"], "CREATED");
    assert!(!app.stored(&id).await);
    // A chunked body with no length is cut off at the cap as well.
    let chunks =
        futures::stream::iter((0..40).map(|_| Ok::<_, std::io::Error>(vec![1u8; 64 * 1024])));
    let r = app
        .http
        .put(&url)
        .header("content-type", "application/zip")
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(app.get_package(&id).await["onboardingState"], "CREATED");
    assert!(!app.stored(&id).await);
    // Once onboarded, a second upload is a conflict.
    assert_eq!(app.put_content(&id, valid().zip()).await, 202);
    assert_eq!(app.settled(&id, T).await["onboardingState"], "ONBOARDED");
    let r = app
        .http
        .put(&url)
        .header("content-type", "application/zip")
        .body(valid().zip())
        .send()
        .await
        .unwrap();
    assert_problem(r, 409, "only while it is CREATED").await;
}

#[tokio::test]
async fn an_invalid_package_returns_to_created_with_details_and_leaves_nothing() {
    for tdb in TestDb::each() {
        let app = cluster(tdb, 2).await;
        let bad = valid()
            .with("Files/kubernetes/deployment.yaml", "tampered")
            .zip();
        let (id, status) = app.upload(bad).await;
        assert_eq!(status, 202);
        let p = app.settled(&id, T).await;
        assert_eq!(p["onboardingState"], "CREATED", "{p}");
        let d = &p["onboardingFailureDetails"];
        assert_eq!(d["status"], 422);
        assert!(
            d["detail"]
                .as_str()
                .unwrap()
                .contains("deployment.yaml: Hash"),
            "{d}"
        );
        assert!(p.get("vnfdId").is_none() && p.get("checksum").is_none());
        assert!(!app.stored(&id).await);
        assert!(!app.cached(1, &id) && !app.cached(2, &id));
        // Content that is no zip at all, or a zip that is no CSAR, is the user's too.
        for (what, content) in [
            ("not a zip", b"this is not a zip archive".to_vec()),
            (
                "no TOSCA-Metadata",
                tacker_testkit::csar::Csar::default()
                    .with("README", "hi")
                    .zip(),
            ),
        ] {
            assert_eq!(app.put_content(&id, content).await, 202);
            let p = app.settled(&id, T).await;
            let d = &p["onboardingFailureDetails"];
            assert_eq!(p["onboardingState"], "CREATED", "{what}: {p}");
            assert_eq!(d["status"], 422, "{what}: {d}");
            assert_eq!(d["title"], "Unprocessable Entity", "{what}: {d}");
            assert!(!app.stored(&id).await, "{what}");
        }
        // A correct upload afterwards onboards and clears the details.
        assert_eq!(app.put_content(&id, valid().zip()).await, 202);
        let p = app.settled(&id, T).await;
        assert_eq!(p["onboardingState"], "ONBOARDED");
        assert!(p.get("onboardingFailureDetails").is_none());
    }
}

#[tokio::test]
async fn a_vnfd_id_already_used_by_another_package_fails_onboarding() {
    let app = cluster(TestDb::postgres(), 2).await;
    let (first, _) = app.upload(valid().zip()).await;
    assert_eq!(app.settled(&first, T).await["onboardingState"], "ONBOARDED");
    let (second, _) = app.upload(valid().zip()).await;
    let p = app.settled(&second, T).await;
    assert_eq!(p["onboardingState"], "CREATED");
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("already used by VNF package") && detail.contains(&first),
        "{detail}"
    );
}

#[tokio::test]
async fn a_conductor_that_cannot_write_its_cache_is_named_and_nothing_is_kept() {
    for tdb in TestDb::each() {
        let app = cluster(tdb, 3).await;
        let broken = app.cache_dir(2);
        tacker_testkit::csar::make_read_only(&broken);
        let (id, _) = app.upload(valid().zip()).await;
        let p = app.settled(&id, T).await;
        tacker_testkit::csar::make_writable(&broken);
        assert_eq!(p["onboardingState"], "CREATED", "{p}");
        let detail = p["onboardingFailureDetails"]["detail"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(detail.contains("conductor c2"), "{detail}");
        assert!(!app.stored(&id).await, "no storage object keeps it");
        for n in 1..=3 {
            assert!(!app.cached(n, &id), "cache {n} dropped it");
        }
        // Fixed: a second upload onboards.
        assert_eq!(app.put_content(&id, valid().zip()).await, 202);
        assert_eq!(app.settled(&id, T).await["onboardingState"], "ONBOARDED");
        assert!((1..=3).all(|n| app.cached(n, &id)));
    }
}

#[tokio::test]
async fn delete_removes_the_package_from_storage_and_every_cache() {
    let app = cluster(TestDb::sqlite(), 3).await;
    let (id, _) = app.upload(valid().zip()).await;
    assert_eq!(app.settled(&id, T).await["onboardingState"], "ONBOARDED");
    let url = app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}"));
    let r = app.http.delete(&url).send().await.unwrap();
    assert_problem(r, 409, "ENABLED").await;
    let r = app
        .http
        .patch(&url)
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"operationalState":"DISABLED"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(app.http.delete(&url).send().await.unwrap().status(), 204);
    let deadline = tokio::time::Instant::now() + T;
    while app.stored(&id).await || (1..=3).any(|n| app.cached(n, &id)) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "content still present"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The same vnfdId can be onboarded again once the first package is gone.
    let (again, status) = app.upload(valid().zip()).await;
    assert_eq!(status, 202);
    let p = app.settled(&again, T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
}

#[tokio::test]
async fn twenty_concurrent_uploads_all_onboard() {
    let app = cluster(TestDb::postgres(), 3).await;
    let mut tasks = Vec::new();
    for i in 0..20 {
        let zip = valid_with_vnfd_id(&format!("vnfd-{i:02}")).zip();
        let (http, base) = (app.http.clone(), app.base.clone());
        tasks.push(tokio::spawn(async move {
            let r: Value = http
                .post(format!("{base}/vnfpkgm/v1/vnf_packages"))
                .json(&json!({}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let id = r["id"].as_str().unwrap().to_owned();
            let s = http
                .put(format!(
                    "{base}/vnfpkgm/v1/vnf_packages/{id}/package_content"
                ))
                .header("content-type", "application/zip")
                .body(zip)
                .send()
                .await
                .unwrap()
                .status();
            assert_eq!(s, 202);
            id
        }));
    }
    let mut ids = Vec::new();
    for t in tasks {
        ids.push(t.await.unwrap());
    }
    for id in &ids {
        let p = app.settled(id, Duration::from_secs(60)).await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
        assert!((1..=3).all(|n| app.cached(n, id)));
    }
}

#[tokio::test]
async fn a_stalled_upload_is_recovered_to_created() {
    let app = cluster(TestDb::sqlite(), 1).await;
    let id = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let uid: uuid::Uuid = id.parse().unwrap();
    // An uploader that started and vanished: UPLOADING, no progress, no coordinator.
    assert!(
        app.db
            .packages()
            .begin_upload(uid, &Default::default())
            .await
            .unwrap()
    );
    let p = app.settled(&id, Duration::from_secs(15)).await;
    assert_eq!(p["onboardingState"], "CREATED");
    assert!(
        p["onboardingFailureDetails"]["detail"]
            .as_str()
            .unwrap()
            .contains("upload stalled"),
        "{p}"
    );
}

#[tokio::test]
async fn a_conductor_that_cannot_sync_stays_syncing_and_retries() {
    let mut app = cluster(TestDb::sqlite(), 1).await;
    let (id, _) = app.upload(valid().zip()).await;
    assert_eq!(app.settled(&id, T).await["onboardingState"], "ONBOARDED");
    let dir = app.cache_dir(2);
    std::fs::create_dir_all(&dir).unwrap();
    tacker_testkit::csar::make_read_only(&dir);
    let c2 = app.add_conductor(2).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let ctx = app.conductors[c2].ctx().clone();
    let ready_early = ctx.is_ready();
    let metrics = ctx.metrics.render();
    let rows = app.db.conductors().list().await.unwrap();
    tacker_testkit::csar::make_writable(&dir);
    assert!(!ready_early, "READY with a stale cache");
    assert!(
        metrics.contains("tacker_cache_sync_failures_total"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("tacker_cache_sync_failures_total 0"),
        "{metrics}"
    );
    let c2_row = rows.iter().find(|r| r.id == "c2").unwrap();
    assert_eq!(
        c2_row.state,
        tacker_domain::conductor::ConductorState::Syncing
    );
    // Once it can write, the retry succeeds: it holds the package, then turns READY.
    assert!(app.conductors[c2].wait_ready(Duration::from_secs(15)).await);
    assert!(app.cached(2, &id));
}

#[tokio::test]
async fn an_upload_whose_client_goes_silent_is_failed_as_stalled() {
    use std::io::Write;
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            ..Options::default()
        },
    )
    .await;
    let r = app
        .http
        .post(app.url("/vnfpkgm/v1/vnf_packages"))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    let id = r.json::<serde_json::Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Headers and a little of the body, then nothing (the connection stays open).
    let addr = app.base.trim_start_matches("http://").to_owned();
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "PUT /vnfpkgm/v1/vnf_packages/{id}/package_content HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/zip\r\nContent-Length: 100000\r\n\r\nPK"
    )
    .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.get_package(&id).await["onboardingState"] != "UPLOADING" {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the upload never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let p = app.settled(&id, Duration::from_secs(30)).await;
    assert_eq!(p["onboardingState"], "CREATED", "{p}");
    assert!(
        p["onboardingFailureDetails"]["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("stalled"),
        "{p}"
    );
    drop(s);
}
