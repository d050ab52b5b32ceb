//! Extractors for what every JSON handler repeats: content negotiation, the request's
//! Content-Type, the body limit and a precise 400 for a body that does not parse.
//! (The `Version` header of `/vnflcm` is the `lcm::version` middleware's.)

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use serde::de::DeserializeOwned;

use crate::http::{json_body, negotiate, require_content_type};
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

/// A JSON request body read into `T` (the client must also accept JSON).
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for JsonBody<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let reading = read::<T>(req, payload, &[JSON]);
        Box::pin(async move { reading.await.map(JsonBody) })
    }
}

/// A PATCH body (`application/merge-patch+json`, or plain JSON) read into `T`.
#[derive(Debug)]
pub struct PatchBody<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for PatchBody<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let reading = read::<T>(req, payload, &[MERGE_PATCH, JSON]);
        Box::pin(async move { reading.await.map(PatchBody) })
    }
}
