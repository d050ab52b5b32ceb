//! What PM jobs and thresholds share: a list of the caller's tenant, a read, a change of
//! the callback, and a delete that removes their Prometheus rules first.

use actix_web::HttpResponse;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use tacker_db::DbConnection;
use tacker_domain::lcm::SubscriptionAuth;
use tacker_domain::pm::job::PmJob;
use tacker_domain::pm::threshold::Threshold;
use tacker_domain::sol013::Marker;
use uuid::Uuid;

use super::{bases, deliver};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, Listable, Listed, PatchBody, Scoped};
use crate::routes::lcm::subscriptions::{Authentication, checked_auth};
use crate::{ApiError, ServerState};

/// A PM job or a threshold, as the routes handle it.
pub trait PmResource: Scoped + Listable + Send + Sync {
    /// Its name in messages ("PM job").
    const NAME: &'static str;
    /// Its collection under `/vnfpm/v2`.
    const COLLECTION: &'static str;
    /// Whether its rules are a threshold's.
    const THRESHOLD: bool;
    /// Its id.
    fn id(&self) -> Uuid;
    /// Its tenant.
    fn tenant(&self) -> Option<&str>;
    /// Where its notifications go.
    fn callback_uri(&self) -> &str;
    /// Its representation.
    fn to_json(&self, pm: &str, lcm: &str) -> Value;
    /// Every one of `tenant` (all without one), with its creation time.
    fn list(
        c: &mut DbConnection,
        tenant: Option<&str>,
    ) -> tacker_db::Result<Vec<(Self, DateTime<Utc>)>>;
    /// The one with `id`.
    fn get(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<Option<Self>>;
    /// Changes its callback; `None` when it is gone.
    fn set_callback(
        c: &mut DbConnection,
        id: Uuid,
        callback_uri: Option<String>,
        authentication: Option<Option<SubscriptionAuth>>,
    ) -> tacker_db::Result<Option<Self>>;
    /// Deletes it.
    fn delete(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<bool>;
}

/// Implements [`PmResource`] for `$t` over the table module `$table`.
macro_rules! pm_resource {
    ($t:ty, $table:ident, $name:literal, $collection:literal, $attributes:path, $threshold:literal) => {
        impl PmResource for $t {
            const NAME: &'static str = $name;
            const COLLECTION: &'static str = $collection;
            const THRESHOLD: bool = $threshold;
            fn id(&self) -> Uuid {
                self.id
            }
            fn tenant(&self) -> Option<&str> {
                self.tenant.as_deref()
            }
            fn callback_uri(&self) -> &str {
                &self.callback_uri
            }
            fn to_json(&self, pm: &str, lcm: &str) -> Value {
                <$t>::to_json(self, pm, lcm)
            }
            fn list(
                c: &mut DbConnection,
                t: Option<&str>,
            ) -> tacker_db::Result<Vec<(Self, DateTime<Utc>)>> {
                tacker_db::$table::list(c, t)
            }
            fn get(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<Option<Self>> {
                tacker_db::$table::get(c, id)
            }
            fn set_callback(
                c: &mut DbConnection,
                id: Uuid,
                uri: Option<String>,
                auth: Option<Option<SubscriptionAuth>>,
            ) -> tacker_db::Result<Option<Self>> {
                tacker_db::$table::set_callback(c, id, uri, auth)
            }
            fn delete(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<bool> {
                tacker_db::$table::delete(c, id)
            }
        }

        impl Listable for $t {
            const ATTRIBUTES: &'static [&'static str] = $attributes;
            const EVERY_ATTRIBUTE: bool = true;
        }
    };
}

pm_resource!(
    PmJob,
    pm_jobs,
    "PM job",
    "pm_jobs",
    tacker_domain::pm::job::PM_JOB_ATTRIBUTES,
    false
);
pm_resource!(
    Threshold,
    pm_thresholds,
    "threshold",
    "thresholds",
    tacker_domain::pm::threshold::THRESHOLD_ATTRIBUTES,
    true
);

/// The job or threshold `raw`, when `who` sees its instances' tenant (404 otherwise).
pub async fn load<T: PmResource>(
    st: &ServerState,
    raw: &str,
    who: &Principal,
) -> Result<T, ApiError> {
    let r = crate::http::load(st, raw, T::NAME, T::get).await?;
    let seen = who.sees(r.tenant());
    crate::http::if_seen(r, seen, T::NAME, raw)
}

pub async fn list<T: PmResource>(
    Call { req, who, st }: Call,
    Listed(q, _): Listed<T>,
) -> Result<HttpResponse, ApiError> {
    let tenant = who.scope().map(str::to_owned);
    let all = st.db.run(move |c| T::list(c, tenant.as_deref())).await?;
    let (pm, lcm) = bases(&req, &st);
    let docs = all
        .iter()
        .filter(|(r, _)| who.sees(r.tenant()))
        .map(|(r, at)| (Marker::of(*at, r.id().to_string()), r.to_json(&pm, &lcm)));
    let url = format!("{pm}/{}", T::COLLECTION);
    super::super::paged(&q, docs, st.settings.page_size, &url, &[])
}

pub async fn show<T: PmResource>(
    Call { req, st, .. }: Call,
    _: AcceptsJson,
    ByPath(r): ByPath<T>,
) -> Result<HttpResponse, ApiError> {
    let (pm, lcm) = bases(&req, &st);
    Ok(HttpResponse::Ok().json(r.to_json(&pm, &lcm)))
}

/// `PmJobModifications` / `ThresholdModifications`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Modifications {
    #[serde(default)]
    callback_uri: Option<String>,
    #[serde(default)]
    authentication: Option<Authentication>,
}

pub async fn modify<T: PmResource>(
    Call { st, .. }: Call,
    ByPath(r): ByPath<T>,
    PatchBody(m): PatchBody<Modifications>,
) -> Result<HttpResponse, ApiError> {
    if m.callback_uri.is_none() && m.authentication.is_none() {
        return Err(ApiError::BadRequest(
            "give callbackUri and/or authentication to modify".into(),
        ));
    }
    let uri = m
        .callback_uri
        .clone()
        .unwrap_or_else(|| r.callback_uri().to_owned());
    let auth_given = m.authentication.is_some();
    let authentication = checked_auth(&st, &uri, m.authentication).await?;
    let (id, new_uri) = (r.id(), m.callback_uri.clone());
    let auth = auth_given.then_some(authentication);
    st.db
        .run(move |c| T::set_callback(c, id, new_uri, auth))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("{} {id} not found", T::NAME)))?;
    let mut out = json!({});
    if let Some(u) = m.callback_uri {
        out["callbackUri"] = json!(u);
    }
    Ok(HttpResponse::Ok().json(out))
}

pub async fn delete<T: PmResource>(
    Call { st, .. }: Call,
    ByPath(r): ByPath<T>,
) -> Result<HttpResponse, ApiError> {
    let id = r.id();
    deliver(&st, id, T::THRESHOLD, true).await?;
    st.db.run(move |c| T::delete(c, id)).await?;
    tracing::info!(%id, "{} deleted", T::NAME);
    Ok(HttpResponse::NoContent().finish())
}
