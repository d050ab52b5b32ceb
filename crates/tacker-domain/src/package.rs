//! VNF packages (SOL005 clause 9): states and the `VnfPkgInfo` representation.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::ProblemDetails;

mod info;

pub use info::PkgInfo;

crate::text_enum! {
    /// Onboarding state of a package.
    OnboardingState, "onboardingState" {
        /// Created; no content yet (or the last upload failed).
        Created = "CREATED",
        /// Content is being uploaded into package storage.
        Uploading = "UPLOADING",
        /// Content is being validated and distributed to the conductors.
        Processing = "PROCESSING",
        /// Every live conductor holds the package; it can be used.
        Onboarded = "ONBOARDED",
        /// A terminal error (not used by the onboarding flow, which returns to CREATED).
        Error = "ERROR",
    }
}

crate::text_enum! {
    /// Operational state of a package.
    OperationalState, "operationalState" {
        /// Instances may be created from it.
        Enabled = "ENABLED",
        /// No new instances from it.
        Disabled = "DISABLED",
    }
}

crate::text_enum! {
    /// Usage state of a package.
    UsageState, "usageState" {
        /// At least one VNF instance uses it.
        InUse = "IN_USE",
        /// No VNF instance uses it.
        NotInUse = "NOT_IN_USE",
    }
}

/// A checksum of the package content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checksum {
    /// The algorithm, e.g. `SHA-512`.
    pub algorithm: String,
    /// Lower-case hexadecimal digest.
    pub hash: String,
}

/// A VNF package as the system knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct VnfPackage {
    /// Package id.
    pub id: Uuid,
    /// Onboarding state.
    pub onboarding_state: OnboardingState,
    /// Operational state.
    pub operational_state: OperationalState,
    /// Usage state.
    pub usage_state: UsageState,
    /// Free key/value data given by the user.
    pub user_defined_data: Map<String, Value>,
    /// Descriptor facts, present once onboarded.
    pub descriptor: Option<DescriptorFacts>,
    /// Checksum of the content, present once uploaded.
    pub checksum: Option<Checksum>,
    /// Size of the content in bytes, present once uploaded.
    pub size: Option<i64>,
    /// `softwareImages` (SOL005 VnfPackageSoftwareImageInfo list).
    pub software_images: Vec<Value>,
    /// `additionalArtifacts` (SOL005 VnfPackageArtifactInfo list).
    pub additional_artifacts: Vec<Value>,
    /// Why the last onboarding failed, until the next upload.
    pub onboarding_failure_details: Option<ProblemDetails>,
    /// How many conductors hold the content in their cache (the onboarding counter).
    pub downloading: i32,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// The tenant that created it; none: shared by every tenant (created by a caller of
    /// no tenant, or before packages had tenants).
    pub tenant: Option<String>,
}

/// What the VNFD says about itself, copied into `VnfPkgInfo` once onboarded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescriptorFacts {
    /// `descriptor_id`.
    pub vnfd_id: String,
    /// `provider`.
    pub provider: String,
    /// `product_name`.
    pub product_name: String,
    /// `software_version`.
    pub software_version: String,
    /// `descriptor_version`.
    pub vnfd_version: String,
}

impl VnfPackage {
    /// Its provider (`vnfProvider`), once onboarded.
    pub fn provider(&self) -> Option<&str> {
        self.descriptor.as_ref().map(|d| d.provider.as_str())
    }

    /// A new package as `POST /vnf_packages` creates it: CREATED, DISABLED, NOT_IN_USE.
    pub fn new(id: Uuid, user_defined_data: Map<String, Value>, now: DateTime<Utc>) -> Self {
        Self {
            id,
            onboarding_state: OnboardingState::Created,
            operational_state: OperationalState::Disabled,
            usage_state: UsageState::NotInUse,
            user_defined_data,
            descriptor: None,
            checksum: None,
            size: None,
            software_images: Vec::new(),
            additional_artifacts: Vec::new(),
            onboarding_failure_details: None,
            downloading: 0,
            created_at: now,
            updated_at: now,
            tenant: None,
        }
    }

    /// The same package, created by a caller of `tenant`.
    pub fn owned_by(self, tenant: Option<String>) -> Self {
        Self { tenant, ..self }
    }

    /// Why this package cannot be deleted now, if it cannot (SOL005 9.4.3.3.5).
    pub fn delete_conflict(&self) -> Option<String> {
        if self.operational_state == OperationalState::Enabled {
            return Some(format!(
                "VNF package {} is ENABLED; disable it before deleting it",
                self.id
            ));
        }
        if self.usage_state == UsageState::InUse {
            return Some(format!(
                "VNF package {} is IN_USE by a VNF instance",
                self.id
            ));
        }
        if matches!(
            self.onboarding_state,
            OnboardingState::Uploading | OnboardingState::Processing
        ) {
            return Some(format!(
                "VNF package {} is {}; wait until onboarding ends",
                self.id, self.onboarding_state
            ));
        }
        None
    }

    /// The `VnfPkgInfo` body, links relative to `base` (e.g. `http://host:9890/vnfpkgm/v1`).
    pub fn to_info(&self, base: &str) -> Value {
        self.info(base, |_| false).to_value()
    }

    /// The `VnfPkgInfo` without the complex attributes `left_out` names (checksum,
    /// software images, additional artifacts, user-defined data), to be written as it
    /// is or made a value: a list page leaves out by default what it would otherwise
    /// build, copy and then drop.
    pub fn info<'a, F: Fn(&str) -> bool>(&'a self, base: &'a str, left_out: F) -> PkgInfo<'a, F> {
        PkgInfo {
            package: self,
            base,
            left_out,
        }
    }
}

