//! VNF packages: an ONBOARDED one is read again by our CSAR reader (the model is ours; a
//! package it refuses is skipped with the reason), its CSAR streamed into our storage,
//! and its row written in its final state in one transaction (a failed write takes the
//! stored CSAR away again: nothing is half-imported). A CREATED one comes over with its
//! user-defined data, ready for an upload.

use std::path::{Path, PathBuf};

use chrono::Utc;
use serde_json::{Map, Value, json};
use tacker_db::Db;
use tacker_db::packages::Imported;
use tacker_domain::package::{
    DescriptorFacts, OnboardingState, OperationalState, VnfPackage, additional_artifacts_info,
    software_images_info,
};
use tacker_domain::vnfd::PackageModel;
use tacker_storage::PackageStore;
use uuid::Uuid;

use crate::source::TackerPackage;
use crate::summary::Outcome;
use crate::{Error, Result};

/// Where the import finds and puts packages.
pub struct Packages<'a> {
    /// Our database.
    pub db: &'a Db,
    /// Our package storage.
    pub store: &'a PackageStore,
    /// Tacker's glance_store directory (`filesystem_store_datadir`).
    pub csar_dir: &'a Path,
    /// Our CSAR reader's limits.
    pub limits: &'a tacker_csar::Limits,
    /// Our largest package.
    pub max_size: u64,
    /// Write nothing.
    pub dry_run: bool,
}

/// Tacker's package as ours, without what onboarding adds.
fn base(t: &TackerPackage) -> std::result::Result<VnfPackage, String> {
    let id =
        t.id.parse::<Uuid>()
            .map_err(|e| format!("id is not a UUID: {e}"))?;
    let data: Map<String, Value> = t
        .user_data
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let mut p = VnfPackage::new(id, data, t.created_at.unwrap_or_else(Utc::now));
    p.tenant = Some(t.tenant_id.clone());
    p.operational_state = match t.operational_state.as_str() {
        "ENABLED" => OperationalState::Enabled,
        _ => OperationalState::Disabled,
    };
    Ok(p)
}

/// Where Tacker's glance_store keeps package `t`'s CSAR, inside `csar_dir`: the file named
/// after its location (`file://<datadir>/<id>`), else after its id.
fn csar_file(csar_dir: &Path, t: &TackerPackage) -> PathBuf {
    let name = t
        .location
        .as_deref()
        .and_then(|l| l.rsplit('/').next())
        .filter(|n| !n.is_empty() && !n.contains(".."))
        .unwrap_or(&t.id);
    csar_dir.join(name)
}

/// The package as ONBOARDED with `model` read from its CSAR.
fn onboarded(mut p: VnfPackage, model: &PackageModel) -> VnfPackage {
    let v = &model.vnfd;
    p.onboarding_state = OnboardingState::Onboarded;
    p.descriptor = Some(DescriptorFacts {
        vnfd_id: v.vnfd_id.clone(),
        provider: v.provider.clone(),
        product_name: v.product_name.clone(),
        software_version: v.software_version.clone(),
        vnfd_version: v.descriptor_version.clone(),
    });
    p.software_images = software_images_info(model);
    p.additional_artifacts = additional_artifacts_info(model);
    p
}

fn exists(state: Option<OnboardingState>) -> Outcome {
    match state {
        Some(OnboardingState::Onboarded) => Outcome::Unchanged,
        Some(s) => Outcome::Skipped(format!("a package of this id is {s} here")),
        None => Outcome::Skipped("a package of this id was deleted here".into()),
    }
}

