//! The infra driver for `ETSINFV.HELM.V_3` VIMs: CNFs shipped as Helm charts, driven
//! with the `helm` v3 binary (install/upgrade/rollback/uninstall), observed through the
//! Kubernetes API like manifest CNFs.

mod cli;
mod ops;
mod release;
mod values;

use std::path::PathBuf;

use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::driver::{DriverError, InfraDriver, OpContext, Outcome};

use crate::driver::Connections;
use crate::error::{Error, Result};
use crate::settings::K8sSettings;

pub use release::release_name;

/// The VIM type.
pub const HELM: &str = tacker_domain::lcm::vim_type::HELM;

/// The Helm infra driver (one per conductor).
pub struct HelmDriver {
    settings: K8sSettings,
    binary: PathBuf,
    connections: Connections,
}

impl std::fmt::Debug for HelmDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HelmDriver")
            .field("binary", &self.binary)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// `binary` as a program to run: a name is looked up in `PATH`; `None` when it is not
/// there (or not executable).
pub fn locate(binary: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if binary.contains('/') {
        let p = PathBuf::from(binary);
        return runnable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(binary))
        .find(|p| runnable(p))
}

impl HelmDriver {
    /// A driver running `binary` (a path, or a name looked up in `PATH` when a
    /// command runs), with the Kubernetes driver's timeouts and policy.
    pub fn new(settings: K8sSettings, binary: impl Into<PathBuf>) -> Self {
        Self {
            settings,
            binary: binary.into(),
            connections: Connections::default(),
        }
    }

    fn work<'a>(&self, octx: &'a OpContext) -> Result<crate::ops::Work<'a>> {
        // Helm's objects carry no label of ours: Pods are tied to VDUs through owners.
        self.connections.work(
            &self.settings,
            octx,
            String::new(),
            crate::record::Maker::Ours,
        )
    }

    async fn op<'w, 'a>(&self, w: &'w crate::ops::Work<'a>) -> Result<ops::Op<'w, 'a>> {
        let vim = w
            .octx
            .vim
            .as_ref()
            .ok_or_else(|| Error::Vim("the operation names no VIM".into()))?;
        let session = cli::Session::new(
            &self.binary,
            vim,
            self.settings.ready_timeout,
            &self.settings.allowed_networks,
        )
        .await?;
        Ok(ops::Op { w, session })
    }
}

#[async_trait::async_trait]
impl InfraDriver for HelmDriver {
    /// The cluster behind Helm takes the credentials (Helm uses them as they are).
    async fn check_vim(
        &self,
        vim: &tacker_domain::lcm::driver::VimConnection,
    ) -> Result<(), DriverError> {
        Ok(crate::client::verify(vim, &self.settings).await?)
    }

    async fn instantiate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.instantiate().await?)
    }

    async fn terminate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.terminate().await?)
    }

    async fn scale(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.scale().await?)
    }

    async fn heal(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.heal().await?)
    }

    async fn change_ext_conn(&self, _octx: &OpContext) -> Result<Outcome, DriverError> {
        Err(
            Error::Invalid("change external connectivity is not supported for Helm VIMs".into())
                .into(),
        )
    }

    async fn change_vnfpkg(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.change_vnfpkg().await?)
    }

    async fn change_flavour(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.change_flavour().await?)
    }

    async fn operate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.operate().await?)
    }

    async fn rollback(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.rollback().await?)
    }

    async fn sync(&self, octx: &OpContext) -> Result<Option<InstantiatedVnfInfo>, DriverError> {
        let w = self.work(octx)?;
        Ok(self.op(&w).await?.sync().await?)
    }
}
