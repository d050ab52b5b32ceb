//! What FM and package subscriptions share: creation once the callback answered its test
//! (duplicates 303, the tenant's quota), a list and a read of what the caller sees (its
//! tenant's, hearing of nothing it could not read), and deletion.

use actix_web::{HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tacker_db::DbConnection;
use tacker_db::pkgm_subscriptions::Insert;
use tacker_domain::fm::subscription::{FmFilter, FmSubscription};
use tacker_domain::lcm::SubscriptionAuth;
use tacker_domain::pkgm::{PkgmFilter, PkgmSubscription};
use tacker_domain::scope::Confinement;
use tacker_domain::sol013::Marker;
use uuid::Uuid;

use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Listable, Listed, Scoped};
use crate::http::created;
use crate::routes::lcm::subscriptions::{Authentication, checked_auth, quota_reached};
use crate::{ApiError, ServerState};

/// The attributes a subscription list filter may name.
const ATTRIBUTES: &[&str] = &["id", "filter", "callbackUri", "_links"];

/// `FmSubscriptionRequest`, `PkgmSubscriptionRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest<F> {
    callback_uri: String,
    #[serde(default = "Option::default")]
    filter: Option<F>,
    #[serde(default)]
    authentication: Option<Authentication>,
}

/// A kind of subscription, as the routes handle it.
pub trait Subscribable: Scoped + Listable + Clone + Send + Sync {
    /// Its filter.
    type Filter: DeserializeOwned + Default + Send;
    /// Its name in messages ("FM subscription").
    const KIND: &'static str;
    /// The base of its API (`…/vnffm/v1`).
    fn base(req: &HttpRequest, st: &ServerState) -> String;
    /// A new one.
    fn new(
        callback_uri: String,
        filter: Self::Filter,
        authentication: Option<SubscriptionAuth>,
        who: &Principal,
    ) -> Self;
    /// Its id.
    fn id(&self) -> Uuid;
    /// Its creator's tenant.
    fn tenant(&self) -> Option<&str>;
    /// Its creator's confinement.
    fn confinement(&self) -> &Confinement;
    /// Its representation.
    fn to_json(&self, base: &str) -> Value;
    /// Stores it (see `tacker_db::pkgm_subscriptions::insert`).
    fn insert(
        c: &mut DbConnection,
        s: &Self,
        refuse: bool,
        quota: u64,
    ) -> tacker_db::Result<Insert>;
    /// Every one, with its creation time.
    fn list(c: &mut DbConnection) -> tacker_db::Result<Vec<(Self, DateTime<Utc>)>>;
    /// The one with `id`.
    fn get(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<Option<Self>>;
    /// Deletes it.
    fn delete(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<bool>;
}

/// Implements [`Subscribable`] for `$t` (filter `$f`) over the table module `$table`.
macro_rules! subscribable {
    ($t:ident, $f:ty, $table:ident, $kind:literal, $base:expr) => {
        impl Subscribable for $t {
            type Filter = $f;
            const KIND: &'static str = $kind;
            fn base(req: &HttpRequest, st: &ServerState) -> String {
                $base(req, st)
            }
            fn new(
                callback_uri: String,
                filter: $f,
                authentication: Option<SubscriptionAuth>,
                who: &Principal,
            ) -> Self {
                $t {
                    id: Uuid::new_v4(),
                    callback_uri,
                    filter,
                    authentication,
                    tenant: who.owner(),
                    confinement: who.confinement(),
                }
            }
            fn id(&self) -> Uuid {
                self.id
            }
            fn tenant(&self) -> Option<&str> {
                self.tenant.as_deref()
            }
            fn confinement(&self) -> &Confinement {
                &self.confinement
            }
            fn to_json(&self, base: &str) -> Value {
                $t::to_json(self, base)
            }
            fn insert(
                c: &mut DbConnection,
                s: &Self,
                refuse: bool,
                quota: u64,
            ) -> tacker_db::Result<Insert> {
                tacker_db::$table::insert(c, s, refuse, quota)
            }
            fn list(c: &mut DbConnection) -> tacker_db::Result<Vec<(Self, DateTime<Utc>)>> {
                tacker_db::$table::list(c)
            }
            fn get(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<Option<Self>> {
                tacker_db::$table::get(c, id)
            }
            fn delete(c: &mut DbConnection, id: Uuid) -> tacker_db::Result<bool> {
                tacker_db::$table::delete(c, id)
            }
        }

        impl Listable for $t {
            const ATTRIBUTES: &'static [&'static str] = ATTRIBUTES;
            const EVERY_ATTRIBUTE: bool = true;
        }

        impl Scoped for $t {
            async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
                load(st, raw, who).await
            }
        }
    };
}

subscribable!(
    FmSubscription,
    FmFilter,
    fm_subscriptions,
    "FM subscription",
    super::fm::base
);
subscribable!(
    PkgmSubscription,
    PkgmFilter,
    pkgm_subscriptions,
    "package subscription",
    super::pkgm::api_base
);

/// Creates a subscription once its callback answered the test GET (204) with the
/// authentication given; a duplicate (same callback and filter) is 303 to the existing
/// one when `refuse_duplicate_subscriptions` (SOL003 and SOL005 let the VNFM refuse it
/// so); over the tenant's quota it is 403.
pub async fn create<T: Subscribable>(
    Call { req, who, st }: Call,
    JsonBody(b): JsonBody<CreateRequest<T::Filter>>,
) -> Result<HttpResponse, ApiError> {
    let authentication = checked_auth(&st, &b.callback_uri, b.authentication).await?;
    let s = T::new(
        b.callback_uri,
        b.filter.unwrap_or_default(),
        authentication,
        &who,
    );
    let stored = s.clone();
    let refuse = st.settings.refuse_duplicate_subscriptions;
    let base = T::base(&req, &st);
    let quota = st.settings.max_subscriptions_per_tenant;
    match st
        .db
        .run(move |c| T::insert(c, &stored, refuse, quota))
        .await?
    {
        Insert::Created => {
            tracing::info!(subscription_id = %s.id(), "{} created", T::KIND);
            Ok(created(s.to_json(&base)))
        }
        Insert::Duplicate(existing) => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", format!("{base}/subscriptions/{existing}")))
            .finish()),
        Insert::OverQuota => Err(quota_reached(&format!("{}s", T::KIND), quota, who.owner())),
    }
}

