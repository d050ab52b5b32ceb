//! The `private-registry` driver: a Docker private registry on the VNF's VM
//! (`instantiate_end`, and `heal_end` on the new VM), configured by
//! `additionalParams.private_registry_installation_param` (with upstream's `proxy`: apt's
//! and Docker's proxy on the VM).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tacker_domain::lcm::driver::{DriverError, MgmtDriver, OpContext};
use tacker_domain::mgmt::params::PrivateRegistryParams;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::error::{Error, Result};
use crate::nodes::{self, Node};
use crate::settings::MgmtSettings;
use crate::ssh::{Session, quote};
use crate::{docker, package_path, reach};

/// The container's name.
pub const CONTAINER: &str = "private_registry";
/// The image it runs.
pub const IMAGE: &str = "registry:latest";

/// Installs and runs a private registry.
#[derive(Debug)]
pub struct PrivateRegistry {
    settings: Arc<MgmtSettings>,
}

impl PrivateRegistry {
    /// The driver.
    pub fn new(settings: Arc<MgmtSettings>) -> Self {
        Self { settings }
    }

    async fn install(&self, ctx: &OpContext, healing: bool) -> Result<()> {
        let p = PrivateRegistryParams::parse(&ctx.instantiate_params)?;
        let all = nodes::with_cp(&ctx.instance, &p.ssh_cp_name)?;
        if all.is_empty() {
            return Err(Error::Invalid(format!(
                "no VNFC of instance {} has CP {} (private_registry_installation_param.ssh_cp_name)",
                ctx.instance.id, p.ssh_cp_name
            )));
        }
        let added = nodes::changed(ctx, "ADDED");
        let targets: Vec<Node> = if healing && all.iter().any(|n| added.contains(&n.vnfc)) {
            all.into_iter()
                .filter(|n| added.contains(&n.vnfc))
                .collect()
        } else {
            all
        };
        let image = match &p.image_path {
            Some(f) => Some(package_path(ctx, f)?),
            None => None,
        };
        reach::on_all(&targets, self.settings.ssh.max_parallel, |n| {
            let (p, image) = (p.clone(), image.clone());
            async move { self.on_node(ctx, &n, &p, image.as_deref()).await }
        })
        .await
    }

    async fn on_node(
        &self,
        ctx: &OpContext,
        n: &Node,
        p: &PrivateRegistryParams,
        image: Option<&Path>,
    ) -> Result<()> {
        let s = reach::open(
            ctx,
            n,
            &p.ssh_username,
            p.ssh_password.expose_text(),
            &self.settings.ssh,
            Vec::new(),
        )
        .await?;
        let r = self.configure(&s, n, p, image).await;
        s.close().await;
        r
    }

    async fn configure(
        &self,
        s: &Session,
        n: &Node,
        p: &PrivateRegistryParams,
        image: Option<&Path>,
    ) -> Result<()> {
        if let Some(proxy) = &p.proxy {
            docker::configure_proxy(s, proxy).await?;
        }
        docker::ensure(s, &self.settings).await?;
        if p.proxy.is_some() {
            docker::restart_for_proxy(s).await?;
        }
        let running = s
            .sudo_status(
                &format!("docker inspect -f '{{{{.State.Running}}}}' {CONTAINER}"),
                None,
            )
            .await?;
        let exists = running.status == 0;
        if exists
            && running.stdout.trim() == "true"
            && answers(&n.address, p.port_no, Duration::from_secs(3))
                .await
                .is_ok()
        {
            tracing::info!(node = %n.name(), port = p.port_no, "private registry already runs");
            return Ok(());
        }
        match image {
            Some(local) => {
                let remote = "/var/lib/tacker/images/private_registry.tar";
                s.upload("transferring the registry image", local, remote, 0o600)
                    .await?;
                s.sudo(
                    "loading the registry image",
                    &format!("docker load -i {remote}"),
                    None,
                )
                .await?;
            }
            None => {
                s.sudo(
                    "pulling the registry image",
                    &format!("docker pull {IMAGE}"),
                    None,
                )
                .await?;
            }
        }
        if exists {
            s.sudo(
                "removing the old registry container",
                &format!("docker rm -f {CONTAINER}"),
                None,
            )
            .await?;
        }
        let dir = &self.settings.registry_data_dir;
        s.sudo(
            "starting the registry container",
            &format!(
                "mkdir -p {d} && docker run -d -p {port}:5000 -v {d}:/var/lib/registry --restart=always --name {CONTAINER} {IMAGE}",
                d = quote(dir),
                port = p.port_no
            ),
            None,
        )
        .await?;
        answers(&n.address, p.port_no, Duration::from_secs(60))
            .await
            .map_err(|cause| Error::Command {
                node: n.name(),
                step: format!("waiting for the registry on port {}", p.port_no),
                status: 1,
                stderr: cause,
            })?;
        tracing::info!(node = %n.name(), address = %n.address, port = p.port_no, "private registry runs");
        Ok(())
    }
}

/// Waits until `GET http://<address>:<port>/v2/` answers 200 (the registry API).
pub async fn answers(
    address: &str,
    port: u16,
    within: Duration,
) -> std::result::Result<(), String> {
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < within {
        match get_v2(address, port).await {
            Ok(200) => return Ok(()),
            Ok(code) => last = format!("GET /v2/ answered {code}"),
            Err(e) => last = e,
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(format!(
        "the registry at {address}:{port} did not answer within {within:?}: {last}"
    ))
}

async fn get_v2(address: &str, port: u16) -> std::result::Result<u16, String> {
    let io = async {
        let mut c = tokio::net::TcpStream::connect((address, port)).await?;
        c.write_all(format!("GET /v2/ HTTP/1.0\r\nHost: {address}:{port}\r\n\r\n").as_bytes())
            .await?;
        let mut head = vec![0u8; 64];
        let n = c.read(&mut head).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&head[..n]).into_owned())
    };
    let head = tokio::time::timeout(Duration::from_secs(3), io)
        .await
        .map_err(|_| "no answer".to_owned())?
        .map_err(|e| e.to_string())?;
    head.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("not HTTP: {head:?}"))
}

#[async_trait::async_trait]
impl MgmtDriver for PrivateRegistry {
    async fn run_hook(&self, hook: &str, ctx: &OpContext) -> std::result::Result<(), DriverError> {
        match hook {
            "instantiate_end" => self.install(ctx, false).await?,
            "heal_end" => self.install(ctx, true).await?,
            _ => tracing::debug!(hook, "private-registry: nothing to do"),
        }
        Ok(())
    }
}
