//! What infra drivers (Kubernetes, OpenStack) and management drivers (the `Vnflcm`
//! hooks) implement. The engine picks an infra driver by the VIM type and management
//! drivers from the VNFD's hooks.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::instance::{InstantiatedVnfInfo, VnfInstance};
use super::op::OpOcc;
use crate::vnfd::Vnfd;
use crate::{Failure, ProblemDetails};

pub use crate::vim::connection::{Auth, VimConnection};

/// Everything a driver knows about the operation it runs.
#[derive(Debug, Clone)]
pub struct OpContext {
    /// The occurrence (its `operation_params` is the request body).
    pub op: OpOcc,
    /// The instance as it is now.
    pub instance: VnfInstance,
    /// The VNFD.
    pub vnfd: Vnfd,
    /// The deployment flavour in use (or being instantiated).
    pub flavour_id: String,
    /// The package's extracted files, in this conductor's cache.
    pub package_dir: PathBuf,
    /// The package's CSAR, in this conductor's cache.
    pub package_zip: PathBuf,
    /// The VIM to work in.
    pub vim: Option<VimConnection>,
    /// The grant.
    pub grant: Value,
    /// What the infra step changed (`affectedVnfcs`, ...): set for `*_end` hooks, which
    /// also see `instance` as the operation leaves it.
    pub resource_changes: Map<String, Value>,
    /// The instantiate request's `additionalParams` (kept with the instance, sealed):
    /// what scale, heal and terminate hooks work with.
    pub instantiate_params: Map<String, Value>,
    /// Services the conductor offers drivers (VIM registry, SSH host keys).
    pub services: Option<Arc<dyn Services>>,
    /// CHANGE_VNFPKG: the package the instance moves to (`package_dir` and `vnfd` stay
    /// the current one's until the operation completes).
    pub target: Option<TargetPackage>,
}

/// The package a CHANGE_VNFPKG moves an instance to.
#[derive(Debug, Clone)]
pub struct TargetPackage {
    /// Its id.
    pub id: uuid::Uuid,
    /// Its VNFD.
    pub vnfd: Vnfd,
    /// Its extracted files, in this conductor's cache.
    pub package_dir: PathBuf,
}

/// What a management driver can ask of the conductor, for the instance it works on.
#[async_trait::async_trait]
pub trait Services: Send + Sync + std::fmt::Debug {
    /// Registers `vim` (its name unique) as this instance's: a VIM of that name that
    /// this instance registered earlier is replaced (same id); one registered otherwise
    /// is a conflict. Returns its id.
    async fn register_vim(&self, vim: crate::vim::Vim) -> Result<String, DriverError>;
    /// Removes the VIM called `name` if this instance registered it; whether one was.
    async fn remove_vim(&self, name: &str) -> Result<bool, DriverError>;
    /// The SSH host key (OpenSSH format) pinned for VNFC `vnfc`, if any.
    async fn host_key(&self, vnfc: &str) -> Result<Option<String>, DriverError>;
    /// Pins `key` for VNFC `vnfc`, seen at `address`.
    async fn pin_host_key(&self, vnfc: &str, address: &str, key: &str) -> Result<(), DriverError>;
    /// The local path of file `path` of the instance's package (a software image),
    /// extracted from the cached CSAR first when it was left inside (large files are);
    /// `None` when the package has no such file. The default has no package to offer.
    async fn package_file(&self, path: &str) -> Result<Option<std::path::PathBuf>, DriverError> {
        Err(DriverError::new(
            500,
            format!("{path}: the package's files are not available here"),
        ))
    }
}

/// What a driver did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The instance's resources afterwards (`None`: not instantiated any more).
    pub instantiated_vnf_info: Option<InstantiatedVnfInfo>,
    /// `resourceChanges` (`affectedVnfcs`, `affectedVirtualStorages`, ...).
    pub resource_changes: Map<String, Value>,
}

/// A driver failure: becomes the occurrence's `error` (through [`Failure`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct DriverError {
    /// HTTP-like status for the ProblemDetails.
    pub status: u16,
    /// A title other than the status' reason phrase.
    pub title: Option<String>,
    /// What went wrong.
    pub detail: String,
}