pub async fn list<T: Subscribable>(
    Call { req, who, st }: Call,
    Listed(q, _): Listed<T>,
) -> Result<HttpResponse, ApiError> {
    let all = st.db.run(T::list).await?;
    let base = T::base(&req, &st);
    let mine = who.confinement();
    let docs = all
        .iter()
        .filter(|(s, _)| who.sees(s.tenant()) && mine.covers(s.confinement()))
        .map(|(s, at)| (Marker::of(*at, s.id().to_string()), s.to_json(&base)));
    let url = format!("{base}/subscriptions");
    super::paged(&q, docs, st.settings.page_size, &url, &[])
}

/// Subscription `raw`, when `who` sees it (its tenant's, hearing of nothing `who` could
/// not read).
async fn load<T: Subscribable>(
    st: &ServerState,
    raw: &str,
    who: &Principal,
) -> Result<T, ApiError> {
    let s = crate::http::load(st, raw, "subscription", T::get).await?;
    let seen = who.sees(s.tenant()) && who.confinement().covers(s.confinement());
    crate::http::if_seen(s, seen, "subscription", raw)
}

pub async fn show<T: Subscribable>(
    Call { req, st, .. }: Call,
    _: AcceptsJson,
    ByPath(s): ByPath<T>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(s.to_json(&T::base(&req, &st))))
}

pub async fn delete<T: Subscribable>(
    Call { st, .. }: Call,
    ByPath(s): ByPath<T>,
) -> Result<HttpResponse, ApiError> {
    let id = s.id();
    if st.db.run(move |c| T::delete(c, id)).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("subscription {id} not found")))
    }
}
