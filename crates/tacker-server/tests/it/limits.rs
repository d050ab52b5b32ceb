//! Limits over real HTTP: filter size, uploads at once, a silent upload, request rate,
//! deep JSON.

use std::time::Duration;

use bytes::Bytes;
use futures::SinkExt;
use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::csar::valid;

use crate::support::{Options, TestApp, assert_problem};

/// A PUT of package content whose body the test feeds (and may stop feeding).
fn streaming_put(
    app: &TestApp,
    id: &str,
) -> (
    futures::channel::mpsc::Sender<Result<Bytes, std::io::Error>>,
    tokio::task::JoinHandle<reqwest::Response>,
) {
    let (tx, rx) = futures::channel::mpsc::channel(4);
    let req = app
        .http
        .put(app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}/package_content")))
        .header("content-type", "application/zip")
        .body(reqwest::Body::wrap_stream(rx));
    (tx, tokio::spawn(async move { req.send().await.unwrap() }))
}

async fn new_package(app: &TestApp) -> String {
    app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_silent_upload_is_408_and_its_package_created_again() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            body_idle_timeout: Duration::from_secs(1),
            ..Options::default()
        },
    )
    .await;
    let id = new_package(&app).await;
    let (mut tx, answer) = streaming_put(&app, &id);
    tx.send(Ok(Bytes::from_static(b"PK\x03\x04 the first bytes")))
        .await
        .unwrap();
    // ... then nothing, the connection held open.
    let r = answer.await.unwrap();
    assert_problem(r, 408, "server.body_idle_timeout").await;
    drop(tx);
    let p = app.get_package(&id).await;
    assert_eq!(p["onboardingState"], "CREATED");
    // It can be uploaded again.
    assert_eq!(app.put_content(&id, valid().zip()).await, 202);
}

/// A server with one upload place (`server.upload_slot_wait` = `wait`), held by the
/// upload of a first package whose body stays open until `tx` is dropped; a second
/// package waits to be uploaded.
struct OnePlaceHeld {
    app: TestApp,
    second: String,
    tx: futures::channel::mpsc::Sender<Result<Bytes, std::io::Error>>,
    first_answer: tokio::task::JoinHandle<reqwest::Response>,
}

async fn one_place_held(wait: Duration) -> OnePlaceHeld {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            uploads: 1,
            upload_slot_wait: wait,
            ..Options::default()
        },
    )
    .await;
    let (first, second) = (new_package(&app).await, new_package(&app).await);
    let (mut tx, first_answer) = streaming_put(&app, &first);
    tx.send(Ok(Bytes::from(valid().zip()))).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while app.get_package(&first).await["onboardingState"] != "UPLOADING" {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    OnePlaceHeld {
        app,
        second,
        tx,
        first_answer,
    }
}

impl OnePlaceHeld {
    fn put_second(&self) -> reqwest::RequestBuilder {
        let path = format!("/vnfpkgm/v1/vnf_packages/{}/package_content", self.second);
        self.app
            .http
            .put(self.app.url(&path))
            .header("content-type", "application/zip")
            .body(valid().zip())
    }
}

#[tokio::test]
async fn uploads_beyond_the_limit_are_503_until_one_ends() {
    let held = one_place_held(Duration::from_millis(300)).await;
    let r = held.put_second().send().await.unwrap();
    // It waited server.upload_slot_wait for a place, then was refused.
    assert_eq!(r.headers()["retry-after"], "5");
    assert_problem(r, 503, "server.upload_slot_wait").await;
    let OnePlaceHeld {
        app,
        second,
        tx,
        first_answer,
    } = held;
    assert_eq!(app.get_package(&second).await["onboardingState"], "CREATED");
    drop(tx);
    assert_eq!(first_answer.await.unwrap().status(), 202);
    assert_eq!(app.put_content(&second, valid().zip()).await, 202);
}

#[tokio::test]
async fn an_upload_over_the_limit_waits_for_a_place_and_is_taken_when_one_ends() {
    let held = one_place_held(Duration::from_secs(10)).await;
    // The second waits (not answered, its package untouched) while the first holds the
    // only place...
    let waiting = tokio::spawn(held.put_second().send());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished());
    let OnePlaceHeld {
        app,
        second,
        tx,
        first_answer,
    } = held;
    assert_eq!(app.get_package(&second).await["onboardingState"], "CREATED");
    // ...and takes it when the first ends: both accepted, no 503.
    drop(tx);
    assert_eq!(first_answer.await.unwrap().status(), 202);
    let r = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the waiting upload is answered once the place is free")
        .unwrap()
        .unwrap();
    assert_eq!(r.status(), 202);
}

#[tokio::test]
async fn a_burst_over_the_rate_is_429_with_retry_after() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            rate: (1, 3),
            ..Options::default()
        },
    )
    .await;
    let url = app.url("/vnfpkgm/v1/vnf_packages");
    for _ in 0..3 {
        assert_eq!(app.http.get(&url).send().await.unwrap().status(), 200);
    }
    let r = app.http.get(&url).send().await.unwrap();
    assert_eq!(r.headers()["retry-after"], "1");
    assert_problem(r, 429, "too many requests").await;
    // Probes are never limited.
    for _ in 0..5 {
        let r = app.http.get(app.url("/healthz")).send().await.unwrap();
        assert_eq!(r.status(), 200);
    }
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(app.http.get(&url).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn long_filters_and_deep_bodies_are_400() {
    let app = TestApp::start(TestDb::sqlite()).await;
    let values: Vec<String> = (0..60).map(|i| format!("v{i}")).collect();
    let filter = format!("(in,onboardingState,{})", values.join(","));
    let q: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("filter", &filter)
        .finish();
    let r = app
        .http
        .get(app.url(&format!("/vnfpkgm/v1/vnf_packages?{q}")))
        .send()
        .await
        .unwrap();
    assert_problem(r, 400, "server.max_filter_terms").await;
    let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let body = format!(r#"{{"userDefinedData": {{"x": {deep}}}}}"#);
    let r = app
        .http
        .post(app.url("/vnfpkgm/v1/vnf_packages"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert!(v["detail"].as_str().unwrap().contains("recursion"), "{v}");
}
