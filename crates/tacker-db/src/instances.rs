//! `vnf_instances`: VNF instances, and the one-operation-at-a-time lock.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::{Map, Value};
use tacker_domain::lcm::{
    InstantiatedVnfInfo, InstantiationState, Notification, NotificationKind, VnfInstance,
};
use tacker_domain::package::{OnboardingState, OperationalState, UsageState};
use uuid::Uuid;

use crate::schema::vnf_instances::{self, dsl};
use crate::schema::vnf_packages::dsl as pkg;
use crate::secrets::Keyring;
use crate::{DbConnection, Result, json_text, now, outbox};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = vnf_instances)]
struct Row {
    id: String,
    vnf_instance_name: Option<String>,
    vnf_instance_description: Option<String>,
    vnfd_id: String,
    vnf_pkg_id: String,
    vnf_provider: String,
    vnf_product_name: String,
    vnf_software_version: String,
    vnfd_version: String,
    instantiation_state: String,
    instantiated_vnf_info: Option<String>,
    vim_connection_info: String,
    metadata: String,
    extensions: String,
    vnf_configurable_properties: String,
    current_op_id: Option<String>,
    revision: i64,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    tenant: Option<String>,
}

crate::rows::corrupt_in!("vnf_instances");

fn map(what: &str, s: &str) -> Result<Map<String, Value>> {
    serde_json::from_str(s).map_err(|e| corrupt(what, e))
}

impl Row {
    fn into_domain(self) -> Result<VnfInstance> {
        Ok(VnfInstance {
            id: self.id.parse().map_err(|e| corrupt("id", e))?,
            name: self.vnf_instance_name,
            description: self.vnf_instance_description,
            vnfd_id: self.vnfd_id,
            vnf_pkg_id: self
                .vnf_pkg_id
                .parse()
                .map_err(|e| corrupt("vnf_pkg_id", e))?,
            vnf_provider: self.vnf_provider,
            vnf_product_name: self.vnf_product_name,
            vnf_software_version: self.vnf_software_version,
            vnfd_version: self.vnfd_version,
            instantiation_state: self
                .instantiation_state
                .parse()
                .map_err(|e| corrupt("instantiation_state", e))?,
            instantiated_vnf_info: self
                .instantiated_vnf_info
                .as_deref()
                .map(serde_json::from_str::<InstantiatedVnfInfo>)
                .transpose()
                .map_err(|e| corrupt("instantiated_vnf_info", e))?,
            vim_connection_info: serde_json::from_str(&self.vim_connection_info)
                .map_err(|e| corrupt("vim_connection_info", e))?,
            metadata: map("metadata", &self.metadata)?,
            extensions: map("extensions", &self.extensions)?,
            vnf_configurable_properties: map(
                "vnf_configurable_properties",
                &self.vnf_configurable_properties,
            )?,
            current_op: self
                .current_op_id
                .map(|o| o.parse())
                .transpose()
                .map_err(|e| corrupt("current_op_id", e))?,
            created_at: self.created_at.and_utc(),
            tenant: self.tenant,
        })
    }

    fn from_domain(i: &VnfInstance) -> Self {
        Self {
            id: i.id.to_string(),
            vnf_instance_name: i.name.clone(),
            vnf_instance_description: i.description.clone(),
            vnfd_id: i.vnfd_id.clone(),
            vnf_pkg_id: i.vnf_pkg_id.to_string(),
            vnf_provider: i.vnf_provider.clone(),
            vnf_product_name: i.vnf_product_name.clone(),
            vnf_software_version: i.vnf_software_version.clone(),
            vnfd_version: i.vnfd_version.clone(),
            instantiation_state: i.instantiation_state.as_str().into(),
            instantiated_vnf_info: i.instantiated_vnf_info.as_ref().map(json_text),
            vim_connection_info: json_text(&i.vim_connection_info),
            metadata: json_text(&i.metadata),
            extensions: json_text(&i.extensions),
            vnf_configurable_properties: json_text(&i.vnf_configurable_properties),
            current_op_id: None,
            revision: 0,
            created_at: chrono::SubsecRound::trunc_subsecs(i.created_at.naive_utc(), 6),
            updated_at: now(),
            tenant: i.tenant.clone(),
        }
    }
}

/// Why an instance could not be created.
#[derive(Debug, PartialEq, Eq)]
pub enum CreateOutcome {
    /// Created.
    Created,
    /// No ONBOARDED + ENABLED package has this vnfdId.
    NoUsablePackage,
    /// Its tenant has `server.max_instances_per_tenant` instances already.
    QuotaReached,
}

