//! Management drivers: which one runs a `Vnflcm` hook (configured by the artifact the
//! hook names: we never run code shipped in a package), and the typed, checked
//! parameters of the built-in ones.

pub mod params;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::failure::Failure;
use crate::lcm::{LcmOperation, OperationParams};
use crate::vnfd::{Flavour, LcmHook, PackageModel};

/// A management driver, by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DriverName {
    /// Installs a Docker private registry on the VNF's VM.
    PrivateRegistry,
    /// Installs a Kubernetes cluster on the VNF's VMs and connects it to registries.
    KubernetesCluster,
    /// Does nothing (hooks that need no work).
    Noop,
    /// The simulated VIM's hooks (tests and demos).
    Sim,
    /// An out-of-process driver at this gRPC endpoint (`grpc://` or `grpcs://`).
    Plugin(String),
}

impl std::str::FromStr for DriverName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "private-registry" => Self::PrivateRegistry,
            "kubernetes-cluster" => Self::KubernetesCluster,
            "noop" => Self::Noop,
            "sim" => Self::Sim,
            p if p.starts_with("grpc://") || p.starts_with("grpcs://") => {
                Self::Plugin(p.to_owned())
            }
            other => {
                return Err(format!(
                    "management driver {other:?} is not private-registry, kubernetes-cluster, noop, sim or grpc(s)://host:port"
                ));
            }
        })
    }
}

impl std::fmt::Display for DriverName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::PrivateRegistry => "private-registry",
            Self::KubernetesCluster => "kubernetes-cluster",
            Self::Noop => "noop",
            Self::Sim => "sim",
            Self::Plugin(p) => p,
        })
    }
}

/// Which driver runs the hooks naming an artifact (by its path in the package, or its
/// name in the VNFD). Written as `"<artifact>=<driver>"` entries (`mgmt.drivers`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Mapping {
    by_artifact: BTreeMap<String, DriverName>,
}

impl TryFrom<Vec<String>> for Mapping {
    type Error = String;
    fn try_from(entries: Vec<String>) -> Result<Self, String> {
        Self::parse(&entries)
    }
}

impl From<Mapping> for Vec<String> {
    fn from(m: Mapping) -> Self {
        m.entries()
    }
}

impl Mapping {
    /// Reads `"<artifact>=<driver>"` entries (the driver is everything after the first
    /// `=`: a plugin's URL may hold more).
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        let mut by_artifact = BTreeMap::new();
        for e in entries {
            let (artifact, driver) = e
                .split_once('=')
                .filter(|(a, _)| !a.trim().is_empty())
                .ok_or_else(|| {
                    format!("management driver entry {e:?} is not <artifact>=<driver>")
                })?;
            by_artifact.insert(artifact.trim().to_owned(), driver.trim().parse()?);
        }
        Ok(Self { by_artifact })
    }

    /// The `"<artifact>=<driver>"` entries.
    pub fn entries(&self) -> Vec<String> {
        self.by_artifact
            .iter()
            .map(|(a, d)| format!("{a}={d}"))
            .collect()
    }

    /// Adds (or replaces) one mapping.
    pub fn with(mut self, artifact: &str, driver: DriverName) -> Self {
        self.by_artifact.insert(artifact.to_owned(), driver);
        self
    }

    /// Every distinct driver mapped.
    pub fn drivers(&self) -> Vec<&DriverName> {
        let mut d: Vec<&DriverName> = self.by_artifact.values().collect();
        d.sort();
        d.dedup();
        d
    }

    /// The driver of `hook`: by its artifact's path, else by the artifact's name.
    pub fn driver_of(&self, hook: &LcmHook) -> Option<&DriverName> {
        hook.artifact_path
            .as_deref()
            .and_then(|p| self.by_artifact.get(p))
            .or_else(|| {
                hook.artifact
                    .as_deref()
                    .and_then(|a| self.by_artifact.get(a))
            })
    }

    /// The hooks of `operation` in `flavour` (`_start`, `_end`) and their drivers; a hook
    /// no driver is mapped to is a 422 (package code is never run instead).
    pub fn hooks_of<'f>(
        &self,
        flavour: &'f Flavour,
        operation: LcmOperation,
    ) -> Result<Vec<(&'f LcmHook, DriverName)>, Failure> {
        let mut out = Vec::new();
        for phase in ["start", "end"] {
            let name = format!("{}_{phase}", operation.hook_prefix());
            let Some(h) = flavour.hook(&name) else {
                continue;
            };
            let d = self.driver_of(h).ok_or_else(|| unmapped(h))?;
            out.push((h, d.clone()));
        }
        Ok(out)
    }
}