impl DriverError {
    /// A failure with this status and detail.
    pub fn new(status: u16, detail: impl Into<String>) -> Self {
        Self {
            status,
            title: None,
            detail: detail.into(),
        }
    }

    /// The same failure under another title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The ProblemDetails recorded on the occurrence.
    pub fn problem(&self) -> ProblemDetails {
        Failure::from(self.clone()).problem()
    }
}

impl From<DriverError> for Failure {
    fn from(e: DriverError) -> Self {
        let f = Failure::new(e.status, e.detail);
        match e.title {
            Some(t) => f.with_title(t),
            None => f,
        }
    }
}

/// Realises VNFs in one kind of VIM.
#[async_trait::async_trait]
pub trait InfraDriver: Send + Sync {
    /// Creates the VNF's resources.
    async fn instantiate(&self, ctx: &OpContext) -> Result<Outcome, DriverError>;
    /// Removes them.
    async fn terminate(&self, ctx: &OpContext) -> Result<Outcome, DriverError>;
    /// Scales an aspect out or in.
    async fn scale(&self, ctx: &OpContext) -> Result<Outcome, DriverError>;
    /// Heals VNFCs (SOL002) or the whole VNF (SOL003).
    async fn heal(&self, ctx: &OpContext) -> Result<Outcome, DriverError>;
    /// Changes external connectivity.
    async fn change_ext_conn(&self, ctx: &OpContext) -> Result<Outcome, DriverError>;
    /// Moves the VNF to the package in `ctx.target` (CHANGE_VNFPKG).
    async fn change_vnfpkg(&self, ctx: &OpContext) -> Result<Outcome, DriverError> {
        let _ = ctx;
        Err(DriverError::new(
            422,
            "changing the VNF package is not supported for this VIM type",
        ))
    }
    /// Moves the VNF to another flavour of its VNFD (CHANGE_FLAVOUR); the default
    /// refuses it.
    async fn change_flavour(&self, ctx: &OpContext) -> Result<Outcome, DriverError> {
        let _ = ctx;
        Err(DriverError::new(
            422,
            "changing the deployment flavour is not supported for this VIM type",
        ))
    }
    /// Starts or stops the VNF or named VNFCs (OPERATE); the default refuses it.
    async fn operate(&self, ctx: &OpContext) -> Result<Outcome, DriverError> {
        let _ = ctx;
        Err(DriverError::new(
            422,
            "operate (start/stop) is not supported for this VIM type",
        ))
    }
    /// Checks that `vim` can be used as an operation would use it (its credentials
    /// accepted, what the driver needs found); the default accepts it unchecked.
    async fn check_vim(&self, vim: &VimConnection) -> Result<(), DriverError> {
        let _ = vim;
        Ok(())
    }
    /// Undoes a failed instantiate, scale-out or package change.
    async fn rollback(&self, ctx: &OpContext) -> Result<Outcome, DriverError>;
    /// Reads what actually runs, to reconcile the stored VNFC lists.
    async fn sync(&self, ctx: &OpContext) -> Result<Option<InstantiatedVnfInfo>, DriverError>;
    /// Writes (`Some(group)`) or removes (`None`) the monitoring rules `name` of the
    /// instance in its VIM (a prometheus-operator `PrometheusRule` with `labels`).
    async fn monitoring_rules(
        &self,
        ctx: &OpContext,
        name: &str,
        labels: &Map<String, Value>,
        group: Option<&Value>,
    ) -> Result<(), DriverError> {
        let _ = (ctx, name, labels, group);
        Err(DriverError::new(
            422,
            "this VIM type takes no PrometheusRule objects (pm.prometheus_rule needs a Kubernetes VIM)",
        ))
    }
}

/// Runs `Vnflcm` hooks (`instantiate_end`, `heal_end`, ...). Every step is idempotent:
/// a retry runs the hook again.
#[async_trait::async_trait]
pub trait MgmtDriver: Send + Sync {
    /// Checks, before the grant, what needs the VIM or the package (the API already
    /// checked the parameters).
    async fn check(&self, hook: &str, ctx: &OpContext) -> Result<(), DriverError> {
        let _ = (hook, ctx);
        Ok(())
    }
    /// Runs hook `hook` of the operation in `ctx`.
    async fn run_hook(&self, hook: &str, ctx: &OpContext) -> Result<(), DriverError>;
}
