//! VNF instances: create, list, show, modify (an operation), delete.

use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::{Map, Value};
use tacker_db::instances;
use tacker_domain::lcm::request::ModifyRequest;
use tacker_domain::lcm::{
    InstantiationState, OperationParams, VNF_INSTANCE_ATTRIBUTES, VNF_INSTANCE_DEFAULT_EXCLUDED,
    VnfInstance,
};
use uuid::Uuid;

use super::{Api, check_vims, start};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Listable, Listed, PatchBody, Scoped};
use crate::http::created;
use crate::routes::Doc;
use crate::routes::scan::scanned;
use crate::scope::{sees_instance, vim_areas};
use crate::{ApiError, ServerState};

/// `CreateVnfRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    vnfd_id: String,
    #[serde(default)]
    vnf_instance_name: Option<String>,
    #[serde(default)]
    vnf_instance_description: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

pub async fn create(
    Call { req, who, st }: Call,
    api: Api,
    JsonBody(b): JsonBody<CreateRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = super::usable_package(&st, &who, &b.vnfd_id, who.owner().as_deref()).await?;
    let instance = VnfInstance {
        id: Uuid::new_v4(),
        name: b.vnf_instance_name,
        description: b.vnf_instance_description,
        vnfd_id: b.vnfd_id,
        vnf_pkg_id: package.id,
        vnf_provider: package.provider,
        vnf_product_name: package.product_name,
        vnf_software_version: package.software_version,
        vnfd_version: package.vnfd_version,
        instantiation_state: InstantiationState::NotInstantiated,
        instantiated_vnf_info: None,
        vim_connection_info: Default::default(),
        metadata: b.metadata.unwrap_or_default(),
        extensions: Map::new(),
        vnf_configurable_properties: Map::new(),
        current_op: None,
        created_at: chrono::Utc::now(),
        tenant: who.owner(),
    };
    let quota = st.settings.max_instances_per_tenant;
    match st.db.instances().create(&instance, quota).await? {
        instances::CreateOutcome::Created => {}
        instances::CreateOutcome::QuotaReached => {
            return Err(super::subscriptions::quota_reached(
                "VNF instances",
                quota,
                instance.tenant,
            ));
        }
        instances::CreateOutcome::NoUsablePackage => {
            return Err(ApiError::Unprocessable(format!(
                "the package of vnfdId {} is no longer usable",
                instance.vnfd_id
            )));
        }
    }
    tracing::info!(vnf_instance_id = %instance.id, "VNF instance created");
    Ok(created(api.instance_json(&instance, &api.base(&req, &st))))
}

pub async fn list(
    Call { req, who, st }: Call,
    api: Api,
    listed: Listed<VnfInstance>,
) -> Result<HttpResponse, ApiError> {
    let base = api.base(&req, &st);
    let areas = vim_areas(&st, &who).await?;
    let left_out = listed.left_out();
    let listing = listed.listing(&st, &who, format!("{base}/vnf_instances"));
    scanned(
        &st,
        listing,
        instances::list_from,
        |i| {
            let doc = Doc::rendered(&listed.0, &i.info(api.0, &base, &left_out));
            (i.created_at, i.id.to_string(), doc)
        },
        |i| sees_instance(&who, i, &areas),
    )
    .await
}

impl Scoped for VnfInstance {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        load(st, raw, who).await
    }
}

/// The instance at `raw`, if the caller sees it (another tenant's, vendor's or area's is
/// 404, as absent).
pub async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<VnfInstance, ApiError> {
    let i = crate::http::load(st, raw, "VNF instance", instances::get).await?;
    let (seen, id) = (sees_instance(who, &i, &*vim_areas(st, who).await?), i.id);
    crate::http::if_seen(i, seen, "VNF instance", id)
}

/// `PATCH`: a MODIFY_INFO operation, applied by a conductor.
pub async fn modify(
    Call { req, who, st }: Call,
    api: Api,
    PatchBody(raw): PatchBody<Value>,
    ByPath(instance): ByPath<VnfInstance>,
) -> Result<HttpResponse, ApiError> {
    let mut m = ModifyRequest::parse(&raw, api.0)?;
    m.check(&instance)?;
    package_change(&st, &who, &instance, &mut m).await?;
    check_vims(
        &st,
        &who,
        instance.tenant.as_deref(),
        m.vim_connection_info
            .iter()
            .flatten()
            .filter_map(|(k, v)| v.as_ref().map(|v| (k, v))),
    )
    .await?;
    start(
        &st,
        &api.base(&req, &st),
        instance.id,
        OperationParams::ModifyInfo(m),
        raw,
        &[],
    )
    .await
}

