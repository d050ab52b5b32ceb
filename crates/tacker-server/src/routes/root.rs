//! `GET /`: the API versions, as Tacker's root answers them (upstream api-ref
//! `versions.inc`: the `v1.0` API of VIMs, with a link to it).

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::ServerState;
use crate::http::base_url;

/// `GET /`.
pub async fn versions(req: HttpRequest, st: web::Data<ServerState>) -> HttpResponse {
    let base = base_url(&req, &st);
    HttpResponse::Ok().json(json!({"versions": [{
        "id": "v1.0",
        "status": "CURRENT",
        "links": [{"rel": "self", "href": format!("{base}/v1.0/")}],
    }]}))
}
