//! The `Version` header of the SOL013 APIs that require it (`/vnflcm/v2`, `/vnffm/v1`).

use actix_web::ResponseError;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;

use actix_web::HttpResponse;

use crate::ApiError;

const VERSION: HeaderName = HeaderName::from_static("version");

/// Requires `Version: <current>` (or one of `also`, its short forms) on every request
/// but the version query (400 missing, 406 unsupported); answers with `Version`.
pub async fn require(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    current: &'static str,
    also: &[&str],
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if !req.path().ends_with("/api_versions") {
        let problem = match req
            .headers()
            .get(&VERSION)
            .map(|v| v.to_str().unwrap_or_default().trim().to_owned())
        {
            None => Some(ApiError::BadRequest(format!(
                "the Version header is required (e.g. Version: {current})"
            ))),
            Some(v) if v == current || also.contains(&v.as_str()) => None,
            Some(v) => Some(ApiError::NotAcceptable(format!(
                "API version {v:?} is not supported; use {current}"
            ))),
        };
        if let Some(p) = problem {
            let mut resp = p.error_response();
            resp.headers_mut()
                .insert(VERSION, HeaderValue::from_static(current));
            return Ok(req.into_response(resp));
        }
    }
    let mut res = next.call(req).await?.map_into_boxed_body();
    res.headers_mut()
        .insert(VERSION, HeaderValue::from_static(current));
    Ok(res)
}

/// The answer of `<prefix>/api_versions` for an API of one version.
pub fn one(prefix: &str, current: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((VERSION, current))
        .json(serde_json::json!({"uriPrefix": prefix,
            "apiVersions": [{"version": current, "isDeprecated": false}]}))
}

/// The `version` middleware and the `api_versions` handler of an API of one version
/// (`$current`, also accepted as `$also`) under `$prefix`.
macro_rules! one_version {
    ($prefix:literal, $current:expr, [$($also:literal),*]) => {
        #[doc = concat!("Requires the `Version` of `", $prefix, "` on every request but the version query.")]
        pub(in crate::routes) async fn version(
            req: actix_web::dev::ServiceRequest,
            next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
        ) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error>
        {
            crate::routes::version::require(req, next, $current, &[$($also),*]).await
        }

        #[doc = concat!("`GET ", $prefix, "/api_versions`.")]
        pub(in crate::routes) async fn api_versions() -> actix_web::HttpResponse {
            crate::routes::version::one($prefix, $current)
        }
    };
}
pub(crate) use one_version;
