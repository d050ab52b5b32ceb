//! `vnf_packages`: VNF package resources.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::{Map, Value};
use tacker_domain::ProblemDetails;
use tacker_domain::package::{
    Checksum, DescriptorFacts, OnboardingState, OperationalState, UsageState, VnfPackage,
};
use uuid::Uuid;

use crate::schema::vnf_packages::{self, dsl};
use crate::{DbConnection, Error, Result, now};

/// A stored package row.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = vnf_packages)]
pub struct Row {
    id: String,
    onboarding_state: String,
    operational_state: String,
    usage_state: String,
    user_defined_data: String,
    vnfd_id: Option<String>,
    vnf_provider: Option<String>,
    vnf_product_name: Option<String>,
    vnf_software_version: Option<String>,
    vnfd_version: Option<String>,
    checksum_algorithm: Option<String>,
    checksum_hash: Option<String>,
    package_size: Option<i64>,
    software_images: String,
    additional_artifacts: String,
    onboarding_failure_details: Option<String>,
    downloading: i32,
    coordinator_id: Option<String>,
    revision: i64,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    deleted_at: Option<NaiveDateTime>,
}

/// A package with the revision it was read at (for optimistic updates).
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The package.
    pub package: VnfPackage,
    /// Its row revision.
    pub revision: i64,
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!("vnf_packages.{what}: {e}"))
}

fn json_text(v: &impl serde::Serialize) -> String {
    // Serialising plain JSON values and maps cannot fail.
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

impl Row {
    fn from_domain(p: &VnfPackage) -> Self {
        let d = p.descriptor.as_ref();
        Self {
            id: p.id.to_string(),
            onboarding_state: p.onboarding_state.as_str().into(),
            operational_state: p.operational_state.as_str().into(),
            usage_state: p.usage_state.as_str().into(),
            user_defined_data: json_text(&p.user_defined_data),
            vnfd_id: d.map(|d| d.vnfd_id.clone()),
            vnf_provider: d.map(|d| d.provider.clone()),
            vnf_product_name: d.map(|d| d.product_name.clone()),
            vnf_software_version: d.map(|d| d.software_version.clone()),
            vnfd_version: d.map(|d| d.vnfd_version.clone()),
            checksum_algorithm: p.checksum.as_ref().map(|c| c.algorithm.clone()),
            checksum_hash: p.checksum.as_ref().map(|c| c.hash.clone()),
            package_size: p.size,
            software_images: json_text(&p.software_images),
            additional_artifacts: json_text(&p.additional_artifacts),
            onboarding_failure_details: p.onboarding_failure_details.as_ref().map(json_text),
            downloading: p.downloading,
            coordinator_id: None,
            revision: 0,
            created_at: p.created_at.naive_utc(),
            updated_at: p.updated_at.naive_utc(),
            deleted_at: None,
        }
    }

    fn into_stored(self) -> Result<Stored> {
        let descriptor = match (
            self.vnfd_id,
            self.vnf_provider,
            self.vnf_product_name,
            self.vnf_software_version,
            self.vnfd_version,
        ) {
            (Some(vnfd_id), Some(provider), Some(product_name), Some(sw), Some(v)) => {
                Some(DescriptorFacts {
                    vnfd_id,
                    provider,
                    product_name,
                    software_version: sw,
                    vnfd_version: v,
                })
            }
            _ => None,
        };
        let checksum = match (self.checksum_algorithm, self.checksum_hash) {
            (Some(algorithm), Some(hash)) => Some(Checksum { algorithm, hash }),
            _ => None,
        };
        let user_defined_data: Map<String, Value> = serde_json::from_str(&self.user_defined_data)
            .map_err(|e| corrupt("user_defined_data", e))?;
        let software_images: Vec<Value> = serde_json::from_str(&self.software_images)
            .map_err(|e| corrupt("software_images", e))?;
        let additional_artifacts: Vec<Value> = serde_json::from_str(&self.additional_artifacts)
            .map_err(|e| corrupt("additional_artifacts", e))?;
        let onboarding_failure_details: Option<ProblemDetails> = self
            .onboarding_failure_details
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| corrupt("onboarding_failure_details", e))?;
        let package = VnfPackage {
            id: self.id.parse().map_err(|e| corrupt("id", e))?,
            onboarding_state: self
                .onboarding_state
                .parse()
                .map_err(|e| corrupt("state", e))?,
            operational_state: self
                .operational_state
                .parse()
                .map_err(|e| corrupt("state", e))?,
            usage_state: self.usage_state.parse().map_err(|e| corrupt("state", e))?,
            user_defined_data,
            descriptor,
            checksum,
            size: self.package_size,
            software_images,
            additional_artifacts,
            onboarding_failure_details,
            downloading: self.downloading,
            created_at: self.created_at.and_utc(),
            updated_at: self.updated_at.and_utc(),
        };
        Ok(Stored {
            package,
            revision: self.revision,
        })
    }
}

