//! upload_from_uri against a real HTTP server on loopback (allowed by configuration).

use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::json;
use tacker_testkit::TestDb;
use tacker_testkit::csar::valid;

use crate::support::{Options, TestApp, assert_problem};

/// Serves `/pkg.zip`, `/private.zip` (basic auth ops:secret) and `/moved` (302 to /pkg.zip).
fn file_server(zip: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let zip = web::Data::new(zip);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(zip.clone())
            .route(
                "/pkg.zip",
                web::get().to(|z: web::Data<Vec<u8>>| async move {
                    HttpResponse::Ok().body(z.get_ref().clone())
                }),
            )
            .route(
                "/private.zip",
                web::get().to(|req: HttpRequest, z: web::Data<Vec<u8>>| async move {
                    // "ops:secret" in base64.
                    let ok = req
                        .headers()
                        .get("authorization")
                        .is_some_and(|v| v == "Basic b3BzOnNlY3JldA==");
                    if ok {
                        HttpResponse::Ok().body(z.get_ref().clone())
                    } else {
                        HttpResponse::Unauthorized().finish()
                    }
                }),
            )
            .route(
                "/moved",
                web::get().to(|| async {
                    HttpResponse::Found()
                        .insert_header(("location", "/pkg.zip"))
                        .finish()
                }),
            )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    base
}

async fn from_uri(app: &TestApp, body: serde_json::Value) -> (String, reqwest::Response) {
    let id = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .http
        .post(app.url(&format!(
            "/vnfpkgm/v1/vnf_packages/{id}/package_content/upload_from_uri"
        )))
        .json(&body)
        .send()
        .await
        .unwrap();
    (id, r)
}

#[tokio::test]
async fn upload_from_uri_with_and_without_basic_auth() {
    for tdb in TestDb::each() {
        let app = TestApp::with(
            tdb,
            Options {
                conductors: 2,
                ..Options::default()
            },
        )
        .await;
        let base = file_server(valid().zip());
        let t = Duration::from_secs(20);
        let (id, r) = from_uri(
            &app,
            json!({"addressInformation": format!("{base}/pkg.zip")}),
        )
        .await;
        assert_eq!(r.status(), 202);
        assert_eq!(app.settled(&id, t).await["onboardingState"], "ONBOARDED");
        assert!(app.cached(1, &id) && app.cached(2, &id));

        // A second package with the same vnfdId would fail; delete the first one meanwhile.
        let url = app.url(&format!("/vnfpkgm/v1/vnf_packages/{id}"));
        app.http
            .patch(&url)
            .header("content-type", "application/merge-patch+json")
            .body(r#"{"operationalState":"DISABLED"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(app.http.delete(&url).send().await.unwrap().status(), 204);

        let (id, r) = from_uri(
            &app,
            json!({"addressInformation": format!("{base}/private.zip"), "userName": "ops", "password": "secret"}),
        )
        .await;
        assert_eq!(r.status(), 202);
        assert_eq!(app.settled(&id, t).await["onboardingState"], "ONBOARDED");

        let (id, _) = from_uri(
            &app,
            json!({"addressInformation": format!("{base}/private.zip"), "userName": "ops", "password": "wrong"}),
        )
        .await;
        let p = app.settled(&id, t).await;
        assert_eq!(p["onboardingState"], "CREATED");
        assert!(
            p["onboardingFailureDetails"]["detail"]
                .as_str()
                .unwrap()
                .contains("HTTP 401"),
            "{p}"
        );
        assert!(!app.stored(&id).await);
    }
}

#[tokio::test]
async fn redirects_are_followed_and_bad_requests_refused() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            ..Options::default()
        },
    )
    .await;
    let base = file_server(valid().zip());
    let (id, _) = from_uri(&app, json!({"addressInformation": format!("{base}/moved")})).await;
    assert_eq!(
        app.settled(&id, Duration::from_secs(20)).await["onboardingState"],
        "ONBOARDED"
    );
    let (_, r) = from_uri(&app, json!({"addressInformation": "not a url"})).await;
    assert_problem(r, 400, "not a URL").await;
    let (_, r) = from_uri(
        &app,
        json!({"addressInformation": "ftp://example.com/p.zip"}),
    )
    .await;
    assert_problem(r, 400, "http:// or https://").await;
    let (_, r) = from_uri(&app, json!({})).await;
    assert_problem(r, 400, "addressInformation").await;
    // Credentials in the URL are refused (they would reach logs and failure details).
    let with_userinfo = base.replace("http://", "http://ops:s3cret@");
    let (_, r) = from_uri(
        &app,
        json!({"addressInformation": format!("{with_userinfo}/pkg.zip")}),
    )
    .await;
    assert_problem(r, 400, "must not carry credentials").await;
    let (other, r) = from_uri(
        &app,
        json!({"addressInformation": format!("{base}/pkg.zip"), "password": "x"}),
    )
    .await;
    assert_problem(r, 400, "without userName").await;
    assert_eq!(app.get_package(&other).await["onboardingState"], "CREATED");
}

#[tokio::test]
async fn internal_addresses_are_refused_unless_configured() {
    let opts = Options {
        conductors: 1,
        allowed_uri_networks: vec![],
        ..Options::default()
    };
    let app = TestApp::with(TestDb::sqlite(), opts).await;
    let base = file_server(valid().zip());
    let (id, r) = from_uri(
        &app,
        json!({"addressInformation": format!("{base}/pkg.zip")}),
    )
    .await;
    assert_eq!(r.status(), 202);
    let p = app.settled(&id, Duration::from_secs(20)).await;
    assert_eq!(p["onboardingState"], "CREATED");
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("loopback address") && detail.contains("allowed_uri_networks"),
        "{detail}"
    );
    let (id, _) = from_uri(
        &app,
        json!({"addressInformation": "http://169.254.169.254/latest/meta-data"}),
    )
    .await;
    let p = app.settled(&id, Duration::from_secs(20)).await;
    assert!(
        p["onboardingFailureDetails"]["detail"]
            .as_str()
            .unwrap()
            .contains("metadata"),
        "{p}"
    );
}