/// An ONBOARDED + ENABLED package an instance can be created from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsablePackage {
    /// Package id.
    pub id: Uuid,
    /// `vnfProvider`.
    pub provider: String,
    /// `vnfProductName`.
    pub product_name: String,
    /// `vnfSoftwareVersion`.
    pub software_version: String,
    /// `vnfdVersion`.
    pub vnfd_version: String,
}

#[derive(Queryable)]
struct UsableRow {
    id: String,
    provider: Option<String>,
    product_name: Option<String>,
    software_version: Option<String>,
    vnfd_version: Option<String>,
    tenant: Option<String>,
}

/// Which ONBOARDED + ENABLED package a vnfdId names for an instance of a tenant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Usable {
    /// This one: the tenant's own, else a shared one (for an instance of no tenant: a
    /// shared one, else the one package of any tenant).
    One(UsablePackage),
    /// None the tenant sees.
    None,
    /// An instance of no tenant, and only packages of several tenants have it.
    Ambiguous(usize),
}

impl Usable {
    /// The package, if exactly one is named.
    pub fn one(self) -> Option<UsablePackage> {
        match self {
            Usable::One(p) => Some(p),
            _ => None,
        }
    }
}

/// The ONBOARDED + ENABLED package with `vnfd_id` an instance of `tenant` uses (see
/// [`Usable`]): vnfdIds are unique per tenant, so several tenants may onboard one VNFD.
pub fn usable_package(c: &mut DbConnection, vnfd_id: &str, tenant: Option<&str>) -> Result<Usable> {
    let mut rows: Vec<UsableRow> = pkg::vnf_packages
        .filter(pkg::vnfd_id.eq(vnfd_id))
        .filter(pkg::deleted_at.is_null())
        .filter(pkg::onboarding_state.eq(OnboardingState::Onboarded.as_str()))
        .filter(pkg::operational_state.eq(OperationalState::Enabled.as_str()))
        .select((
            pkg::id,
            pkg::vnf_provider,
            pkg::vnf_product_name,
            pkg::vnf_software_version,
            pkg::vnfd_version,
            pkg::tenant,
        ))
        .load(c)?;
    let chosen = match tenant {
        Some(t) => rows
            .iter()
            .position(|r| r.tenant.as_deref() == Some(t))
            .or_else(|| rows.iter().position(|r| r.tenant.is_none())),
        None => match rows.iter().position(|r| r.tenant.is_none()) {
            Some(i) => Some(i),
            None if rows.len() > 1 => return Ok(Usable::Ambiguous(rows.len())),
            None => (!rows.is_empty()).then_some(0),
        },
    };
    let Some(i) = chosen else {
        return Ok(Usable::None);
    };
    let r = rows.swap_remove(i);
    Ok(Usable::One(UsablePackage {
        id: r.id.parse().map_err(|e| corrupt("vnf_pkg_id", e))?,
        provider: r.provider.unwrap_or_default(),
        product_name: r.product_name.unwrap_or_default(),
        software_version: r.software_version.unwrap_or_default(),
        vnfd_version: r.vnfd_version.unwrap_or_default(),
    }))
}

/// Inserts `instance` and makes its package IN_USE; false (nothing done) when the
/// package is not ONBOARDED and ENABLED.
fn insert_using_package(c: &mut DbConnection, instance: &VnfInstance) -> Result<bool> {
    let n = diesel::update(
        pkg::vnf_packages
            .filter(pkg::id.eq(instance.vnf_pkg_id.to_string()))
            .filter(pkg::deleted_at.is_null())
            .filter(pkg::onboarding_state.eq(OnboardingState::Onboarded.as_str()))
            .filter(pkg::operational_state.eq(OperationalState::Enabled.as_str())),
    )
    .set((
        pkg::usage_state.eq(UsageState::InUse.as_str()),
        pkg::revision.eq(pkg::revision + 1),
    ))
    .execute(c)?;
    if n == 0 {
        return Ok(false);
    }
    diesel::insert_into(vnf_instances::table)
        .values(Row::from_domain(instance))
        .execute(c)?;
    Ok(true)
}