/// A PATCH naming another package (`vnfdId`, or `vnfPkgId` through v1): allowed when that
/// package is ONBOARDED and ENABLED and, for an instantiated VNF, its VNFD has the
/// flavour in use with the same VDUs (Tacker's rule). The request then names the new
/// vnfdId (`vnfPkgId` resolved), or none when it is the current one.
async fn package_change(
    st: &ServerState,
    who: &Principal,
    instance: &VnfInstance,
    m: &mut ModifyRequest,
) -> Result<(), ApiError> {
    if let Some(p) = m
        .vnf_pkg_id
        .take()
        .filter(|p| *p != instance.vnf_pkg_id.to_string())
    {
        let id = crate::http::parse_id(&p, "VNF package")?;
        let stored = st
            .db
            .packages()
            .get(id)
            .await?
            .filter(|s| s.package.tenant.is_none() || s.package.tenant == instance.tenant)
            .ok_or_else(|| ApiError::Unprocessable(format!("VNF package {p} not found")))?;
        let vnfd = stored
            .package
            .descriptor
            .as_ref()
            .map(|d| d.vnfd_id.clone())
            .ok_or_else(|| {
                ApiError::Unprocessable(format!("VNF package {p} has no VNFD (not onboarded)"))
            })?;
        if m.vnfd_id.as_ref().is_some_and(|v| *v != vnfd) {
            return Err(ApiError::Unprocessable(format!(
                "vnfPkgId {p} is not the package of vnfdId {}",
                m.vnfd_id.as_deref().unwrap_or_default()
            )));
        }
        m.vnfd_id = Some(vnfd);
    }
    let Some(vnfd) = m.new_vnfd(instance).map(str::to_owned) else {
        m.vnfd_id = None;
        return Ok(());
    };
    let target = super::usable_package(st, who, &vnfd, instance.tenant.as_deref()).await?;
    let Some(info) = &instance.instantiated_vnf_info else {
        return Ok(());
    };
    let pkg = target.id;
    let (old_pkg, fid) = (instance.vnf_pkg_id, info.flavour_id.clone());
    let (new, old) = st
        .db
        .run(move |c| {
            Ok::<_, tacker_db::Error>((
                tacker_db::packages::model(c, pkg)?,
                tacker_db::packages::model(c, old_pkg)?,
            ))
        })
        .await?;
    let vdus = |m: Option<&tacker_domain::vnfd::PackageModel>| {
        let mut v: Vec<String> = m
            .and_then(|m| m.vnfd.flavour(&fid))
            .map(|f| f.vdus.iter().map(|v| v.id.clone()).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    let (now, then) = (vdus(old.as_ref()), vdus(new.as_ref()));
    if then.is_empty() || now != then {
        return Err(ApiError::Unprocessable(format!(
            "vnfdId {vnfd} is not compatible: flavour {fid:?} must have the same VDUs \
             ({}; it has {})",
            now.join(", "),
            if then.is_empty() {
                "no such flavour".to_owned()
            } else {
                then.join(", ")
            }
        )));
    }
    Ok(())
}

pub async fn delete(
    Call { st, .. }: Call,
    _: AcceptsJson,
    ByPath(i): ByPath<VnfInstance>,
) -> Result<HttpResponse, ApiError> {
    let id = i.id;
    match st.db.instances().delete(id).await? {
        instances::DeleteOutcome::Deleted => {
            tracing::info!(vnf_instance_id = %id, "VNF instance deleted");
            Ok(HttpResponse::NoContent().finish())
        }
        instances::DeleteOutcome::NotFound => {
            Err(ApiError::NotFound(format!("VNF instance {id} not found")))
        }
        instances::DeleteOutcome::Busy => Err(ApiError::Conflict(format!(
            "VNF instance {id} is INSTANTIATED or has an operation on it; only a NOT_INSTANTIATED instance can be deleted"
        ))),
    }
}

impl Listable for VnfInstance {
    const ATTRIBUTES: &'static [&'static str] = VNF_INSTANCE_ATTRIBUTES;
    const DEFAULT_EXCLUDED: &'static [&'static str] = VNF_INSTANCE_DEFAULT_EXCLUDED;
}
