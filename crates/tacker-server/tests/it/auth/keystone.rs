//! `auth.mode = "keystone"` against the tests' real Keystone (`tests/infra/openstack.sh`):
//! every route against Keystone's reader, member and admin; projects as tenants; the
//! built-in endpoint's JWTs beside Keystone's tokens; a revoked token refused once the
//! cache time passes; Keystone unreachable answered 503, and served again once it is back.

use tacker_server::auth::{Keystone, Opaque, ServiceUser};
use tacker_testkit::keystone::{OpenStack, Project};
use tacker_testkit::relay::Relay;

use super::roles::every_route_as;
use super::*;

/// A server in mode `keystone` asking Keystone at `url` as the seeded user `tacker`,
/// keeping answers `cache`; beside it the built-in endpoint with a `member` client.
fn keystone_auth(os: &OpenStack, url: &str, cache: Duration) -> Arc<Auth> {
    let hash = hash_secret(SECRET).unwrap();
    let clients: Arc<HashMap<String, BuiltinClient>> = Arc::new(
        [(
            "member".to_owned(),
            BuiltinClient {
                secret_hash: hash.clone(),
                role: Some(Role::Member),
                tenant: Some("t1".into()),
                attributes: Vec::new(),
            },
        )]
        .into(),
    );
    let key = new_key();
    let user = ServiceUser {
        username: "tacker".into(),
        password: os.tacker_password(),
        project: "service".into(),
        user_domain: "Default".into(),
        project_domain: "Default".into(),
    };
    let verifier = Verifier::new(
        claims(),
        vec![(key.kid().to_owned(), key.decoding())],
        None,
        clients.clone(),
    )
    .unwrap()
    .with_opaque(Opaque::Keystone(Keystone::new(url, user, cache).unwrap()));
    Arc::new(Auth {
        mode: Mode::OAuth2(Box::new(verifier)),
        issuer: Some(Issuer {
            key,
            clients,
            lifetime: Duration::from_secs(600),
            issuer: "tacker".into(),
            audience: "tacker".into(),
            decoy_hash: hash,
            limits: crate::support::token_limits(),
        }),
        public_metrics: false,
    })
}

async fn project(os: &OpenStack) -> Project {
    os.project(&[
        ("reader", &["reader"]),
        ("member", &["member"]),
        ("admin", &["admin"]),
    ])
    .await
}

/// A request with a Keystone token, as the openstack client sends it (and no other: not
/// through the app's client, which may carry a token of its own).
fn as_keystone(
    app: &TestApp,
    token: &str,
    method: reqwest::Method,
    path: &str,
) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .request(method, app.url(path))
        .header("Version", "2.0.0")
        .header("X-Auth-Token", token)
}

