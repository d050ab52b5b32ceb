//! The Kubernetes cluster VNF connected to private registries: the registry VNF
//! (HTTP) and an HTTPS registry with a test CA, a login and a `hosts_string` name.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::{Value, json};
use tacker_testkit::mgmt::{
    K8S_VNFD_ID, REGISTRY_VNFD_ID, TestCa, host_file, host_ok, host_sh, htpasswd, image_archive,
    k8s_cluster, push, put_host_file, registry_vnf, start_registry,
};

use super::{MgmtEnv, extra_host, mgmt_env};

const FQDN: &str = "registry.example.test";
const CA_PATH: &str = "Files/registries/ca.crt";

/// The registries the cluster is connected to.
struct Registries {
    /// The registry VNF (`ip:5000`, HTTP).
    plain: String,
    /// `registry.example.test:5443` (HTTPS, login).
    secure: String,
    secure_ip: String,
    secure_pid: u32,
    ca: TestCa,
    user: String,
    password: String,
}

async fn registries(e: &MgmtEnv) -> Registries {
    // The registry VNF, with the image from the package.
    e.onboard(
        registry_vnf()
            .with(
                "Files/images/private_registry.tar",
                std::fs::read(&e.registry_image).unwrap(),
            )
            .zip(),
    )
    .await;
    let i = e.create(REGISTRY_VNFD_ID, "registry").await;
    let body = json!({"flavourId": "simple",
        "extVirtualLinks": [{"id": "net0", "resourceId": "net0",
            "extCps": [{"cpdId": "CP1", "cpConfig": [{"cpProtocolData": [{"layerProtocol": "IP_OVER_ETHERNET"}]}]}]}],
        "additionalParams": {"private_registry_installation_param": {"ssh_cp_name": "CP1",
            "ssh_username": "ubuntu", "ssh_password": e.vm_password, "image_path": "Files/images/private_registry.tar"}},
        "vimConnectionInfo": e.vim_v1()});
    let op =
        e.vm.run("v1", &i, "instantiate", body, &["COMPLETED", "FAILED_TEMP"])
            .await;
    assert_eq!(op["operationState"], "COMPLETED", "{op}");
    let plain = format!("{}:5000", e.vm.vnfcs(&i).await[0].3);
    // An HTTPS registry outside Tacker.
    let (secure_ip, secure_pid) = extra_host(&e.vm.sim, "secure");
    let ca = TestCa::new(FQDN, &secure_ip);
    let user = "user01".to_owned();
    let password = format!("regpw-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    start_registry(
        secure_pid,
        5443,
        Some(&ca),
        Some(&htpasswd(&user, &password)),
    );
    let app = image_archive(e.work.path(), "app:1.0");
    push(
        &app,
        &format!("{plain}/app:1.0"),
        &["--dest-tls-verify=false"],
    );
    let creds = format!("{user}:{password}");
    let cert_dir = format!("--dest-cert-dir={}", ca.trust_dir().display());
    push(
        &app,
        &format!("{secure_ip}:5443/app:1.0"),
        &[&cert_dir, "--dest-creds", &creds],
    );
    Registries {
        plain,
        secure: format!("{FQDN}:5443"),
        secure_ip,
        secure_pid,
        ca,
        user,
        password,
    }
}

/// The spec's instantiate request for the cluster, as written (v1), with these
/// registries (the HTTPS one logging in with `password`).
fn spec_body(e: &MgmtEnv, r: &Registries, password: &str) -> Value {
    let node = |cp: &str| json!({"ssh_cp_name": cp, "nic_cp_name": cp, "username": "ubuntu", "password": e.vm_password});
    let mut master = node("masterNode_CP1");
    master["aspect_id"] = json!("master_instance");
    master["pod_cidr"] = json!("192.168.3.0/24");
    master["cluster_cidr"] = json!("10.199.187.0/24");
    master["cluster_cp_name"] = json!("masterNode_CP1");
    let mut worker = node("workerNode_CP2");
    worker["aspect_id"] = json!("worker_instance");
    let ext = |id: &str, cp: &str| {
        json!({"id": id, "resourceId": "f0c82461-36b5-4d86-8322-b0bc19cda65f",
            "extCps": [{"cpdId": cp, "cpConfig": [{"cpProtocolData": [{"layerProtocol": "IP_OVER_ETHERNET"}]}]}]})
    };
    json!({
        "flavourId": "simple",
        "additionalParams": {
            "k8s_cluster_installation_param": {
                "script_path": "Scripts/install_k8s_cluster.sh",
                "vim_name": "kubernetes_vim",
                "master_node": master,
                "worker_node": worker,
                "proxy": {"http_proxy": "http://user1:password1@host1:3128",
                    "https_proxy": "https://user2:password2@host2:3129",
                    "no_proxy": format!("192.168.246.0/24,10.0.0.1,{FQDN}"),
                    "k8s_node_cidr": "192.168.0.0/24"},
                "private_registry_connection_info": [
                    {"connection_type": "0", "server": r.plain},
                    {"connection_type": "1", "server": r.secure, "username": r.user, "password": password,
                     "certificate_path": CA_PATH, "hosts_string": format!("{} {FQDN}", r.secure_ip)}
                ]
            },
            "lcm-operation-user-data": "./UserData/k8s_cluster_user_data.py",
            "lcm-operation-user-data-class": "KubernetesClusterUserData"
        },
        "extVirtualLinks": [ext("net0_master", "masterNode_CP1"), ext("net0_worker", "workerNode_CP2")],
        "vimConnectionInfo": e.vim_v1(),
    })
}