impl Packages<'_> {
    /// Imports `t` (or, in a dry run, says what importing it would do).
    pub async fn import(&self, t: &TackerPackage) -> Result<Outcome> {
        let p = match base(t) {
            Ok(p) => p,
            Err(why) => return Ok(Outcome::Skipped(why)),
        };
        match t.onboarding_state.as_str() {
            "ONBOARDED" => self.onboarded(t, p).await,
            "CREATED" => self.created(p).await,
            other => Ok(Outcome::Skipped(format!(
                "it is {other} in Tacker (an upload in flight): upload it again after the cut-over"
            ))),
        }
    }

    async fn existing(&self, id: Uuid) -> Result<Option<Option<OnboardingState>>> {
        let found = self.db.packages().state_including_deleted(id).await?;
        Ok(found.map(|(state, deleted)| (!deleted).then_some(state)))
    }

    async fn created(&self, p: VnfPackage) -> Result<Outcome> {
        if let Some(state) = self.existing(p.id).await? {
            return Ok(match state {
                Some(OnboardingState::Created) => Outcome::Unchanged,
                s => exists(s),
            });
        }
        if self.dry_run {
            return Ok(Outcome::Imported);
        }
        let done = self.db.packages().insert_imported(&p, None).await?;
        Ok(match done {
            Imported::Inserted => Outcome::Imported,
            Imported::Exists(s) => exists(s),
            Imported::DuplicateVnfdId(o) => Outcome::Skipped(format!("package {o} has its vnfdId")),
        })
    }

    async fn onboarded(&self, t: &TackerPackage, p: VnfPackage) -> Result<Outcome> {
        if let Some(state) = self.existing(p.id).await? {
            return Ok(exists(state));
        }
        let file = csar_file(self.csar_dir, t);
        let size = match std::fs::metadata(&file) {
            Ok(m) if m.is_file() => m.len(),
            _ => {
                return Ok(Outcome::Skipped(format!(
                    "its CSAR is not in --csar-dir (looked for {})",
                    file.display()
                )));
            }
        };
        if size > self.max_size {
            return Ok(Outcome::Skipped(format!(
                "its CSAR has {size} bytes, more than onboarding.max_package_size ({})",
                self.max_size
            )));
        }
        let limits = self.limits.clone();
        let path = file.clone();
        let read = tokio::task::spawn_blocking(move || tacker_csar::validate_file(&path, &limits))
            .await
            .map_err(|e| Error::Task(e.to_string()))?;
        let model = match read {
            Ok(v) => v.model,
            Err(tacker_csar::Error::Invalid(problems)) => {
                let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
                return Ok(Outcome::Skipped(format!(
                    "our CSAR reader refuses it: {}",
                    list.join("; ")
                )));
            }
            Err(e) => {
                return Ok(Outcome::Skipped(format!("its CSAR cannot be read: {e}")));
            }
        };
        if self.dry_run {
            return Ok(Outcome::Imported);
        }
        let key = PackageStore::package_key(&p.id.to_string());
        let f = tokio::fs::File::open(&file)
            .await
            .map_err(|e| Error::Directory(format!("{}: {e}", file.display())))?;
        let body = tokio_util::io::ReaderStream::with_capacity(f, 256 * 1024);
        let stored = self.store.put_stream(&key, body, self.max_size).await?;
        let p_id = p.id;
        let mut p = onboarded(p, &model);
        p.checksum = Some(tacker_domain::package::Checksum {
            algorithm: "SHA-512".into(),
            hash: stored.sha512.clone(),
        });
        p.size = Some(i64::try_from(stored.size).unwrap_or(i64::MAX));
        let done = self
            .db
            .packages()
            .insert_imported(&p, Some((&model, &stored.blake3)))
            .await;
        match done {
            Ok(Imported::Inserted) => Ok(Outcome::Imported),
            // Stored meanwhile (another import run): the content at this key is that
            // package's now, the same bytes; it stays.
            Ok(Imported::Exists(s)) => Ok(exists(s)),
            // No row of this id: what was stored is nobody's.
            Ok(Imported::DuplicateVnfdId(o)) => {
                self.store.delete(&key).await?;
                Ok(Outcome::Skipped(format!(
                    "package {o} of the same project has its vnfdId here"
                )))
            }
            // Not stored, unless another run stored it meanwhile (its content then).
            Err(e) => {
                let id = p_id;
                let stored = self.db.packages().state_including_deleted(id).await;
                if matches!(stored, Ok(None)) {
                    let _ = self.store.delete(&key).await;
                }
                Err(e.into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tacker(location: Option<&str>) -> TackerPackage {
        TackerPackage {
            id: Uuid::new_v4().to_string(),
            onboarding_state: "ONBOARDED".into(),
            operational_state: "ENABLED".into(),
            tenant_id: "p1".into(),
            location: location.map(str::to_owned),
            created_at: None,
            user_data: vec![("k".into(), "v".into())],
        }
    }

    #[test]
    fn the_csar_is_found_by_its_location_else_by_its_id() {
        let t = tacker(Some("file:///var/lib/glance/images/abc"));
        assert_eq!(csar_file(Path::new("/d"), &t), Path::new("/d/abc"));
        let t = tacker(None);
        assert_eq!(csar_file(Path::new("/d"), &t), Path::new("/d").join(&t.id));
        let t = tacker(Some("file:///x/.."));
        assert_eq!(csar_file(Path::new("/d"), &t), Path::new("/d").join(&t.id));
    }

    #[test]
    fn tenant_state_and_user_data_come_over() {
        let t = tacker(None);
        let p = base(&t).unwrap();
        assert_eq!(p.tenant.as_deref(), Some("p1"));
        assert_eq!(p.operational_state, OperationalState::Enabled);
        assert_eq!(p.user_defined_data["k"], "v");
        let mut bad = tacker(None);
        bad.id = "not-a-uuid".into();
        assert!(base(&bad).unwrap_err().contains("UUID"));
    }
}
