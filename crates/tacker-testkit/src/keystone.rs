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

    /// A token of `user` (password `password`) scoped to project `project`.
    pub async fn token(&self, user: &str, password: &str, project: &str) -> Option<String> {
        let r = client()
            .post(format!("{}/auth/tokens", self.keystone))
            .json(&json!({"auth": {
                "identity": {"methods": ["password"], "password": {"user": {
                    "name": user, "domain": {"name": "Default"}, "password": password}}},
                "scope": {"project": {"name": project, "domain": {"name": "Default"}}}}}))
            .send()
            .await
            .ok()?;
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

struct Admin {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Admin {
    async fn create(&self, path: &str, kind: &str, body: Value) -> String {
        let r = self
            .http
            .post(format!("{}/{path}", self.base))
            .header("X-Auth-Token", &self.token)
            .json(&json!({ kind: body }))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "creating {kind}: {v}");
        v[kind]["id"].as_str().unwrap().to_owned()
    }

    async fn get(&self, path: &str) -> Value {
        self.http
            .get(format!("{}/{path}", self.base))
            .header("X-Auth-Token", &self.token)
            .send()
            .await
            .unwrap()
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
        let r = self
            .http
            .put(format!("{}/{path}", self.base))
            .header("X-Auth-Token", &self.token)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "PUT {path}: {}", r.status());
    }

    async fn delete(&self, path: &str) {
        let _ = self
            .http
            .delete(format!("{}/{path}", self.base))
            .header("X-Auth-Token", &self.token)
            .send()
            .await;
    }
}
