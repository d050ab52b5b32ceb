//! Registering a Kubernetes VIM (Helm or not) has a conductor's driver use its
//! credentials first, as upstream Tacker does: credentials the API server refuses, a CA
//! that does not match it, or an API server that does not answer are a 400 saying so,
//! and nothing is stored or changed.

use reqwest::Method;
use serde_json::{Value, json};
use tacker_testkit::TestDb;

use crate::support::{Options, TestApp, assert_problem};

fn vim(name: &str, url: &str, token: &str, ca: Option<&str>, helm: bool) -> Value {
    let mut cred = json!({"bearer_token": token});
    if let Some(ca) = ca {
        cred["ssl_ca_cert"] = json!(ca);
    }
    json!({"vim": {"name": name, "type": "kubernetes", "auth_url": url, "auth_cred": cred,
        "vim_project": {"name": "default"}, "extra": {"use_helm": helm}}})
}

async fn send(app: &TestApp, method: Method, path: &str, body: &Value) -> reqwest::Response {
    app.http
        .request(method, app.url(path))
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn names(app: &TestApp) -> Vec<String> {
    let r = app.http.get(app.url("/v1.0/vims")).send().await.unwrap();
    let v: Value = r.json().await.unwrap();
    v["vims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn kubernetes_vim_credentials_are_checked_at_registration() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            kubernetes: true,
            ..Options::default()
        },
    )
    .await;
    let cluster = kube_sim::spawn(kube_sim::Settings {
        token: Some("right".into()),
        tls: true,
        ..Default::default()
    })
    .unwrap();
    let ca = cluster.ca_pem.as_deref();
    let url = cluster.url.as_str();

    // Refused: a token the API server refuses (Kubernetes VIM and Helm VIM), a CA that
    // is not the API server's, an address nothing answers on.
    for (body, needle) in [
        (
            vim("k", url, "wrong", ca, false),
            "refused the credentials: HTTP 401",
        ),
        (
            vim("h", url, "wrong", ca, true),
            "refused the credentials: HTTP 401",
        ),
        (vim("k", url, "right", None, false), "could not be used"),
    ] {
        let r = send(&app, Method::POST, "/v1.0/vims", &body).await;
        assert_problem(r, 400, needle).await;
    }
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("https://{}", l.local_addr().unwrap())
    };
    let r = send(
        &app,
        Method::POST,
        "/v1.0/vims",
        &vim("k", &closed, "right", ca, false),
    )
    .await;
    assert_problem(r, 400, "could not be used").await;
    assert!(names(&app).await.is_empty(), "nothing was stored");

    // The right credentials: registered.
    let r = send(
        &app,
        Method::POST,
        "/v1.0/vims",
        &vim("k", url, "right", ca, false),
    )
    .await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = send(
        &app,
        Method::POST,
        "/v1.0/vims",
        &vim("h", url, "right", ca, true),
    )
    .await;
    assert_eq!(r.status(), 201);
    assert_eq!(names(&app).await.len(), 2);

    // New credentials the API server refuses are not stored: the old ones stay and pass
    // the check when they are given again.
    let path = format!("/v1.0/vims/{id}");
    let wrong = json!({"vim": {"auth_cred": {"bearer_token": "wrong"}}});
    let r = send(&app, Method::PUT, &path, &wrong).await;
    assert_problem(r, 400, "refused the credentials").await;
    let right = json!({"vim": {"auth_cred": {"bearer_token": "right"}}});
    let r = send(&app, Method::PUT, &path, &right).await;
    assert_eq!(r.status(), 200);
    // A new description does not need the cluster to answer; credentials do.
    drop(cluster);
    let described = json!({"vim": {"description": "d"}});
    let r = send(&app, Method::PUT, &path, &described).await;
    assert_eq!(r.status(), 200);
    let r = send(&app, Method::PUT, &path, &right).await;
    assert_problem(r, 400, "could not be used").await;
}
