//! Management drivers end to end: the REST API (v1 as in the spec, and v2), a server
//! and two conductors as processes on PostgreSQL and RabbitMQ, heat-sim whose servers
//! are SSH test hosts with the Docker and systemctl shims, a "hub" registry host and an
//! HTTPS registry host (these tests run as root).

mod cluster;
mod plugin;
mod registry;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::mgmt;

use crate::vm::{Vm, sim_with};

pub const T: Duration = Duration::from_secs(180);

/// What the tests of this module share.
#[allow(dead_code, reason = "each test uses some of it")]
pub struct MgmtEnv {
    pub vm: Vm,
    pub shims: tempfile::TempDir,
    pub work: tempfile::TempDir,
    /// The hub registry (`ip:5000`), where `docker pull registry` pulls from.
    pub hub: String,
    /// The password of the VMs' login (`ubuntu`).
    pub vm_password: String,
    /// heat-sim registered as a VIM.
    pub vim_id: String,
    /// The `registry:latest` docker-save archive.
    pub registry_image: PathBuf,
}

/// heat-sim with shims on its hosts, a hub registry host serving
/// `library/registry:latest`, a server and two conductors (`env` added), heat-sim
/// registered as a VIM.
pub async fn mgmt_env(env: &[(&str, &str)]) -> MgmtEnv {
    mgmt_env_with(env, true).await
}

/// The same, the VMs with Docker or without (the driver installs it).
pub async fn mgmt_env_with(env: &[(&str, &str)], docker: bool) -> MgmtEnv {
    let shims = mgmt::shims(None, docker);
    let vm_password = format!("vmpw-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let sim = sim_with(heat_sim::Settings {
        hosts: heat_sim::HostSettings {
            mode: heat_sim::HostsMode::Netns,
            user: "ubuntu".into(),
            password: vm_password.clone(),
            shims: Some(shims.path().to_path_buf()),
        },
        ..Default::default()
    });
    let work = tempfile::tempdir().unwrap();
    let registry_image = mgmt::image_archive(work.path(), "registry:latest");
    let (hub_ip, pid) = extra_host(&sim, "hub");
    mgmt::start_registry(pid, 5000, None, None);
    let hub = format!("{hub_ip}:5000");
    mgmt::push(
        &registry_image,
        &format!("{hub}/library/registry:latest"),
        &["--dest-tls-verify=false"],
    );
    std::fs::write(shims.path().join("docker-hub"), &hub).unwrap();
    let mut all = vec![
        ("TACKER__SSH__BOOT_TIMEOUT", "30s"),
        ("TACKER__SSH__CONNECT_TIMEOUT", "3s"),
        ("TACKER__SSH__COMMAND_TIMEOUT", "120s"),
    ];
    all.extend_from_slice(env);
    let vm = Vm::start(sim, &all).await;
    let vim_id = vm.register("heat-sim").await;
    MgmtEnv {
        vm,
        shims,
        work,
        hub,
        vm_password,
        vim_id,
        registry_image,
    }
}

/// A test host on heat-sim's network that is no server (a registry outside the VNFs):
/// its address and PID 1.
pub fn extra_host(sim: &heat_sim::Handle, name: &str) -> (String, u32) {
    let hosts = &sim.sim.engine.hosts;
    let ip = hosts.allocate(None).unwrap();
    let h = hosts.up(name, &[ip]).unwrap();
    (ip.to_string(), hosts.init_pid(&h).unwrap())
}

impl MgmtEnv {
    /// Uploads `zip` and waits for ONBOARDED.
    pub async fn onboard(&self, zip: Vec<u8>) -> String {
        let pkg = self.vm.c.upload(zip).await;
        let p = self
            .vm
            .c
            .wait_state(&pkg, &["ONBOARDED", "CREATED"], T)
            .await;
        assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
        pkg
    }

    /// Creates an instance of `vnfd` through `/vnflcm/v1`.
    pub async fn create(&self, vnfd: &str, name: &str) -> String {
        let r = self
            .vm
            .v1(reqwest::Method::POST, "/vnf_instances")
            .json(&json!({"vnfdId": vnfd, "vnfInstanceName": name}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// POSTs a v1 task; the response (not waited for).
    pub async fn post_v1(&self, i: &str, task: &str, body: &Value) -> reqwest::Response {
        self.vm
            .v1(reqwest::Method::POST, &format!("/vnf_instances/{i}/{task}"))
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// `vimConnectionInfo` as the spec's examples give it (v1: a list, `vimId`).
    pub fn vim_v1(&self) -> Value {
        json!([{"id": "8a3adb69-0784-43c7-833e-aab0b6ab4470", "vimId": self.vim_id, "vimType": "openstack"}])
    }

    /// The occurrences of instance `i`.
    pub async fn ops_of(&self, i: &str) -> Vec<Value> {
        let all: Value = self
            .vm
            .c
            .lcm(0, reqwest::Method::GET, "/vnf_lcm_op_occs")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        all.as_array()
            .unwrap()
            .iter()
            .filter(|o| o["vnfInstanceId"] == i)
            .cloned()
            .collect()
    }

    /// The PID 1 of the test host that is server `vnfc`.
    pub async fn pid_of(&self, vnfc: &str) -> u32 {
        let servers: Value = reqwest::get(format!("{}/sim/servers", self.vm.sim.url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        servers
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == vnfc)
            .and_then(|s| s["init_pid"].as_u64())
            .unwrap_or_else(|| panic!("no host for server {vnfc}: {servers}")) as u32
    }

    /// Every text a user or a log could show: answers of the APIs and the process logs.
    pub async fn everything_shown(&self) -> String {
        let mut all = String::new();
        for path in ["/vnf_lcm_op_occs", "/vnf_instances"] {
            for api in ["v1", "v2"] {
                let r = self
                    .vm
                    .c
                    .http
                    .get(format!("{}/vnflcm/{api}{path}", self.vm.c.api))
                    .header("Version", if api == "v1" { "1.3.0" } else { "2.0.0" })
                    .send()
                    .await
                    .unwrap();
                all += &r.text().await.unwrap();
            }
        }
        all += &self
            .vm
            .c
            .http
            .get(format!("{}/v1.0/vims", self.vm.c.api))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        for p in &self.vm.c.servers {
            all += &p.log_text();
        }
        for n in self.vm.c.nodes.values() {
            all += &n.proc.log_text();
        }
        all
    }
}

/// `GET http://<ip>:<port>/v2/_catalog` (the registry API).
pub async fn catalog(ip: &str, port: u16) -> Result<Value, String> {
    let r = reqwest::Client::new()
        .get(format!("http://{ip}:{port}/v2/_catalog"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("status {}", r.status()));
    }
    r.json().await.map_err(|e| e.to_string())
}
