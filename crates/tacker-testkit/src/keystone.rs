//! The tests' real Keystone and Glance (`tests/infra/openstack.sh up`), and a test's own
//! corner of them: a project, a user with role `member` on it, and a region whose
//! catalog names the test's Heat (a heat-sim) and the shared Glance. Tests run in
//! parallel against one Keystone; regions keep their catalogs apart.

use serde_json::{Value, json};

/// The shared services.
#[derive(Debug, Clone)]
pub struct OpenStack {
    /// Keystone, `.../v3`.
    pub keystone: String,
    /// Glance's root URL.
    pub glance: String,
    admin_password: String,
}

/// A test's project, user and region.
#[derive(Debug, Clone)]
pub struct Tenant {
    /// Project name (= user name = region id).
    pub name: String,
    /// The user's password.
    pub password: String,
    project_id: String,
    user_id: String,
    endpoints: Vec<String>,
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .no_proxy()
        .build()
        .unwrap()
}

fn script() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/openstack.sh")
}

impl OpenStack {
    /// Makes sure Keystone and Glance run (installing them the first time).
    pub fn up() -> Self {
        let out = std::process::Command::new(script())
            .arg("up")
            .output()
            .expect("tests/infra/openstack.sh");
        assert!(
            out.status.success(),
            "openstack.sh up: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let url = |what: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{what} ")))
                .unwrap_or_else(|| panic!("openstack.sh printed no {what} URL: {text}"))
                .to_owned()
        };
        let pw = std::process::Command::new(script())
            .arg("admin-password")
            .output()
            .expect("openstack.sh admin-password");
        Self {
            keystone: url("keystone"),
            glance: url("glance"),
            admin_password: String::from_utf8_lossy(&pw.stdout).trim().to_owned(),
        }
    }

    /// The bootstrap administrator's password (user and project `admin`).
    pub fn admin_password(&self) -> &str {
        &self.admin_password
    }

    /// A new region of the catalog (a test's endpoints go there, apart from others').
    pub async fn region(&self) -> String {
        let id = format!("r{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        self.admin()
            .await
            .create("regions", "region", json!({"id": id}))
            .await;
        id
    }

    /// Names `url` as the public endpoint of service type `kind` (made, called `name`,
    /// when missing) in region `region`'s catalog: clients logging in find it there.
    pub async fn endpoint(&self, region: &str, name: &str, kind: &str, url: &str) {
        let a = self.admin().await;
        let service = a.service(name, kind).await;
        a.create(
            "endpoints",
            "endpoint",
            json!({"service_id": service, "interface": "public", "url": url, "region_id": region}),
        )
        .await;
    }

    /// Removes region `id` and every endpoint in it.
    pub async fn remove_region(&self, id: &str) {
        let a = self.admin().await;
        let v = a.get(&format!("endpoints?region_id={id}")).await;
        for e in v["endpoints"].as_array().into_iter().flatten() {
            if let Some(e) = e["id"].as_str() {
                a.delete(&format!("endpoints/{e}")).await;
            }
        }
        a.delete(&format!("regions/{id}")).await;
    }

    /// Keystone's host and port (for a relay in front of it).
    pub fn keystone_addr(&self) -> std::net::SocketAddr {
        let rest = self
            .keystone
            .strip_prefix("http://")
            .expect("an http Keystone URL");
        rest.split('/').next().unwrap().parse().unwrap()
    }

    /// The password of the seeded service user `tacker` (project `service`, role
    /// `service`), the user a server in mode `keystone` validates tokens with.
    pub fn tacker_password(&self) -> String {
        let out = std::process::Command::new(script())
            .arg("tacker-password")
            .output()
            .expect("openstack.sh tacker-password");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// A new project with a user per `(name, roles)` (user `<project>-<name>`, roles
    /// made when missing); [`OpenStack::remove_project`] removes them.
    pub async fn project(&self, users: &[(&str, &[&str])]) -> Project {
        let a = self.admin().await;
        let name = format!("p{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let id = a
            .create(
                "projects",
                "project",
                json!({"name": name, "domain_id": "default"}),
            )
            .await;
        let mut made = Vec::new();
        for (user, roles) in users {
            let login = format!("{name}-{user}");
            let password = format!("pw-{}", uuid::Uuid::new_v4().simple());
            let user_id = a
                .create(
                    "users",
                    "user",
                    json!({"name": login, "password": password, "domain_id": "default"}),
                )
                .await;
            for role in *roles {
                let role_id = a.role(role).await;
                a.put(&format!("projects/{id}/users/{user_id}/roles/{role_id}"))
                    .await;
            }
            made.push(ProjectUser {
                name: (*user).to_owned(),
                login,
                password,
                id: user_id,
            });
        }
        Project {
            id,
            name,
            users: made,
        }
    }

    /// Removes what [`OpenStack::project`] made.
    pub async fn remove_project(&self, p: &Project) {
        let a = self.admin().await;
        for u in &p.users {
            a.delete(&format!("users/{}", u.id)).await;
        }
        a.delete(&format!("projects/{}", p.id)).await;
    }

    /// A project-scoped token of `p`'s user `user`.
    pub async fn token_of(&self, p: &Project, user: &str) -> String {
        let u = p.user(user);
        self.token(&u.login, &u.password, &p.name)
            .await
            .unwrap_or_else(|| panic!("a token of {}", u.login))
    }

    /// Revokes `token` (`DELETE /v3/auth/tokens`).
    pub async fn revoke(&self, token: &str) {
        let a = self.admin().await;
        let r = send(
            a.http
                .delete(format!("{}/auth/tokens", a.base))
                .header("X-Auth-Token", &a.token)
                .header("X-Subject-Token", token),
        )
        .await;
        assert_eq!(r.status(), 204, "revoking a token");
    }

    /// A token of `user` (password `password`) scoped to project `project`.
    pub async fn token(&self, user: &str, password: &str, project: &str) -> Option<String> {
        let r = send(
            client()
                .post(format!("{}/auth/tokens", self.keystone))
                .json(&json!({"auth": {
                    "identity": {"methods": ["password"], "password": {"user": {
                        "name": user, "domain": {"name": "Default"}, "password": password}}},
                    "scope": {"project": {"name": project, "domain": {"name": "Default"}}}}})),
        )
        .await;
        if r.status() != 201 {
            return None;
        }
        r.headers()
            .get("x-subject-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }

    async fn admin(&self) -> Admin {
        let token = self
            .token("admin", &self.admin_password, "admin")
            .await
            .expect("admin token");
        Admin {
            http: client(),
            base: self.keystone.clone(),
            token,
        }
    }

    /// A new project, user (role `member`) and region whose catalog names `heat` (a
    /// heat-sim) as Heat (`.../heat-api/v1/<project>`) and Nova, and the shared Glance.
    pub async fn tenant(&self, heat: &str) -> Tenant {
        let a = self.admin().await;
        let name = format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let password = format!("pw-{}", uuid::Uuid::new_v4().simple());
        let project_id = a
            .create(
                "projects",
                "project",
                json!({"name": name, "domain_id": "default"}),
            )
            .await;
        let user_id = a
            .create(
                "users",
                "user",
                json!({"name": name, "password": password, "domain_id": "default"}),
            )
            .await;
        let member = a.find("roles", "member").await;
        a.put(&format!(
            "projects/{project_id}/users/{user_id}/roles/{member}"
        ))
        .await;
        a.create("regions", "region", json!({"id": name})).await;
        let heat_service = a.service("heat", "orchestration").await;
        let glance_service = a.service("glance", "image").await;
        let nova_service = a.service("nova", "compute").await;
        let mut endpoints = Vec::new();
        for (service, url) in [
            (heat_service, format!("{heat}/heat-api/v1/{project_id}")),
            (nova_service, format!("{heat}/compute/v2.1")),
            (glance_service, self.glance.clone()),
        ] {
            endpoints.push(
                a.create(
                    "endpoints",
                    "endpoint",
                    json!({"service_id": service, "interface": "public", "url": url, "region_id": name}),
                )
                .await,
            );
        }
        Tenant {
            name,
            password,
            project_id,
            user_id,
            endpoints,
        }
    }

    /// Confines the catalog `t`'s tokens carry to `t`'s own endpoints (Keystone's project
    /// endpoint filter), for clients that pick an endpoint by service type alone (Tacker's
    /// Heat client names no region): other tests' regions stay out of its sight.
    pub async fn confine_catalog(&self, t: &Tenant) {
        let a = self.admin().await;
        for e in &t.endpoints {
            a.put(&format!(
                "OS-EP-FILTER/projects/{}/endpoints/{e}",
                t.project_id
            ))
            .await;
        }
    }

    /// Removes what [`OpenStack::tenant`] made.
    pub async fn remove(&self, t: &Tenant) {
        let a = self.admin().await;
        for e in &t.endpoints {
            a.delete(&format!("endpoints/{e}")).await;
        }
        a.delete(&format!("regions/{}", t.name)).await;
        a.delete(&format!("users/{}", t.user_id)).await;
        a.delete(&format!("projects/{}", t.project_id)).await;
    }

    /// Revokes every token of `t`'s user as an operator would (Keystone revokes a
    /// user's tokens when the user is disabled), then enables the user again: a client
    /// holding a token must authenticate anew.
    pub async fn revoke_tokens_of(&self, t: &Tenant) {
        let a = self.admin().await;
        for enabled in [false, true] {
            let r = send(
                a.http
                    .patch(format!("{}/users/{}", a.base, t.user_id))
                    .header("X-Auth-Token", &a.token)
                    .json(&json!({"user": {"enabled": enabled}})),
            )
            .await;
            assert_eq!(r.status(), 200, "setting user {} enabled={enabled}", t.name);
        }
        // Keystone's revocation events count in whole seconds: a token issued within the
        // second of the event is revoked too. Logins from now on get tokens that live.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    }

    /// The images of Glance that `t` sees (its token).
    pub async fn images(&self, t: &Tenant) -> Vec<Value> {
        let token = self
            .token(&t.name, &t.password, &t.name)
            .await
            .expect("tenant token");
        let v: Value = client()
            .get(format!("{}/v2/images", self.glance))
            .header("X-Auth-Token", token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["images"].as_array().cloned().unwrap_or_default()
    }
}

/// A test's project and its users.
#[derive(Debug, Clone)]
pub struct Project {
    /// Its id (the tenant Tacker sees).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its users.
    pub users: Vec<ProjectUser>,
}

/// A user of a [`Project`].
#[derive(Debug, Clone)]
pub struct ProjectUser {
    /// The name the test gave it.
    pub name: String,
    /// Its Keystone user name (`<project>-<name>`).
    pub login: String,
    /// Its password.
    pub password: String,
    id: String,
}

impl Project {
    /// The user the test called `name`.
    pub fn user(&self, name: &str) -> &ProjectUser {
        self.users
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("no user {name} in {}", self.name))
    }
}

struct Admin {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Admin {
    async fn create(&self, path: &str, kind: &str, body: Value) -> String {
        let r = send(
            self.http
                .post(format!("{}/{path}", self.base))
                .header("X-Auth-Token", &self.token)
                .json(&json!({ kind: body })),
        )
        .await;
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "creating {kind}: {v}");
        v[kind]["id"].as_str().unwrap().to_owned()
    }

    async fn get(&self, path: &str) -> Value {
        send(
            self.http
                .get(format!("{}/{path}", self.base))
                .header("X-Auth-Token", &self.token),
        )
        .await
        .json()
        .await
        .unwrap()
    }

    async fn find(&self, path: &str, name: &str) -> String {
        let v = self.get(&format!("{path}?name={name}")).await;
        v[path][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no {path} named {name}: {v}"))
            .to_owned()
    }

    /// The role called `name`, made when missing.
    async fn role(&self, name: &str) -> String {
        let v = self.get(&format!("roles?name={}", urlencode(name))).await;
        match v["roles"][0]["id"].as_str() {
            Some(id) => id.to_owned(),
            None => {
                let r = send(
                    self.http
                        .post(format!("{}/roles", self.base))
                        .header("X-Auth-Token", &self.token)
                        .json(&json!({"role": {"name": name}})),
                )
                .await;
                match r.status().as_u16() {
                    201 => r.json::<Value>().await.unwrap()["role"]["id"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                    // Another test made it meanwhile.
                    409 => {
                        let v = self.get(&format!("roles?name={}", urlencode(name))).await;
                        v["roles"][0]["id"].as_str().unwrap().to_owned()
                    }
                    s => panic!("creating role {name}: {s}"),
                }
            }
        }
    }

    /// The service called `name` of type `kind`, made when missing.
    async fn service(&self, name: &str, kind: &str) -> String {
        let v = self.get(&format!("services?type={kind}")).await;
        match v["services"][0]["id"].as_str() {
            Some(id) => id.to_owned(),
            None => {
                self.create("services", "service", json!({"name": name, "type": kind}))
                    .await
            }
        }
    }

    async fn put(&self, path: &str) {
        let r = send(
            self.http
                .put(format!("{}/{path}", self.base))
                .header("X-Auth-Token", &self.token),
        )
        .await;
        assert!(r.status().is_success(), "PUT {path}: {}", r.status());
    }

    async fn delete(&self, path: &str) {
        send(
            self.http
                .delete(format!("{}/{path}", self.base))
                .header("X-Auth-Token", &self.token),
        )
        .await;
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Sends `req`, again (5 times at most) while Keystone answers 5xx or cannot be reached:
/// its SQLite database is busy now and then while tests run in parallel.
async fn send(req: reqwest::RequestBuilder) -> reqwest::Response {
    let mut attempt = 1;
    loop {
        match req
            .try_clone()
            .expect("a request without a stream")
            .send()
            .await
        {
            Ok(r) if !r.status().is_server_error() || attempt == 5 => return r,
            Err(e) if attempt == 5 => panic!("Keystone did not answer: {e}"),
            _ => {}
        }
        tokio::time::sleep(std::time::Duration::from_millis(200 * attempt)).await;
        attempt += 1;
    }
}
