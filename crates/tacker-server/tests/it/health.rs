use serde_json::Value;

use crate::support::{TestApp, assert_problem};

#[tokio::test]
async fn health_ready_metrics_and_unknown_routes() {
    let app = TestApp::start(tacker_testkit::TestDb::sqlite()).await;
    let r = app.http.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = app.http.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["database"], "ok");
    app.http
        .get(app.url("/vnfpkgm/v1/vnf_packages"))
        .send()
        .await
        .unwrap();
    let missing = format!("/vnfpkgm/v1/vnf_packages/{}", uuid::Uuid::new_v4());
    assert_problem(
        app.http.get(app.url(&missing)).send().await.unwrap(),
        404,
        "not found",
    )
    .await;
    assert_problem(
        app.http.get(app.url("/nowhere")).send().await.unwrap(),
        404,
        "/nowhere",
    )
    .await;
    let r = app
        .http
        .put(app.url("/vnfpkgm/v1/vnf_packages"))
        .send()
        .await
        .unwrap();
    assert_problem(r, 405, "not allowed").await;
    let text = app
        .http
        .get(app.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // Each request is counted under the pattern of the route that served it (ids are
    // not labels), a path no route has under "unmatched".
    for line in [
        r#"tacker_http_requests_total{method="GET",route="/vnfpkgm/v1/vnf_packages",status="200"} 1"#,
        r#"tacker_http_requests_total{method="GET",route="/vnfpkgm/v1/vnf_packages/{id}",status="404"} 1"#,
        r#"tacker_http_requests_total{method="GET",route="unmatched",status="404"} 1"#,
        r#"tacker_http_requests_total{method="PUT",route="/vnfpkgm/v1/vnf_packages",status="405"} 1"#,
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
    assert!(text.contains("tacker_http_request_duration_seconds_bucket"));
}

#[tokio::test]
async fn readyz_fails_when_the_database_is_gone() {
    let app = TestApp::start(tacker_testkit::TestDb::postgres()).await;
    app.drop_database();
    let r = app.http.get(app.url("/readyz")).send().await.unwrap();
    assert_problem(r, 503, "database").await;
    // The API answers 503 too, not a 500 or a hang.
    let r = app
        .http
        .get(app.url("/vnfpkgm/v1/vnf_packages"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
}
