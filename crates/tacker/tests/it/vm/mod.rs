//! VM-based VNFs end to end: the REST API (v2 and v1), a server and two conductors as
//! processes on PostgreSQL and RabbitMQ, the OpenStack driver, and heat-sim whose servers
//! are SSH test hosts (network namespaces: these tests run as root).

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::peers::{Expect, Subscriber, states_of};
use tacker_testkit::vm::{VM_VNFD_ID, ext_virtual_link, vm};

use crate::procs::Cluster;
use tacker_testkit::keystone::{OpenStack, Tenant};

const T: Duration = Duration::from_secs(90);

pub fn need_root() {
    let uid = Command::new("id").arg("-u").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&uid.stdout).trim(),
        "0",
        "the VM tests make SSH test hosts in network namespaces: run them as root"
    );
}

/// What `hostname` prints over SSH at `ip` (real client, the image's login).
pub fn ssh_hostname(ip: &str) -> Result<String, String> {
    let out = Command::new("sshpass")
        .args([
            "-p",
            "ubuntu",
            "ssh",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
        ])
        .args([
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ConnectTimeout=5",
        ])
        .arg(format!("ubuntu@{ip}"))
        .arg("hostname")
        .output()
        .map_err(|e| format!("sshpass: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

pub struct Vm {
    pub c: Cluster,
    pub sim: heat_sim::Handle,
    /// The password of the VIM's user.
    pub password: String,
    /// The real Keystone and the test's project in it, when the VIM is there.
    pub keystone: Option<(OpenStack, Tenant)>,
}

/// heat-sim (a password of its own), a server and two conductors, the VM package
/// onboarded; the VIM's Keystone is heat-sim's own (its tokens can be expired at will).
pub async fn vm_cluster() -> Vm {
    let sim = sim_with(heat_sim::Settings::default());
    onboarded(Vm::start(sim, &[]).await).await
}

/// The same with the VIM on the real Keystone (`tests/infra/openstack.sh`): a project,
/// user and region of the test's own whose catalog names its heat-sim.
pub async fn vm_cluster_on_keystone() -> Vm {
    let os = OpenStack::up();
    let sim = sim_with(heat_sim::Settings {
        keystone_url: Some(os.keystone.clone()),
        ..Default::default()
    });
    let t = os.tenant(&sim.url).await;
    let mut v = Vm::start(sim, &[]).await;
    v.password = t.password.clone();
    v.keystone = Some((os, t));
    onboarded(v).await
}

async fn onboarded(v: Vm) -> Vm {
    let pkg = v.c.upload(vm().zip()).await;
    let p = v.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    v
}

/// heat-sim with `settings` and a password of its own.
pub fn sim_with(settings: heat_sim::Settings) -> heat_sim::Handle {
    need_root();
    heat_sim::spawn(heat_sim::Settings {
        password: format!("pw-{}", uuid::Uuid::new_v4().simple()),
        ..settings
    })
    .unwrap()
}

/// The test's project leaves the real Keystone with the test (a panicking one too).
impl Drop for Vm {
    fn drop(&mut self) {
        if let Some((os, t)) = self.keystone.take() {
            let _ = std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap()
                    .block_on(os.remove(&t));
            })
            .join();
        }
    }
}

impl Vm {
    /// A server and two conductors working with `sim` (extra environment `env`).
    pub async fn start(sim: heat_sim::Handle, env: &[(&str, &str)]) -> Vm {
        Self::start_with(sim, &["c1", "c2"], env).await
    }

    /// The same with the conductors named `conductors`.
    pub async fn start_with(
        sim: heat_sim::Handle,
        conductors: &[&str],
        env: &[(&str, &str)],
    ) -> Vm {
        let mut all = vec![
            ("TACKER__OPENSTACK__POLL_INTERVAL", "200ms"),
            ("TACKER__OPENSTACK__STACK_TIMEOUT", "60s"),
            ("TACKER__LCM__SYNC_INTERVAL", "0s"),
        ];
        all.extend_from_slice(env);
        let c = Cluster::start_with(1, conductors, &all).await;
        let password = sim.sim.identity.password.clone();
        Vm {
            c,
            sim,
            password,
            keystone: None,
        }
    }
}

impl Vm {
    /// The simulator as a VIM connection (credentials inline).
    pub fn vim(&self) -> Value {
        if let Some((os, t)) = &self.keystone {
            return json!({"vim1": {"vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
                "interfaceInfo": {"endpoint": os.keystone},
                "accessInfo": {"username": t.name, "password": t.password, "project": t.name,
                    "projectDomain": "Default", "userDomain": "Default", "region": t.name}}});
        }
        let s = heat_sim::Settings::default();
        json!({"vim1": {"vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            "interfaceInfo": {"endpoint": format!("{}/v3", self.sim.url)},
            "accessInfo": {"username": s.user, "password": self.password, "project": s.project,
                "projectDomain": "Default", "userDomain": "Default", "region": "RegionOne"}}})
    }

    /// Registers the simulator through `/v1.0/vims`; its id.
    pub async fn register(&self, name: &str) -> String {
        let s = heat_sim::Settings::default();
        let body = match &self.keystone {
            Some((os, t)) => json!({"vim": {"name": name, "type": "openstack",
                "auth_url": os.keystone,
                "auth_cred": {"username": t.name, "password": t.password, "user_domain_name": "Default"},
                "vim_project": {"name": t.name, "project_domain_name": "Default"},
                "extra": {"region": t.name}, "is_default": false}}),
            None => json!({"vim": {"name": name, "type": "openstack",
                "auth_url": format!("{}/v3", self.sim.url),
                "auth_cred": {"username": s.user, "password": self.password, "user_domain_name": "Default", "cert_verify": "True"},
                "vim_project": {"name": s.project, "project_domain_name": "Default"},
                "is_default": false}}),
        };
        let r = self
            .c
            .http
            .post(format!("{}/v1.0/vims.json", self.c.api))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["vim"]["auth_cred"]["password"], "***");
        v["vim"]["id"].as_str().unwrap().to_owned()
    }

    /// `retry` of occurrence `op` (v1) and its end state.
    pub async fn retry(&self, op: &Value, timeout: Duration) -> Value {
        let id = op["id"].as_str().unwrap().to_owned();
        let r = self
            .v1(
                reqwest::Method::POST,
                &format!("/vnf_lcm_op_occs/{id}/retry"),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        self.c
            .wait_op(&id, &["COMPLETED", "FAILED_TEMP"], timeout)
            .await
    }

    pub fn v1(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.c
            .http
            .request(method, format!("{}/vnflcm/v1{path}", self.c.api))
            .header("Version", "1.3.0")
    }

    pub async fn create(&self, api: &str) -> String {
        let b = json!({"vnfdId": VM_VNFD_ID, "vnfInstanceName": "vm"});
        let r = match api {
            "v1" => self.v1(reqwest::Method::POST, "/vnf_instances").json(&b),
            _ => self
                .c
                .lcm(0, reqwest::Method::POST, "/vnf_instances")
                .json(&b),
        }
        .send()
        .await
        .unwrap();
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Runs a task through `api` to one of `end`; the occurrence.
    pub async fn run(&self, api: &str, i: &str, task: &str, body: Value, end: &[&str]) -> Value {
        let path = format!("/vnf_instances/{i}/{task}");
        let r = match api {
            "v1" => self.v1(reqwest::Method::POST, &path),
            _ => self.c.lcm(0, reqwest::Method::POST, &path),
        }
        .json(&body)
        .send()
        .await
        .unwrap();
        assert_eq!(
            r.status(),
            202,
            "{task}: {}",
            r.text().await.unwrap_or_default()
        );
        let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
        self.c.wait_op(&op, end, T).await
    }

    pub async fn instance(&self, i: &str) -> Value {
        self.c
            .lcm(0, reqwest::Method::GET, &format!("/vnf_instances/{i}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `(vduId, vnfcResourceInfo id, vnfcInfo id, address of its CP)`, stored order.
    pub async fn vnfcs(&self, i: &str) -> Vec<(String, String, String, String)> {
        let v = self.instance(i).await;
        let info = &v["instantiatedVnfInfo"];
        info["vnfcResourceInfo"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        let id = r["id"].as_str().unwrap().to_owned();
                        let vdu = r["vduId"].as_str().unwrap().to_owned();
                        let c = info["vnfcInfo"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .find(|c| c["vnfcResourceInfoId"] == id.as_str())
                            .unwrap()["id"]
                            .as_str()
                            .unwrap()
                            .to_owned();
                        let ip = r["vnfcCpInfo"][0]["cpProtocolInfo"][0]["ipOverEthernet"]
                            ["ipAddresses"][0]["addresses"][0]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned();
                        (vdu, id, c, ip)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The network namespaces of the simulator's hosts.
    pub fn hosts(&self) -> Vec<String> {
        self.sim.sim.engine.hosts.running()
    }
}

fn netns_exists(host: &str) -> bool {
    let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.split_whitespace().next() == Some(&format!("ti-{host}")))
}

fn instantiate_body(vim: Value) -> Value {
    json!({"flavourId": "simple", "vimConnectionInfo": vim,
        "extVirtualLinks": [ext_virtual_link("net0", "sim-net", &["VDU1_CP1", "VDU2_CP1"])]})
}

/// Waits until the newest occurrence of instance `i` reaches one of `states`.
async fn wait_latest(vm: &Vm, i: &str, states: &[&str]) -> Value {
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let ops: Vec<Value> =
            vm.c.lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(last) = ops
            .iter()
            .max_by_key(|o| o["startTime"].as_str().unwrap_or_default().to_owned())
            && states.contains(&last["operationState"].as_str().unwrap_or_default())
        {
            return last.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "{ops:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

mod change_flavour;
mod flows;
pub(crate) mod glance;
pub(crate) mod layouts;
mod operate;
mod operators;
