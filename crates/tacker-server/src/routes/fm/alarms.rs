//! `/vnffm/v1/alarms`: list, read, acknowledge.

use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::json;
use tacker_db::alarms::{self, Acknowledged};
use tacker_domain::fm::{ALARM_ATTRIBUTES, AckState, Alarm};
use tacker_domain::sol013::Marker;

use super::{bases, sees};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, Listable, Listed, PatchBody, Scoped};
use crate::{ApiError, ServerState};

pub async fn list(
    Call { req, who, st }: Call,
    Listed(q, _): Listed<Alarm>,
) -> Result<HttpResponse, ApiError> {
    let tenant = who.scope().map(str::to_owned);
    let all = st.db.alarms().list(tenant.as_deref()).await?;
    let (fm, lcm) = bases(&req, &st);
    let mut docs = Vec::with_capacity(all.len());
    for (a, created) in all {
        if sees(&st, &who, a.tenant.as_deref(), a.vnf_instance_id).await? {
            docs.push((Marker::of(created, a.id.to_string()), a.to_json(&fm, &lcm)));
        }
    }
    super::super::paged(
        &q,
        docs,
        st.settings.page_size,
        &format!("{fm}/alarms"),
        &[],
    )
}

/// The alarm at `raw`, if the caller sees its instance (404 otherwise).
impl Scoped for Alarm {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let a = crate::http::load(st, raw, "alarm", alarms::get).await?;
        let seen = sees(st, who, a.tenant.as_deref(), a.vnf_instance_id).await?;
        crate::http::if_seen(a, seen, "alarm", raw)
    }
}

pub async fn show(
    Call { req, st, .. }: Call,
    _: AcceptsJson,
    ByPath(a): ByPath<Alarm>,
) -> Result<HttpResponse, ApiError> {
    let (fm, lcm) = bases(&req, &st);
    Ok(HttpResponse::Ok().json(a.to_json(&fm, &lcm)))
}

/// `AlarmModifications`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Modifications {
    ack_state: AckState,
}

/// `PATCH /alarms/{id}`: acknowledges (or un-acknowledges) the alarm; 409 when it is in
/// that state already. Answers the modifications.
pub async fn modify(
    Call { st, .. }: Call,
    ByPath(a): ByPath<Alarm>,
    PatchBody(m): PatchBody<Modifications>,
) -> Result<HttpResponse, ApiError> {
    let (id, state) = (a.id, m.ack_state);
    match st.db.alarms().acknowledge(id, state).await? {
        Acknowledged::Changed(_) => {
            tracing::info!(alarm_id = %id, ack_state = %state, "alarm acknowledgement changed");
            Ok(HttpResponse::Ok().json(json!({"ackState": state})))
        }
        Acknowledged::Same => Err(ApiError::Conflict(format!("alarm {id} is {state} already"))),
        Acknowledged::Missing => Err(ApiError::NotFound(format!("alarm {id} not found"))),
    }
}

impl Listable for Alarm {
    const ATTRIBUTES: &'static [&'static str] = ALARM_ATTRIBUTES;
    const EVERY_ATTRIBUTE: bool = true;
}
