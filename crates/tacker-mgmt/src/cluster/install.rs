//! Running the package's cluster install script on a node.
//!
//! The contract with the script (`k8s_cluster_installation_param.script_path`):
//!
//! - It runs as root: `bash /opt/tacker/k8s/install.sh --role master|worker
//!   --node-name NAME --node-ip IP --cluster-ip IP [--first-master]
//!   [--pod-cidr CIDR] [--cluster-cidr CIDR]`, with the `proxy` parameters exported
//!   from `/etc/kubernetes/tacker/proxy.env` (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`,
//!   `K8S_NODE_CIDR`; never on a command line).
//! - The first master (`--first-master`) leaves what other nodes need to join in
//!   `/etc/kubernetes/tacker/join.env` (the driver copies it to each other node, mode
//!   0600, before running the script there), the bearer token Tacker registers the
//!   cluster's VIM with in `/etc/kubernetes/tacker/vim-token`, the cluster CA in
//!   `/etc/kubernetes/pki/ca.crt`, and an `/etc/kubernetes/admin.conf` for `kubectl`.
//! - The node registers under `--node-name` (the VNFC id), so the driver can remove
//!   it from the cluster even when the VM is gone.
//! - Exit status 0 means done. The driver records the arguments in
//!   `/etc/kubernetes/tacker/installed` and does not run the script again with the
//!   same ones (a retried hook changes nothing).

use std::path::Path;

use serde_json::Value;
use tacker_domain::secret::Secret;

use crate::error::Result;
use crate::ssh::{Session, quote};

/// Where the script is put on the node.
pub const SCRIPT: &str = "/opt/tacker/k8s/install.sh";
/// What other nodes need to join.
pub const JOIN_ENV: &str = "/etc/kubernetes/tacker/join.env";
/// The VIM's bearer token.
pub const VIM_TOKEN: &str = "/etc/kubernetes/tacker/vim-token";
/// The cluster CA.
pub const CA: &str = "/etc/kubernetes/pki/ca.crt";
/// kubectl's configuration on masters.
pub const ADMIN_CONF: &str = "/etc/kubernetes/admin.conf";
const PROXY_ENV: &str = "/etc/kubernetes/tacker/proxy.env";
const MARKER: &str = "/etc/kubernetes/tacker/installed";

/// A node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The master every other node joins.
    FirstMaster,
    /// Another master.
    Master,
    /// A worker.
    Worker,
}

/// The script's arguments for one node.
#[derive(Debug, Clone)]
pub struct Args {
    /// Its role.
    pub role: Role,
    /// Its Kubernetes node name.
    pub node_name: String,
    /// Its address on the cluster network (`nic_cp_name`).
    pub node_ip: String,
    /// The cluster API's address (`cluster_cp_name` of the first master).
    pub cluster_ip: String,
    /// Pod network.
    pub pod_cidr: Option<String>,
    /// Service network.
    pub cluster_cidr: Option<String>,
}

impl Args {
    /// The command line (no secrets in it).
    pub fn line(&self) -> String {
        let role = match self.role {
            Role::FirstMaster | Role::Master => "master",
            Role::Worker => "worker",
        };
        let mut l = format!(
            "--role {role} --node-name {} --node-ip {} --cluster-ip {}",
            quote(&self.node_name),
            quote(&self.node_ip),
            quote(&self.cluster_ip)
        );
        if self.role == Role::FirstMaster {
            l.push_str(" --first-master");
        }
        if let Some(c) = &self.pod_cidr {
            l.push_str(&format!(" --pod-cidr {}", quote(c)));
        }
        if let Some(c) = &self.cluster_cidr {
            l.push_str(&format!(" --cluster-cidr {}", quote(c)));
        }
        l
    }
}

/// `proxy.env` from the `proxy` parameters.
pub fn proxy_env(proxy: &Secret) -> String {
    let mut out = String::new();
    for (key, var) in [
        ("http_proxy", "HTTP_PROXY"),
        ("https_proxy", "HTTPS_PROXY"),
        ("no_proxy", "NO_PROXY"),
        ("k8s_node_cidr", "K8S_NODE_CIDR"),
    ] {
        if let Some(v) = proxy.expose().get(key).and_then(Value::as_str) {
            out.push_str(&format!("{var}={}\n", quote(v)));
            if key != "k8s_node_cidr" {
                out.push_str(&format!("{key}={}\n", quote(v)));
            }
        }
    }
    out
}

/// Runs the install script on the node behind `s` (unless it ran with these arguments
/// already); `join` is the first master's join data, for the other nodes.
pub async fn run(
    s: &Session,
    script: &Path,
    args: &Args,
    proxy: &Secret,
    join: Option<&[u8]>,
) -> Result<bool> {
    let line = args.line();
    if s.read_root_file(MARKER).await?.as_deref().map(str::trim) == Some(line.trim()) {
        tracing::info!(node = %s.target.name, "cluster install ran already with these arguments");
        return Ok(false);
    }
    s.upload("transferring the install script", script, SCRIPT, 0o755)
        .await?;
    s.write_root_file(PROXY_ENV, proxy_env(proxy).as_bytes(), 0o600)
        .await?;
    if let Some(j) = join {
        s.write_root_file(JOIN_ENV, j, 0o600).await?;
    }
    tracing::info!(node = %s.target.name, args = %line, "running the cluster install script");
    s.sudo(
        "running the cluster install script",
        &format!("set -a; . {PROXY_ENV}; set +a; bash {SCRIPT} {line}"),
        None,
    )
    .await?;
    s.write_root_file(MARKER, format!("{line}\n").as_bytes(), 0o600)
        .await?;
    Ok(true)
}

/// Removes node `name` from the cluster, through `kubectl` on the master behind `s`:
/// drained (pods evicted; a node that is gone cannot be, which is no failure), then
/// deleted.
pub async fn remove_node(s: &Session, name: &str) -> Result<()> {
    let kubectl = format!("kubectl --kubeconfig {ADMIN_CONF}");
    let drain = s
        .sudo_status(
            &format!(
                "{kubectl} drain {n} --ignore-daemonsets --delete-emptydir-data --force --timeout=120s",
                n = quote(name)
            ),
            None,
        )
        .await?;
    if drain.status != 0 {
        tracing::warn!(node = %name, stderr = %drain.stderr.trim(), "drain failed; deleting the node anyway");
    }
    s.sudo(
        &format!("removing node {name} from the cluster"),
        &format!(
            "{kubectl} delete node {n} --ignore-not-found",
            n = quote(name)
        ),
        None,
    )
    .await?;
    Ok(())
}
