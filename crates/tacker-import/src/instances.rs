//! VNF instances of both of Tacker's APIs, into our one store, with their names, metadata
//! and extensions, owned by their package's project; their package (imported before
//! them) becomes IN_USE. One Tacker's v2 API instantiated (a CNF from manifests, a VM VNF
//! on Heat) comes over instantiated, its record made our driver's (`instantiated.rs`);
//! any other instantiated one is skipped with the reason: an instance we could not heal,
//! scale or terminate must not look imported.

use chrono::Utc;
use serde_json::{Map, Value, json};
use tacker_db::Db;
use tacker_db::instances::ImportOutcome;
use tacker_domain::lcm::{InstantiationState, VnfInstance};
use tacker_domain::vim::{VimConnections, VimType};
use uuid::Uuid;

use crate::Result;
use crate::json::{object, value};
use crate::source::TackerInstance;
use crate::summary::Outcome;

/// What of `t` needs no package to be known: `Err` says why it cannot come over.
fn check(t: &TackerInstance, busy: bool) -> std::result::Result<(Uuid, Uuid, String), String> {
    let instantiated = t.instantiation_state == InstantiationState::Instantiated.as_str();
    if !instantiated && t.instantiation_state != InstantiationState::NotInstantiated.as_str() {
        return Err(format!(
            "its instantiationState {:?} is not SOL003's",
            t.instantiation_state
        ));
    }
    if instantiated && t.api == "v1" {
        return Err(
            "it was instantiated through Tacker's v1 API, whose record of its resources \
             ours does not read: terminate it in Tacker first, or keep Tacker for it"
                .into(),
        );
    }
    if busy {
        return Err(
            "an operation on it has not ended in Tacker (in progress or FAILED_TEMP): \
                    let Tacker finish it first"
                .into(),
        );
    }
    let id =
        t.id.parse::<Uuid>()
            .map_err(|e| format!("id is not a UUID: {e}"))?;
    let (package, _) = t
        .package
        .clone()
        .ok_or_else(|| format!("no live package of Tacker holds its VNFD {}", t.vnfd_id))?;
    let package = package
        .parse::<Uuid>()
        .map_err(|e| format!("its package's id is not a UUID: {e}"))?;
    let tenant = owner(t).unwrap_or_default();
    Ok((id, package, tenant))
}

/// The project `t` belongs to here: v1 records it; a v2 instance belongs to its
/// package's project.
pub fn owner(t: &TackerInstance) -> Option<String> {
    t.tenant_id
        .clone()
        .or_else(|| t.package.as_ref().map(|(_, tenant)| tenant.clone()))
}

/// `vimConnectionInfo` of `t` as ours: v2's is SOL003's already; v1's is a list of
/// Tacker's versioned objects (`vim_id`, `vim_type` openstack/kubernetes, ...), the id of
/// each its key. An entry naming a registered VIM (`vimId`, no `accessInfo`) refers to the
/// VIM imported with that id.
fn connections(t: &TackerInstance) -> std::result::Result<VimConnections, String> {
    let Some(v) = value(t.vim_connection_info.as_deref(), "vimConnectionInfo")? else {
        return Ok(VimConnections::new());
    };
    let sol = match v {
        Value::Array(list) => {
            let mut m = Map::new();
            for (n, item) in list.iter().enumerate() {
                let d = item.get("tacker_object.data").unwrap_or(item);
                let id = d
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("vim{n}"), str::to_owned);
                let vim_type = match d.get("vim_type").and_then(Value::as_str) {
                    Some("openstack") => VimType::OpenStack.sol_type(),
                    Some("kubernetes") => VimType::Kubernetes.sol_type(),
                    Some(other) => other,
                    None => "",
                };
                let mut e = Map::new();
                if let Some(vim_id) = d.get("vim_id").filter(|v| !v.is_null()) {
                    e.insert("vimId".into(), vim_id.clone());
                }
                e.insert("vimType".into(), json!(vim_type));
                for (from, to) in [
                    ("interface_info", "interfaceInfo"),
                    ("access_info", "accessInfo"),
                    ("extra", "extra"),
                ] {
                    if let Some(x) = d
                        .get(from)
                        .filter(|x| x.as_object().is_some_and(|o| !o.is_empty()))
                    {
                        e.insert(to.into(), x.clone());
                    }
                }
                m.insert(id, Value::Object(e));
            }
            Value::Object(m)
        }
        other => other,
    };
    serde_json::from_value(sol).map_err(|e| {
        format!(
            "its vimConnectionInfo is not one ours takes: {}",
            crate::json::unquoted(&e.to_string())
        )
    })
}

/// What the import knows of the rest of its run.
pub struct Context<'a> {
    /// The packages here, or imported (in a dry run: to be) by this run.
    pub packages: &'a std::collections::HashSet<Uuid>,
    /// The instances with an operation Tacker has not ended.
    pub busy: &'a std::collections::HashSet<String>,
    /// The keyring sealing the instances' VIM credentials.
    pub keyring: &'a std::sync::Arc<tacker_db::secrets::Keyring>,
    /// Write nothing.
    pub dry_run: bool,
}

