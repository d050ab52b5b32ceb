//! `vnf_packages`: VNF package resources.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::{Map, Value};
use tacker_domain::ProblemDetails;
use tacker_domain::package::{
    Checksum, DescriptorFacts, OnboardingState, OperationalState, UsageState, VnfPackage,
};
use tacker_domain::pkgm::PkgFacts;
use tacker_domain::scope::Confinement;
use tacker_domain::vnfd::PackageModel;
use uuid::Uuid;

use crate::schema::package_downloads::dsl as dl;
use crate::schema::vnf_packages::{self, dsl};
use crate::{DbConnection, Result, json_text, now};

mod import;
mod onboarding;

pub use import::*;
pub use onboarding::*;

/// A stored package row. An absent value is inserted as NULL, which is also each
/// nullable column's default: the insert's SQL is then the same every time, so the
/// statement is prepared once.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = vnf_packages, treat_none_as_default_value = false)]
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
    progress_at: Option<NaiveDateTime>,
    tenant: Option<String>,
}

/// A package with the revision it was read at (for optimistic updates).
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The package.
    pub package: VnfPackage,
    /// Its row revision.
    pub revision: i64,
}

crate::rows::corrupt_in!("vnf_packages");

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
            created_at: chrono::SubsecRound::trunc_subsecs(p.created_at.naive_utc(), 6),
            updated_at: p.updated_at.naive_utc(),
            deleted_at: None,
            progress_at: None,
            tenant: p.tenant.clone(),
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
            tenant: self.tenant,
        };
        Ok(Stored {
            package,
            revision: self.revision,
        })
    }
}

/// Inserts a new package.
pub fn insert(c: &mut DbConnection, p: &VnfPackage) -> Result<()> {
    crate::connection::native!(c, |conn| diesel::insert_into(vnf_packages::table)
        .values(Row::from_domain(p))
        .execute(conn))?;
    Ok(())
}

/// The package `id`, unless it does not exist or is deleted.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<Stored>> {
    let q = dsl::vnf_packages
        .filter(dsl::id.eq(id.to_string()))
        .filter(dsl::deleted_at.is_null());
    crate::rows::one!(c, q, Row::into_stored)
}

/// Every package that is not deleted, oldest first (then by id).
pub fn list(c: &mut DbConnection) -> Result<Vec<VnfPackage>> {
    let live = dsl::vnf_packages.filter(dsl::deleted_at.is_null());
    crate::rows::oldest_first!(c, live, dsl, |r: Row| r.into_stored().map(|s| s.package))
}

/// Up to `limit` packages (not deleted) from `from` on, in (created_at, id) order;
/// narrowed to a tenant ([`crate::scan::TENANT`]), the tenant's own and the shared ones.
pub fn list_from(
    c: &mut DbConnection,
    from: &crate::scan::From,
    narrow: &crate::scan::Narrow,
    limit: i64,
) -> Result<Vec<VnfPackage>> {
    crate::connection::native!(c, |conn, B| {
        let mut q = dsl::vnf_packages
            .filter(dsl::deleted_at.is_null())
            .into_boxed::<B>();
        for tenants in narrow.values(crate::scan::TENANT) {
            q = q.filter(
                dsl::tenant
                    .eq_any(tenants.clone())
                    .or(dsl::tenant.is_null()),
            );
        }
        let q = crate::scan::narrowed!(q, narrow, {
            "id" => dsl::id,
            "onboardingState" => dsl::onboarding_state,
            "operationalState" => dsl::operational_state,
            "usageState" => dsl::usage_state,
            "vnfdId" => dsl::vnfd_id,
            "vnfProvider" => dsl::vnf_provider,
            "vnfProductName" => dsl::vnf_product_name,
        });
        let q = crate::json_path::json_narrowed!(q, B, narrow, {
            "userDefinedData" => "user_defined_data",
        });
        crate::scan::chunk!(q, dsl, from, limit)
            .select(Row::as_select())
            .load(conn)
    })?
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
    // The write comes first in the transaction (SQLite takes the write lock at once).
    c.transaction(|c| {
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
        // The API refuses a state the package has already: a set state is a change.
        if n == 1
            && operational_state.is_some()
            && let Some(after) = get(c, id)?
        {
            let pkg = after.package;
            crate::pkgm_subscriptions::enqueue(c, &PkgFacts::op_state_changed(&pkg), &pkg)?;
        }
        Ok(n == 1)
    })
}

/// Soft-deletes the package if it is deletable (DISABLED, NOT_IN_USE, not mid-onboarding);
/// false otherwise (or when it does not exist).
pub fn soft_delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    c.transaction(|c| {
        let deleted = soft_delete_row(c, id)?;
        if deleted && let Some(st) = get_including_deleted(c, id)? {
            let pkg = st.package;
            crate::pkgm_subscriptions::enqueue(c, &PkgFacts::deleted(&pkg), &pkg)?;
        }
        Ok(deleted)
    })
}

fn get_including_deleted(c: &mut DbConnection, id: Uuid) -> Result<Option<Stored>> {
    crate::rows::one!(c, by_id(id), Row::into_stored)
}

