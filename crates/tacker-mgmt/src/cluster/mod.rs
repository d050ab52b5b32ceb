//! The `kubernetes-cluster` driver: a Kubernetes cluster on the VNF's VMs (the
//! package's install script), registered as a VIM, every node connected to the private
//! registries of `k8s_cluster_installation_param`.
//!
//! - `instantiate_end`: install on the masters (the first one, then the others with
//!   the workers, in parallel), connect every node to the registries, register the VIM.
//! - `scale_start` (in): remove the leaving workers from the cluster; `scale_end`
//!   (out): install and connect the new workers only.
//! - `heal_start`: the whole VNF: forget the old cluster's VIM; named VNFCs: remove
//!   their nodes from the cluster. `heal_end`: install and connect the new nodes (the
//!   whole cluster anew, VIM registered again, when the whole VNF was healed).
//! - `terminate_end`: remove the VIM.

mod install;
mod registries;

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::json;
use tacker_domain::lcm::driver::{DriverError, MgmtDriver, OpContext};
use tacker_domain::lcm::{OperationParams, plan};
use tacker_domain::mgmt::params::K8sClusterParams;

pub use install::Role;
pub use registries::{Changes, Registry};

use crate::error::{Error, Result};
use crate::nodes::{self, Node};
use crate::settings::MgmtSettings;
use crate::ssh::Session;
use crate::{package_path, reach};

/// Installs and connects Kubernetes clusters.
#[derive(Debug)]
pub struct KubernetesCluster {
    settings: Arc<MgmtSettings>,
}

/// The cluster's nodes as the instance shows them.
#[derive(Debug, Clone)]
struct Cluster {
    params: K8sClusterParams,
    masters: Vec<Node>,
    workers: Vec<Node>,
}

impl Cluster {
    fn of(ctx: &OpContext) -> Result<Self> {
        let params = K8sClusterParams::parse(&ctx.instantiate_params)?;
        let masters = nodes::with_cp(&ctx.instance, &params.master_node.ssh_cp_name)?;
        let workers = nodes::with_cp(&ctx.instance, &params.worker_node.ssh_cp_name)?;
        if masters
            .iter()
            .any(|m| workers.iter().any(|w| w.vnfc == m.vnfc))
        {
            return Err(Error::Invalid(
                "master_node.ssh_cp_name and worker_node.ssh_cp_name name the same VNFCs; masters and workers need CPs of their own VDUs".into(),
            ));
        }
        Ok(Self {
            params,
            masters,
            workers,
        })
    }

    fn is_master(&self, n: &Node) -> bool {
        self.masters.iter().any(|m| m.vnfc == n.vnfc)
    }

    fn vim_name(&self, ctx: &OpContext) -> String {
        self.params
            .vim_name
            .clone()
            .unwrap_or_else(|| format!("kubernetes_vim_{}", ctx.instance.id))
    }

    fn login(&self, n: &Node) -> (&str, &str) {
        let p = if self.is_master(n) {
            &self.params.master_node
        } else {
            &self.params.worker_node
        };
        (&p.username, p.password.expose_text())
    }

    /// Every password in the parameters (masked in what commands leave).
    fn secrets(&self) -> Vec<String> {
        let mut s = vec![
            self.params.master_node.password.expose_text().to_owned(),
            self.params.worker_node.password.expose_text().to_owned(),
        ];
        s.extend(
            self.params
                .registries
                .iter()
                .filter_map(|r| r.password.as_ref().map(|p| p.expose_text().to_owned())),
        );
        s
    }
}

/// The node's address on CP `cp` (its SSH address when `cp` is not its).
fn address_on(ctx: &OpContext, n: &Node, cp: Option<&str>) -> String {
    cp.and_then(|c| tacker_domain::lcm::address_of(&ctx.instance, &n.vnfc, c))
        .unwrap_or_else(|| n.address.clone())
}

impl KubernetesCluster {
    /// The driver.
    pub fn new(settings: Arc<MgmtSettings>) -> Self {
        Self { settings }
    }

    async fn open(&self, ctx: &OpContext, c: &Cluster, n: &Node) -> Result<Session> {
        let (user, password) = c.login(n);
        reach::open(ctx, n, user, password, &self.settings.ssh, c.secrets()).await
    }

    fn registries(&self, ctx: &OpContext, c: &Cluster) -> Result<Vec<Registry>> {
        c.params
            .registries
            .iter()
            .map(|r| {
                let ca = match &r.certificate_path {
                    Some(p) => {
                        let path = package_path(ctx, p)?;
                        Some(std::fs::read(&path).map_err(|e| Error::Package {
                            path: p.clone(),
                            cause: e.to_string(),
                        })?)
                    }
                    None => None,
                };
                Ok(Registry {
                    conn: r.clone(),
                    ca,
                })
            })
            .collect()
    }

