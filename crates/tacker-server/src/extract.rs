//! Extractors for what every JSON handler repeats: content negotiation, the request's
//! Content-Type, the body limit and a precise 400 for a body that does not parse, a
//! list's query ([`Listed`]), and the resource a path names, loaded as the caller may see
//! it ([`ByPath`]).
//! (The `Version` header of `/vnflcm` is the `lcm::version` middleware's.)

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use serde::de::DeserializeOwned;

use crate::auth::Principal;
use crate::http::{json_body, negotiate, require_content_type};
use crate::query::ListQuery;
use crate::{ApiError, ServerState};

/// The media type of every JSON answer and request body.
pub const JSON: &str = "application/json";
/// A JSON merge patch (RFC 7396).
pub const MERGE_PATCH: &str = "application/merge-patch+json";

/// The client accepts a JSON answer (else 406).
#[derive(Debug, Clone, Copy)]
pub struct AcceptsJson;

impl FromRequest for AcceptsJson {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(negotiate(req, &[JSON]).map(|()| AcceptsJson))
    }
}

/// What may be listed: the attributes a list query may name.
pub trait Listable {
    /// The attributes a filter, `fields` or `exclude_fields` may name.
    const ATTRIBUTES: &'static [&'static str];
    /// Whether answers carry every attribute whatever the query (FM, PM, subscriptions:
    /// no attribute selectors in their APIs).
    const EVERY_ATTRIBUTE: bool = false;
    /// The attributes left out of an answer unless asked for (`exclude_default`).
    const DEFAULT_EXCLUDED: &'static [&'static str] = &[];
}

/// The query of a list of `T` (SOL013 filter, attribute selectors, paging marker): the
/// client must accept JSON (else 406) and the query parse (else 400).
#[derive(Debug)]
pub struct Listed<T>(pub ListQuery, pub PhantomData<T>);

impl<T: Listable> FromRequest for Listed<T> {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let max_terms = req
            .app_data::<web::Data<ServerState>>()
            .map(|st| st.settings.max_filter_terms)
            .ok_or_else(|| ApiError::Internal("no server state".into()));
        std::future::ready(negotiate(req, &[JSON]).and_then(|()| {
            let mut q = ListQuery::parse(req.query_string(), T::ATTRIBUTES, max_terms?)?;
            if T::EVERY_ATTRIBUTE {
                q.selector = tacker_domain::sol013::Selector::All;
            }
            Ok(Listed(q, PhantomData))
        }))
    }
}

type Reading<T> = Pin<Box<dyn Future<Output = Result<T, ApiError>>>>;

fn read<T: DeserializeOwned + 'static>(
    req: &HttpRequest,
    payload: &mut Payload,
    content_types: &'static [&'static str],
) -> Reading<T> {
    let checked = negotiate(req, &[JSON]).and_then(|()| require_content_type(req, content_types));
    let limit = req
        .app_data::<web::Data<ServerState>>()
        .map(|st| st.settings.max_json_body)
        .unwrap_or(1024 * 1024);
    let body = web::Payload::from_request(req, payload).into_inner();
    Box::pin(async move {
        checked?;
        let body = body.map_err(|e| ApiError::BadRequest(format!("reading the body: {e}")))?;
        json_body(body, limit).await
    })
}

macro_rules! body_extractor {
    ($(#[$doc:meta])* $name:ident, $types:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<T>(pub T);

        impl<T: DeserializeOwned + 'static> FromRequest for $name<T> {
            type Error = ApiError;
            type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

            fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
                let reading = read::<T>(req, payload, $types);
                Box::pin(async move { reading.await.map($name) })
            }
        }
    };
}

body_extractor!(
    /// A JSON request body read into `T` (the client must also accept JSON).
    JsonBody,
    &[JSON]
);
body_extractor!(
    /// A PATCH body (`application/merge-patch+json`, or plain JSON) read into `T`.
    PatchBody,
    &[MERGE_PATCH, JSON]
);

/// A resource the caller may see, named by the path's `{id}`.
pub trait Scoped: Sized + 'static {
    /// The resource `raw` names, if `who` sees it (404 otherwise, as absent).
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError>;
}

/// The resource of the path's `{id}` as [`Scoped::load`] reads it: 404 for an id that
/// names nothing the caller sees, before the handler runs.
#[derive(Debug)]
pub struct ByPath<T>(pub T);

impl<T: Scoped> FromRequest for ByPath<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let st = req.app_data::<web::Data<ServerState>>().cloned();
        let who = actix_web::HttpMessage::extensions(req)
            .get::<Principal>()
            .cloned();
        let raw = req.match_info().get("id").unwrap_or_default().to_owned();
        Box::pin(async move {
            let st = st.ok_or_else(|| ApiError::Internal("no server state".into()))?;
            let who = who.ok_or_else(|| ApiError::Unauthorized("no valid token".into()))?;
            T::load(&st, &raw, &who).await.map(ByPath)
        })
    }
}

/// What most handlers work with: the request, the caller (401 without one) and the
/// server.
pub struct Call {
    /// The request.
    pub req: HttpRequest,
    /// The caller.
    pub who: Principal,
    /// The server.
    pub st: web::Data<ServerState>,
}

impl FromRequest for Call {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let call = Principal::from_request(req, payload)
            .into_inner()
            .and_then(|who| {
                let st = req
                    .app_data::<web::Data<ServerState>>()
                    .cloned()
                    .ok_or_else(|| ApiError::Internal("no server state".into()))?;
                Ok(Call {
                    req: req.clone(),
                    who,
                    st,
                })
            });
        std::future::ready(call)
    }
}