impl Mapping {
    /// Whether checking `request` needs the stored instantiate parameters (a
    /// Kubernetes cluster's scale: the master aspect is refused).
    pub fn needs_stored_params(
        &self,
        flavour: &Flavour,
        request: &OperationParams,
    ) -> Result<bool, Failure> {
        if !matches!(request, OperationParams::Scale(_)) {
            return Ok(false);
        }
        Ok(self
            .hooks_of(flavour, request.operation())?
            .iter()
            .any(|(_, d)| *d == DriverName::KubernetesCluster))
    }

    /// Checks a request against the hooks of its operation, without I/O: every hook has
    /// a driver, and the built-in drivers' parameters are complete and name files of the
    /// package. `instantiate_params` are the instantiate request's `additionalParams`
    /// (this request's for INSTANTIATE, the stored ones otherwise).
    pub fn check_request(
        &self,
        model: &PackageModel,
        flavour: &Flavour,
        request: &OperationParams,
        instantiate_params: &Map<String, Value>,
    ) -> Result<(), Failure> {
        let operation = request.operation();
        for (_, driver) in self.hooks_of(flavour, operation)? {
            match (driver, request) {
                (DriverName::PrivateRegistry, OperationParams::Instantiate(_)) => {
                    params::PrivateRegistryParams::parse(instantiate_params)?.check(model)?;
                }
                (DriverName::KubernetesCluster, OperationParams::Instantiate(_)) => {
                    params::K8sClusterParams::parse(instantiate_params)?.check(model)?;
                }
                (DriverName::KubernetesCluster, OperationParams::Scale(s)) => {
                    params::K8sClusterParams::parse(instantiate_params)?
                        .check_scale(&s.aspect_id)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The 422 for a hook no management driver is configured for.
pub fn unmapped(h: &LcmHook) -> Failure {
    let artifact = h
        .artifact_path
        .clone()
        .or_else(|| h.artifact.clone())
        .unwrap_or_else(|| "(no artifact)".into());
    Failure::unprocessable(format!(
        "hook {} names artifact {artifact}, which no management driver is configured for \
         (mgmt.drivers maps artifacts to private-registry, kubernetes-cluster, noop or a gRPC plugin; \
         code shipped in a package is never run)",
        h.name
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn hook(name: &str, path: &str) -> LcmHook {
        LcmHook {
            name: name.into(),
            artifact: Some("mgmt-drivers".into()),
            artifact_path: Some(path.into()),
            artifact_type: None,
            inputs: Value::Null,
        }
    }

    #[test]
    fn hooks_map_by_path_or_name_and_unmapped_ones_are_refused() {
        let m = Mapping::parse(&[
            "Scripts/private_registry_mgmt.py=private-registry".into(),
            "mgmt-drivers=noop".into(),
        ])
        .unwrap();
        assert_eq!(
            m.driver_of(&hook("instantiate_end", "Scripts/private_registry_mgmt.py")),
            Some(&DriverName::PrivateRegistry)
        );
        assert_eq!(
            m.driver_of(&hook("x", "Scripts/other.py")),
            Some(&DriverName::Noop)
        );
        let strict = Mapping::default();
        let e = strict
            .driver_of(&hook("instantiate_end", "Scripts/x.py"))
            .ok_or_else(|| unmapped(&hook("instantiate_end", "Scripts/x.py")))
            .unwrap_err();
        assert_eq!(e.status, 422);
        assert!(e.detail.contains("Scripts/x.py"), "{e}");
        assert!(Mapping::parse(&["a=python".into()]).is_err());
        assert_eq!(
            "grpcs://d:50051".parse::<DriverName>().unwrap(),
            DriverName::Plugin("grpcs://d:50051".into())
        );
    }
}
