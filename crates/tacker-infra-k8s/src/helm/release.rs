//! A VNF instance's Helm release: its parameters (Tacker's names), what the instance
//! records of it, and the helm commands run on it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use tacker_domain::lcm::cnf::{CnfParams, ValueNamesByVdu};
use tacker_domain::vnfd::Flavour;

use super::cli::Session;
use super::values;
use crate::error::{Error, Result};
use crate::manifest;

/// The release of VNF instance `instance`: `vnf` and the id without dashes (35
/// characters, within Helm's 53), as upstream Tacker names it, so a chart written for
/// Tacker that names its workloads `<vdu>-{{ .Release.Name }}` binds here too (the suffix
/// holds no dash).
pub fn release_name(instance: &str) -> String {
    format!("vnf{}", instance.replace('-', ""))
}

/// The name releases had before they were named as Tacker names them: `vnf-` and the id
/// without dashes (an instantiate begun then is retried or rolled back on it).
pub fn legacy_release_name(instance: &str) -> String {
    format!("vnf-{}", instance.replace('-', ""))
}

/// What an instantiate (or a package change) asks of Helm.
#[derive(Debug, Clone)]
pub struct Params {
    /// `helm_chart_path`: a chart archive or directory in the package.
    pub chart: String,
    /// `helm_parameters` as nested values.
    pub values: Value,
    /// `helm_value_names`.
    pub names: ValueNamesByVdu,
    /// `namespace`, if given.
    pub namespace: Option<String>,
}

impl Params {
    /// Reads `additionalParams`; `chart` is required unless `fallback` gives one.
    pub fn parse(p: &Map<String, Value>, fallback: Option<&str>) -> Result<Self> {
        let cnf = CnfParams::of(p)?;
        let chart = cnf
            .helm_chart_path
            .or_else(|| fallback.map(str::to_owned))
            .ok_or_else(|| {
                Error::Manifest(
                    "additionalParams.helm_chart_path (the package's Helm chart) is required"
                        .into(),
                )
            })?;
        Ok(Self {
            chart,
            values: values::from_parameters(&cnf.helm_parameters)?,
            names: cnf.helm_value_names,
            namespace: cnf.namespace,
        })
    }
}

/// The chart `chart` of the package unpacked at `package_dir`: an archive, or a
/// directory with a `Chart.yaml`.
pub fn chart_in(package_dir: &Path, chart: &str) -> Result<PathBuf> {
    let path = manifest::inside(package_dir, chart)?;
    let ok = if path.is_dir() {
        path.join("Chart.yaml").is_file()
    } else {
        path.is_file()
    };
    if ok {
        Ok(path)
    } else {
        Err(Error::Manifest(format!(
            "helm_chart_path {chart} is not a chart archive or a chart directory of the VNF package"
        )))
    }
}

/// Sets each VDU's replica value to its count (VDUs without a replica path keep the
/// chart's own).
pub fn with_replicas(
    mut v: Value,
    names: &ValueNamesByVdu,
    counts: &[(String, i64)],
) -> Result<Value> {
    for (vdu, n) in counts {
        if let Some(path) = names.get(vdu).and_then(|n| n.replica.as_deref()) {
            values::set(&mut v, path, json!(n))?;
        }
    }
    Ok(v)
}

/// Sets each VDU's image value to its `sw_image_data` name in `flavour`.
pub fn with_images(mut v: Value, names: &ValueNamesByVdu, flavour: &Flavour) -> Result<Value> {
    for vdu in &flavour.vdus {
        let path = names.get(&vdu.id).and_then(|n| n.image.as_deref());
        if let (Some(path), Some(img)) = (path, &vdu.sw_image)
            && !img.name.is_empty()
        {
            values::set(&mut v, path, json!(img.name))?;
        }
    }
    Ok(v)
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// What `helm upgrade --install` made.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The release's new revision.
    pub revision: u64,
    /// Its objects.
    pub manifest: String,
}

/// The helm commands the driver runs on one release.
pub struct Helm<'a> {
    /// The session.
    pub session: &'a Session,
    /// Release name.
    pub release: &'a str,
    /// Its namespace.
    pub namespace: &'a str,
}

