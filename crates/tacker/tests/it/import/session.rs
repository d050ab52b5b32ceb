//! A project's sessions in the import tests: with upstream Tacker (its `openstack`
//! client, found in a region's catalog, and Tacker's REST API) and with ours.

use std::path::Path;

use serde_json::Value;
use tacker_testkit::keystone::{OpenStack, Project};

use super::{Upstream, until};
use crate::openstack_cli::Osc;

/// The project's member in upstream Tacker.
pub struct InTacker {
    pub osc: Osc,
    pub http: reqwest::Client,
    pub token: String,
    pub api: String,
    /// The region whose catalog names Tacker (removed by [`InTacker::close`]).
    region: String,
}

impl InTacker {
    /// `p`'s member with a region naming Tacker in the tests' Keystone.
    pub async fn open(os: &OpenStack, up: &Upstream, p: &Project) -> Self {
        let region = os.region().await;
        os.endpoint(&region, "tacker", "nfv-orchestration", &up.api)
            .await;
        let m = p.user("member");
        Self {
            osc: Osc::keystone(&os.keystone, &m.login, &m.password, &p.name, &region),
            http: reqwest::Client::new(),
            token: os.token_of(p, "member").await,
            api: up.api.clone(),
            region,
        }
    }

    /// The id of what `openstack <args>` created.
    pub fn created(&self, args: &[&str]) -> String {
        let v = self.osc.json(args);
        v["ID"].as_str().unwrap_or_else(|| panic!("{v}")).to_owned()
    }

    /// A package created (`openstack vnf package create`), and a VNFD id of its own for
    /// what will be uploaded into it.
    pub fn new_package(&self) -> (String, String) {
        let pkg = self.created(&["vnf", "package", "create"]);
        (pkg, uuid::Uuid::new_v4().to_string())
    }

    /// A v2 VNF instance of `vnfd_id` named `name`.
    pub fn create_v2(&self, name: &str, vnfd_id: &str) -> String {
        self.created(&[
            "--os-tacker-api-version",
            "2",
            "vnflcm",
            "create",
            "--name",
            name,
            vnfd_id,
        ])
    }

    /// Uploads `csar` (through a file in `work`) into package `pkg` and waits until
    /// Tacker's conductor has onboarded it (its own pace on a loaded machine: two minutes).
    pub async fn onboard(&self, pkg: &str, csar: &[u8], work: &Path) {
        let zip = work.join(format!("{pkg}.zip"));
        std::fs::write(&zip, csar).unwrap();
        let (ok, out, err) = self.osc.run(&[
            "vnf",
            "package",
            "upload",
            "--path",
            zip.to_str().unwrap(),
            pkg,
        ]);
        assert!(ok, "{out}{err}");
        let url = format!("{}/vnfpkgm/v1/vnf_packages/{pkg}", self.api);
        until(
            &self.http,
            &url,
            &self.token,
            "onboardingState",
            "ONBOARDED",
            120,
        )
        .await;
    }

    /// Sends `body` to Tacker's `path` (v2 headers) with `method`: the occurrence's URL.
    pub async fn operation(&self, method: reqwest::Method, path: &str, body: &Value) -> String {
        let patch = method == reqwest::Method::PATCH;
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.api))
            .header("X-Auth-Token", &self.token)
            .header("Version", "2.0.0");
        r = if patch {
            r.header("Content-Type", "application/merge-patch+json")
                .body(body.to_string())
        } else {
            r.json(body)
        };
        let r = r.send().await.unwrap();
        assert_eq!(r.status(), 202, "{path}");
        r.headers()["location"].to_str().unwrap().to_owned()
    }

    /// Removes the region naming Tacker.
    pub async fn close(self, os: &OpenStack) {
        os.remove_region(&self.region).await;
    }
}

/// The same project's member with ours.
pub struct Ours {
    pub http: reqwest::Client,
    pub api: String,
    pub token: String,
}

impl Ours {
    /// The status of `GET` VNF instance `id` (v2), and the instance when it is there.
    pub async fn get(&self, id: &str) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}/vnflcm/v2/vnf_instances/{id}", self.api))
            .header("X-Auth-Token", &self.token)
            .header("Version", "2.0.0")
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// VNF instance `id` (v2).
    pub async fn instance(&self, id: &str) -> Value {
        let (status, v) = self.get(id).await;
        assert_eq!(status, 200, "instance {id}: {v}");
        v
    }

    /// Runs task `path` (`heal`, `scale`, ...) of instance `id` with `body` and waits
    /// until it is COMPLETED.
    pub async fn task(&self, id: &str, path: &str, body: Value) {
        let r = self
            .http
            .post(format!("{}/vnflcm/v2/vnf_instances/{id}/{path}", self.api))
            .header("X-Auth-Token", &self.token)
            .header("Version", "2.0.0")
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let location = r
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned());
        assert_eq!(status, 202, "{path}: {}", r.text().await.unwrap());
        until(
            &self.http,
            &location.unwrap(),
            &self.token,
            "operationState",
            "COMPLETED",
            90,
        )
        .await;
    }
}
