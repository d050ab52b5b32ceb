//! SOL005 package subscriptions and notifications, API versions and wire details, with
//! in-process conductors and real HTTP subscribers.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::csar::valid;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::support::{Options, TestApp};

const T: Duration = Duration::from_secs(20);

impl TestApp {
    /// POSTs a package subscription (a 303 is not followed).
    async fn pkgm_subscribe(&self, body: Value) -> reqwest::Response {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
            .post(self.url("/vnfpkgm/v1/subscriptions"))
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

fn of_package<'a>(got: &'a [Value], pkg: &str) -> Vec<&'a Value> {
    got.iter().filter(|n| n["vnfPkgId"] == pkg).collect()
}

#[tokio::test]
async fn package_notifications_reach_matching_subscribers_once_each_in_order() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 3,
            ..Options::default()
        },
    )
    .await;
    let sub = Subscriber::start(Expect::Basic("dXNlcjpwYXNz"));
    let other = Subscriber::start(Expect::Nothing);
    let products = json!([{"vnfProvider": "Test Provider",
        "vnfProducts": [{"vnfProductName": "Test CNF", "versions": [{"vnfSoftwareVersion": "1.5"}]}]}]);
    let r = app
        .pkgm_subscribe(json!({"callbackUri": sub.url, "filter": {"vnfProductsFromProviders": products},
            "authentication": {"authType": ["BASIC"], "paramsBasic": {"userName": "user", "password": "pass"}}}))
        .await;
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let s: Value = r.json().await.unwrap();
    assert!(location.ends_with(&format!(
        "/vnfpkgm/v1/subscriptions/{}",
        s["id"].as_str().unwrap()
    )));
    assert!(s.get("authentication").is_none(), "never answered: {s}");
    let r = app
        .pkgm_subscribe(json!({"callbackUri": other.url,
            "filter": {"vnfProductsFromProviders": [{"vnfProvider": "Somebody Else"}]}}))
        .await;
    assert_eq!(r.status(), 201);

    // Onboarding -> exactly one notification, with its links, from three conductors.
    let (pkg, _) = app.upload(valid().zip()).await;
    assert_eq!(app.settled(&pkg, T).await["onboardingState"], "ONBOARDED");
    let got = sub.wait("onboarding", |g| !g.is_empty()).await;
    let n = &got[0];
    assert_eq!(n["notificationType"], "VnfPackageOnboardingNotification");
    assert_eq!(n["vnfPkgId"], pkg.as_str());
    assert_eq!(n["vnfdId"], "11111111-2222-3333-4444-555555555555");
    assert_eq!(n["subscriptionId"], s["id"]);
    assert!(
        n["_links"]["vnfPackage"]["href"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/vnfpkgm/v1/vnf_packages/{pkg}"))
    );
    assert_eq!(
        n["_links"]["subscription"]["href"].as_str().unwrap(),
        location
    );

    // Disable -> OP_STATE_CHANGE, while the subscriber is down; delete -> PKG_DELETE;
    // both delivered in order once it is back.
    sub.set_down(true);
    let url = app.url(&format!("/vnfpkgm/v1/vnf_packages/{pkg}"));
    let r = app
        .http
        .patch(&url)
        .header("Content-Type", "application/merge-patch+json")
        .body(r#"{"operationalState": "DISABLED"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(app.http.delete(&url).send().await.unwrap().status(), 204);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(sub.received().len(), 1, "nothing while it is down");
    sub.set_down(false);
    let got = sub.wait("the changes", |g| g.len() >= 3).await;
    let mine = of_package(&got, &pkg);
    let kinds: Vec<String> = mine
        .iter()
        .map(|n| {
            format!(
                "{}:{}",
                n["notificationType"].as_str().unwrap(),
                n["changeType"].as_str().unwrap_or("-")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "VnfPackageOnboardingNotification:-",
            "VnfPackageChangeNotification:OP_STATE_CHANGE",
            "VnfPackageChangeNotification:PKG_DELETE"
        ]
    );
    assert_eq!(mine[1]["operationalState"], "DISABLED");
    // Once each: nothing more arrives; the other subscriber got nothing.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(sub.received().len(), 3);
    assert!(other.received().is_empty(), "{:?}", other.received());
}

#[tokio::test]
async fn duplicate_subscriptions_are_answered_303_or_created_as_configured() {
    let app = TestApp::start(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Nothing);
    let body = json!({"callbackUri": sub.url, "filter": {"notificationTypes": ["VnfPackageChangeNotification"]}});
    let first = app.pkgm_subscribe(body.clone()).await;
    assert_eq!(first.status(), 201);
    let location = first.headers()["location"].to_str().unwrap().to_owned();
    let again = app.pkgm_subscribe(body.clone()).await;
    assert_eq!(again.status(), 303);
    assert_eq!(again.headers()["location"].to_str().unwrap(), location);
    let listed: Value = app
        .http
        .get(app.url("/vnfpkgm/v1/subscriptions"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
    // Bad filters and callbacks are refused.
    let r = app
        .pkgm_subscribe(json!({"callbackUri": sub.url, "filter": {"bogus": []}}))
        .await;
    assert_eq!(r.status(), 400);
    let r = app
        .pkgm_subscribe(json!({"callbackUri": "http://127.0.0.1:1/nothing"}))
        .await;
    assert_eq!(r.status(), 400);
    // Show and delete.
    let r = app.http.get(&location).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        app.http.delete(&location).send().await.unwrap().status(),
        204
    );
    assert_eq!(app.http.get(&location).send().await.unwrap().status(), 404);

    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            refuse_duplicate_subscriptions: false,
            ..Options::default()
        },
    )
    .await;
    assert_eq!(app.pkgm_subscribe(body.clone()).await.status(), 201);
    assert_eq!(app.pkgm_subscribe(body).await.status(), 201);
}

#[tokio::test]
async fn api_versions_header_names_slashes_and_errors_on_the_wire() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            ..Options::default()
        },
    )
    .await;
    for (path, prefix) in [
        ("/vnfpkgm/api_versions", "/vnfpkgm"),
        ("/vnfpkgm/v1/api_versions", "/vnfpkgm/v1"),
    ] {
        let v: Value = app
            .http
            .get(app.url(path))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(v["uriPrefix"], prefix);
        assert_eq!(v["apiVersions"][0]["version"], "2.6.1");
        let r = app.http.post(app.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 405);
        assert_eq!(r.headers()["content-type"], "application/problem+json");
    }
    // Raw bytes: canonical header names; duplicate slashes are merged.
    let addr = app.base.trim_start_matches("http://").to_owned();
    let raw = |request: String| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        String::from_utf8_lossy(&out).into_owned()
    };
    let answer = raw(format!(
        "POST /vnfpkgm/v1/vnf_packages HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    ));
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    for name in [
        "Content-Type: application/json",
        "Location: ",
        "Content-Length: ",
    ] {
        assert!(answer.contains(name), "{name:?} not in {answer}");
    }
    let answer = raw(format!(
        "GET //vnfpkgm//v1/vnf_packages HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    ));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let answer = raw(format!(
        "GET /vnfpkgm/v1/nothing-here HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    ));
    assert!(
        answer.starts_with("HTTP/1.1 404")
            && answer.contains("Content-Type: application/problem+json"),
        "{answer}"
    );
    // An artifact with a garbage Range: a ProblemDetails; artifacts carry their type.
    let (pkg, _) = app.upload(valid().zip()).await;
    assert_eq!(app.settled(&pkg, T).await["onboardingState"], "ONBOARDED");
    let art = app.url(&format!(
        "/vnfpkgm/v1/vnf_packages/{pkg}/artifacts/Files/kubernetes/deployment.yaml"
    ));
    let r = app.http.get(&art).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/yaml");
    let r = app
        .http
        .get(&art)
        .header("Range", "bytes=garbage")
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    assert!(status == 400 || status == 416, "{status}");
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    let p: Value = r.json().await.unwrap();
    assert_eq!(p["status"], status);
}