impl Helm<'_> {
    fn args(&self, verb: &[&str]) -> Vec<OsString> {
        let mut a = os(verb);
        a.extend(os(&[self.release, "--namespace", self.namespace]));
        a
    }

    /// `helm template`: what the chart renders with `values` (nothing is created).
    pub async fn template(&self, chart: &Path, values: &Value) -> Result<String> {
        let file = self.session.values_file("template", values)?;
        let mut a = self.args(&["template"]);
        a.extend([chart.into(), "--values".into(), file.into()]);
        self.session.run(&a).await
    }

    /// `helm upgrade --install` with exactly `values`: installs the release, or
    /// upgrades the one there (so a retried instantiate never installs twice).
    /// Schemas are checked by the API server on every write, so the client-side
    /// OpenAPI download and validation is skipped.
    /// Answers the revision made and its objects (Helm prints the release as JSON, so
    /// no `get manifest` or `status` is needed after it).
    pub async fn apply(&self, chart: &Path, values: &Value) -> Result<Applied> {
        self.settle().await?;
        let file = self.session.values_file("values", values)?;
        let mut a = self.args(&["upgrade", "--install"]);
        a.extend([
            chart.into(),
            "--values".into(),
            file.into(),
            "--reset-values".into(),
            "--disable-openapi-validation".into(),
            "--output".into(),
            "json".into(),
        ]);
        let out = self.session.run(&a).await?;
        let v: Value = serde_json::from_str(out.trim())
            .map_err(|e| Error::Helm(format!("helm upgrade printed no release: {e}")))?;
        Ok(Applied {
            revision: v.get("version").and_then(Value::as_u64).unwrap_or(0),
            manifest: v
                .get("manifest")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        })
    }

    /// `helm get manifest`: the objects of the release's current revision.
    pub async fn manifest(&self) -> Result<String> {
        self.session.run(&self.args(&["get", "manifest"])).await
    }

    /// `helm get values`: the values given to the release's current revision.
    pub async fn values(&self) -> Result<Value> {
        let mut a = self.args(&["get", "values"]);
        a.extend(os(&["--output", "json"]));
        let out = self.session.run(&a).await?;
        match serde_json::from_str::<Value>(out.trim()) {
            Ok(Value::Null) => Ok(json!({})),
            Ok(v) => Ok(v),
            Err(e) => Err(Error::Helm(format!("helm get values: {e}"))),
        }
    }

    /// The release's current revision, `None` when there is no such release.
    pub async fn revision(&self) -> Result<Option<u64>> {
        Ok(self.status().await?.map(|(v, _)| v))
    }

    /// The release's current revision and status (`deployed`, `failed`,
    /// `pending-upgrade`, ...), `None` when there is no such release.
    pub async fn status(&self) -> Result<Option<(u64, String)>> {
        let mut a = self.args(&["status"]);
        a.extend(os(&["--output", "json"]));
        match self.session.run(&a).await {
            Ok(out) => {
                let v: Value = serde_json::from_str(&out)
                    .map_err(|e| Error::Helm(format!("helm status: {e}")))?;
                let version = v.get("version").and_then(Value::as_u64).unwrap_or(0);
                let status = v
                    .pointer("/info/status")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                Ok(Some((version, status)))
            }
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Settles a release a helm run left pending when it died with its conductor (only
    /// one operation runs per instance, so nobody else is working on it): a pending
    /// install is uninstalled, a pending upgrade or rollback rolled back to the revision
    /// before it. Helm refuses any further change of a pending release otherwise.
    pub async fn settle(&self) -> Result<()> {
        let Some((version, status)) = self.status().await? else {
            return Ok(());
        };
        match status.as_str() {
            "pending-install" => {
                tracing::warn!(release = %self.release, "a helm install was cut short; uninstalling it");
                self.uninstall().await.map(|_| ())
            }
            "pending-upgrade" | "pending-rollback" if version > 1 => {
                tracing::warn!(release = %self.release, revision = version, %status, "a helm run was cut short; rolling back");
                self.rollback(version - 1).await
            }
            _ => Ok(()),
        }
    }

    /// `helm uninstall` (dependents deleted first, so a workload is gone only once its
    /// Pods are); `false` when there was no release.
    pub async fn uninstall(&self) -> Result<bool> {
        let mut a = self.args(&["uninstall"]);
        a.extend(os(&["--cascade", "foreground"]));
        match self.session.run(&a).await {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `helm rollback` to `revision`.
    pub async fn rollback(&self, revision: u64) -> Result<()> {
        let mut a = os(&["rollback", self.release]);
        a.extend(os(&[&revision.to_string(), "--namespace", self.namespace]));
        self.session.run(&a).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_parameters_are_checked() {
        assert_eq!(
            release_name("1f0e6b1a-2b3c-4d5e-8f90-123456789abc"),
            "vnf1f0e6b1a2b3c4d5e8f90123456789abc"
        );
        let p = Params::parse(
            json!({"helm_chart_path": "Files/kubernetes/c.tgz", "helm_parameters": {"a.b": 1},
                   "helm_value_names": {"VDU1": {"replica": "replicaCountVdu1"}}, "namespace": "ns"})
            .as_object()
            .unwrap(),
            None,
        )
        .unwrap();
        assert_eq!(p.values, json!({"a": {"b": 1}}));
        assert_eq!(p.names["VDU1"].replica.as_deref(), Some("replicaCountVdu1"));
        assert!(Params::parse(&Map::new(), None).is_err());
        assert_eq!(Params::parse(&Map::new(), Some("c")).unwrap().chart, "c");
        let bad = json!({"helm_chart_path": "c", "helm_value_names": {"VDU1": {"replicas": "x"}}});
        assert!(Params::parse(bad.as_object().unwrap(), None).is_err());
        let v = with_replicas(
            json!({}),
            &p.names,
            &[("VDU1".into(), 3), ("VDU2".into(), 1)],
        )
        .unwrap();
        assert_eq!(v, json!({"replicaCountVdu1": 3}));
    }

    #[test]
    fn charts_stay_inside_the_package() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("Files/c")).unwrap();
        assert!(chart_in(dir.path(), "Files/c").is_err(), "no Chart.yaml");
        std::fs::write(dir.path().join("Files/c/Chart.yaml"), "name: c").unwrap();
        assert!(chart_in(dir.path(), "Files/c").is_ok());
        assert!(chart_in(dir.path(), "../c").is_err());
        assert!(chart_in(dir.path(), "/etc").is_err());
        assert!(chart_in(dir.path(), "Files/none.tgz").is_err());
    }
}