/// Inserts a new package.
pub fn insert(c: &mut DbConnection, p: &VnfPackage) -> Result<()> {
    diesel::insert_into(vnf_packages::table)
        .values(Row::from_domain(p))
        .execute(c)?;
    Ok(())
}

/// The package `id`, unless it does not exist or is deleted.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<Stored>> {
    dsl::vnf_packages
        .filter(dsl::id.eq(id.to_string()))
        .filter(dsl::deleted_at.is_null())
        .select(Row::as_select())
        .first(c)
        .optional()?
        .map(Row::into_stored)
        .transpose()
}

/// Every package that is not deleted, oldest first (then by id).
pub fn list(c: &mut DbConnection) -> Result<Vec<VnfPackage>> {
    dsl::vnf_packages
        .filter(dsl::deleted_at.is_null())
        .order((dsl::created_at.asc(), dsl::id.asc()))
        .select(Row::as_select())
        .load(c)?
        .into_iter()
        .map(|r| r.into_stored().map(|s| s.package))
        .collect()
}

/// Applies `VnfPkgInfoModifications` if the row is still at `revision`; false when it
/// changed meanwhile (the caller re-reads and retries).
pub fn modify(
    c: &mut DbConnection,
    id: Uuid,
    revision: i64,
    operational_state: Option<OperationalState>,
    user_defined_data: Option<&Map<String, Value>>,
) -> Result<bool> {
    let target = dsl::vnf_packages
        .filter(dsl::id.eq(id.to_string()))
        .filter(dsl::revision.eq(revision))
        .filter(dsl::deleted_at.is_null());
    let n = diesel::update(target)
        .set((
            operational_state.map(|s| dsl::operational_state.eq(s.as_str())),
            user_defined_data.map(|u| dsl::user_defined_data.eq(json_text(u))),
            dsl::revision.eq(dsl::revision + 1),
            dsl::updated_at.eq(now()),
        ))
        .execute(c)?;
    Ok(n == 1)
}

/// Soft-deletes the package if it is deletable (DISABLED, NOT_IN_USE, not mid-onboarding);
/// false otherwise (or when it does not exist).
pub fn soft_delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    let target = dsl::vnf_packages
        .filter(dsl::id.eq(id.to_string()))
        .filter(dsl::deleted_at.is_null())
        .filter(dsl::operational_state.eq(OperationalState::Disabled.as_str()))
        .filter(dsl::usage_state.eq(UsageState::NotInUse.as_str()))
        .filter(dsl::onboarding_state.ne_all([
            OnboardingState::Uploading.as_str(),
            OnboardingState::Processing.as_str(),
        ]));
    let n = diesel::update(target)
        .set((
            dsl::deleted_at.eq(Some(now())),
            dsl::revision.eq(dsl::revision + 1),
            dsl::updated_at.eq(now()),
        ))
        .execute(c)?;
    Ok(n == 1)
}
