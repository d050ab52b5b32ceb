//! The package management API (SOL005 `/vnfpkgm/v1`): its versions and its base URL
//! (its subscriptions are `subscriptions`').

use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

use crate::ServerState;
use crate::http::base_url;

/// The SOL005 version served.
pub const PKGM_API_VERSION: &str = "2.6.1";

/// `<base>/vnfpkgm/v1`.
pub(super) fn api_base(req: &HttpRequest, st: &ServerState) -> String {
    format!("{}/vnfpkgm/v1", base_url(req, st))
}

/// `GET /vnfpkgm/api_versions`, `GET /vnfpkgm/v1/api_versions`.
pub async fn api_versions(req: HttpRequest) -> HttpResponse {
    let prefix = if req.path().starts_with("/vnfpkgm/v1") {
        "/vnfpkgm/v1"
    } else {
        "/vnfpkgm"
    };
    HttpResponse::Ok().json(json!({"uriPrefix": prefix,
        "apiVersions": [{"version": PKGM_API_VERSION, "isDeprecated": false}]}))
}
