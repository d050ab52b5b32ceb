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
            kubernetes: true,
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

mod keystone;
mod roles;
mod tenancy;
mod tokens;
