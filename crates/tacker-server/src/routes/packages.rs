//! SOL005 VNF package resources: create, list, show, modify, delete.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tacker_db::packages;
use tacker_domain::package::{
    OnboardingState, OperationalState, VNF_PKG_INFO_ATTRIBUTES, VNF_PKG_INFO_DEFAULT_EXCLUDED,
    VnfPackage, merge_patch,
};
use uuid::Uuid;

use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Listable, Listed, PatchBody, Scoped};
use crate::http::{base_url, created, parse_id};
use crate::routes::Doc;
use crate::routes::scan::scanned;
use crate::scope::sees_package;
use crate::{ApiError, ServerState};

fn api_base(req: &HttpRequest, st: &ServerState) -> String {
    format!("{}/vnfpkgm/v1", base_url(req, st))
}

/// `CreateVnfPkgInfoRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    #[serde(default)]
    user_defined_data: Option<Map<String, Value>>,
}

pub async fn create(
    Call { req, who, st }: Call,
    JsonBody(body): JsonBody<CreateRequest>,
) -> Result<HttpResponse, ApiError> {
    let pkg = VnfPackage::new(
        Uuid::new_v4(),
        body.user_defined_data.unwrap_or_default(),
        chrono::Utc::now(),
    )
    .owned_by(who.owner());
    st.db.packages().insert(&pkg).await?;
    tracing::info!(package_id = %pkg.id, "VNF package created");
    Ok(created(pkg.to_info(&api_base(&req, &st))))
}

pub async fn list(
    Call { req, who, st }: Call,
    listed: Listed<packages::Stored>,
) -> Result<HttpResponse, ApiError> {
    let base = api_base(&req, &st);
    let left_out = listed.left_out();
    // The database narrows to the tenant's own packages and the shared ones.
    let listing = listed.listing(&st, &who, format!("{base}/vnf_packages"));
    scanned(
        &st,
        listing,
        packages::list_from,
        |p| {
            let doc = Doc::rendered(&listed.0, &p.info(&base, &left_out));
            (p.created_at, p.id.to_string(), doc)
        },
        |p| sees_package(&who, p),
    )
    .await
}

/// The package at `raw_id`, if the caller sees it: its tenant's or a shared one, of a
/// vendor the caller sees (else 404, as absent).
pub async fn load(
    st: &ServerState,
    raw_id: &str,
    who: &Principal,
) -> Result<packages::Stored, ApiError> {
    let stored = crate::http::load(st, raw_id, "VNF package", packages::get).await?;
    let (seen, id) = (sees_package(who, &stored.package), stored.package.id);
    crate::http::if_seen(stored, seen, "VNF package", id)
}

/// The package at `raw_id`, if the caller may change it: one it sees, and a shared one
/// (of no tenant) only when the caller is confined to no tenant (403 otherwise).
pub async fn load_to_change(
    st: &ServerState,
    raw_id: &str,
    who: &Principal,
) -> Result<packages::Stored, ApiError> {
    let stored = load(st, raw_id, who).await?;
    if stored.package.tenant.is_none() && who.scope().is_some() {
        return Err(ApiError::Forbidden(format!(
            "VNF package {} is shared by every tenant: only an administrator changes it",
            stored.package.id
        )));
    }
    Ok(stored)
}

impl Scoped for packages::Stored {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        load(st, raw, who).await
    }
}

pub async fn show(
    Call { req, st, .. }: Call,
    _: AcceptsJson,
    ByPath(stored): ByPath<packages::Stored>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(stored.package.to_info(&api_base(&req, &st))))
}

/// `VnfPkgInfoModifications`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Modifications {
    #[serde(default)]
    operational_state: Option<String>,
    #[serde(default)]
    user_defined_data: Option<Map<String, Value>>,
}

/// Attempts before a PATCH gives up on concurrent writers.
const MODIFY_ATTEMPTS: usize = 8;

pub async fn modify(
    Call { who, st, .. }: Call,
    path: web::Path<String>,
    PatchBody(m): PatchBody<Modifications>,
) -> Result<HttpResponse, ApiError> {
    let id = parse_id(&path, "VNF package")?;
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
        let stored = load_to_change(&st, &path, &who).await?;
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
            .packages()
            .modify(id, rev, op_state, data.as_ref())
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
    Call { who, st, .. }: Call,
    _: AcceptsJson,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let stored = load_to_change(&st, &path, &who).await?;
    let id = stored.package.id;
    if let Some(reason) = stored.package.delete_conflict() {
        return Err(ApiError::Conflict(reason));
    }
    if !st.db.packages().soft_delete(id).await? {
        // It changed between the read and the update: report what it is now.
        let now = load(&st, &path, &who).await?;
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

impl Listable for packages::Stored {
    const ATTRIBUTES: &'static [&'static str] = VNF_PKG_INFO_ATTRIBUTES;
    const DEFAULT_EXCLUDED: &'static [&'static str] = VNF_PKG_INFO_DEFAULT_EXCLUDED;
}

/// The stored model of package `id` (present once onboarding stored it).
pub async fn stored_model(
    st: &ServerState,
    id: Uuid,
) -> Result<Option<tacker_domain::vnfd::PackageModel>, ApiError> {
    Ok(st.db.packages().model(id).await?)
}