/// Top-level attributes of `VnfPkgInfo` that filters may name.
pub const VNF_PKG_INFO_ATTRIBUTES: &[&str] = &[
    "id",
    "vnfdId",
    "vnfProvider",
    "vnfProductName",
    "vnfSoftwareVersion",
    "vnfdVersion",
    "checksum",
    "softwareImages",
    "additionalArtifacts",
    "onboardingState",
    "operationalState",
    "usageState",
    "userDefinedData",
    "onboardingFailureDetails",
    "_links",
];

/// Complex attributes `exclude_default` (and no selector at all) leaves out of lists.
pub const VNF_PKG_INFO_DEFAULT_EXCLUDED: &[&str] = &[
    "softwareImages",
    "additionalArtifacts",
    "userDefinedData",
    "checksum",
];

/// Merges a JSON merge patch (RFC 7396) into `target`: `null` removes a key.
pub fn merge_patch(target: &mut Map<String, Value>, patch: &Map<String, Value>) {
    for (k, v) in patch {
        match v {
            Value::Null => {
                target.remove(k);
            }
            Value::Object(p) => {
                let entry = target.entry(k.clone()).or_insert_with(|| json!({}));
                if !entry.is_object() {
                    *entry = json!({});
                }
                if let Value::Object(t) = entry {
                    merge_patch(t, p);
                }
            }
            other => {
                target.insert(k.clone(), other.clone());
            }
        }
    }
}

/// SOL005 `VnfPackageSoftwareImageInfo` of every software image artifact of a package.
pub fn software_images_info(model: &crate::vnfd::PackageModel) -> Vec<Value> {
    model
        .artifacts
        .iter()
        .filter(|a| a.kind == crate::vnfd::ArtifactKind::SwImage)
        .map(|a| software_image_info(model, &a.path))
        .collect()
}

/// SOL005 `VnfPackageArtifactInfo` of every other artifact of a package.
pub fn additional_artifacts_info(model: &crate::vnfd::PackageModel) -> Vec<Value> {
    model
        .artifacts
        .iter()
        .filter(|a| a.kind != crate::vnfd::ArtifactKind::SwImage)
        .map(|a| {
            json!({
                "artifactPath": a.path,
                "checksum": {"algorithm": a.checksum.algorithm, "hash": a.checksum.hash},
                "metadata": {"size": a.size, "verified": a.verified},
            })
        })
        .collect()
}

/// SOL005 `VnfPackageSoftwareImageInfo` of the image artifact at `path`.
fn software_image_info(model: &crate::vnfd::PackageModel, path: &str) -> Value {
    let found = model.vnfd.flavours.iter().find_map(|f| {
        f.vdus
            .iter()
            .find_map(|v| {
                v.sw_image
                    .as_ref()
                    .filter(|i| i.artifact.as_deref() == Some(path))
                    .map(|i| (v.id.clone(), i))
            })
            .or_else(|| {
                f.storages.iter().find_map(|s| {
                    s.sw_image
                        .as_ref()
                        .filter(|i| i.artifact.as_deref() == Some(path))
                        .map(|i| (s.id.clone(), i))
                })
            })
    });
    let artifact = model.artifacts.iter().find(|a| a.path == path);
    let size = artifact.map(|a| a.size).unwrap_or_default();
    match found {
        Some((node, img)) => json!({
            "id": node,
            "name": img.name,
            "provider": model.vnfd.provider,
            "version": img.version,
            "checksum": img.checksum.as_ref().map(|c| json!({"algorithm": c.algorithm, "hash": c.hash})),
            "containerFormat": img.container_format.to_ascii_uppercase(),
            "diskFormat": img.disk_format.to_ascii_uppercase(),
            "minDisk": img.min_disk,
            "minRam": img.min_ram,
            "size": size,
            "imagePath": path,
        }),
        None => json!({"id": path, "imagePath": path, "size": size}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkg() -> VnfPackage {
        VnfPackage::new(Uuid::nil(), Map::new(), Utc::now())
    }

    #[test]
    fn new_package_is_created_disabled_not_in_use() {
        let v = pkg().to_info("http://h/vnfpkgm/v1");
        assert_eq!(v["onboardingState"], "CREATED");
        assert_eq!(v["operationalState"], "DISABLED");
        assert_eq!(v["usageState"], "NOT_IN_USE");
        assert_eq!(
            v["_links"]["self"]["href"],
            "http://h/vnfpkgm/v1/vnf_packages/00000000-0000-0000-0000-000000000000"
        );
        assert!(v["_links"].get("vnfd").is_none());
        assert!(v.get("vnfdId").is_none());
    }

    #[test]
    fn delete_is_refused_when_enabled_or_in_use() {
        let mut p = pkg();
        assert!(p.delete_conflict().is_none());
        p.operational_state = OperationalState::Enabled;
        assert!(p.delete_conflict().unwrap().contains("ENABLED"));
        p.operational_state = OperationalState::Disabled;
        p.usage_state = UsageState::InUse;
        assert!(p.delete_conflict().unwrap().contains("IN_USE"));
    }

    #[test]
    fn merge_patch_follows_rfc7396() {
        let mut t = json!({"a": 1, "b": {"c": 2, "d": 3}})
            .as_object()
            .unwrap()
            .clone();
        let p = json!({"a": null, "b": {"c": null, "e": 4}, "f": "x"});
        merge_patch(&mut t, p.as_object().unwrap());
        assert_eq!(Value::Object(t), json!({"b": {"d": 3, "e": 4}, "f": "x"}));
    }
}