    fn args(
        &self,
        ctx: &OpContext,
        c: &Cluster,
        n: &Node,
        role: Role,
        first: &Node,
    ) -> install::Args {
        let node = if c.is_master(n) {
            &c.params.master_node
        } else {
            &c.params.worker_node
        };
        let m = &c.params.master_node;
        install::Args {
            role,
            node_name: n.k8s_name(),
            node_ip: address_on(ctx, n, Some(&node.nic_cp_name)),
            cluster_ip: address_on(ctx, first, m.cluster_cp_name.as_deref()),
            pod_cidr: m.pod_cidr.clone(),
            cluster_cidr: m.cluster_cidr.clone(),
        }
    }

    /// Installs `targets` (the first master too when `first_is_new`) and connects them
    /// to the registries.
    async fn build(
        &self,
        ctx: &OpContext,
        c: &Cluster,
        targets: &[Node],
        first_is_new: bool,
    ) -> Result<()> {
        let script = package_path(ctx, &c.params.script_path)?;
        let regs = self.registries(ctx, c)?;
        // The master the others join: the first one, or one that stays.
        let first = if first_is_new {
            c.masters.first()
        } else {
            c.masters
                .iter()
                .find(|m| !targets.iter().any(|t| t.vnfc == m.vnfc))
        }
        .cloned()
        .ok_or_else(|| {
            Error::Invalid(format!(
                "no master (VNFC with CP {}) to join the nodes to",
                c.params.master_node.ssh_cp_name
            ))
        })?;
        let s = self.open(ctx, c, &first).await?;
        let join = async {
            if first_is_new {
                let args = self.args(ctx, c, &first, Role::FirstMaster, &first);
                install::run(&s, &script, &args, &c.params.proxy, None).await?;
            }
            s.read_root_file(install::JOIN_ENV)
                .await?
                .ok_or_else(|| Error::Command {
                    node: first.name(),
                    step: "reading the join data".into(),
                    status: 1,
                    stderr: format!("the install script left no {}", install::JOIN_ENV),
                })
        }
        .await;
        s.close().await;
        let join = join?;
        // Then every node at once: the others join, each is connected to the registries.
        reach::on_all(targets, self.settings.ssh.max_parallel, |n| {
            let (script, regs, join, first) =
                (script.clone(), regs.clone(), join.clone(), first.clone());
            async move {
                let s = self.open(ctx, c, &n).await?;
                let r = async {
                    if n.vnfc != first.vnfc {
                        let role = if c.is_master(&n) {
                            Role::Master
                        } else {
                            Role::Worker
                        };
                        let args = self.args(ctx, c, &n, role, &first);
                        install::run(&s, &script, &args, &c.params.proxy, Some(join.as_bytes()))
                            .await?;
                    }
                    let ch = registries::configure(&s, &regs).await?;
                    log_changes(&n, &ch);
                    Ok::<_, Error>(())
                }
                .await;
                s.close().await;
                r
            }
        })
        .await
    }

