//! SOL005 VNF package resources: create, list, show, modify, delete.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tacker_db::packages;
use tacker_domain::package::{
    OnboardingState, OperationalState, VNF_PKG_INFO_ATTRIBUTES, VNF_PKG_INFO_DEFAULT_EXCLUDED,
    VnfPackage, merge_patch,
};
use tacker_domain::sol013::{Marker, paginate};
use uuid::Uuid;

use crate::http::{base_url, json_body, negotiate, parse_id, require_content_type};
use crate::query::ListQuery;
use crate::{ApiError, ServerState};

const JSON: &str = "application/json";

fn api_base(req: &HttpRequest, st: &ServerState) -> String {
    format!("{}/vnfpkgm/v1", base_url(req, st))
}

/// `CreateVnfPkgInfoRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateRequest {
    #[serde(default)]
    user_defined_data: Option<Map<String, Value>>,
}

pub async fn create(
    req: HttpRequest,
    body: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    require_content_type(&req, &[JSON])?;
    let body: CreateRequest = json_body(body, st.settings.max_json_body).await?;
    let pkg = VnfPackage::new(
        Uuid::new_v4(),
        body.user_defined_data.unwrap_or_default(),
        chrono::Utc::now(),
    );
    let stored = pkg.clone();
    st.db.run(move |c| packages::insert(c, &stored)).await?;
    let info = pkg.to_info(&api_base(&req, &st));
    let location = info["_links"]["self"]["href"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    tracing::info!(package_id = %pkg.id, "VNF package created");
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, location))
        .json(info))
}

pub async fn list(req: HttpRequest, st: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let q = ListQuery::parse(req.query_string(), VNF_PKG_INFO_ATTRIBUTES)?;
    let all = st.db.run(packages::list).await?;
    let base = api_base(&req, &st);
    let docs = all.iter().filter_map(|p| {
        let doc = p.to_info(&base);
        let keep = q.filter.as_ref().is_none_or(|f| f.matches(&doc));
        keep.then(|| (Marker::of(p.created_at, p.id.to_string()), doc))
    });
    let page = paginate(
        docs,
        |(m, _)| m.clone(),
        q.marker.as_ref(),
        st.settings.page_size,
    );
    super::paged(
        &q,
        page,
        &format!("{base}/vnf_packages"),
        VNF_PKG_INFO_DEFAULT_EXCLUDED,
    )
}

async fn load(st: &ServerState, raw_id: &str) -> Result<packages::Stored, ApiError> {
    let id = parse_id(raw_id, "VNF package")?;
    st.db
        .run(move |c| packages::get(c, id))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("VNF package {id} not found")))
}

pub async fn show(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let stored = load(&st, &path).await?;
    Ok(HttpResponse::Ok().json(stored.package.to_info(&api_base(&req, &st))))
}

/// `VnfPkgInfoModifications`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Modifications {
    #[serde(default)]
    operational_state: Option<String>,
    #[serde(default)]
    user_defined_data: Option<Map<String, Value>>,
}

/// Attempts before a PATCH gives up on concurrent writers.
const MODIFY_ATTEMPTS: usize = 8;

pub async fn modify(
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    require_content_type(&req, &["application/merge-patch+json", JSON])?;
    let id = parse_id(&path, "VNF package")?;
    let m: Modifications = json_body(body, st.settings.max_json_body).await?;
    if m.operational_state.is_none() && m.user_defined_data.is_none() {
        return Err(ApiError::BadRequest(
            "give operationalState and/or userDefinedData to modify".into(),
        ));
    }
    let op_state = m
        .operational_state
        .as_deref()
        .map(|s| {
            s.parse::<OperationalState>().map_err(|_| {
                ApiError::BadRequest(format!(
                    "operationalState {s:?} must be ENABLED or DISABLED"
                ))
            })
        })
        .transpose()?;
    for _ in 0..MODIFY_ATTEMPTS {
        let stored = load(&st, &path).await?;
        let pkg = &stored.package;
        if let Some(op) = op_state {
            if pkg.onboarding_state != OnboardingState::Onboarded {
                return Err(ApiError::Conflict(format!(
                    "VNF package {id} is {}; its operationalState can change only once ONBOARDED",
                    pkg.onboarding_state
                )));
            }
            if pkg.operational_state == op {
                return Err(ApiError::Conflict(format!(
                    "VNF package {id} is already {op}"
                )));
            }
        }
        let data = m.user_defined_data.as_ref().map(|patch| {
            let mut merged = pkg.user_defined_data.clone();
            merge_patch(&mut merged, patch);
            merged
        });
        let rev = stored.revision;
        let done = st
            .db
            .run(move |c| packages::modify(c, id, rev, op_state, data.as_ref()))
            .await?;
        if done {
            let mut answer = Map::new();
            if let Some(op) = op_state {
                answer.insert("operationalState".into(), json!(op));
            }
            if let Some(patch) = m.user_defined_data {
                answer.insert("userDefinedData".into(), Value::Object(patch));
            }
            tracing::info!(package_id = %id, "VNF package modified");
            return Ok(HttpResponse::Ok().json(answer));
        }
    }
    Err(ApiError::Conflict(format!(
        "VNF package {id} is being modified concurrently; try again"
    )))
}

pub async fn delete(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let stored = load(&st, &path).await?;
    let id = stored.package.id;
    if let Some(reason) = stored.package.delete_conflict() {
        return Err(ApiError::Conflict(reason));
    }
    if !st.db.run(move |c| packages::soft_delete(c, id)).await? {
        // It changed between the read and the update: report what it is now.
        let now = load(&st, &path).await?;
        let reason = now
            .package
            .delete_conflict()
            .unwrap_or_else(|| format!("VNF package {id} changed meanwhile; try again"));
        return Err(ApiError::Conflict(reason));
    }
    // Content, if any, leaves storage and every cache: one conductor takes it.
    let id_text = id.to_string();
    let msg = tacker_rpc::proto::DeletePackage {
        package_id: id_text.clone(),
    };
    if let Err(e) = st.bus.cast(&msg, &[("package_id", &id_text)]).await {
        // The package is deleted; conductors also drop stale cache entries when they sync.
        tracing::error!(package_id = %id, error = %e, "could not cast the content removal");
    }
    tracing::info!(package_id = %id, "VNF package deleted");
    Ok(HttpResponse::NoContent().finish())
}