/// A node: `(vdu, vnfc id, vnfcInfo id, address, host PID 1)`.
struct Node {
    vdu: String,
    vnfc: String,
    info: String,
    pid: u32,
}

async fn nodes(e: &MgmtEnv, i: &str) -> Vec<Node> {
    let mut out = Vec::new();
    for (vdu, vnfc, info, _) in e.vm.vnfcs(i).await {
        let pid = e.pid_of(&vnfc).await;
        out.push(Node {
            vdu,
            vnfc,
            info,
            pid,
        });
    }
    out
}

fn restarts(pid: u32) -> usize {
    host_file(pid, "/var/log/systemctl-shim.log")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("restart"))
        .count()
}

fn installs(pid: u32) -> usize {
    host_file(pid, "/var/log/k8s-install.log")
        .unwrap_or_default()
        .lines()
        .count()
}

/// What a configured node holds, checked from outside and with real clients inside.
fn check_node(n: &Node, r: &Registries) {
    let pid = n.pid;
    let who = format!("{} {}", n.vdu, n.vnfc);
    let daemon: Value =
        serde_json::from_str(&host_file(pid, "/etc/docker/daemon.json").unwrap()).unwrap();
    assert_eq!(daemon["insecure-registries"], json!([r.plain]), "{who}");
    assert_eq!(
        host_file(pid, &format!("/etc/docker/certs.d/{}/ca.crt", r.secure)).as_deref(),
        Some(r.ca.ca_pem().as_str()),
        "{who}"
    );
    let plain_toml = host_file(
        pid,
        &format!("/etc/containerd/certs.d/{}/hosts.toml", r.plain),
    )
    .unwrap();
    assert!(
        plain_toml.contains(&format!("server = \"http://{}\"", r.plain)),
        "{who}: {plain_toml}"
    );
    let secure_toml = host_file(
        pid,
        &format!("/etc/containerd/certs.d/{}/hosts.toml", r.secure),
    )
    .unwrap();
    assert!(
        secure_toml.contains(&format!("server = \"https://{}\"", r.secure)),
        "{who}: {secure_toml}"
    );
    assert!(secure_toml.contains("ca = "), "{who}: {secure_toml}");
    let hosts = host_file(pid, "/etc/hosts").unwrap();
    let line = format!("{} {FQDN}", r.secure_ip);
    assert_eq!(
        hosts.lines().filter(|l| *l == line).count(),
        1,
        "{who}: {hosts}"
    );
    assert!(
        host_file(pid, "/var/lib/kubelet/config.json").is_some(),
        "{who}: kubelet credentials"
    );
    // Real clients: TLS verified with the installed CA, the login accepted, the name
    // resolved through /etc/hosts.
    host_ok(
        pid,
        &format!(
            "skopeo inspect --tls-verify=false docker://{}/app:1.0 >/dev/null",
            r.plain
        ),
    );
    host_ok(
        pid,
        &format!(
            "skopeo inspect --cert-dir /etc/docker/certs.d/{s} --authfile /root/.docker/config.json docker://{s}/app:1.0 >/dev/null",
            s = r.secure
        ),
    );
    let log = host_file(pid, "/var/log/k8s-install.log").unwrap();
    assert!(
        log.contains(&format!("node={}", n.vnfc.to_ascii_lowercase())),
        "{who}: {log}"
    );
}

