//! VM-based VNFs end to end: the REST API (v2 and v1), a server and two conductors as
//! processes on PostgreSQL and RabbitMQ, the OpenStack driver, and heat-sim whose servers
//! are SSH test hosts (network namespaces: these tests run as root).

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::peers::{Expect, Subscriber, states_of};
use tacker_testkit::vm::{VM_VNFD_ID, ext_virtual_link, vm};

use crate::procs::Cluster;

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
    pub password: String,
}

/// heat-sim (a password of its own), a server and two conductors, the VM package
/// onboarded.
pub async fn vm_cluster() -> Vm {
    let sim = sim_with(heat_sim::Settings::default());
    let v = Vm::start(sim, &[]).await;
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

impl Vm {
    /// A server and two conductors working with `sim` (extra environment `env`).
    pub async fn start(sim: heat_sim::Handle, env: &[(&str, &str)]) -> Vm {
        let mut all = vec![
            ("TACKER__OPENSTACK__POLL_INTERVAL", "200ms"),
            ("TACKER__OPENSTACK__STACK_TIMEOUT", "60s"),
            ("TACKER__LCM__SYNC_INTERVAL", "0s"),
        ];
        all.extend_from_slice(env);
        let c = Cluster::start_with(1, &["c1", "c2"], &all).await;
        let password = sim.sim.identity.password.clone();
        Vm { c, sim, password }
    }
}

impl Vm {
    /// The simulator as a VIM connection (credentials inline).
    pub fn vim(&self) -> Value {
        let s = heat_sim::Settings::default();
        json!({"vim1": {"vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            "interfaceInfo": {"endpoint": format!("{}/v3", self.sim.url)},
            "accessInfo": {"username": s.user, "password": self.password, "project": s.project,
                "projectDomain": "Default", "userDomain": "Default", "region": "RegionOne"}}})
    }

    /// Registers the simulator through `/v1.0/vims`; its id.
    pub async fn register(&self, name: &str) -> String {
        let s = heat_sim::Settings::default();
        let r = self
            .c
            .http
            .post(format!("{}/v1.0/vims.json", self.c.api))
            .json(&json!({"vim": {"name": name, "type": "openstack",
                "auth_url": format!("{}/v3", self.sim.url),
                "auth_cred": {"username": s.user, "password": self.password, "user_domain_name": "Default", "cert_verify": "True"},
                "vim_project": {"name": s.project, "project_domain_name": "Default"},
                "is_default": false}}))
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vm_vnf_lifecycle_through_v2_and_v1_on_ssh_hosts() {
    let vm = vm_cluster().await;
    let sub = Subscriber::start(Expect::Nothing);
    vm.c.subscribe(&sub).await;
    let sub1 = Subscriber::start(Expect::Nothing);
    let r = vm
        .v1(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": sub1.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let vim_id = vm.register("heat-sim").await;

    // v2, the VIM named by vimId only: two VMs, each answering SSH at its address.
    let i = vm.create("v2").await;
    let body = instantiate_body(json!({"vim1": {"vimId": vim_id, "vimType": "openstack"}}));
    let op = vm
        .run("v2", &i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let vnfcs = vm.vnfcs(&i).await;
    assert_eq!(vnfcs.len(), 2, "{vnfcs:?}");
    for (vdu, rid, cid, ip) in &vnfcs {
        assert!(ip.starts_with("10.250."), "{vnfcs:?}");
        assert_eq!(ssh_hostname(ip).unwrap(), *vdu);
        assert_eq!(*cid, format!("{vdu}-{rid}"));
    }
    let shown = vm.instance(&i).await;
    assert_eq!(shown["vimConnectionInfo"]["vim1"]["vimId"], vim_id.as_str());
    assert_eq!(
        shown["instantiatedVnfInfo"]["vnfcResourceInfo"][0]["computeResource"]["vimLevelResourceType"],
        "OS::Nova::Server"
    );

    // Scale out and in: a new host appears, then exactly it goes (namespace removed).
    let hosts_before = vm.hosts();
    let op = vm
        .run(
            "v2",
            &i,
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "VDU1_scale"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let out = vm.vnfcs(&i).await;
    assert_eq!(out.len(), 3);
    let added = out.iter().find(|v| !vnfcs.contains(v)).unwrap().clone();
    assert_eq!(ssh_hostname(&added.3).unwrap(), "VDU1");
    let new_host: Vec<String> = vm
        .hosts()
        .into_iter()
        .filter(|h| !hosts_before.contains(h))
        .collect();
    assert_eq!(new_host.len(), 1);
    assert!(netns_exists(&new_host[0]));
    let op = vm
        .run(
            "v2",
            &i,
            "scale",
            json!({"type": "SCALE_IN", "aspectId": "VDU1_scale"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert_eq!(vm.vnfcs(&i).await, vnfcs);
    assert_eq!(
        op["resourceChanges"]["affectedVnfcs"][0]["changeType"],
        "REMOVED"
    );
    assert_eq!(
        op["resourceChanges"]["affectedVnfcs"][0]["id"],
        added.1.as_str()
    );
    assert!(
        !netns_exists(&new_host[0]),
        "the removed VM's namespace is gone"
    );

    // SOL002 heal of VDU2: a new host and address; VDU1 untouched.
    let (v1c, v2c) = (
        vnfcs.iter().find(|v| v.0 == "VDU1").unwrap().clone(),
        vnfcs.iter().find(|v| v.0 == "VDU2").unwrap().clone(),
    );
    let op = vm
        .run(
            "v2",
            &i,
            "heal",
            json!({"vnfcInstanceId": [v2c.2]}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let healed = vm.vnfcs(&i).await;
    assert!(healed.contains(&v1c), "VDU1 untouched: {healed:?}");
    let new2 = healed.iter().find(|v| v.0 == "VDU2").unwrap();
    assert_ne!(new2.1, v2c.1);
    assert_ne!(new2.3, v2c.3);
    assert_eq!(ssh_hostname(&new2.3).unwrap(), "VDU2");
    assert!(ssh_hostname(&v2c.3).is_err(), "the old VM is gone");

    // SOL003 heal: every VM replaced.
    let op = vm
        .run("v2", &i, "heal", json!({}), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let all = vm.vnfcs(&i).await;
    assert!(
        all.iter().all(|v| !healed.iter().any(|h| h.1 == v.1)),
        "{all:?}"
    );
    for v in &all {
        assert_eq!(ssh_hostname(&v.3).unwrap(), v.0);
    }

    // v1: the same flow with v1 bodies (vimConnectionInfo a list; heal names
    // vnfcResourceInfo ids, as Tacker's v1 does); answers in the v1 shape.
    let j = vm.create("v1").await;
    let mut b1 = instantiate_body(Value::Null);
    b1["vimConnectionInfo"] = json!([{"id": "vim1", "vimId": vim_id, "vimType": "openstack"}]);
    let op = vm
        .run("v1", &j, "instantiate", b1, &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let v1i: Value = vm
        .v1(reqwest::Method::GET, &format!("/vnf_instances/{j}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(v1i["vimConnectionInfo"].is_array(), "{v1i}");
    assert_eq!(v1i["vimConnectionInfo"][0]["id"], "vim1");
    assert!(
        v1i["_links"]["self"]["href"]
            .as_str()
            .unwrap()
            .contains("/vnflcm/v1/")
    );
    let jv = vm.vnfcs(&j).await;
    let target = jv.iter().find(|v| v.0 == "VDU1").unwrap().clone();
    let op = vm
        .run(
            "v1",
            &j,
            "heal",
            json!({"vnfcInstanceId": [target.1]}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let after = vm.vnfcs(&j).await;
    assert!(!after.iter().any(|v| v.1 == target.1));
    assert!(after.contains(jv.iter().find(|v| v.0 == "VDU2").unwrap()));
    let op = vm
        .run(
            "v1",
            &j,
            "terminate",
            json!({"terminationType": "GRACEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let r = vm
        .v1(reqwest::Method::DELETE, &format!("/vnf_instances/{j}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);

    // Terminate the v2 instance: every VM, every namespace gone.
    let op = vm
        .run(
            "v2",
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(vm.hosts().is_empty(), "{:?}", vm.hosts());
    for v in &all {
        assert!(ssh_hostname(&v.3).is_err());
    }

    // Notifications in order, linked into the subscription's API version.
    let got = sub
        .wait("the v2 terminate result", |n| {
            states_of(n, op["id"].as_str().unwrap()).contains(&"RESULT:COMPLETED".to_owned())
        })
        .await;
    let iop = &got[0];
    assert!(
        iop["_links"]["vnfInstance"]["href"]
            .as_str()
            .unwrap()
            .contains("/vnflcm/v2/")
    );
    let got1 = sub1
        .wait("the v1 instance's notifications", |n| n.len() >= 10)
        .await;
    assert!(got1.iter().all(|n| {
        n["_links"]["vnfInstance"]["href"]
            .as_str()
            .unwrap()
            .contains("/vnflcm/v1/")
    }));

    // The VIM's password is in no answer and no notification, and sealed at rest.
    let mut answers = Vec::new();
    for path in [
        "/vnflcm/v2/vnf_instances?all_fields",
        "/vnflcm/v2/vnf_lcm_op_occs?all_fields",
        "/vnflcm/v1/vnf_instances?all_fields",
        "/vnflcm/v1/vnf_lcm_op_occs?all_fields",
        "/v1.0/vims.json",
    ] {
        answers.push(
            vm.c.http
                .get(format!("{}{path}", vm.c.api))
                .header("Version", "2.0.0")
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap(),
        );
    }
    answers.push(serde_json::to_string(&sub.received()).unwrap());
    answers.push(serde_json::to_string(&sub1.received()).unwrap());
    for a in &answers {
        assert!(!a.contains(&vm.password), "the VIM password leaked: {a}");
    }
    let id: uuid::Uuid = vim_id.parse().unwrap();
    let stored =
        vm.c.db
            .run(move |c| tacker_db::vims::stored_credentials(c, id))
            .await
            .unwrap()
            .unwrap();
    assert!(
        stored.starts_with("enc:v1:t1:") && !stored.contains(&vm.password),
        "{stored}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vm_build_failure_retry_rollback_and_token_refresh() {
    let vm = vm_cluster().await;
    // The build fails once: FAILED_TEMP with Heat's reason.
    *vm.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("VDU2".into()),
        fail_times: Some(1),
        fail_reason: Some("No valid host was found".into()),
        ..Default::default()
    };
    let i = vm.create("v2").await;
    let op = vm
        .run(
            "v2",
            &i,
            "instantiate",
            instantiate_body(vm.vim()),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["title"], "Stack create failed");
    assert!(
        op["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("No valid host was found"),
        "{op}"
    );
    // Retry: the same stack is updated (never a second one), with tokens expiring while
    // the VMs build.
    vm.sim.sim.engine.faults().build_delay_ms = 500;
    let id = op["id"].as_str().unwrap().to_owned();
    let r =
        vm.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{id}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    tokio::time::sleep(Duration::from_millis(300)).await;
    vm.sim.sim.tokens.expire_all();
    let op = vm.c.wait_op(&id, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let stacks: Vec<String> = {
        let st = vm.sim.sim.engine.lock();
        st.stacks
            .values()
            .filter(|s| s.parent.is_none() && !s.deleted)
            .map(|s| s.name.clone())
            .collect()
    };
    assert_eq!(stacks, vec![format!("vnf-{i}")]);
    for v in vm.vnfcs(&i).await {
        assert_eq!(ssh_hostname(&v.3).unwrap(), v.0);
    }

    // A build that keeps failing: rollback leaves nothing behind.
    *vm.sim.sim.engine.faults() = heat_sim::faults::Faults {
        fail_build: Some("VDU1".into()),
        ..Default::default()
    };
    let hosts = vm.hosts();
    let j = vm.create("v2").await;
    let op = vm
        .run(
            "v2",
            &j,
            "instantiate",
            instantiate_body(vm.vim()),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    let id = op["id"].as_str().unwrap().to_owned();
    let r =
        vm.c.lcm(
            0,
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{id}/rollback"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let op = vm.c.wait_op(&id, &["ROLLED_BACK", "FAILED_TEMP"], T).await;
    assert_eq!(op["operationState"], "ROLLED_BACK", "{op}");
    assert_eq!(
        vm.hosts(),
        hosts,
        "the failed VNF's VMs are gone, the other's stay"
    );
    assert!(
        vm.sim
            .sim
            .engine
            .lock()
            .by_name(&format!("vnf-{j}"))
            .is_none()
    );

    // Terminate: every host gone.
    *vm.sim.sim.engine.faults() = Default::default();
    let op = vm
        .run(
            "v2",
            &i,
            "terminate",
            json!({"terminationType": "FORCEFUL"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(vm.hosts().is_empty());
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

/// The spec's requests as written: `openstack vim register`, then `openstack vnflcm`
/// without `--os-tacker-api-version` (the v1 API) naming the VIM by `vimId` only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openstack_cli_registers_the_vim_and_drives_v1() {
    use crate::openstack_cli::Osc;
    let vm = vm_cluster().await;
    let osc = Osc::new(vm.c.api.clone());
    let dir = tempfile::tempdir().unwrap();
    let s = heat_sim::Settings::default();
    let cfg = dir.path().join("vim.yaml");
    std::fs::write(
        &cfg,
        format!(
            "auth_url: '{}/v3'\nusername: '{}'\npassword: '{}'\nproject_name: '{}'\nproject_domain_name: 'Default'\nuser_domain_name: 'Default'\ncert_verify: 'True'\n",
            vm.sim.url, s.user, vm.password, s.project
        ),
    )
    .unwrap();
    let v = osc.json(&[
        "vim",
        "register",
        "--config-file",
        cfg.to_str().unwrap(),
        "--is-default",
        "heat-sim",
    ]);
    assert_eq!(v["auth_cred"]["password"], "***", "{v}");
    assert!(!v.to_string().contains(&vm.password));
    let vim_id = v["id"].as_str().unwrap().to_owned();
    let list = osc.json(&["vim", "list"]);
    assert_eq!(list[0]["Name"], "heat-sim", "{list}");
    assert_eq!(list[0]["Is Default"], true);

    let created = osc.json(&["vnflcm", "create", VM_VNFD_ID]);
    let i = created["ID"].as_str().unwrap().to_owned();
    let body = dir.path().join("instantiate.json");
    let mut b = instantiate_body(Value::Null);
    b["vimConnectionInfo"] = json!([{"id": "8a3adb69-0784-43c7-833e-aab0b6ab4470", "vimId": vim_id, "vimType": "openstack"}]);
    std::fs::write(&body, b.to_string()).unwrap();
    let (ok, out, err) = osc.run(&["vnflcm", "instantiate", &i, body.to_str().unwrap()]);
    assert!(ok && out.contains("accepted"), "{out}{err}");
    let op = wait_latest(&vm, &i, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let shown = osc.json(&["vnflcm", "show", &i]);
    assert_eq!(shown["Instantiation State"], "INSTANTIATED", "{shown}");
    let vnfcs = vm.vnfcs(&i).await;
    for v in &vnfcs {
        assert_eq!(ssh_hostname(&v.3).unwrap(), v.0);
    }
    // v1 heal names the vnfcResourceInfo id.
    let target = vnfcs.iter().find(|v| v.0 == "VDU2").unwrap().clone();
    let (ok, out, err) = osc.run(&["vnflcm", "heal", &i, "--vnfc-instance", &target.1]);
    assert!(ok && out.contains("accepted"), "{out}{err}");
    let op = wait_latest(&vm, &i, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(op["operation"], "HEAL", "{op}");
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    assert!(!vm.vnfcs(&i).await.iter().any(|v| v.1 == target.1));
    let ops = osc.json(&["vnflcm", "op", "list"]);
    assert_eq!(ops.as_array().unwrap().len(), 2, "{ops}");
    // Terminate and delete in one command; then the VIM can go.
    let (ok, out, err) = osc.run(&[
        "vnflcm",
        "terminate",
        &i,
        "--termination-type",
        "FORCEFUL",
        "--D",
    ]);
    assert!(ok && out.contains("deleted successfully"), "{out}{err}");
    assert!(vm.hosts().is_empty());
    let (ok, out, err) = osc.run(&["vim", "delete", "heat-sim"]);
    assert!(ok, "{out}{err}");
    assert_eq!(osc.json(&["vim", "list"]), json!([]));
}

/// A server monitor's fault notification for a VM of an instance that opted in to
/// auto-heal: the VM (whose host died behind Heat's back) is healed automatically, a
/// new server answering SSH in its place; the alarm names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vm_fault_notification_heals_the_vm_on_heat_sim() {
    let sim = sim_with(heat_sim::Settings::default());
    let vm = Vm::start(
        sim,
        &[
            ("TACKER__FM__AUTO_HEAL_WINDOW", "500ms"),
            ("TACKER__FM__LOOP_INTERVAL", "200ms"),
        ],
    )
    .await;
    let pkg = vm.c.upload(tacker_testkit::vm::vm().zip()).await;
    let p = vm.c.wait_state(&pkg, &["ONBOARDED", "CREATED"], T).await;
    assert_eq!(p["onboardingState"], "ONBOARDED", "{p}");
    let i = vm.create("v2").await;
    let op = vm
        .run(
            "v2",
            &i,
            "instantiate",
            instantiate_body(vm.vim()),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let r =
        vm.c.lcm(0, reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
            .json(&json!({"vnfConfigurableProperties": {"isAutohealEnabled": true}}))
            .send()
            .await
            .unwrap();
    let modify = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    vm.c.wait_op(&modify, &["COMPLETED"], T).await;
    let shown = vm.instance(&i).await;
    let info = &shown["instantiatedVnfInfo"];
    let r2 = info["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["vduId"] == "VDU2")
        .unwrap()
        .clone();
    let server = r2["computeResource"]["resourceId"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = vm.vnfcs(&i).await;
    let old = before.iter().find(|v| v.0 == "VDU2").unwrap().clone();

    // The host dies; the monitor says so.
    let http = reqwest::Client::new();
    let killed = http
        .post(format!("{}/sim/servers/{server}/kill", vm.sim.url))
        .send()
        .await
        .unwrap();
    assert_eq!(killed.status(), 204);
    assert!(ssh_hostname(&old.3).is_err(), "the killed VM still answers");
    let r = http
        .post(format!("{}/server_notification/vnf_instances/{i}/servers/{server}/notify", vm.c.api))
        .json(&json!({"notification": {"host_id": "compute-1", "alarm_id": "a-1", "fault_id": "0001", "fault_type": "01"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204, "{}", r.text().await.unwrap());

    let deadline = tokio::time::Instant::now() + T;
    let heal = loop {
        let heals: Vec<Value> =
            vm.c.lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,operation,HEAL);(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(h) = heals.first() {
            break h["id"].as_str().unwrap().to_owned();
        }
        assert!(tokio::time::Instant::now() < deadline, "no automatic heal");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let done = vm.c.wait_op(&heal, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["isAutomaticInvocation"], true);
    assert_eq!(done["operationParams"]["vnfcInstanceId"], json!([old.2]));
    let after = vm.vnfcs(&i).await;
    let new = after.iter().find(|v| v.0 == "VDU2").unwrap();
    assert_ne!(new.1, old.1, "VDU2 not replaced: {after:?}");
    assert_eq!(ssh_hostname(&new.3).unwrap(), "VDU2");
    assert!(
        after.iter().any(|v| v.0 == "VDU1" && before.contains(v)),
        "VDU1 touched"
    );
    let alarms: Vec<Value> =
        vm.c.http
            .get(format!("{}/vnffm/v1/alarms", vm.c.api))
            .header("Version", "1.3.0")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(alarms.len(), 1, "{alarms:?}");
    assert_eq!(
        alarms[0]["rootCauseFaultyResource"]["faultyResource"]["resourceId"],
        server.as_str()
    );
}