/// Imports `t` (or, in a dry run, says what importing it would do).
pub async fn import(db: &Db, t: &TackerInstance, cx: &Context<'_>) -> Result<Outcome> {
    let (id, package_id, tenant) = match check(t, cx.busy.contains(&t.id)) {
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
    let mut vims = match connections(t) {
        Ok(v) => v,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let instantiated = match value(t.instantiated_vnf_info.as_deref(), "instantiatedVnfInfo") {
        Err(why) => return Ok(Outcome::Skipped(why)),
        Ok(info) if t.instantiation_state == InstantiationState::Instantiated.as_str() => {
            let info = info.unwrap_or(Value::Null);
            match crate::instantiated::instantiated(info, &vims, &t.id) {
                Ok(i) => Some(i),
                Err(why) => return Ok(Outcome::Skipped(why)),
            }
        }
        Ok(_) => None,
    };
    if !cx.packages.contains(&package_id) {
        return Ok(Outcome::Skipped(format!(
            "its package {package_id} is not imported"
        )));
    }
    if cx.dry_run {
        return Ok(if db.instances().get(id).await?.is_some() {
            Outcome::Unchanged
        } else {
            Outcome::Imported
        });
    }
    let package = db.packages().get(package_id).await?;
    let Some(facts) = package.and_then(|p| p.package.descriptor) else {
        return Ok(Outcome::Skipped(format!(
            "its package {package_id} is not here ONBOARDED"
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
        instantiation_state: if instantiated.is_some() {
            InstantiationState::Instantiated
        } else {
            InstantiationState::NotInstantiated
        },
        instantiated_vnf_info: instantiated,
        vim_connection_info: {
            for c in vims.values_mut() {
                c.seal(&mut |plain| cx.keyring.seal(plain))?;
            }
            vims
        },
        metadata,
        extensions,
        vnf_configurable_properties: configurable,
        current_op: None,
        created_at: t.created_at.unwrap_or_else(Utc::now),
        tenant: Some(tenant),
    };
    Ok(match db.instances().insert_imported(&instance).await? {
        ImportOutcome::Inserted => Outcome::Imported,
        ImportOutcome::Exists => Outcome::Unchanged,
        ImportOutcome::NoUsablePackage => Outcome::Skipped(format!(
            "its package {package_id} is not ONBOARDED and ENABLED here"
        )),
    })
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
            tenant_id: None,
            vim_connection_info: Some("[]".into()),
            instantiated_vnf_info: None,
            created_at: None,
        }
    }

    #[test]
    fn only_instances_not_instantiated_with_a_package_come_over() {
        let (_, _, tenant) = check(&tacker("NOT_INSTANTIATED"), false).unwrap();
        assert_eq!(tenant, "p1");
        let mut v1 = tacker("NOT_INSTANTIATED");
        v1.tenant_id = Some("p2".into());
        assert_eq!(check(&v1, false).unwrap().2, "p2");
        assert!(check(&tacker("INSTANTIATED"), false).is_ok());
        let mut v1 = tacker("INSTANTIATED");
        v1.api = "v1";
        let why = check(&v1, false).unwrap_err();
        assert!(why.contains("v1 API"), "{why}");
        assert!(check(&tacker("STARTED"), false).is_err());
        let why = check(&tacker("NOT_INSTANTIATED"), true).unwrap_err();
        assert!(why.contains("not ended"), "{why}");
        // v1's list of Tacker's objects: a reference to a registered VIM, by its id.
        let mut v1 = tacker("NOT_INSTANTIATED");
        v1.vim_connection_info = Some(
            r#"[{"tacker_object.name": "VimConnectionInfo", "tacker_object.data":
                {"id": "c1", "vim_id": "v-1", "vim_type": "openstack", "interface_info": {},
                 "access_info": {}, "extra": {}}}]"#
                .into(),
        );
        let c = connections(&v1).unwrap();
        assert_eq!(c["c1"].reference(), Some("v-1"), "{:?}", c["c1"]);
        let mut v2 = tacker("NOT_INSTANTIATED");
        v2.vim_connection_info = Some(
            r#""{\"vim1\": {\"vimId\": \"v-2\", \"vimType\": \"ETSINFV.OPENSTACK_KEYSTONE.V_3\"}}""#
                .into(),
        );
        assert_eq!(connections(&v2).unwrap()["vim1"].reference(), Some("v-2"));
        let mut orphan = tacker("NOT_INSTANTIATED");
        orphan.package = None;
        assert!(check(&orphan, false).unwrap_err().contains("vnfd-1"));
        // Tacker encodes some columns twice.
        let m = object(tacker("x").metadata.as_deref(), "metadata").unwrap();
        assert_eq!(m["k"], "v");
    }
}
