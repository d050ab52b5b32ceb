//! The outbound guard at the API: subscriptions naming an internal callback outside
//! `outbound.allowed_networks` are refused without a request to it.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tacker_testkit::TestDb;

use crate::support::{TestApp, assert_problem};

#[tokio::test]
async fn callbacks_at_internal_addresses_are_refused_unreached() {
    let listener = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
    let internal = format!("http://{}/notify", listener.local_addr().unwrap());
    let connections = Arc::new(Mutex::new(0));
    let counted = connections.clone();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            *counted.lock().unwrap() += 1;
            drop(s);
        }
    });
    let app = TestApp::start(TestDb::sqlite()).await;
    for (path, version) in [
        ("/vnflcm/v2/subscriptions", Some("2.0.0")),
        ("/vnflcm/v1/subscriptions", None),
        ("/vnfpkgm/v1/subscriptions", None),
    ] {
        let mut r = app
            .http
            .post(app.url(path))
            .json(&json!({"callbackUri": internal}));
        if let Some(v) = version {
            r = r.header("Version", v);
        }
        assert_problem(r.send().await.unwrap(), 400, "allowed_networks").await;
    }
    assert_eq!(*connections.lock().unwrap(), 0);
}

#[tokio::test]
async fn vim_endpoints_at_loopback_or_metadata_addresses_are_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(Mutex::new(0));
    let counted = connections.clone();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            *counted.lock().unwrap() += 1;
            drop(s);
        }
    });
    let app = TestApp::with(
        TestDb::sqlite(),
        crate::support::Options {
            conductors: 1,
            ..Default::default()
        },
    )
    .await;
    app.onboarded_package().await;
    let i = app.create_instance().await;
    for endpoint in [
        format!("https://127.0.0.2:{port}"),
        "https://169.254.169.254:6443".to_owned(),
        "https://[::ffff:127.0.0.3]:6443".to_owned(),
    ] {
        let body = json!({"flavourId": "simple", "vimConnectionInfo": {"k8s": {
            "vimType": "ETSINFV.KUBERNETES.V_1",
            "interfaceInfo": {"endpoint": endpoint},
            "accessInfo": {"bearer_token": "planted-token"}}},
            "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/deployment.yaml"]}});
        let r = app
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/instantiate"),
                body,
            )
            .await;
        assert_problem(r, 422, "outbound.allowed_networks").await;
    }
    // A registered OpenStack VIM too.
    let r = app
        .http
        .post(app.url("/v1.0/vims"))
        .json(&json!({"vim": {"name": "inside", "type": "openstack",
            "auth_url": format!("http://127.0.0.2:{port}/v3"),
            "auth_cred": {"username": "u", "password": "p"}, "vim_project": {"name": "p"}}}))
        .send()
        .await
        .unwrap();
    assert_problem(r, 422, "outbound.allowed_networks").await;
    assert_eq!(*connections.lock().unwrap(), 0);
}
