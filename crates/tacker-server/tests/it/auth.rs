//! Authentication and roles over real HTTP: the built-in token endpoint, tokens refused
//! for each reason, an external JWKS with key rotation, every route against every role.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tacker_server::auth::{
    Access, Auth, BuiltinClient, Claims, Issuer, Mode, Role, SigningKey, Verifier, hash_secret,
};
use tacker_testkit::TestDb;

use crate::support::{Options, TestApp};

const SECRET: &str = "correct-horse-battery-staple";

fn claims() -> Claims {
    Claims {
        issuer: "tacker".into(),
        audience: "tacker".into(),
        roles: "roles".into(),
        tenant: "tenant".into(),
    }
}

/// A server in mode `oauth2` with the built-in endpoint (a key of its own), a client per
/// role (named after it) and `vendor-member` (member, `VENDOR_Test Provider`,
/// `AREA_tokyo`) sharing one secret; tokens of an external identity provider are checked
/// against `jwks_url`, or when none is given against `idp`'s key served as a JWKS here (so
/// a test signs whatever claims it needs with `idp`).
async fn oauth2(idp: &SigningKey, jwks_url: Option<String>, public_metrics: bool) -> Arc<Auth> {
    let hash = hash_secret(SECRET).unwrap();
    let mut clients: HashMap<String, BuiltinClient> = ["reader", "member", "admin"]
        .into_iter()
        .map(|r| {
            (
                r.to_owned(),
                BuiltinClient {
                    secret_hash: hash.clone(),
                    role: Role::parse(r),
                    tenant: Some("t1".into()),
                    attributes: Vec::new(),
                },
            )
        })
        .collect();
    clients.insert(
        "alerter".into(),
        BuiltinClient {
            secret_hash: hash.clone(),
            role: None,
            tenant: Some("t1".into()),
            attributes: vec!["alert".into()],
        },
    );
    clients.insert(
        "vendor-member".into(),
        BuiltinClient {
            secret_hash: hash.clone(),
            role: Some(Role::Member),
            tenant: None,
            attributes: vec!["VENDOR_Test Provider".into(), "AREA_tokyo".into()],
        },
    );
    let key = new_key();
    let jwks_url = match jwks_url {
        Some(u) => u,
        None => jwks_server(Arc::new(Mutex::new(json!({"keys": [idp.jwk()]})))).await,
    };
    let clients = Arc::new(clients);
    let verifier = Verifier::new(
        claims(),
        vec![(key.kid().to_owned(), key.decoding())],
        Some(jwks_url),
        clients.clone(),
    )
    .unwrap();
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
        public_metrics,
    })
}

fn new_key() -> SigningKey {
    SigningKey::from_pem(&SigningKey::generate_pem().unwrap()).unwrap()
}

async fn app(auth: Arc<Auth>) -> TestApp {
    TestApp::with(
        TestDb::sqlite(),
        Options {
            auth: Some(auth),
            ..Options::default()
        },
    )
    .await
}

async fn token(app: &TestApp, client: &str, scope: Option<&str>) -> reqwest::Response {
    let mut form = vec![("grant_type", "client_credentials")];
    if let Some(s) = scope {
        form.push(("scope", s));
    }
    app.http
        .post(app.url("/oauth2/token"))
        .basic_auth(client, Some(SECRET))
        .form(&form)
        .send()
        .await
        .unwrap()
}

async fn access_token(app: &TestApp, client: &str) -> String {
    let r = token(app, client, None).await;
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn sign(key: &SigningKey, claims: &Value) -> String {
    let mut h = Header::new(Algorithm::EdDSA);
    h.kid = Some(key.kid().to_owned());
    jsonwebtoken::encode(&h, claims, key.encoding()).unwrap()
}

fn good_claims(role: &str) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({"iss": "tacker", "aud": "tacker", "sub": "someone", "iat": now, "exp": now + 300, "roles": [role]})
}

