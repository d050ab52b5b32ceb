//! VNF instances of both of Tacker's APIs, into our one store. An instance that is not
//! instantiated comes over with its names, metadata and extensions, owned by its
//! package's project, and its package (imported before it) becomes IN_USE. An
//! instantiated one is skipped with the reason: its resources in the VIM are recorded in
//! Tacker's driver's terms, which our drivers do not read yet, and an instance we could
//! not heal, scale or terminate must not look imported.

use chrono::Utc;
use serde_json::{Map, Value};
use tacker_db::Db;
use tacker_db::instances::{self, ImportOutcome};
use tacker_db::packages;
use tacker_domain::lcm::{InstantiationState, VnfInstance};
use uuid::Uuid;

use crate::Result;
use crate::json::object;
use crate::source::TackerInstance;
use crate::summary::Outcome;

/// What of `t` needs no package to be known: `Err` says why it cannot come over.
fn check(t: &TackerInstance) -> std::result::Result<(Uuid, Uuid, String), String> {
    if t.instantiation_state != InstantiationState::NotInstantiated.as_str() {
        return Err(format!(
            "it is {} in Tacker ({} API): instantiated instances are not imported yet \
             (terminate it in Tacker first, or keep Tacker for it)",
            t.instantiation_state, t.api
        ));
    }
    let id =
        t.id.parse::<Uuid>()
            .map_err(|e| format!("id is not a UUID: {e}"))?;
    let (package, tenant) = t
        .package
        .clone()
        .ok_or_else(|| format!("no live package of Tacker holds its VNFD {}", t.vnfd_id))?;
    let package = package
        .parse::<Uuid>()
        .map_err(|e| format!("its package's id is not a UUID: {e}"))?;
    Ok((id, package, tenant))
}

/// Imports `t` (or, with `dry_run`, says what importing it would do).
pub async fn import(db: &Db, t: &TackerInstance, dry_run: bool) -> Result<Outcome> {
    let (id, package_id, tenant) = match check(t) {
        Ok(x) => x,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let maps = (|| -> std::result::Result<[Map<String, Value>; 3], String> {
        Ok([
            object(t.metadata.as_deref(), "metadata")?,
            object(t.extensions.as_deref(), "extensions")?,
            object(
                t.configurable_properties.as_deref(),
                "vnfConfigurableProperties",
            )?,
        ])
    })();
    let [metadata, extensions, configurable] = match maps {
        Ok(m) => m,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let package = db.run(move |c| packages::get(c, package_id)).await?;
    let Some(facts) = package.and_then(|p| p.package.descriptor) else {
        return Ok(Outcome::Skipped(format!(
            "its package {package_id} is not here ONBOARDED (not imported?)"
        )));
    };
    let instance = VnfInstance {
        id,
        name: t.name.clone(),
        description: t.description.clone(),
        vnfd_id: t.vnfd_id.clone(),
        vnf_pkg_id: package_id,
        vnf_provider: facts.provider,
        vnf_product_name: facts.product_name,
        vnf_software_version: facts.software_version,
        vnfd_version: facts.vnfd_version,
        instantiation_state: InstantiationState::NotInstantiated,
        instantiated_vnf_info: None,
        vim_connection_info: Default::default(),
        metadata,
        extensions,
        vnf_configurable_properties: configurable,
        current_op: None,
        created_at: t.created_at.unwrap_or_else(Utc::now),
        tenant: Some(tenant),
    };
    if dry_run {
        let exists = db
            .run(move |c| instances::get(c, id).map(|i| i.is_some()))
            .await?;
        return Ok(if exists {
            Outcome::Unchanged
        } else {
            Outcome::Imported
        });
    }
    Ok(
        match db
            .run(move |c| instances::insert_imported(c, &instance))
            .await?
        {
            ImportOutcome::Inserted => Outcome::Imported,
            ImportOutcome::Exists => Outcome::Unchanged,
            ImportOutcome::NoUsablePackage => Outcome::Skipped(format!(
                "its package {package_id} is not ONBOARDED and ENABLED here"
            )),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tacker(state: &str) -> TackerInstance {
        TackerInstance {
            id: Uuid::new_v4().to_string(),
            api: "v2",
            name: Some("n".into()),
            description: None,
            vnfd_id: "vnfd-1".into(),
            instantiation_state: state.into(),
            metadata: Some(r#""{\"k\": \"v\"}""#.into()),
            configurable_properties: None,
            extensions: None,
            package: Some((Uuid::new_v4().to_string(), "p1".into())),
            created_at: None,
        }
    }

    #[test]
    fn only_instances_not_instantiated_with_a_package_come_over() {
        let (_, _, tenant) = check(&tacker("NOT_INSTANTIATED")).unwrap();
        assert_eq!(tenant, "p1");
        let why = check(&tacker("INSTANTIATED")).unwrap_err();
        assert!(why.contains("not imported yet"), "{why}");
        let mut orphan = tacker("NOT_INSTANTIATED");
        orphan.package = None;
        assert!(check(&orphan).unwrap_err().contains("vnfd-1"));
        // Tacker encodes some columns twice.
        let m = object(tacker("x").metadata.as_deref(), "metadata").unwrap();
        assert_eq!(m["k"], "v");
    }
}
