//! VNF instances: create, list, show, modify (an operation), delete.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value};
use tacker_db::instances;
use tacker_domain::lcm::{
    InstantiationState, LcmOperation, VNF_INSTANCE_ATTRIBUTES, VNF_INSTANCE_DEFAULT_EXCLUDED,
    VnfInstance,
};
use tacker_domain::sol013::{Marker, paginate};
use uuid::Uuid;

use super::{api_base, start};
use crate::http::{json_body, negotiate, parse_id, require_content_type};
use crate::query::ListQuery;
use crate::{ApiError, ServerState};

const JSON: &str = "application/json";

/// `CreateVnfRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateRequest {
    vnfd_id: String,
    #[serde(default)]
    vnf_instance_name: Option<String>,
    #[serde(default)]
    vnf_instance_description: Option<String>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

pub async fn create(
    req: HttpRequest,
    body: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    require_content_type(&req, &[JSON])?;
    let b: CreateRequest = json_body(body, st.settings.max_json_body).await?;
    let vnfd_id = b.vnfd_id.clone();
    let package = st
        .db
        .run(move |c| instances::usable_package(c, &vnfd_id))
        .await?
        .ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "no ONBOARDED and ENABLED VNF package has vnfdId {}",
                b.vnfd_id
            ))
        })?;
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
        vim_connection_info: Map::new(),
        metadata: b.metadata.unwrap_or_default(),
        extensions: Map::new(),
        vnf_configurable_properties: Map::new(),
        current_op: None,
        created_at: chrono::Utc::now(),
    };
    let stored = instance.clone();
    let base = st.settings.lcm_base.clone();
    match st
        .db
        .run(move |c| instances::create(c, &stored, &base))
        .await?
    {
        instances::CreateOutcome::Created => {}
        instances::CreateOutcome::NoUsablePackage => {
            return Err(ApiError::Unprocessable(format!(
                "the package of vnfdId {} is no longer usable",
                instance.vnfd_id
            )));
        }
    }
    let body = instance.to_json(&api_base(&req, &st));
    tracing::info!(vnf_instance_id = %instance.id, "VNF instance created");
    Ok(HttpResponse::Created()
        .insert_header((
            "Location",
            body["_links"]["self"]["href"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ))
        .json(body))
}

pub async fn list(req: HttpRequest, st: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let q = ListQuery::parse(req.query_string(), VNF_INSTANCE_ATTRIBUTES)?;
    let all = st.db.run(instances::list).await?;
    let base = api_base(&req, &st);
    let docs = all.iter().filter_map(|i| {
        let doc = i.to_json(&base);
        q.filter
            .as_ref()
            .is_none_or(|f| f.matches(&doc))
            .then(|| (Marker::of(i.created_at, i.id.to_string()), doc))
    });
    let page = paginate(
        docs,
        |(m, _)| m.clone(),
        q.marker.as_ref(),
        st.settings.page_size,
    );
    crate::routes::paged(
        &q,
        page,
        &format!("{base}/vnf_instances"),
        VNF_INSTANCE_DEFAULT_EXCLUDED,
    )
}

pub async fn load(st: &ServerState, raw: &str) -> Result<VnfInstance, ApiError> {
    let id = parse_id(raw, "VNF instance")?;
    st.db
        .run(move |c| instances::get(c, id))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("VNF instance {id} not found")))
}

pub async fn show(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let i = load(&st, &path).await?;
    Ok(HttpResponse::Ok().json(i.to_json(&api_base(&req, &st))))
}

/// `VnfInfoModificationRequest` (Tacker's v2 form with `vnfdId`; SOL003's `vnfPkgId` too).
/// Parsed to validate the body; the conductor applies it as given.
#[allow(dead_code)]
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Modifications {
    #[serde(default)]
    vnf_instance_name: Option<String>,
    #[serde(default)]
    vnf_instance_description: Option<String>,
    #[serde(default)]
    vnfd_id: Option<String>,
    #[serde(default)]
    vnf_pkg_id: Option<String>,
    #[serde(default)]
    vnf_configurable_properties: Option<Map<String, Value>>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
    #[serde(default)]
    extensions: Option<Map<String, Value>>,
    #[serde(default)]
    vim_connection_info: Option<Map<String, Value>>,
    #[serde(default)]
    vnfc_info_modifications: Option<Vec<Value>>,
}

pub async fn modify(
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    require_content_type(&req, &["application/merge-patch+json", JSON])?;
    let instance = load(&st, &path).await?;
    let raw: Value = json_body(body, st.settings.max_json_body).await?;
    let m: Modifications = serde_json::from_value(raw.clone())
        .map_err(|e| ApiError::BadRequest(format!("invalid request body: {e}")))?;
    if let Some(v) = &m.vim_connection_info {
        super::tasks::check_vims(v)?;
    }
    let other_vnfd = m.vnfd_id.as_ref().is_some_and(|v| *v != instance.vnfd_id);
    let other_pkg = m
        .vnf_pkg_id
        .as_ref()
        .is_some_and(|p| *p != instance.vnf_pkg_id.to_string());
    if other_vnfd || other_pkg {
        return Err(ApiError::Unprocessable(
            "changing the VNF package of an instance through PATCH is not supported".into(),
        ));
    }
    start(
        &st,
        &api_base(&req, &st),
        instance.id,
        LcmOperation::ModifyInfo,
        raw,
    )
    .await
}

pub async fn delete(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let id = parse_id(&path, "VNF instance")?;
    let base = st.settings.lcm_base.clone();
    match st.db.run(move |c| instances::delete(c, id, &base)).await? {
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