async fn get_with(app: &TestApp, path: &str, token: &str) -> reqwest::Response {
    app.http
        .get(app.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_builtin_endpoint_issues_tokens_that_open_what_the_role_allows() {
    let key = new_key();
    let app = app(oauth2(&key, None, false).await).await;
    let packages = "/vnfpkgm/v1/vnf_packages";

    // No token: 401 with a Bearer challenge, as ProblemDetails.
    let r = app.http.get(app.url(packages)).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    // Open routes stay open.
    for open in [
        "/healthz",
        "/vnflcm/api_versions",
        "/vnfpkgm/v1/api_versions",
    ] {
        assert_eq!(
            app.http.get(app.url(open)).send().await.unwrap().status(),
            200
        );
    }

    // client_secret_basic; the answer is a Bearer token that is never cached.
    let r = token(&app, "reader", None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["scope"], "reader");
    assert_eq!(body["expires_in"], 600);
    let reader = body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(get_with(&app, packages, &reader).await.status(), 200);
    let r = app
        .http
        .post(app.url(packages))
        .bearer_auth(&reader)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("member role"));

    // client_secret_post; a member writes, through X-Auth-Token as the openstack CLI sends.
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", "member"),
            ("client_secret", SECRET),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let member = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .http
        .post(app.url(packages))
        .header("X-Auth-Token", &member)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(
        get_with(&app, "/admin/v1/conductors", &member)
            .await
            .status(),
        403
    );
    assert_eq!(get_with(&app, "/metrics", &member).await.status(), 403);
    let admin = access_token(&app, "admin").await;
    assert_eq!(
        get_with(&app, "/admin/v1/conductors", &admin)
            .await
            .status(),
        200
    );
    assert_eq!(get_with(&app, "/metrics", &admin).await.status(), 200);

    // Scope narrows: a member asking for reader gets a token that cannot write.
    let r = token(&app, "member", Some("reader")).await;
    let narrowed = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .http
        .post(app.url(packages))
        .bearer_auth(&narrowed)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    // RFC 6749 §5.2 errors.
    let r = token(&app, "member", Some("admin")).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_scope");
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .basic_auth("member", Some("wrong-secret"))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_client");
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .basic_auth("nobody", Some(SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_client");
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .basic_auth("member", Some(SECRET))
        .form(&[("grant_type", "password")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"],
        "unsupported_grant_type"
    );

    // The published key set holds the signing key.
    let jwks: Value = app
        .http
        .get(app.url("/oauth2/jwks"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let issued = access_token(&app, "reader").await;
    let kid = jsonwebtoken::decode_header(&issued).unwrap().kid.unwrap();
    assert_eq!(jwks["keys"][0]["kid"], kid.as_str());
    assert_eq!(jwks["keys"][0]["crv"], "Ed25519");
}

#[tokio::test]
async fn expired_foreign_unsigned_and_misaddressed_tokens_are_refused() {
    let key = new_key();
    let app = app(oauth2(&key, None, false).await).await;
    let path = "/vnfpkgm/v1/vnf_packages";
    assert_eq!(
        get_with(&app, path, &sign(&key, &good_claims("reader")))
            .await
            .status(),
        200
    );

    let now = chrono::Utc::now().timestamp();
    let mut expired = good_claims("reader");
    expired["exp"] = json!(now - 120);
    let mut not_yet = good_claims("reader");
    not_yet["nbf"] = json!(now + 600);
    let mut wrong_aud = good_claims("reader");
    wrong_aud["aud"] = json!("someone-else");
    let mut wrong_iss = good_claims("reader");
    wrong_iss["iss"] = json!("https://evil.example");
    // Another key claiming the trusted key's id.
    let other = new_key();
    let mut h = Header::new(Algorithm::EdDSA);
    h.kid = Some(key.kid().to_owned());
    let forged = jsonwebtoken::encode(&h, &good_claims("admin"), other.encoding()).unwrap();
    // alg=none: header and claims, no signature.
    use base64::Engine;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let unsigned = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "typ": "JWT", "kid": key.kid()})),
        b64(&good_claims("admin"))
    );
    // HS256 with the public key as the secret (algorithm confusion).
    let mut hh = Header::new(Algorithm::HS256);
    hh.kid = Some(key.kid().to_owned());
    let public = key.jwk()["x"].as_str().unwrap().to_owned();
    let confused = jsonwebtoken::encode(
        &hh,
        &good_claims("admin"),
        &EncodingKey::from_secret(public.as_bytes()).unwrap(),
    )
    .unwrap();
    for (what, t) in [
        ("expired", sign(&key, &expired)),
        ("not yet valid", sign(&key, &not_yet)),
        ("wrong audience", sign(&key, &wrong_aud)),
        ("wrong issuer", sign(&key, &wrong_iss)),
        ("wrong key", forged),
        ("alg none", unsigned),
        ("HS256", confused),
        ("garbage", "not.a.token".to_owned()),
    ] {
        let r = get_with(&app, path, &t).await;
        assert_eq!(r.status(), 401, "{what}");
        assert_eq!(
            r.headers()["content-type"],
            "application/problem+json",
            "{what}"
        );
    }
    // A valid token without a known role is authenticated but may do nothing.
    let r = get_with(&app, path, &sign(&key, &good_claims("auditor"))).await;
    assert_eq!(r.status(), 403);
}

/// A JWKS served over HTTP whose keys the test replaces.
async fn jwks_server(keys: Arc<Mutex<Value>>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    let data = web::Data::new(keys);
    let server = HttpServer::new(move || {
        App::new().app_data(data.clone()).route(
            "/jwks",
            web::get().to(|k: web::Data<Arc<Mutex<Value>>>| async move {
                let body = k.lock().unwrap().clone();
                HttpResponse::Ok().json(body)
            }),
        )
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    url
}

#[tokio::test]
async fn an_external_jwks_is_fetched_and_its_key_rotation_followed() {
    let builtin = new_key();
    let (a, b) = (new_key(), new_key());
    let set = Arc::new(Mutex::new(json!({"keys": [a.jwk()]})));
    let url = jwks_server(set.clone()).await;
    let app = app(oauth2(&builtin, Some(url), false).await).await;
    let path = "/vnfpkgm/v1/vnf_packages";

    let token_a = sign(&a, &good_claims("reader"));
    assert_eq!(get_with(&app, path, &token_a).await.status(), 200);
    // The built-in endpoint's tokens work beside the JWKS.
    let builtin_token = access_token(&app, "reader").await;
    assert_eq!(get_with(&app, path, &builtin_token).await.status(), 200);

    // Rotation: the set now holds b only. A token of b names a key not seen yet, so the
    // set is fetched again (at most once a second); a stops working.
    *set.lock().unwrap() = json!({"keys": [b.jwk()]});
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let token_b = sign(&b, &good_claims("member"));
    let r = app
        .http
        .post(app.url(path))
        .bearer_auth(&token_b)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(get_with(&app, path, &token_a).await.status(), 401);
}

fn concrete(path: &str) -> String {
    path.replace("{id}", "0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f50")
        .replace("{reportId}", "0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f51")
        .replace("{path:.+}", "Definitions/x.yaml")
}

#[tokio::test]
async fn every_route_answers_each_role_as_its_table_entry_says() {
    let key = new_key();
    let app = app(oauth2(&key, None, false).await).await;
    let tokens: Vec<(Option<Role>, Option<String>)> = vec![
        (None, None),
        (Some(Role::Reader), Some(access_token(&app, "reader").await)),
        (Some(Role::Member), Some(access_token(&app, "member").await)),
        (Some(Role::Admin), Some(access_token(&app, "admin").await)),
    ];
    let mut checked = 0;
    for route in tacker_server::ROUTES {
        for (method, access, _) in route.ops {
            let url = app.url(&concrete(route.path));
            let mut seen = Vec::new();
            for (role, token) in &tokens {
                let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                let mut r = app
                    .http
                    .request(m, &url)
                    .header("Version", route.version.unwrap_or("2.0.0"));
                if let Some(t) = token {
                    r = r.bearer_auth(t);
                }
                if *method != "get" {
                    r = r.json(&json!({}));
                }
                let status = r.send().await.unwrap().status().as_u16();
                let expected = match (access.role(), role) {
                    (None, _) => None,
                    (Some(_), None) => Some(401),
                    (Some(need), Some(have)) if *have < need => Some(403),
                    _ => Some(0),
                };
                match expected {
                    Some(0) => assert!(
                        status != 401 && status != 403,
                        "{method} {} as {role:?}: {status}",
                        route.path
                    ),
                    Some(s) => assert_eq!(status, s, "{method} {} as {role:?}", route.path),
                    None => seen.push(status),
                }
            }
            if access.role().is_none() {
                assert!(
                    seen.windows(2).all(|w| w[0] == w[1]),
                    "public {method} {} answers by role: {seen:?}",
                    route.path
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "{checked}");
}

#[test]
fn writes_need_member_and_reads_reader_at_least() {
    for route in tacker_server::ROUTES {
        for (method, access, _) in route.ops {
            let public_ok = route.path.ends_with("api_versions")
                || route.path.starts_with("/oauth2/")
                || matches!(route.path, "/healthz" | "/readyz");
            if *access == Access::Public {
                assert!(public_ok, "{method} {} is public", route.path);
            } else if *method != "get" {
                assert!(
                    access.role() >= Some(Role::Member),
                    "{method} {} needs only {access:?}",
                    route.path
                );
            }
        }
    }
}

#[tokio::test]
async fn mode_none_answers_loopback_hosts_only() {
    let app = TestApp::start(TestDb::sqlite()).await;
    let path = "/vnfpkgm/v1/vnf_packages";
    assert_eq!(
        app.http.get(app.url(path)).send().await.unwrap().status(),
        200
    );
    for host in ["localhost:9890", "[::1]"] {
        let r = app
            .http
            .get(app.url(path))
            .header("Host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{host}");
    }
    // A page from rebinding.example whose name now resolves to 127.0.0.1.
    let r = app
        .http
        .get(app.url(path))
        .header("Host", "rebinding.example:9890")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("not served"));
}

#[tokio::test]
async fn metrics_can_be_public() {
    let app = app(oauth2(&new_key(), None, true).await).await;
    assert_eq!(
        app.http
            .get(app.url("/metrics"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let r = app
        .http
        .get(app.url("/admin/v1/conductors"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

fn token_of(key: &SigningKey, role: &str, tenant: Option<&str>) -> String {
    let mut c = good_claims(role);
    if let Some(t) = tenant {
        c["tenant"] = json!(t);
    }
    sign(key, &c)
}

/// A request to `/vnflcm/v2{path}` as the holder of `token`.
fn lcm_as(
    app: &TestApp,
    token: &str,
    method: reqwest::Method,
    path: &str,
) -> reqwest::RequestBuilder {
    app.http
        .request(method, app.url(&format!("/vnflcm/v2{path}")))
        .header("Version", "2.0.0")
        .bearer_auth(token)
}

async fn status_as(app: &TestApp, token: &str, method: reqwest::Method, path: &str) -> u16 {
    let mut r = lcm_as(app, token, method.clone(), path);
    if method != reqwest::Method::GET {
        r = r.json(&json!({}));
    }
    r.send().await.unwrap().status().as_u16()
}

async fn ids_as(app: &TestApp, token: &str, path: &str) -> Vec<String> {
    let r = lcm_as(app, token, reqwest::Method::GET, path)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.json::<Vec<Value>>()
        .await
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The ids a SOL005 list (`path`) answers the holder of `token`, sorted.
async fn sorted_ids(app: &TestApp, path: &str, token: &str) -> Vec<String> {
    let r = get_with(app, path, token).await;
    assert_eq!(r.status(), 200, "{path}");
    let mut ids: Vec<String> = r
        .json::<Vec<Value>>()
        .await
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// Creates an instance of the test package (`VNFD`) as the holder of `token`: its id.
async fn create_as(app: &TestApp, token: &str) -> String {
    let r = lcm_as(app, token, reqwest::Method::POST, "/vnf_instances")
        .json(&json!({"vnfdId": crate::lcm::VNFD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The occurrence a task's 202 names in its Location, once COMPLETED.
async fn completed_op(app: &TestApp, r: reqwest::Response) -> String {
    assert_eq!(r.status(), 202);
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    assert_eq!(
        app.wait_op(&op, &["COMPLETED"]).await["operationState"],
        "COMPLETED"
    );
    op
}

#[tokio::test]
async fn another_tenants_instances_operations_and_notifications_are_invisible() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    let key = new_key();
    let (app, admin) = admin_app(&key).await;
    app.onboarded_package().await;
    let (t1, t2) = (
        token_of(&key, "member", Some("t1")),
        token_of(&key, "member", Some("t2")),
    );
    // A TENANT_ role names the tenant too.
    let t2_by_role = sign(&key, &{
        let mut c = good_claims("member");
        c["roles"] = json!(["member", "TENANT_t2"]);
        c
    });

    // Each tenant subscribes to everything.
    let (sub1, sub2) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    for (t, s) in [(&t1, &sub1), (&t2, &sub2)] {
        let r = lcm_as(&app, t, Method::POST, "/subscriptions")
            .json(&json!({"callbackUri": s.url}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }

    // t1 creates and instantiates.
    let inst = create_as(&app, &t1).await;
    let r = lcm_as(
        &app,
        &t1,
        Method::POST,
        &format!("/vnf_instances/{inst}/instantiate"),
    )
    .json(&json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}))
    .send()
    .await
    .unwrap();
    let op = completed_op(&app, r).await;

    // t1 and the administrator see it all; t2 (by claim or by role) sees nothing of it.
    for who in [&t1, &admin] {
        assert_eq!(
            ids_as(&app, who, "/vnf_instances").await,
            vec![inst.clone()]
        );
        assert_eq!(
            ids_as(&app, who, "/vnf_lcm_op_occs").await,
            vec![op.clone()]
        );
        assert_eq!(
            status_as(&app, who, Method::GET, &format!("/vnf_instances/{inst}")).await,
            200
        );
    }
    for who in [&t2, &t2_by_role] {
        assert!(ids_as(&app, who, "/vnf_instances").await.is_empty());
        assert!(
            ids_as(&app, who, &format!("/vnf_instances?filter=(eq,id,{inst})"))
                .await
                .is_empty()
        );
        assert!(ids_as(&app, who, "/vnf_lcm_op_occs").await.is_empty());
        for (m, path) in [
            (Method::GET, format!("/vnf_instances/{inst}")),
            (Method::PATCH, format!("/vnf_instances/{inst}")),
            (Method::DELETE, format!("/vnf_instances/{inst}")),
            (Method::POST, format!("/vnf_instances/{inst}/terminate")),
            (Method::POST, format!("/vnf_instances/{inst}/scale")),
            (Method::GET, format!("/vnf_lcm_op_occs/{op}")),
            (Method::POST, format!("/vnf_lcm_op_occs/{op}/retry")),
        ] {
            assert_eq!(
                status_as(&app, who, m.clone(), &path).await,
                404,
                "{m} {path}"
            );
        }
    }
    // Subscriptions are tenant-scoped too.
    assert_eq!(ids_as(&app, &t1, "/subscriptions").await.len(), 1);
    assert_eq!(ids_as(&app, &admin, "/subscriptions").await.len(), 2);

    // t1's subscriber heard the whole lifecycle; t2's nothing of it.
    sub1.wait("t1's COMPLETED", |got| {
        got.iter().any(|n| n["operationState"] == "COMPLETED")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(sub2.received().is_empty(), "{:#?}", sub2.received());

    // A CNF goes into the namespace named after the caller's tenant only.
    let cnf = create_as(&app, &t1).await;
    let r = lcm_as(&app, &t1, Method::POST, &format!("/vnf_instances/{cnf}/instantiate"))
        .json(&json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
            "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/d.yaml"], "namespace": "kube-system"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("namespace t1 only"));
}

/// `ids_as` for any collection path (`/vnfpkgm/v1/...`, `/v1.0/vims`).
async fn status_at(app: &TestApp, token: &str, method: reqwest::Method, path: &str) -> u16 {
    app.http
        .request(method, app.url(path))
        .header("Version", "2.0.0")
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn with_roles(key: &SigningKey, roles: &[&str]) -> String {
    sign(key, &{
        let mut c = good_claims("member");
        c["roles"] = json!(roles);
        c
    })
}

/// An all-in-one test app on PostgreSQL with one conductor in oauth2 mode, and an
/// administrator's token (which its client sends by default).
async fn admin_app(key: &SigningKey) -> (TestApp, String) {
    let admin = token_of(key, "admin", None);
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            auth: Some(oauth2(key, None, false).await),
            token: Some(admin.clone()),
            ..Options::default()
        },
    )
    .await;
    (app, admin)
}

/// Uploads the test package as provider "Other Vendor" with `vnfd_id`; its id.
async fn upload_other_vendor(app: &TestApp, vnfd_id: &str) -> String {
    let (id, _) = app
        .upload(
            tacker_testkit::csar::sealed(
                tacker_testkit::csar::valid_with_vnfd_id(vnfd_id)
                    .edit("Definitions/test_types.yaml", |t| {
                        t.replace("default: Test Provider", "default: Other Vendor")
                    }),
            )
            .zip(),
        )
        .await;
    id
}

#[tokio::test]
async fn vendor_and_area_roles_scope_packages_instances_operations_and_vims() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    const OTHER_VNFD: &str = "22222222-2222-3333-4444-555555555555";
    let key = new_key();
    let (app, admin) = admin_app(&key).await;
    let ours = app.onboarded_package().await;
    let theirs = upload_other_vendor(&app, OTHER_VNFD).await;
    let p = app.settled(&theirs, Duration::from_secs(20)).await;
    assert_eq!(p["vnfProvider"], "Other Vendor", "{p}");
    let tokyo = with_roles(&key, &["member", "VENDOR_test provider", "AREA_tokyo"]);
    let osaka = with_roles(&key, &["member", "VENDOR_Other Vendor", "AREA_osaka"]);
    let everyone = with_roles(&key, &["member", "VENDOR_all", "AREA_all"]);

    // Packages: each vendor sees its own (and ones not onboarded yet), not the other's.
    let fresh = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let pkgs = |t: String| {
        let app = &app;
        async move { sorted_ids(app, "/vnfpkgm/v1/vnf_packages", &t).await }
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        pkgs(tokyo.clone()).await,
        sorted(vec![ours.clone(), fresh.clone()])
    );
    assert_eq!(
        pkgs(osaka.clone()).await,
        sorted(vec![theirs.clone(), fresh.clone()])
    );
    assert_eq!(pkgs(everyone.clone()).await.len(), 3);
    // A built-in client configured with the attribute roles gets them in its tokens.
    let builtin = access_token(&app, "vendor-member").await;
    assert_eq!(
        pkgs(builtin).await,
        sorted(vec![ours.clone(), fresh.clone()])
    );
    for path in [
        format!("/vnfpkgm/v1/vnf_packages/{theirs}"),
        format!("/vnfpkgm/v1/vnf_packages/{theirs}/vnfd"),
        format!("/vnfpkgm/v1/vnf_packages/{theirs}/package_content"),
        format!("/vnfpkgm/v1/vnf_packages/{theirs}/manifest"),
    ] {
        assert_eq!(
            status_at(&app, &tokyo, Method::GET, &path).await,
            404,
            "{path}"
        );
    }
    assert_eq!(
        status_at(
            &app,
            &tokyo,
            Method::DELETE,
            &format!("/vnfpkgm/v1/vnf_packages/{theirs}")
        )
        .await,
        404
    );
    assert_eq!(
        status_at(
            &app,
            &tokyo,
            Method::GET,
            &format!("/vnfpkgm/v1/vnf_packages/{ours}/vnfd")
        )
        .await,
        200
    );

    // Instances: only of a package the caller's vendor sees.
    let r = lcm_as(&app, &tokyo, Method::POST, "/vnf_instances")
        .json(&json!({"vnfdId": OTHER_VNFD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    let inst = create_as(&app, &tokyo).await;
    // ... placed in the caller's areas only.
    let placed = |area: &str| {
        let mut v = sim_vim();
        v["vim1"]["extra"] = json!({"area": area});
        json!({"flavourId": "simple", "vimConnectionInfo": v})
    };
    let instantiate = format!("/vnf_instances/{inst}/instantiate");
    let r = lcm_as(&app, &tokyo, Method::POST, &instantiate)
        .json(&placed("osaka"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("osaka"));
    let r = lcm_as(&app, &tokyo, Method::POST, &instantiate)
        .json(&placed("tokyo"))
        .send()
        .await
        .unwrap();
    let op = completed_op(&app, r).await;

    // The instance and its occurrences: seen by its vendor and area, and by `all`;
    // invisible (404, not listed) to the other vendor.
    for who in [&tokyo, &everyone, &admin] {
        assert_eq!(
            ids_as(&app, who, "/vnf_instances").await,
            vec![inst.clone()]
        );
        assert_eq!(
            ids_as(&app, who, "/vnf_lcm_op_occs").await,
            vec![op.clone()]
        );
    }
    assert!(ids_as(&app, &osaka, "/vnf_instances").await.is_empty());
    assert!(ids_as(&app, &osaka, "/vnf_lcm_op_occs").await.is_empty());
    for (m, path) in [
        (Method::GET, format!("/vnf_instances/{inst}")),
        (Method::POST, format!("/vnf_instances/{inst}/terminate")),
        (Method::GET, format!("/vnf_lcm_op_occs/{op}")),
    ] {
        assert_eq!(
            status_as(&app, &osaka, m.clone(), &path).await,
            404,
            "{m} {path}"
        );
    }
    // The same vendor in another area does not see it either.
    let tokyo_vendor_osaka = with_roles(&key, &["member", "VENDOR_Test Provider", "AREA_osaka"]);
    assert!(
        ids_as(&app, &tokyo_vendor_osaka, "/vnf_instances")
            .await
            .is_empty()
    );
    assert_eq!(
        status_as(
            &app,
            &tokyo_vendor_osaka,
            Method::GET,
            &format!("/vnf_lcm_op_occs/{op}")
        )
        .await,
        404
    );

    // VIMs: registered in the caller's areas only, listed and shown by area.
    let vim = |name: &str, area: &str| {
        json!({"vim": {"name": name, "type": "kubernetes", "auth_url": format!("https://{name}:6443"),
            "auth_cred": {"bearer_token": "t"}, "vim_project": {"name": "default"},
            "extra": {"area": area}}})
    };
    let register = |t: String, body: Value| {
        let app = &app;
        async move {
            app.http
                .post(app.url("/v1.0/vims"))
                .bearer_auth(t)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    assert_eq!(
        register(tokyo.clone(), vim("k-osaka", "osaka"))
            .await
            .status(),
        403
    );
    let r = register(tokyo.clone(), vim("k-tokyo", "tokyo")).await;
    assert_eq!(r.status(), 201);
    let tokyo_vim = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = register(admin.clone(), vim("k-osaka", "osaka")).await;
    assert_eq!(r.status(), 201);
    let osaka_vim = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let vims = |t: String| {
        let app = &app;
        async move {
            let r = get_with(app, "/v1.0/vims", &t).await;
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()["vims"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["name"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(vims(tokyo.clone()).await, vec!["k-tokyo".to_owned()]);
    assert_eq!(vims(osaka.clone()).await, vec!["k-osaka".to_owned()]);
    assert_eq!(vims(admin.clone()).await.len(), 2);
    for (m, who, id, want) in [
        (Method::GET, &tokyo, &osaka_vim, 404),
        (Method::DELETE, &tokyo, &osaka_vim, 404),
        (Method::GET, &osaka, &tokyo_vim, 404),
        (Method::GET, &tokyo, &tokyo_vim, 200),
    ] {
        assert_eq!(
            status_at(&app, who, m.clone(), &format!("/v1.0/vims/{id}")).await,
            want,
            "{m} {id}"
        );
    }
    // A vimId of another area is as unknown as a missing one.
    let second = create_as(&app, &tokyo).await;
    let r = lcm_as(
        &app,
        &tokyo,
        Method::POST,
        &format!("/vnf_instances/{second}/instantiate"),
    )
    .json(&json!({"flavourId": "simple",
        "vimConnectionInfo": {"v": {"vimId": osaka_vim, "vimType": "kubernetes"}}}))
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 422);
    assert!(r.text().await.unwrap().contains("is not a registered VIM"));
}

/// `server.max_instances_per_tenant` and `max_subscriptions_per_tenant` hold per tenant,
/// also when a tenant's creations race (on both backends).
#[tokio::test]
async fn tenant_quotas_hold_under_concurrent_creations() {
    use crate::lcm::VNFD;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    for db in [TestDb::postgres(), TestDb::sqlite()] {
        let key = new_key();
        let admin = token_of(&key, "admin", None);
        let app = TestApp::with(
            db,
            Options {
                conductors: 1,
                auth: Some(oauth2(&key, None, false).await),
                token: Some(admin.clone()),
                quotas: (3, 1),
                ..Options::default()
            },
        )
        .await;
        app.onboarded_package().await;
        // Two packages: creations from different packages do not queue on one package
        // row, so only the quota's own lock keeps them from passing it together.
        const OTHER_VNFD: &str = "33333333-2222-3333-4444-555555555555";
        let (other, _) = app
            .upload(tacker_testkit::csar::valid_with_vnfd_id(OTHER_VNFD).zip())
            .await;
        assert_eq!(
            app.settled(&other, Duration::from_secs(20)).await["onboardingState"],
            "ONBOARDED"
        );
        let (t1, t2) = (
            token_of(&key, "member", Some("t1")),
            token_of(&key, "member", Some("t2")),
        );
        let create_of = |t: String, vnfd: &'static str| {
            let app = &app;
            async move {
                let r = lcm_as(app, &t, Method::POST, "/vnf_instances")
                    .json(&json!({"vnfdId": vnfd}))
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let body: Value = r.json().await.unwrap();
                (status, body)
            }
        };
        let create = |t: String| create_of(t, VNFD);
        // Ten at once for t1: exactly three are created, the others 403 with a reason.
        let results = futures::future::join_all(
            (0..10).map(|n| create_of(t1.clone(), if n % 2 == 0 { VNFD } else { OTHER_VNFD })),
        )
        .await;
        let made: Vec<&Value> = results
            .iter()
            .filter(|(s, _)| *s == 201)
            .map(|(_, b)| b)
            .collect();
        assert_eq!(made.len(), 3, "{results:?}");
        for (s, b) in results.iter().filter(|(s, _)| *s != 201) {
            assert_eq!(*s, 403, "{b}");
            assert!(
                b["detail"]
                    .as_str()
                    .unwrap()
                    .contains("tenant t1 has 3 VNF instances"),
                "{b}"
            );
        }
        assert_eq!(ids_as(&app, &t1, "/vnf_instances").await.len(), 3);
        // Another tenant has its own count.
        assert_eq!(create(t2.clone()).await.0, 201);
        // A deleted instance frees its place.
        let gone = made[0]["id"].as_str().unwrap().to_owned();
        assert_eq!(
            status_as(&app, &t1, Method::DELETE, &format!("/vnf_instances/{gone}")).await,
            204
        );
        assert_eq!(create(t1.clone()).await.0, 201);
        assert_eq!(create(t1.clone()).await.0, 403);

        // Subscriptions: one per tenant.
        let sub = Subscriber::start(Expect::Nothing);
        let subscribe = |t: String| {
            let (app, url) = (&app, sub.url.clone());
            async move {
                lcm_as(app, &t, Method::POST, "/subscriptions")
                    .json(&json!({"callbackUri": url}))
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            }
        };
        assert_eq!(subscribe(t1.clone()).await, 201);
        assert_eq!(subscribe(t1.clone()).await, 403);
        assert_eq!(subscribe(t2.clone()).await, 201);
        assert_eq!(ids_as(&app, &t1, "/subscriptions").await.len(), 1);
        // FM and package subscriptions: as many of each kind.
        for (path, version, kinds) in [
            (
                "/vnffm/v1/subscriptions",
                "1.3.0",
                ["AlarmNotification", "AlarmClearedNotification"],
            ),
            (
                "/vnfpkgm/v1/subscriptions",
                "2.0.0",
                [
                    "VnfPackageOnboardingNotification",
                    "VnfPackageChangeNotification",
                ],
            ),
        ] {
            let other = |t: &str, kind: &str| {
                app.http
                    .post(app.url(path))
                    .header("Version", version)
                    .bearer_auth(t)
                    .json(&json!({"callbackUri": sub.url,
                        "filter": {"notificationTypes": [kind]}}))
                    .send()
            };
            assert_eq!(other(&t1, kinds[0]).await.unwrap().status(), 201, "{path}");
            let r = other(&t1, kinds[1]).await.unwrap();
            assert_eq!(r.status(), 403, "{path}");
            let b: Value = r.json().await.unwrap();
            assert!(
                b["detail"].as_str().unwrap().contains("tenant t1 has 1"),
                "{b}"
            );
            assert_eq!(other(&t2, kinds[1]).await.unwrap().status(), 201, "{path}");
        }
    }
}

/// Subscriptions keep their creator's vendor and area confinement: a subscription made
/// by a caller confined to one vendor and area hears nothing of another vendor's
/// packages or of instances placed in another area (an unconfined one hears all), and
/// confined callers see only subscriptions as narrow as themselves.
#[tokio::test]
async fn notifications_reach_only_subscriptions_whose_creator_sees_the_resource() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    const OTHER_VNFD: &str = "33333333-2222-3333-4444-555555555555";
    let key = new_key();
    let (app, admin) = admin_app(&key).await;
    let tokyo = with_roles(&key, &["member", "VENDOR_test provider", "AREA_tokyo"]);
    let subscribe = |token: String, path: &'static str, sub: String| {
        let app = &app;
        async move {
            let r = app
                .http
                .post(app.url(path))
                .header("Version", "2.0.0")
                .bearer_auth(token)
                .json(&json!({"callbackUri": sub}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
            r.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let (pkgm_all, pkgm_tokyo) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    let (lcm_all, lcm_tokyo) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    let admins = subscribe(
        admin.clone(),
        "/vnfpkgm/v1/subscriptions",
        pkgm_all.url.clone(),
    )
    .await;
    let tokyos = subscribe(
        tokyo.clone(),
        "/vnfpkgm/v1/subscriptions",
        pkgm_tokyo.url.clone(),
    )
    .await;
    subscribe(
        admin.clone(),
        "/vnflcm/v2/subscriptions",
        lcm_all.url.clone(),
    )
    .await;
    subscribe(
        tokyo.clone(),
        "/vnflcm/v2/subscriptions",
        lcm_tokyo.url.clone(),
    )
    .await;

    // Packages: the other vendor's onboarding reaches the unconfined subscription only.
    let theirs = upload_other_vendor(&app, OTHER_VNFD).await;
    app.settled(&theirs, Duration::from_secs(20)).await;
    let ours = app.onboarded_package().await;
    let onboarded = |pkg: &str| {
        let pkg = pkg.to_owned();
        move |g: &[Value]| {
            g.iter().any(|n| {
                n["vnfPkgId"] == pkg.as_str()
                    && n["notificationType"] == "VnfPackageOnboardingNotification"
            })
        }
    };
    pkgm_all
        .wait("both onboardings", |g| {
            onboarded(&theirs)(g) && onboarded(&ours)(g)
        })
        .await;
    pkgm_tokyo.wait("our onboarding", onboarded(&ours)).await;
    let about =
        |s: &Subscriber, id: &str| s.received().iter().filter(|n| n["vnfPkgId"] == id).count();
    assert_eq!(
        about(&pkgm_tokyo, &theirs),
        0,
        "the other vendor's package was told"
    );

    // Instances: one placed in osaka (by the administrator) is not told to tokyo's.
    let placed = |area: &str| {
        let mut v = sim_vim();
        v["vim1"]["extra"] = json!({"area": area});
        json!({"flavourId": "simple", "vimConnectionInfo": v})
    };
    let mut ops = Vec::new();
    for area in ["osaka", "tokyo"] {
        let inst = create_as(&app, &admin).await;
        let r = lcm_as(
            &app,
            &admin,
            Method::POST,
            &format!("/vnf_instances/{inst}/instantiate"),
        )
        .json(&placed(area))
        .send()
        .await
        .unwrap();
        ops.push(completed_op(&app, r).await);
    }
    let completed = |op: &str| {
        let op = op.to_owned();
        move |g: &[Value]| {
            g.iter()
                .any(|n| n["vnfLcmOpOccId"] == op.as_str() && n["operationState"] == "COMPLETED")
        }
    };
    lcm_all
        .wait("both instantiations", |g| {
            completed(&ops[0])(g) && completed(&ops[1])(g)
        })
        .await;
    lcm_tokyo
        .wait("tokyo's instantiation", completed(&ops[1]))
        .await;
    // Until it is placed, an instance is in no area and seen by all (as when read); once
    // in osaka, nothing of it reaches tokyo's subscription.
    let told: Vec<Value> = lcm_tokyo
        .received()
        .into_iter()
        .filter(|n| n["vnfLcmOpOccId"] == ops[0].as_str())
        .collect();
    assert!(
        told.iter().all(|n| n["operationState"] != "COMPLETED"),
        "the end of an instantiation in osaka was told to tokyo's subscription: {told:?}"
    );

    // Subscriptions: tokyo sees its own only; the administrator sees both.
    let listed = |token: String| {
        let app = &app;
        async move { sorted_ids(app, "/vnfpkgm/v1/subscriptions", &token).await }
    };
    assert_eq!(listed(tokyo.clone()).await, vec![tokyos.clone()]);
    let mut both = vec![admins.clone(), tokyos.clone()];
    both.sort();
    assert_eq!(listed(admin.clone()).await, both);
    let r = get_with(&app, &format!("/vnfpkgm/v1/subscriptions/{admins}"), &tokyo).await;
    assert_eq!(r.status(), 404);
}

/// The alert webhooks need the `alert` role (a built-in client for Alertmanager, or an
/// IdP token), which reads and changes nothing else; an alert names only instances of
/// its sender's tenant; alarms, like what they are about, are the tenant's.
#[tokio::test]
async fn alerts_need_the_alert_role_and_alarms_stay_within_their_tenant() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    let key = new_key();
    let (app, _admin) = admin_app(&key).await;
    app.onboarded_package().await;
    let (t1, t2) = (
        token_of(&key, "member", Some("t1")),
        token_of(&key, "member", Some("t2")),
    );
    let alerter_of = |tenant: &str| {
        let mut c = good_claims("alert");
        c["tenant"] = json!(tenant);
        sign(&key, &c)
    };
    let inst = create_as(&app, &t1).await;
    let r = lcm_as(
        &app,
        &t1,
        Method::POST,
        &format!("/vnf_instances/{inst}/instantiate"),
    )
    .json(&json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}))
    .send()
    .await
    .unwrap();
    completed_op(&app, r).await;
    let v: Value = lcm_as(&app, &t1, Method::GET, &format!("/vnf_instances/{inst}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let vnfc = v["instantiatedVnfInfo"]["vnfcInfo"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let plain = reqwest::Client::new();
    let fm_as = |token: &str, method: Method, path: &str| {
        plain
            .request(method, app.url(&format!("/vnffm/v1{path}")))
            .header("Version", "1.3.0")
            .bearer_auth(token)
    };
    let (sub1, sub2) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    for (t, s) in [(&t1, &sub1), (&t2, &sub2)] {
        let r = fm_as(t, Method::POST, "/subscriptions")
            .json(&json!({"callbackUri": s.url}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }
    let body = json!({"alerts": [{"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "t-1",
        "labels": {"receiver_type": "tacker", "function_type": "vnffm", "vnf_instance_id": inst,
            "vnfc_info_id": vnfc, "perceived_severity": "MAJOR", "event_type": "QOS_ALARM"}}]});
    // A client of its own: the app's carries the administrator's token.
    let bare = reqwest::Client::new();
    let post = |token: Option<&str>| {
        let mut r = bare.post(app.url("/alert")).json(&body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send()
    };
    // Nobody anonymous, no member: the alert role (or admin).
    assert_eq!(post(None).await.unwrap().status(), 401);
    crate::support::assert_problem(post(Some(&t1)).await.unwrap(), 403, "alert").await;
    // Another tenant's alerter does not reach t1's instance.
    let r = post(Some(&alerter_of("t2"))).await.unwrap();
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert!(
        out["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not found"),
        "{out}"
    );
    // t1's built-in alerter client (what Alertmanager's http_config oauth2 uses).
    let builtin = access_token(&app, "alerter").await;
    let r = post(Some(&builtin)).await.unwrap();
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["outcomes"]["raised"], 1, "{out}");
    // The alert role reads and changes nothing else.
    for path in ["/vnflcm/v2/vnf_instances", "/vnfpkgm/v1/vnf_packages"] {
        let r = bare
            .get(app.url(path))
            .header("Version", "2.0.0")
            .bearer_auth(&builtin)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path}");
    }
    assert_eq!(
        fm_as(&builtin, Method::GET, "/alarms")
            .send()
            .await
            .unwrap()
            .status(),
        403
    );

    // t1 sees the alarm and hears of it; t2 does neither, nor can it acknowledge it.
    let listed: Vec<Value> = fm_as(&t1, Method::GET, "/alarms")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    let alarm = listed[0]["id"].as_str().unwrap().to_owned();
    let listed: Vec<Value> = fm_as(&t2, Method::GET, "/alarms")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(listed.is_empty(), "{listed:?}");
    assert_eq!(
        fm_as(&t2, Method::GET, &format!("/alarms/{alarm}"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let r = fm_as(&t2, Method::PATCH, &format!("/alarms/{alarm}"))
        .json(&json!({"ackState": "ACKNOWLEDGED"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    sub1.wait("t1's alarm", |g| {
        g.iter()
            .any(|n| n["notificationType"] == "AlarmNotification")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(sub2.received().is_empty(), "{:?}", sub2.received());
}