/// Creates `instance`: its package becomes IN_USE and a VnfIdentifierCreationNotification
/// is queued, in one transaction. `instance.vnf_pkg_id` must be ONBOARDED + ENABLED.
pub fn create(c: &mut DbConnection, instance: &VnfInstance, quota: u64) -> Result<CreateOutcome> {
    let made = crate::quota::within(
        c,
        "vnf_instances",
        instance.tenant.as_deref(),
        quota,
        count_of_tenant,
        |c| {
            if !insert_using_package(c, instance)? {
                return Ok(CreateOutcome::NoUsablePackage);
            }
            outbox::enqueue_matching(
                c,
                &Notification::of_identifier(NotificationKind::VnfIdentifierCreation, instance.id),
                instance,
            )?;
            Ok(CreateOutcome::Created)
        },
    )?;
    Ok(made.unwrap_or(CreateOutcome::QuotaReached))
}

/// What inserting an imported instance did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportOutcome {
    /// Inserted; its package is IN_USE.
    Inserted,
    /// An instance of this id exists here: left as it is.
    Exists,
    /// Its package is not here ONBOARDED and ENABLED.
    NoUsablePackage,
}

/// Inserts `instance`, brought over from another VNFM (`tacker import tacker`), with its
/// package made IN_USE, in one transaction. Unlike [`create`] no quota applies and no
/// creation notification is queued: the instance is not new, only new here.
pub fn insert_imported(c: &mut DbConnection, instance: &VnfInstance) -> Result<ImportOutcome> {
    c.transaction(|c| {
        let exists: i64 = dsl::vnf_instances
            .filter(dsl::id.eq(instance.id.to_string()))
            .count()
            .get_result(c)?;
        if exists > 0 {
            return Ok(ImportOutcome::Exists);
        }
        Ok(if insert_using_package(c, instance)? {
            ImportOutcome::Inserted
        } else {
            ImportOutcome::NoUsablePackage
        })
    })
}

/// How many instances `tenant` has (`None`: those of no tenant).
pub fn count_of_tenant(c: &mut DbConnection, tenant: Option<&str>) -> Result<u64> {
    Ok(crate::quota::count_of_tenant!(
        c,
        dsl::vnf_instances,
        dsl::tenant,
        tenant
    ))
}

crate::rows::reads!(vnf_instances, VnfInstance, "instance", "(created_at, id)", Instances, {
    "id" => dsl::id,
    "instantiationState" => dsl::instantiation_state,
    "vnfdId" => dsl::vnfd_id,
    "vnfProvider" => dsl::vnf_provider,
    "vnfProductName" => dsl::vnf_product_name,
    crate::scan::TENANT => dsl::tenant,
}, json {
    "metadata" => "metadata",
    "extensions" => "extensions",
    "vnfConfigurableProperties" => "vnf_configurable_properties",
});

/// Why an instance could not be deleted.
#[derive(Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// Deleted.
    Deleted,
    /// No such instance.
    NotFound,
    /// It is INSTANTIATED or an operation holds it.
    Busy,
}

/// Deletes a NOT_INSTANTIATED instance without an operation on it; its package returns to
/// NOT_IN_USE when no other instance uses it; a VnfIdentifierDeletionNotification is
/// queued. One transaction.
pub fn delete(c: &mut DbConnection, id: Uuid) -> Result<DeleteOutcome> {
    c.transaction(|c| {
        // It reads, then writes: on SQLite a writer from the start (see `write_first`).
        crate::quota::write_first(c, "vnf_instances")?;
        let Some(instance) = get(c, id)? else {
            return Ok(DeleteOutcome::NotFound);
        };
        let n = diesel::delete(
            dsl::vnf_instances
                .filter(dsl::id.eq(id.to_string()))
                .filter(dsl::instantiation_state.eq(InstantiationState::NotInstantiated.as_str()))
                .filter(dsl::current_op_id.is_null()),
        )
        .execute(c)?;
        if n == 0 {
            return Ok(DeleteOutcome::Busy);
        }
        crate::host_keys::forget(c, id)?;
        crate::alarms::clear_all_of(c, &instance)?;
        let pkg_id = instance.vnf_pkg_id.to_string();
        let others: i64 = dsl::vnf_instances
            .filter(dsl::vnf_pkg_id.eq(&pkg_id))
            .count()
            .get_result(c)?;
        if others == 0 {
            diesel::update(pkg::vnf_packages.filter(pkg::id.eq(&pkg_id)))
                .set((
                    pkg::usage_state.eq(UsageState::NotInUse.as_str()),
                    pkg::revision.eq(pkg::revision + 1),
                ))
                .execute(c)?;
        }
        outbox::enqueue_matching(
            c,
            &Notification::of_identifier(NotificationKind::VnfIdentifierDeletion, id),
            &instance,
        )?;
        Ok(DeleteOutcome::Deleted)
    })
}