async fn status_of(app: &TestApp, token: &str, path: &str) -> reqwest::Response {
    as_keystone(app, token, reqwest::Method::GET, path)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn every_route_answers_each_keystone_role_as_its_table_entry_says() {
    let os = OpenStack::up();
    let p = project(&os).await;
    let app = app(keystone_auth(&os, &os.keystone, Duration::from_secs(300))).await;
    let tokens: Vec<(Option<Role>, Option<String>)> = vec![
        (None, None),
        (Some(Role::Reader), Some(os.token_of(&p, "reader").await)),
        (Some(Role::Member), Some(os.token_of(&p, "member").await)),
        (Some(Role::Admin), Some(os.token_of(&p, "admin").await)),
    ];
    every_route_as(&app, &tokens, "x-auth-token").await;
    os.remove_project(&p).await;
}

/// Projects are tenants, the built-in endpoint's tokens still work, a revoked token is
/// refused once the cache time has passed, and Keystone unreachable means 503 (never a
/// request let through), then service again once it is back.
#[tokio::test]
async fn keystone_projects_are_tenants_and_an_unreachable_keystone_is_503() {
    let os = OpenStack::up();
    let (pa, pb) = (project(&os).await, project(&os).await);
    let relay = Relay::start(os.keystone_addr()).await;
    let url = os
        .keystone
        .replace(&os.keystone_addr().to_string(), &relay.addr.to_string());
    let (a_member, a_reader, b_member, b_admin) = (
        os.token_of(&pa, "member").await,
        os.token_of(&pa, "reader").await,
        os.token_of(&pb, "member").await,
        os.token_of(&pb, "admin").await,
    );
    // The app's own client is a's member (it onboards a's package).
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            auth: Some(keystone_auth(&os, &url, Duration::from_secs(1))),
            token: Some(a_member.clone()),
            ..Options::default()
        },
    )
    .await;
    app.onboarded_package().await;

    // A member of project a creates an instance: a's, seen by a's reader, not by b.
    let r = as_keystone(
        &app,
        &a_member,
        reqwest::Method::POST,
        "/vnflcm/v2/vnf_instances",
    )
    .json(&json!({"vnfdId": crate::lcm::VNFD}))
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/vnflcm/v2/vnf_instances/{id}");
    assert_eq!(status_of(&app, &a_reader, &path).await.status(), 200);
    assert_eq!(status_of(&app, &b_member, &path).await.status(), 404);
    let listed = |t: String| {
        let app = &app;
        async move {
            status_of(app, &t, "/vnflcm/v2/vnf_instances")
                .await
                .json::<Vec<Value>>()
                .await
                .unwrap()
                .len()
        }
    };
    assert_eq!(listed(b_member.clone()).await, 0);
    assert_eq!(listed(a_reader.clone()).await, 1);
    // A filter naming a's instance finds nothing for b.
    let filtered = format!("/vnflcm/v2/vnf_instances?filter=(eq,id,{id})");
    let seen: Vec<Value> = status_of(&app, &b_member, &filtered)
        .await
        .json()
        .await
        .unwrap();
    assert!(seen.is_empty(), "{seen:?}");
    // b may not delete it; b's administrator sees every project.
    let r = as_keystone(&app, &b_member, reqwest::Method::DELETE, &path)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(status_of(&app, &b_admin, &path).await.status(), 200);
    // The reader may not write.
    let r = as_keystone(&app, &a_reader, reqwest::Method::DELETE, &path)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    // The built-in endpoint's token beside Keystone's.
    let builtin = access_token(&app, "member").await;
    assert_eq!(
        status_of(&app, &builtin, "/vnflcm/v2/vnf_instances")
            .await
            .status(),
        200
    );

    // Tokens Keystone does not know: 401, not 503.
    for bad in ["gAAAAABnot-a-token", "x"] {
        let r = status_of(&app, bad, "/vnflcm/v2/vnf_instances").await;
        assert_eq!(r.status(), 401, "{bad}");
    }

    // Revoked: refused once the cache time has passed.
    let doomed = os.token_of(&pa, "member").await;
    assert_eq!(status_of(&app, &doomed, &path).await.status(), 200);
    os.revoke(&doomed).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let r = status_of(&app, &doomed, &path).await;
    assert_eq!(r.status(), 401);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("Keystone"),
        "{body}"
    );

    // Keystone unreachable: 503 with Retry-After for a token whose answer is no longer
    // cached and for one never seen; nothing let through.
    relay.down();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let never_seen = os.token_of(&pa, "member").await;
    for t in [&a_reader, &never_seen] {
        let r = status_of(&app, t, &path).await;
        assert_eq!(r.status(), 503);
        assert!(r.headers().contains_key("retry-after"));
    }
    let r = as_keystone(&app, &never_seen, reqwest::Method::DELETE, &path)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    // Back: served again (the instance was not deleted meanwhile).
    relay.up();
    assert_eq!(status_of(&app, &never_seen, &path).await.status(), 200);
    assert_eq!(status_of(&app, &a_reader, &path).await.status(), 200);

    os.remove_project(&pa).await;
    os.remove_project(&pb).await;
}