/// containerd pulls through the hosts directory the driver wrote (a throwaway
/// containerd in the node: no CRI, native snapshotter) and fails without it.
fn check_containerd(pid: u32, r: &Registries) {
    host_ok(
        pid,
        "mkdir -p /tmp/ctd /run/ctd && cat > /tmp/ctd/config.toml <<'CONF'
version = 2
root = \"/tmp/ctd/root\"
state = \"/run/ctd/state\"
disabled_plugins = [\"io.containerd.grpc.v1.cri\"]
[grpc]
  address = \"/run/ctd/containerd.sock\"
CONF
setsid nohup containerd --config /tmp/ctd/config.toml > /tmp/ctd/log 2>&1 < /dev/null &
echo $! > /tmp/ctd/pid
for _ in $(seq 1 100); do [ -S /run/ctd/containerd.sock ] && exit 0; sleep 0.1; done; cat /tmp/ctd/log >&2; exit 1",
    );
    let ctr = "ctr --address /run/ctd/containerd.sock images pull --snapshotter native";
    let creds = format!("--user {}:{}", r.user, r.password);
    for (image, user) in [
        (format!("{}/app:1.0", r.plain), ""),
        (format!("{}/app:1.0", r.secure), creds.as_str()),
    ] {
        let before = host_sh(
            pid,
            &format!(
                "mkdir -p /tmp/empty-hosts; {ctr} {user} --hosts-dir /tmp/empty-hosts {image}"
            ),
        );
        assert!(
            !before.status.success(),
            "{image} pulled without the configuration"
        );
        host_ok(
            pid,
            &format!("{ctr} {user} --hosts-dir /etc/containerd/certs.d {image}"),
        );
    }
    host_ok(pid, "kill $(cat /tmp/ctd/pid)");
}

async fn vims(e: &MgmtEnv) -> Value {
    e.vm.c
        .http
        .get(format!("{}/v1.0/vims", e.vm.c.api))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The registered `kubernetes_vim`, if any.
async fn cluster_vim(e: &MgmtEnv) -> Option<Value> {
    vims(e).await["vims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "kubernetes_vim")
        .cloned()
}

/// `kubectl get nodes` against the registered VIM: the node names.
async fn cluster_nodes(e: &MgmtEnv, master_pid: u32) -> BTreeSet<String> {
    let vim = cluster_vim(e).await.expect("kubernetes_vim is registered");
    assert_eq!(vim["type"], "kubernetes");
    assert_eq!(vim["auth_cred"]["bearer_token"], "***");
    let server = vim["auth_url"].as_str().unwrap().to_owned();
    let token = host_file(master_pid, "/etc/kubernetes/tacker/vim-token").unwrap();
    let ca = e.work.path().join(format!("cluster-ca-{master_pid}.crt"));
    std::fs::write(
        &ca,
        host_file(master_pid, "/etc/kubernetes/pki/ca.crt").unwrap(),
    )
    .unwrap();
    let out = Command::new("kubectl")
        .args([
            "--server",
            &server,
            "--token",
            token.trim(),
            "--certificate-authority",
        ])
        .arg(&ca)
        .args(["get", "nodes", "-o", "name"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_start_matches("node/").to_owned())
        .collect()
}

fn names(nodes: &[Node]) -> BTreeSet<String> {
    nodes.iter().map(|n| n.vnfc.to_ascii_lowercase()).collect()
}

/// `(PID 1, restarts, installs)` of each node.
fn counts(nodes: &[&Node]) -> Vec<(u32, usize, usize)> {
    nodes
        .iter()
        .map(|n| (n.pid, restarts(n.pid), installs(n.pid)))
        .collect()
}

fn unchanged(before: &[(u32, usize, usize)], what: &str) {
    for (pid, rs, is) in before {
        assert_eq!((restarts(*pid), installs(*pid)), (*rs, *is), "{what}");
    }
}

async fn run(e: &MgmtEnv, api: &str, i: &str, task: &str, body: Value) -> Value {
    let op =
        e.vm.run(api, i, task, body, &["COMPLETED", "FAILED_TEMP"])
            .await;
    assert_eq!(op["operationState"], "COMPLETED", "{task}: {op}");
    op
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubernetes_cluster_vnf_connects_its_nodes_to_private_registries() {
    let e = mgmt_env(&[]).await;
    let sub = tacker_testkit::peers::Subscriber::start(tacker_testkit::peers::Expect::Nothing);
    e.vm.c.subscribe(&sub).await;
    let r = registries(&e).await;
    e.onboard(k8s_cluster().with(CA_PATH, r.ca.ca_pem()).zip())
        .await;
    let i = e.create(K8S_VNFD_ID, "cluster").await;

    // Bad parameters are refused, naming them; nothing is created.
    let mut bad = spec_body(&e, &r, &r.password);
    bad["additionalParams"]["k8s_cluster_installation_param"]["private_registry_connection_info"]
        [1]["connection_type"] = json!("2");
    let resp = e.post_v1(&i, "instantiate", &bad).await;
    assert_eq!(resp.status(), 422);
    let p: Value = resp.json().await.unwrap();
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .contains("private_registry_connection_info[1].connection_type"),
        "{p}"
    );
    let mut bad = spec_body(&e, &r, &r.password);
    bad["additionalParams"]["k8s_cluster_installation_param"]["private_registry_connection_info"]
        [1]["certificate_path"] = json!("Files/none.crt");
    assert_eq!(e.post_v1(&i, "instantiate", &bad).await.status(), 422);
    assert!(e.ops_of(&i).await.is_empty());

    // A wrong registry password: FAILED_TEMP with the login error, the password masked.
    let wrong = format!("wrong-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let op =
        e.vm.run(
            "v1",
            &i,
            "instantiate",
            spec_body(&e, &r, &wrong),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert_eq!(op["error"]["title"], "Mgmt driver execution failed", "{op}");
    let detail = op["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("logging in to registry") && detail.contains(FQDN),
        "{detail}"
    );
    assert!(
        !op.to_string().contains(&wrong),
        "the password leaked: {op}"
    );
    // The VMs exist (the instance shows them once the operation completes).
    let servers: Value = reqwest::get(format!("{}/sim/servers", e.vm.sim.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let first: BTreeSet<String> = servers
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["resource_name"] == "masterNode" || s["resource_name"] == "workerNode")
        .map(|s| s["id"].as_str().unwrap().to_ascii_lowercase())
        .collect();
    assert_eq!(first.len(), 3, "one master, two workers: {servers}");
    let mut first_nodes = Vec::new();
    for id in &first {
        first_nodes.push(Node {
            vdu: String::new(),
            vnfc: id.clone(),
            info: String::new(),
            pid: e.pid_of(id).await,
        });
    }
    let before_retry = counts(&first_nodes.iter().collect::<Vec<_>>());

    // The cause fixed on the registry's side (it now takes that password), a retry
    // completes without new VMs and redoes nothing that was done.
    put_host_file(
        r.secure_pid,
        "/var/lib/test-registry-5443/htpasswd",
        htpasswd(&r.user, &wrong).as_bytes(),
    );
    let done = e.vm.retry(&op, super::T).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let ns = nodes(&e, &i).await;
    assert_eq!(names(&ns), first, "no new VMs");
    unchanged(&before_retry, "a retried hook redid work");
    let r = Registries {
        password: wrong.clone(),
        ..r
    };
    for n in &ns {
        check_node(n, &r);
        assert_eq!(
            restarts(n.pid),
            2,
            "docker and containerd restarted once each"
        );
        assert_eq!(installs(n.pid), 1, "installed once");
    }
    check_containerd(ns.iter().find(|n| n.vdu == "workerNode").unwrap().pid, &r);
    let master = ns.iter().find(|n| n.vdu == "masterNode").unwrap().pid;
    assert_eq!(cluster_nodes(&e, master).await, names(&ns));

    // Scale out the workers: only the new one is configured.
    let before = counts(&ns.iter().collect::<Vec<_>>());
    run(
        &e,
        "v1",
        &i,
        "scale",
        json!({"type": "SCALE_OUT", "aspectId": "worker_instance"}),
    )
    .await;
    let after = nodes(&e, &i).await;
    assert_eq!(after.len(), 4);
    unchanged(&before, "scale out configured an old node again");
    let new: Vec<&Node> = after
        .iter()
        .filter(|n| !ns.iter().any(|o| o.vnfc == n.vnfc))
        .collect();
    assert_eq!(new.len(), 1);
    check_node(new[0], &r);
    assert_eq!(cluster_nodes(&e, master).await, names(&after));

    // Scale in: the leaving worker leaves the cluster.
    run(
        &e,
        "v1",
        &i,
        "scale",
        json!({"type": "SCALE_IN", "aspectId": "worker_instance"}),
    )
    .await;
    let ns = nodes(&e, &i).await;
    assert_eq!(ns.len(), 3);
    assert_eq!(cluster_nodes(&e, master).await, names(&ns));

    // Scaling the masters is refused.
    let resp = e
        .post_v1(
            &i,
            "scale",
            &json!({"type": "SCALE_OUT", "aspectId": "master_instance"}),
        )
        .await;
    assert_eq!(resp.status(), 422);

    // Heal one worker (v2, by vnfcInfo id): only its replacement is configured.
    let worker = ns.iter().find(|n| n.vdu == "workerNode").unwrap();
    let others: Vec<&Node> = ns.iter().filter(|n| n.vnfc != worker.vnfc).collect();
    let before = counts(&others);
    run(
        &e,
        "v2",
        &i,
        "heal",
        json!({"vnfcInstanceId": [worker.info]}),
    )
    .await;
    let healed = nodes(&e, &i).await;
    assert!(!healed.iter().any(|n| n.vnfc == worker.vnfc));
    unchanged(
        &before,
        "healing one worker configured a healthy node again",
    );
    let new: Vec<&Node> = healed
        .iter()
        .filter(|n| !ns.iter().any(|o| o.vnfc == n.vnfc))
        .collect();
    assert_eq!(new.len(), 1);
    check_node(new[0], &r);
    assert_eq!(cluster_nodes(&e, master).await, names(&healed));

    // Heal the whole VNF (v1): every node is new, the VIM registered again.
    let vim_before = cluster_vim(&e).await.unwrap();
    run(&e, "v1", &i, "heal", json!({})).await;
    let fresh = nodes(&e, &i).await;
    assert_eq!(fresh.len(), 3);
    assert!(
        fresh
            .iter()
            .all(|n| !healed.iter().any(|o| o.vnfc == n.vnfc)),
        "every VM replaced"
    );
    for n in &fresh {
        check_node(n, &r);
    }
    let master = fresh.iter().find(|n| n.vdu == "masterNode").unwrap().pid;
    assert_eq!(cluster_nodes(&e, master).await, names(&fresh));
    let vim_after = cluster_vim(&e).await.unwrap();
    // As the spec's sequence says: the old cluster's VIM removed, the new one registered.
    assert_ne!(vim_after["id"], vim_before["id"], "registered anew");
    assert_ne!(
        vim_after["auth_url"], vim_before["auth_url"],
        "it points at the new master"
    );

    // A host key that changed behind Tacker's back (on a VM this operation did not
    // make) stops the hook; with the pinned key back, a retry completes.
    let iid: uuid::Uuid = i.parse().unwrap();
    let m = fresh.iter().find(|n| n.vdu == "masterNode").unwrap();
    let w = fresh.iter().find(|n| n.vdu == "workerNode").unwrap();
    let (mv, wv) = (m.vnfc.clone(), w.vnfc.clone());
    let db = e.vm.c.db.clone();
    let pinned = db
        .host_keys()
        .get(iid, &mv)
        .await
        .unwrap()
        .expect("the master's host key is pinned");
    let on_vm = host_file(m.pid, "/etc/ssh/ssh_host_ed25519_key.pub").unwrap();
    assert!(
        on_vm.starts_with(&pinned.public_key),
        "{on_vm} vs {pinned:?}"
    );
    let other = db.host_keys().get(iid, &wv).await.unwrap().unwrap();
    let (mv, p2) = (m.vnfc.clone(), pinned.clone());
    db.host_keys()
        .pin(iid, &mv, &p2.address, &other.public_key)
        .await
        .unwrap();
    let op =
        e.vm.run(
            "v1",
            &i,
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "worker_instance"}),
            &["COMPLETED", "FAILED_TEMP"],
        )
        .await;
    assert_eq!(op["operationState"], "FAILED_TEMP", "{op}");
    assert!(
        op["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("not the one pinned"),
        "{op}"
    );
    let mv = m.vnfc.clone();
    db.host_keys()
        .pin(iid, &mv, &pinned.address, &pinned.public_key)
        .await
        .unwrap();
    let done = e.vm.retry(&op, super::T).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(nodes(&e, &i).await.len(), 4);

    // No password in any answer, notification or log.
    let shown = e.everything_shown().await;
    for secret in [
        e.vm_password.as_str(),
        wrong.as_str(),
        "password1",
        "password2",
    ] {
        assert!(!shown.contains(secret), "{secret} leaked");
    }

    // Terminate: the VIM is removed.
    run(
        &e,
        "v1",
        &i,
        "terminate",
        json!({"terminationType": "FORCEFUL"}),
    )
    .await;
    assert!(cluster_vim(&e).await.is_none());
}
