//! Tenancy of registered VIMs and VNF packages, through the REST API of a server and two
//! conductors as processes (PostgreSQL, RabbitMQ) in mode `oauth2`, the callers built-in
//! clients of a configuration file: each tenant sees, changes and uses only its own
//! VIMs and packages, a tenant's default VIM is its own, two tenants onboard the same
//! CSAR independently, a `VENDOR_` member onboards only its provider's packages.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tacker_testkit::cnf::{CNF_VNFD_ID, cnf, cnf_params};

use tacker_testkit::keystone::{OpenStack, Project};

use crate::auth::hash_secret;
use crate::procs::Cluster;
use crate::support::tacker;

const T: Duration = Duration::from_secs(60);
const SECRET: &str = "tenancy-secret-0123456789";
const LABEL: &str = "tacker.io/vnf-instance-id";

/// One caller: a client whose every request carries its token.
pub struct Caller {
    pub http: reqwest::Client,
    pub api: String,
}

impl Caller {
    pub fn req(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.http.request(method, format!("{}{path}", self.api));
        if path.starts_with("/vnflcm/v2") {
            r.header("Version", "2.0.0")
        } else {
            r
        }
    }

    pub async fn status(&self, method: Method, path: &str, body: Option<Value>) -> u16 {
        let mut r = self.req(method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        r.send().await.unwrap().status().as_u16()
    }

    pub async fn json(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut r = self.req(method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        let r = r.send().await.unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// A new package with `zip` uploaded: its id once onboarding ended, and its state.
    pub async fn onboard(&self, zip: Vec<u8>) -> (String, Value) {
        let (s, p) = self
            .json(Method::POST, "/vnfpkgm/v1/vnf_packages", Some(json!({})))
            .await;
        assert_eq!(s, 201, "{p}");
        let id = p["id"].as_str().unwrap().to_owned();
        let r = self
            .req(
                Method::PUT,
                &format!("/vnfpkgm/v1/vnf_packages/{id}/package_content"),
            )
            .header("content-type", "application/zip")
            .body(zip)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        let deadline = tokio::time::Instant::now() + T;
        loop {
            let (_, p) = self
                .json(Method::GET, &format!("/vnfpkgm/v1/vnf_packages/{id}"), None)
                .await;
            let state = p["onboardingState"].as_str().unwrap_or_default();
            if state == "ONBOARDED"
                || (state == "CREATED" && !p["onboardingFailureDetails"].is_null())
            {
                return (id, p);
            }
            assert!(tokio::time::Instant::now() < deadline, "{p}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn enable(&self, pkg: &str) {
        let s = self
            .status(
                Method::PATCH,
                &format!("/vnfpkgm/v1/vnf_packages/{pkg}"),
                Some(json!({"operationalState": "ENABLED"})),
            )
            .await;
        assert!(s == 200 || s == 409, "{s}");
    }

    /// Runs an LCM task to its end; the occurrence.
    pub async fn run(&self, i: &str, task: &str, body: Value) -> Value {
        let r = self
            .req(
                Method::POST,
                &format!("/vnflcm/v2/vnf_instances/{i}/{task}"),
            )
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let location = r.headers().get("location").cloned();
        assert_eq!(status, 202, "{task}: {}", r.text().await.unwrap());
        let op = tacker_testkit::id_of(location.unwrap().to_str().unwrap());
        let deadline = tokio::time::Instant::now() + T;
        loop {
            let (_, o) = self
                .json(
                    Method::GET,
                    &format!("/vnflcm/v2/vnf_lcm_op_occs/{op}"),
                    None,
                )
                .await;
            if matches!(
                o["operationState"].as_str(),
                Some("COMPLETED" | "FAILED_TEMP" | "ROLLED_BACK" | "FAILED")
            ) {
                return o;
            }
            assert!(tokio::time::Instant::now() < deadline, "{o}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// How the callers of [`Tenants`] authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login {
    /// Clients of the built-in token endpoint (mode `oauth2`).
    Builtin,
    /// Users of the tests' real Keystone (mode `keystone`), projects as tenants.
    Keystone,
}

/// The Keystone side of [`Tenants`]: projects `ta` (users `a`, `vendor`), `tb` (user
/// `b`) and one of the administrator.
struct KeystoneTenants {
    os: OpenStack,
    ta: Project,
    tb: Project,
    admin: Project,
}

/// A cluster in mode `oauth2` whose clients are in a configuration file, or in mode
/// `keystone` whose users are in Keystone: `a` and `b` (members of tenants `ta` and
/// `tb`), `vendor` (member of `ta` confined to `VENDOR_Other Provider`), `admin` (an
/// administrator).
pub struct Tenants {
    pub c: Cluster,
    keystone: Option<KeystoneTenants>,
    _config: tempfile::TempDir,
}

impl Tenants {
    pub async fn start(extra: &[(&str, &str)]) -> Self {
        Self::start_as(Login::Builtin, extra).await
    }

    pub async fn start_as(login: Login, extra: &[(&str, &str)]) -> Self {
        if login == Login::Keystone {
            return Self::start_keystone(extra).await;
        }
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("signing.pem");
        let out = tacker()
            .args(["auth", "generate-key", "--out"])
            .arg(&key)
            .output()
            .unwrap();
        assert!(out.status.success());
        let hash = hash_secret(SECRET);
        let client = |id: &str, roles: &str, tenant: &str| {
            format!(
                "[[auth.clients]]\nid = \"{id}\"\nsecret_hash = \"{hash}\"\nroles = [{roles}]\ntenant = \"{tenant}\"\n"
            )
        };
        let config = format!(
            "[auth]\nmode = \"oauth2\"\nsigning_key_file = \"{}\"\n{}{}{}{}",
            key.display(),
            client("a", "\"member\"", "ta"),
            client("b", "\"member\"", "tb"),
            client("vendor", "\"member\", \"VENDOR_Other Provider\"", "ta"),
            client("admin", "\"admin\"", ""),
        );
        let path = dir.path().join("tacker.toml");
        std::fs::write(&path, config).unwrap();
        let path = path.display().to_string();
        let mut env = vec![("TACKER_CONFIG", path.as_str())];
        env.extend_from_slice(extra);
        let c = Cluster::start_with(1, &["c1", "c2"], &env).await;
        Self {
            c,
            keystone: None,
            _config: dir,
        }
    }

    async fn start_keystone(extra: &[(&str, &str)]) -> Self {
        let os = OpenStack::up();
        let ta = os
            .project(&[
                ("a", &["member"]),
                ("vendor", &["member", "VENDOR_Other Provider"]),
            ])
            .await;
        let tb = os.project(&[("b", &["member"])]).await;
        let admin = os.project(&[("admin", &["admin"])]).await;
        let c = Cluster::with_keystone(&os, &["c1", "c2"], extra).await;
        Self {
            c,
            keystone: Some(KeystoneTenants { os, ta, tb, admin }),
            _config: tempfile::tempdir().unwrap(),
        }
    }

    /// The tenant id of `name` (`ta`, `tb`): the name itself, or its Keystone project's id.
    pub fn tenant(&self, name: &str) -> String {
        match &self.keystone {
            None => name.to_owned(),
            Some(k) => match name {
                "ta" => k.ta.id.clone(),
                "tb" => k.tb.id.clone(),
                other => panic!("no tenant {other}"),
            },
        }
    }

    /// Removes the cluster and the Keystone projects.
    pub async fn teardown(self) {
        self.c.teardown().await;
        if let Some(k) = self.keystone {
            for p in [&k.ta, &k.tb, &k.admin] {
                k.os.remove_project(p).await;
            }
        }
    }

    /// Client (or Keystone user) `id`'s caller, with its token.
    pub async fn caller(&self, id: &str) -> Caller {
        if let Some(k) = &self.keystone {
            let project = match id {
                "a" | "vendor" => &k.ta,
                "b" => &k.tb,
                _ => &k.admin,
            };
            let token = k.os.token_of(project, id).await;
            let mut headers = reqwest::header::HeaderMap::new();
            headers.insert("x-auth-token", token.parse().unwrap());
            return Caller {
                http: reqwest::Client::builder()
                    .default_headers(headers)
                    .build()
                    .unwrap(),
                api: self.c.api.clone(),
            };
        }
        let r = self
            .c
            .http
            .post(format!("{}/oauth2/token", self.c.api))
            .basic_auth(id, Some(SECRET))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "token of {id}");
        let token = r.json::<Value>().await.unwrap()["access_token"]
            .as_str()
            .unwrap()
            .to_owned();
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse().unwrap(),
        );
        Caller {
            http: reqwest::Client::builder()
                .default_headers(headers)
                .build()
                .unwrap(),
            api: self.c.api.clone(),
        }
    }
}

/// A cluster (kube-sim over TLS, a token) with the namespaces `namespaces`.
pub(crate) async fn sim(namespaces: &[&str]) -> kube_sim::Handle {
    let sim = kube_sim::spawn(kube_sim::Settings {
        token: Some("cluster-token".into()),
        basic: None,
        tls: true,
        timing: crate::cnf::timing(),
    })
    .unwrap();
    let http = reqwest::Client::builder()
        .add_root_certificate(
            reqwest::Certificate::from_pem(sim.ca_pem.as_deref().unwrap().as_bytes()).unwrap(),
        )
        .build()
        .unwrap();
    for ns in namespaces {
        let r = http
            .post(format!("{}/api/v1/namespaces", sim.url))
            .bearer_auth("cluster-token")
            .json(&json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "namespace {ns}");
    }
    sim
}

/// A Kubernetes VIM registration of `sim` for `/v1.0/vims`.
fn vim_of(name: &str, sim: &kube_sim::Handle, default: bool) -> Value {
    json!({"vim": {"name": name, "type": "kubernetes", "auth_url": sim.url,
        "auth_cred": {"bearer_token": "cluster-token", "ssl_ca_cert": sim.ca_pem},
        "vim_project": {"name": "default"}, "is_default": default}})
}

async fn register(c: &Caller, body: Value) -> (u16, String, Option<String>) {
    let r = c
        .req(Method::POST, "/v1.0/vims")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    let v: Value = r.json().await.unwrap();
    (
        status,
        v["vim"]["id"].as_str().unwrap_or_default().to_owned(),
        location,
    )
}

async fn create_instance(c: &Caller) -> String {
    let (s, i) = c
        .json(
            Method::POST,
            "/vnflcm/v2/vnf_instances",
            Some(json!({"vnfdId": CNF_VNFD_ID})),
        )
        .await;
    assert_eq!(s, 201, "{i}");
    i["id"].as_str().unwrap().to_owned()
}

/// Tenant b can neither see, change, delete nor use tenant a's VIM, nor take over its
/// default: each tenant's VNF instantiated without `vimConnectionInfo` lands on its own
/// tenant's default VIM (its own Kubernetes cluster), and naming the other tenant's VIM
/// is refused. (On the main before this change b read and changed a's VIM, used it,
/// and its default VIM became a's.)
#[tokio::test]
async fn vims_belong_to_their_tenant_and_each_tenant_has_its_own_default() {
    vims_belong_to_their_tenant(Login::Builtin).await;
}

/// The same with Keystone's projects as tenants, through Keystone's tokens.
#[tokio::test]
async fn keystone_projects_own_their_vims_and_defaults() {
    vims_belong_to_their_tenant(Login::Keystone).await;
}

async fn vims_belong_to_their_tenant(login: Login) {
    let t = Tenants::start_as(
        login,
        &[
            ("TACKER__KUBERNETES__POLL_INTERVAL", "200ms"),
            ("TACKER__LCM__SYNC_INTERVAL", "0s"),
        ],
    )
    .await;
    // CNFs go into the namespace named after their tenant.
    let (ta, tb) = (t.tenant("ta"), t.tenant("tb"));
    let (sim_a, sim_b) = (sim(&[&ta, &tb]).await, sim(&[&ta, &tb]).await);
    let (a, b, admin) = (
        t.caller("a").await,
        t.caller("b").await,
        t.caller("admin").await,
    );

    // a registers its cluster as its default; the answer names it in Location.
    let (s, vim_a, location) = register(&a, vim_of("cluster", &sim_a, true)).await;
    assert_eq!(s, 201);
    assert!(
        location.is_some_and(|l| l.ends_with(&format!("/v1.0/vims/{vim_a}"))),
        "Location"
    );
    // b does not see it, nor change or delete it.
    let (_, list) = b.json(Method::GET, "/v1.0/vims", None).await;
    assert_eq!(list["vims"], json!([]), "{list}");
    let path = format!("/v1.0/vims/{vim_a}");
    assert_eq!(b.status(Method::GET, &path, None).await, 404);
    let put = json!({"vim": {"description": "taken", "is_default": true}});
    assert_eq!(b.status(Method::PUT, &path, Some(put)).await, 404);
    assert_eq!(b.status(Method::DELETE, &path, None).await, 404);
    // b registers its own under the same name, as its own default.
    let (s, vim_b, _) = register(&b, vim_of("cluster", &sim_b, true)).await;
    assert_eq!(s, 201, "names and defaults are per tenant");
    // b may not register one for a.
    let mut for_a = vim_of("for-a", &sim_b, false);
    for_a["vim"]["tenant_id"] = json!(ta);
    assert_eq!(register(&b, for_a).await.0, 403);
    // The administrator sees both, each with its tenant.
    let (_, all) = admin.json(Method::GET, "/v1.0/vims", None).await;
    let mut tenants: Vec<(String, String)> = all["vims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_owned(),
                v["tenant_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    tenants.sort();
    let mut expected = vec![(vim_a.clone(), ta.clone()), (vim_b.clone(), tb.clone())];
    expected.sort();
    assert_eq!(tenants, expected);
    // a's own view is unchanged by b.
    let (_, shown) = a.json(Method::GET, &path, None).await;
    assert_eq!(shown["vim"]["is_default"], true);
    assert_eq!(shown["vim"]["description"], "");

    // Each tenant onboards the CNF package (the same CSAR, its own package).
    let (pkg_a, p) = a.onboard(cnf().zip()).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    a.enable(&pkg_a).await;
    let (pkg_b, p) = b.onboard(cnf().zip()).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    b.enable(&pkg_b).await;
    assert_ne!(pkg_a, pkg_b);

    // b naming a's VIM is refused before anything runs.
    let ib = create_instance(&b).await;
    let (s, body) = b
        .json(
            Method::POST,
            &format!("/vnflcm/v2/vnf_instances/{ib}/instantiate"),
            Some(
                json!({"flavourId": "simple", "vimConnectionInfo": {"v": {"vimId": vim_a,
                "vimType": "ETSINFV.KUBERNETES.V_1"}}, "additionalParams": cnf_params(Some(&tb))}),
            ),
        )
        .await;
    assert_eq!(s, 422, "{body}");
    assert!(sim_a.sim.pods(&tb, LABEL, &ib).is_empty());

    // Without vimConnectionInfo each lands on its own tenant's default VIM.
    let ia = create_instance(&a).await;
    let params =
        |ns: &str| json!({"flavourId": "simple", "additionalParams": cnf_params(Some(ns))});
    // In parallel: each on its own.
    let (op_a, op_b) = tokio::join!(
        a.run(&ia, "instantiate", params(&ta)),
        b.run(&ib, "instantiate", params(&tb))
    );
    assert_eq!(op_a["operationState"], "COMPLETED", "{op_a}");
    assert_eq!(op_b["operationState"], "COMPLETED", "{op_b}");
    assert!(
        !sim_a.sim.pods(&ta, LABEL, &ia).is_empty(),
        "a's VNF on a's cluster"
    );
    assert!(
        !sim_b.sim.pods(&tb, LABEL, &ib).is_empty(),
        "b's VNF on b's cluster"
    );
    assert!(sim_b.sim.pods(&ta, LABEL, &ia).is_empty());
    assert!(sim_a.sim.pods(&tb, LABEL, &ib).is_empty());
    let (_, inst) = a
        .json(Method::GET, &format!("/vnflcm/v2/vnf_instances/{ia}"), None)
        .await;
    let used: Vec<&Value> = inst["vimConnectionInfo"]
        .as_object()
        .unwrap()
        .values()
        .collect();
    assert_eq!(used[0]["vimId"], vim_a.as_str(), "{inst}");
    // A VIM in use cannot be deleted by its owner either.
    assert_eq!(a.status(Method::DELETE, &path, None).await, 409);
    t.teardown().await;
}

/// Packages belong to the tenant that created them: another tenant neither sees,
/// modifies, deletes nor uploads into them (on the main before this change b disabled
/// and deleted a's packages and uploaded its CSAR into a's CREATED package); two tenants
/// onboard the same vnfdId independently and their instances use their own package; a
/// `VENDOR_` member cannot onboard another provider's package; package notifications
/// reach only the package's tenant.
#[tokio::test]
async fn packages_belong_to_their_tenant() {
    packages_belong_to(Login::Builtin).await;
}

/// The same with Keystone's projects as tenants, through Keystone's tokens.
#[tokio::test]
async fn keystone_projects_own_their_packages() {
    packages_belong_to(Login::Keystone).await;
}

async fn packages_belong_to(login: Login) {
    use tacker_testkit::peers::{Expect, Subscriber};
    let t = Tenants::start_as(login, &[("TACKER__LCM__SIMULATED_VIM", "true")]).await;
    let (a, b, vendor, admin) = (
        t.caller("a").await,
        t.caller("b").await,
        t.caller("vendor").await,
        t.caller("admin").await,
    );
    // Each tenant subscribes to every package notification.
    let (sub_a, sub_b) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    for (c, s) in [(&a, &sub_a), (&b, &sub_b)] {
        let st = c
            .status(
                Method::POST,
                "/vnfpkgm/v1/subscriptions",
                Some(json!({"callbackUri": s.url})),
            )
            .await;
        assert_eq!(st, 201);
    }

    let (pkg_a, p) = a.onboard(tacker_testkit::csar::valid().zip()).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let path = format!("/vnfpkgm/v1/vnf_packages/{pkg_a}");
    // b sees nothing of it, not even by filtering for it.
    let (_, list) = b.json(Method::GET, "/vnfpkgm/v1/vnf_packages", None).await;
    assert_eq!(list, json!([]), "{list}");
    let by_id = format!("/vnfpkgm/v1/vnf_packages?filter=(eq,id,{pkg_a})");
    let (_, list) = b.json(Method::GET, &by_id, None).await;
    assert_eq!(list, json!([]), "{list}");
    let (_, list) = a.json(Method::GET, &by_id, None).await;
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    for p in [
        path.clone(),
        format!("{path}/vnfd"),
        format!("{path}/package_content"),
        format!("{path}/manifest"),
    ] {
        assert_eq!(b.status(Method::GET, &p, None).await, 404, "{p}");
    }
    let enable = json!({"operationalState": "DISABLED"});
    assert_eq!(b.status(Method::PATCH, &path, Some(enable)).await, 404);
    assert_eq!(b.status(Method::DELETE, &path, None).await, 404);
    // Nor uploads into a's CREATED package.
    let (_, created) = a
        .json(Method::POST, "/vnfpkgm/v1/vnf_packages", Some(json!({})))
        .await;
    let empty = created["id"].as_str().unwrap().to_owned();
    let r = b
        .req(
            Method::PUT,
            &format!("/vnfpkgm/v1/vnf_packages/{empty}/package_content"),
        )
        .header("content-type", "application/zip")
        .body(tacker_testkit::csar::valid_with_vnfd_id("squat").zip())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let (_, still) = a
        .json(
            Method::GET,
            &format!("/vnfpkgm/v1/vnf_packages/{empty}"),
            None,
        )
        .await;
    assert_eq!(still["onboardingState"], "CREATED");

    // b onboards the same CSAR: its own package of the same vnfdId.
    let (pkg_b, p) = b.onboard(tacker_testkit::csar::valid().zip()).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    assert_eq!(p["vnfdId"], "11111111-2222-3333-4444-555555555555");
    a.enable(&pkg_a).await;
    b.enable(&pkg_b).await;
    // Each tenant's instance of that vnfdId is on its own tenant's package.
    for (c, pkg) in [(&a, &pkg_a), (&b, &pkg_b)] {
        let r = c
            .req(Method::POST, "/vnflcm/v1/vnf_instances")
            .json(&json!({"vnfdId": "11111111-2222-3333-4444-555555555555"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let i: Value = r.json().await.unwrap();
        assert_eq!(i["vnfPkgId"], pkg.as_str(), "{i}");
    }
    // a's own package is IN_USE; b's instance did not make it so.
    let (_, pa) = a.json(Method::GET, &path, None).await;
    assert_eq!(pa["usageState"], "IN_USE");
    // Notifications: each tenant hears of its own packages only (a's disabling and
    // enabling its package included).
    for state in ["DISABLED", "ENABLED"] {
        let change = json!({"operationalState": state});
        assert_eq!(a.status(Method::PATCH, &path, Some(change)).await, 200);
    }
    sub_a.wait("a's notifications", |g| g.len() >= 3).await;
    sub_b.wait("b's notifications", |g| !g.is_empty()).await;
    let heard = |s: &Subscriber| -> Vec<String> {
        s.received()
            .iter()
            .filter_map(|n| n["vnfPkgId"].as_str().map(str::to_owned))
            .collect()
    };
    assert!(
        heard(&sub_a).iter().all(|p| *p == pkg_a || *p == empty),
        "{:?}",
        heard(&sub_a)
    );
    assert!(
        heard(&sub_b).iter().all(|p| *p == pkg_b),
        "{:?}",
        heard(&sub_b)
    );
    // The administrator sees both.
    let (_, all) = admin
        .json(Method::GET, "/vnfpkgm/v1/vnf_packages", None)
        .await;
    let ids: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert!(ids.contains(&pkg_a.as_str()) && ids.contains(&pkg_b.as_str()));

    // A VENDOR_Other Provider member of ta cannot onboard a Test Provider package.
    let (pkg_v, p) = vendor
        .onboard(tacker_testkit::csar::valid_with_vnfd_id("vendor-squat").zip())
        .await;
    assert_eq!(p["onboardingState"], "CREATED", "{p}");
    let detail = p["onboardingFailureDetails"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("Test Provider") && detail.contains("Other Provider"),
        "{detail}"
    );
    // Its vnfdId is not taken: a onboards it.
    let (_, p) = a
        .onboard(tacker_testkit::csar::valid_with_vnfd_id("vendor-squat").zip())
        .await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let _ = pkg_v;
    t.teardown().await;
}
