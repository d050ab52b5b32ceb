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
