#![doc = include_str!("../README.md")]

pub mod cluster;
mod docker;
pub mod error;
pub mod nodes;
pub mod plugin;
mod reach;
pub mod registry_vnf;
pub mod settings;
pub mod ssh;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tacker_domain::lcm::driver::{MgmtDriver, OpContext};
use tacker_domain::mgmt::{DriverName, Mapping};

pub use cluster::KubernetesCluster;
pub use error::{Error, Result};
pub use plugin::{Plugin, PluginSettings};
pub use registry_vnf::PrivateRegistry;
pub use settings::{MgmtSettings, SshSettings};

/// The gRPC API of out-of-process drivers (`proto/tacker/mgmt/v1/mgmt.proto`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("tacker.mgmt.v1");
}

/// The built-in drivers, and a client for every plugin endpoint `mapping` names.
pub fn drivers(
    mapping: &Mapping,
    settings: MgmtSettings,
    plugins: &PluginSettings,
) -> Result<HashMap<DriverName, Arc<dyn MgmtDriver>>> {
    let settings = Arc::new(settings);
    let mut out: HashMap<DriverName, Arc<dyn MgmtDriver>> = HashMap::new();
    out.insert(
        DriverName::PrivateRegistry,
        Arc::new(PrivateRegistry::new(settings.clone())),
    );
    out.insert(
        DriverName::KubernetesCluster,
        Arc::new(KubernetesCluster::new(settings)),
    );
    for d in mapping.drivers() {
        if let DriverName::Plugin(endpoint) = d {
            out.insert(d.clone(), Arc::new(Plugin::new(endpoint, plugins)?));
        }
    }
    Ok(out)
}

/// The path of package file `file` in the conductor's cache (`./` and a leading `/`
/// dropped; `..` refused): what drivers stream to VMs.
pub fn package_path(ctx: &OpContext, file: &str) -> Result<PathBuf> {
    let rel = Path::new(file.trim_start_matches("./").trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Error::Invalid(format!(
            "package file {file:?} is not a path inside the package"
        )));
    }
    let p = ctx.package_dir.join(rel);
    if !p.is_file() {
        return Err(Error::Package {
            path: file.to_owned(),
            cause: "not in the package".into(),
        });
    }
    Ok(p)
}