fn soft_delete_row(c: &mut DbConnection, id: Uuid) -> Result<bool> {
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

fn by_id(id: Uuid) -> diesel::dsl::Filter<dsl::vnf_packages, diesel::dsl::Eq<dsl::id, String>> {
    dsl::vnf_packages.filter(dsl::id.eq(id.to_string()))
}

/// The stored package model of a package (present once PROCESSING has stored it).
pub fn model(c: &mut DbConnection, id: Uuid) -> Result<Option<PackageModel>> {
    let text: Option<Option<String>> = by_id(id)
        .filter(dsl::deleted_at.is_null())
        .select(dsl::package_model)
        .first(c)
        .optional()?;
    text.flatten()
        .map(|t| serde_json::from_str(&t).map_err(|e| corrupt("package_model", e)))
        .transpose()
}

/// Ids and content digests of every ONBOARDED package (what a cache must hold).
pub fn onboarded(c: &mut DbConnection) -> Result<Vec<(Uuid, String)>> {
    let rows: Vec<(String, Option<String>)> = dsl::vnf_packages
        .filter(dsl::deleted_at.is_null())
        .filter(dsl::onboarding_state.eq(OnboardingState::Onboarded.as_str()))
        .select((dsl::id, dsl::content_digest))
        .load(c)?;
    rows.into_iter()
        .map(|(id, hash)| {
            Ok((
                id.parse().map_err(|e| corrupt("id", e))?,
                hash.unwrap_or_default(),
            ))
        })
        .collect()
}

/// Whether package `id` exists (deleted or not) and its state: for idempotent handlers.
pub fn state_including_deleted(
    c: &mut DbConnection,
    id: Uuid,
) -> Result<Option<(OnboardingState, bool)>> {
    let row: Option<(String, Option<NaiveDateTime>)> = by_id(id)
        .select((dsl::onboarding_state, dsl::deleted_at))
        .first(c)
        .optional()?;
    row.map(|(s, d)| {
        Ok((
            s.parse().map_err(|e| corrupt("onboarding_state", e))?,
            d.is_some(),
        ))
    })
    .transpose()
}

/// Deleted packages whose content was not purged yet, deleted longer than `older_than` ago.
pub fn deleted_with_content(
    c: &mut DbConnection,
    older_than: std::time::Duration,
) -> Result<Vec<Uuid>> {
    let age = chrono::Duration::from_std(older_than).map_err(|e| corrupt("age", e))?;
    let rows: Vec<String> = dsl::vnf_packages
        .filter(dsl::deleted_at.lt(now() - age))
        .filter(dsl::checksum_hash.is_not_null())
        .select(dsl::id)
        .load(c)?;
    rows.into_iter()
        .map(|id| id.parse().map_err(|e| corrupt("id", e)))
        .collect()
}

/// Records that a deleted package's content left storage and the caches.
pub fn mark_purged(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    let n = diesel::update(by_id(id).filter(dsl::deleted_at.is_not_null()))
        .set((
            dsl::checksum_hash.eq(None::<String>),
            dsl::checksum_algorithm.eq(None::<String>),
            dsl::content_digest.eq(None::<String>),
            dsl::package_model.eq(None::<String>),
        ))
        .execute(c)?;
    Ok(n == 1)
}

/// The content digest (BLAKE3) recorded for a package's stored content.
pub fn content_digest(c: &mut DbConnection, id: Uuid) -> Result<Option<String>> {
    Ok(by_id(id)
        .select(dsl::content_digest)
        .first::<Option<String>>(c)
        .optional()?
        .flatten())
}

crate::handle::handle! {
    /// VNF packages and their onboarding.
    Packages = packages {
        fn insert(p: &VnfPackage) -> ();
        fn get(id: Uuid) -> Option<Stored>;
        fn list() -> Vec<VnfPackage>;
        fn list_from(from: &crate::scan::From, narrow: &crate::scan::Narrow, limit: i64) -> Vec<VnfPackage>;
        fn modify(id: Uuid, revision: i64, operational_state: Option<OperationalState>, user_defined_data: Option<&Map<String, Value>>) -> bool;
        fn soft_delete(id: Uuid) -> bool;
        fn model(id: Uuid) -> Option<PackageModel>;
        fn onboarded() -> Vec<(Uuid, String)>;
        fn state_including_deleted(id: Uuid) -> Option<(OnboardingState, bool)>;
        fn deleted_with_content(older_than: std::time::Duration) -> Vec<Uuid>;
        fn mark_purged(id: Uuid) -> bool;
        fn content_digest(id: Uuid) -> Option<String>;
        fn begin_upload(id: Uuid, scope: &Confinement) -> bool;
        fn touch_progress(id: Uuid) -> bool;
        fn set_content(id: Uuid, size: u64, sha512: &str, blake3: &str) -> bool;
        fn claim(id: Uuid, conductor: &str, incarnation: &str, from: OnboardingState, to: OnboardingState) -> bool;
        fn store_model(id: Uuid, conductor: &str, model: &PackageModel) -> StoreModel;
        fn confirm_download(id: Uuid, conductor: &str, incarnation: &str) -> bool;
        fn download_confirmations(id: Uuid) -> Vec<(String, String)>;
        fn complete_onboarding(id: Uuid, required: &[String], dead_after: std::time::Duration) -> Completion;
        fn begin_failing(id: Uuid, details: &ProblemDetails) -> bool;
        fn fail_onboarding(id: Uuid, details: &ProblemDetails) -> bool;
        fn in_flight() -> Vec<InFlight>;
    }
}