    /// Registers the cluster as the VIM `vim_name` (replacing an earlier registration).
    async fn register(&self, ctx: &OpContext, c: &Cluster) -> Result<()> {
        let first = c
            .masters
            .first()
            .ok_or_else(|| Error::Invalid("the cluster has no master".into()))?;
        let s = self.open(ctx, c, first).await?;
        let read = async {
            let token = s.read_root_file(install::VIM_TOKEN).await?;
            let ca = s.read_root_file(install::CA).await?;
            Ok::<_, Error>((token, ca))
        }
        .await;
        s.close().await;
        let (token, ca) = read?;
        let token = token
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| Error::Command {
                node: first.name(),
                step: "reading the cluster's VIM token".into(),
                status: 1,
                stderr: format!("the install script left no {}", install::VIM_TOKEN),
            })?;
        let api = address_on(ctx, first, c.params.master_node.cluster_cp_name.as_deref());
        let mut cred = json!({"bearer_token": token});
        if let Some(ca) = ca {
            cred["ssl_ca_cert"] = json!(ca);
        }
        let name = c.vim_name(ctx);
        let body = json!({"vim": {
            "name": name,
            "description": format!("Kubernetes cluster of VNF instance {}", ctx.instance.id),
            "type": "kubernetes",
            "auth_url": format!("https://{api}:6443"),
            "auth_cred": cred,
            "vim_project": {"name": "default"},
        }});
        let vim = tacker_domain::vim::parse_new(&body, "")?;
        let services = ctx
            .services
            .as_ref()
            .ok_or_else(|| Error::Invalid("no VIM registry offered to the driver".into()))?;
        let id = services.register_vim(vim).await.map_err(Error::Services)?;
        tracing::info!(vim = %name, vim_id = %id, "Kubernetes cluster registered as a VIM");
        Ok(())
    }

    async fn unregister(&self, ctx: &OpContext, c: &Cluster) -> Result<()> {
        if let Some(s) = &ctx.services {
            let name = c.vim_name(ctx);
            if s.remove_vim(&name).await.map_err(Error::Services)? {
                tracing::info!(vim = %name, "Kubernetes cluster VIM removed");
            }
        }
        Ok(())
    }

    /// Removes `leaving` from the cluster, through a master that stays.
    async fn remove(&self, ctx: &OpContext, c: &Cluster, leaving: &BTreeSet<String>) -> Result<()> {
        let gone: Vec<&Node> = c
            .masters
            .iter()
            .chain(&c.workers)
            .filter(|n| leaving.contains(&n.vnfc))
            .collect();
        if gone.is_empty() {
            return Ok(());
        }
        let Some(master) = c.masters.iter().find(|m| !leaving.contains(&m.vnfc)) else {
            return Err(Error::Invalid(
                "no master stays to remove the nodes from the cluster; heal the whole VNF".into(),
            ));
        };
        let s = self.open(ctx, c, master).await?;
        let r = async {
            for n in gone {
                install::remove_node(&s, &n.k8s_name()).await?;
            }
            Ok::<_, Error>(())
        }
        .await;
        s.close().await;
        r
    }

    /// The VNFCs a SOL002 heal names (their `vnfcResourceInfo` ids).
    fn healed(ctx: &OpContext) -> Option<BTreeSet<String>> {
        let OperationParams::Heal(h) = &ctx.op.request else {
            return None;
        };
        if h.is_whole_vnf() {
            return None;
        }
        Some(
            h.vnfc_instance_id
                .iter()
                .filter_map(|id| {
                    ctx.instance
                        .vnfc(id)
                        .map(|v| v.vnfc_resource_info_id.clone())
                })
                .collect(),
        )
    }

    async fn hook(&self, hook: &str, ctx: &OpContext) -> Result<()> {
        match hook {
            "instantiate_end" => {
                let c = Cluster::of(ctx)?;
                let all: Vec<Node> = c.masters.iter().chain(&c.workers).cloned().collect();
                self.build(ctx, &c, &all, true).await?;
                self.register(ctx, &c).await
            }
            "terminate_end" => {
                let c = Cluster::of(ctx)?;
                self.unregister(ctx, &c).await
            }
            "scale_start" => {
                let OperationParams::Scale(req) = &ctx.op.request else {
                    return Ok(());
                };
                if req.is_out() {
                    return Ok(());
                }
                let c = Cluster::of(ctx)?;
                let Some(info) = &ctx.instance.instantiated_vnf_info else {
                    return Ok(());
                };
                let f = flavour_of(ctx)?;
                let step = plan::checked_scale_step(f, info, req).map_err(Error::Invalid)?;
                let leaving: BTreeSet<String> =
                    plan::scale_in_targets(info, &step).into_iter().collect();
                self.remove(ctx, &c, &leaving).await
            }
            "scale_end" => {
                let OperationParams::Scale(req) = &ctx.op.request else {
                    return Ok(());
                };
                if !req.is_out() {
                    return Ok(());
                }
                let c = Cluster::of(ctx)?;
                let added = nodes::changed(ctx, "ADDED");
                let new: Vec<Node> = c
                    .workers
                    .iter()
                    .filter(|w| added.contains(&w.vnfc))
                    .cloned()
                    .collect();
                self.build(ctx, &c, &new, false).await
            }
            "heal_start" => {
                let c = Cluster::of(ctx)?;
                match Self::healed(ctx) {
                    None => self.unregister(ctx, &c).await,
                    Some(vnfcs) => self.remove(ctx, &c, &vnfcs).await,
                }
            }
            "heal_end" => {
                let c = Cluster::of(ctx)?;
                match Self::healed(ctx) {
                    None => {
                        let all: Vec<Node> = c.masters.iter().chain(&c.workers).cloned().collect();
                        self.build(ctx, &c, &all, true).await?;
                        self.register(ctx, &c).await
                    }
                    Some(_) => {
                        let added = nodes::changed(ctx, "ADDED");
                        let new: Vec<Node> = c
                            .masters
                            .iter()
                            .chain(&c.workers)
                            .filter(|n| added.contains(&n.vnfc))
                            .cloned()
                            .collect();
                        self.build(ctx, &c, &new, false).await
                    }
                }
            }
            _ => Ok(()),
        }
    }
}

fn flavour_of(ctx: &OpContext) -> Result<&tacker_domain::vnfd::Flavour> {
    ctx.vnfd
        .flavour(&ctx.flavour_id)
        .ok_or_else(|| Error::Invalid(format!("the VNFD has no flavour {}", ctx.flavour_id)))
}

fn log_changes(n: &Node, ch: &Changes) {
    tracing::info!(node = %n.name(), files = ?ch.files, restarted = ?ch.restarted, "node connected to its registries");
}

#[async_trait::async_trait]
impl MgmtDriver for KubernetesCluster {
    async fn check(&self, hook: &str, ctx: &OpContext) -> std::result::Result<(), DriverError> {
        if hook != "heal_start" && hook != "heal_end" {
            return Ok(());
        }
        let Some(vnfcs) = Self::healed(ctx) else {
            return Ok(());
        };
        let c = Cluster::of(ctx)?;
        if !c.masters.is_empty() && c.masters.iter().all(|m| vnfcs.contains(&m.vnfc)) {
            return Err(Error::Invalid(
                "healing every master of the cluster by VNFC is not supported: no master would stay to rejoin the nodes; heal the whole VNF".into(),
            )
            .into());
        }
        Ok(())
    }

    async fn run_hook(&self, hook: &str, ctx: &OpContext) -> std::result::Result<(), DriverError> {
        Ok(self.hook(hook, ctx).await?)
    }
}