/// Takes the instance's operation lock for `op` (false when another operation holds it).
pub(crate) fn lock(c: &mut DbConnection, id: Uuid, op: Uuid) -> Result<bool> {
    let n = diesel::update(
        dsl::vnf_instances
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::current_op_id.is_null()),
    )
    .set((
        dsl::current_op_id.eq(Some(op.to_string())),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// Releases the lock `op` holds.
pub(crate) fn unlock(c: &mut DbConnection, id: Uuid, op: Uuid) -> Result<()> {
    diesel::update(
        dsl::vnf_instances
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::current_op_id.eq(op.to_string())),
    )
    .set((
        dsl::current_op_id.eq(None::<String>),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(())
}

/// Stores what an operation changed on the instance.
pub(crate) fn store(c: &mut DbConnection, i: &VnfInstance) -> Result<()> {
    let before: Option<String> = dsl::vnf_instances
        .filter(dsl::id.eq(i.id.to_string()))
        .select(dsl::vnf_pkg_id)
        .first(c)
        .optional()?;
    diesel::update(dsl::vnf_instances.filter(dsl::id.eq(i.id.to_string())))
        .set((
            dsl::vnf_instance_name.eq(&i.name),
            dsl::vnf_instance_description.eq(&i.description),
            dsl::vnfd_id.eq(&i.vnfd_id),
            dsl::vnf_pkg_id.eq(i.vnf_pkg_id.to_string()),
            dsl::vnf_provider.eq(&i.vnf_provider),
            dsl::vnf_product_name.eq(&i.vnf_product_name),
            dsl::vnf_software_version.eq(&i.vnf_software_version),
            dsl::vnfd_version.eq(&i.vnfd_version),
            dsl::instantiation_state.eq(i.instantiation_state.as_str()),
            dsl::instantiated_vnf_info.eq(i.instantiated_vnf_info.as_ref().map(json_text)),
            dsl::vim_connection_info.eq(json_text(&i.vim_connection_info)),
            dsl::metadata.eq(json_text(&i.metadata)),
            dsl::extensions.eq(json_text(&i.extensions)),
            dsl::vnf_configurable_properties.eq(json_text(&i.vnf_configurable_properties)),
            dsl::revision.eq(dsl::revision + 1),
            dsl::updated_at.eq(now()),
        ))
        .execute(c)?;
    // A package change moves the usage of both packages.
    let now_on = i.vnf_pkg_id.to_string();
    if let Some(old) = before.filter(|b| *b != now_on) {
        crate::usage::refresh(c, &old)?;
        crate::usage::refresh(c, &now_on)?;
    }
    Ok(())
}

/// Reconciles an instance's stored resources (resource sync), unless an operation holds it.
pub fn store_synced(c: &mut DbConnection, id: Uuid, info: &InstantiatedVnfInfo) -> Result<bool> {
    let n = diesel::update(
        dsl::vnf_instances
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::current_op_id.is_null())
            .filter(dsl::instantiation_state.eq(InstantiationState::Instantiated.as_str())),
    )
    .set((
        dsl::instantiated_vnf_info.eq(Some(json_text(info))),
        dsl::revision.eq(dsl::revision + 1),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// Claims up to `limit` instantiated instances not synced since `cutoff` and with no
/// operation on them, for a periodic sync: marks them synced now, so another conductor
/// skips them.
pub fn claim_sync_due(
    c: &mut DbConnection,
    cutoff: NaiveDateTime,
    limit: i64,
) -> Result<Vec<Uuid>> {
    let candidates: Vec<String> = dsl::vnf_instances
        .filter(dsl::instantiation_state.eq(InstantiationState::Instantiated.as_str()))
        .filter(dsl::current_op_id.is_null())
        .filter(dsl::synced_at.is_null().or(dsl::synced_at.lt(cutoff)))
        .order(dsl::synced_at.asc())
        .limit(limit)
        .select(dsl::id)
        .load(c)?;
    let mut out = Vec::new();
    for id in candidates {
        let n = diesel::update(
            dsl::vnf_instances
                .filter(dsl::id.eq(&id))
                .filter(dsl::synced_at.is_null().or(dsl::synced_at.lt(cutoff))),
        )
        .set(dsl::synced_at.eq(Some(now())))
        .execute(c)?;
        if n == 1
            && let Ok(u) = id.parse()
        {
            out.push(u);
        }
    }
    Ok(out)
}

/// Whether any instance names registered VIM `vim_id` in its `vimConnectionInfo`.
pub fn using_vim(c: &mut DbConnection, vim_id: &str) -> Result<bool> {
    let rows: Vec<String> = dsl::vnf_instances
        .filter(dsl::vim_connection_info.like(format!("%{vim_id}%")))
        .select(dsl::vim_connection_info)
        .load(c)?;
    Ok(rows.iter().any(|t| {
        serde_json::from_str::<tacker_domain::vim::VimConnections>(t)
            .is_ok_and(|m| m.values().any(|v| v.vim_id.as_deref() == Some(vim_id)))
    }))
}

/// Records the sealed `additionalParams` of instance `id`'s instantiate request (`None`
/// forgets them).
pub fn set_instantiate_params(c: &mut DbConnection, id: Uuid, sealed: Option<&str>) -> Result<()> {
    diesel::update(dsl::vnf_instances.filter(dsl::id.eq(id.to_string())))
        .set(dsl::instantiate_params.eq(sealed))
        .execute(c)?;
    Ok(())
}

/// The sealed `additionalParams` of instance `id`'s instantiate request, if recorded.
pub fn instantiate_params(c: &mut DbConnection, id: Uuid) -> Result<Option<String>> {
    instantiate_params_of(c, &id.to_string())
}

fn instantiate_params_of(c: &mut DbConnection, id: &str) -> Result<Option<String>> {
    let t: Option<Option<String>> = dsl::vnf_instances
        .filter(dsl::id.eq(id))
        .select(dsl::instantiate_params)
        .first(c)
        .optional()?;
    Ok(t.flatten())
}

/// Opens every instance's sealed parameters (a key missing from `keys` is an error).
pub fn open_sealed(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
    let mut n = 0;
    for_params_chunks(c, |_, rows| {
        for (_, sealed) in rows {
            keys.open(sealed)?;
            n += 1;
        }
        Ok(())
    })?;
    Ok(n)
}

/// Re-seals every instance's parameters not sealed with the keyring's current key, a
/// transaction per chunk, compare and swap per row (see `sealed::reseal_chunk`);
/// how many changed.
pub fn reseal(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
    let mut n = 0;
    for_params_chunks(c, |c, rows| {
        let rows = rows.iter().map(|(id, p)| (id.clone(), Some(p.clone())));
        n += crate::sealed::reseal_chunk(
            c,
            rows.collect(),
            |p| keys.reseal(p),
            instantiate_params_of,
            |c, id, old, new| {
                Ok(diesel::update(
                    dsl::vnf_instances
                        .filter(dsl::id.eq(id))
                        .filter(dsl::instantiate_params.eq(old)),
                )
                .set(dsl::instantiate_params.eq(new))
                .execute(c)?)
            },
        )?;
        Ok(())
    })?;
    Ok(n)
}

/// Calls `f` with every instance's id and instantiation parameters, 500 instances at a
/// time in id order (memory stays bounded whatever the table holds).
fn for_params_chunks<F>(c: &mut DbConnection, mut f: F) -> Result<()>
where
    F: FnMut(&mut DbConnection, &[(String, String)]) -> Result<()>,
{
    let mut after = String::new();
    loop {
        let rows: Vec<(String, Option<String>)> = dsl::vnf_instances
            .select((dsl::id, dsl::instantiate_params))
            .filter(dsl::id.gt(&after))
            .filter(dsl::instantiate_params.is_not_null())
            .order(dsl::id)
            .limit(crate::sealed::CHUNK)
            .load(c)?;
        let Some((last, _)) = rows.last() else {
            return Ok(());
        };
        after = last.clone();
        let rows: Vec<(String, String)> = rows
            .into_iter()
            .filter_map(|(id, p)| p.map(|p| (id, p)))
            .collect();
        f(c, &rows)?;
    }
}

crate::handle::handle! {
    /// VNF instances.
    Instances = instances {
        fn usable_package(vnfd_id: &str, tenant: Option<&str>) -> Usable;
        fn create(instance: &VnfInstance, quota: u64) -> CreateOutcome;
        fn insert_imported(instance: &VnfInstance) -> ImportOutcome;
        fn count_of_tenant(tenant: Option<&str>) -> u64;
        fn delete(id: Uuid) -> DeleteOutcome;
        fn store_synced(id: Uuid, info: &InstantiatedVnfInfo) -> bool;
        fn claim_sync_due(cutoff: NaiveDateTime, limit: i64) -> Vec<Uuid>;
        fn using_vim(vim_id: &str) -> bool;
        fn set_instantiate_params(id: Uuid, sealed: Option<&str>) -> ();
        fn instantiate_params(id: Uuid) -> Option<String>;
        fn open_sealed(keys: &Keyring) -> usize;
        fn reseal(keys: &Keyring) -> usize;
    }
}
