//! Bearer-token or basic authentication of the Kubernetes API paths.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use base64::Engine;

use crate::Sim;
use crate::error::ApiErr;

/// Paths anyone may call (as on a real API server) and the simulator's own.
fn open(path: &str) -> bool {
    matches!(path, "/version" | "/healthz" | "/readyz" | "/livez") || path.starts_with("/sim/")
}

/// Whether the `Authorization` header satisfies the simulator's settings.
pub fn allowed(sim: &Sim, header: Option<&str>) -> bool {
    if sim.token.is_none() && sim.basic.is_none() {
        return true;
    }
    let Some(h) = header else { return false };
    if let (Some(t), Some(got)) = (&sim.token, h.strip_prefix("Bearer ")) {
        return got.trim() == t;
    }
    if let (Some((u, p)), Some(got)) = (&sim.basic, h.strip_prefix("Basic ")) {
        let expect = base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"));
        return got.trim() == expect;
    }
    false
}

/// The middleware.
pub async fn check(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let ok = open(req.path())
        || req
            .app_data::<web::Data<std::sync::Arc<Sim>>>()
            .is_none_or(|sim| {
                allowed(
                    sim,
                    req.headers()
                        .get("authorization")
                        .and_then(|h| h.to_str().ok()),
                )
            });
    if !ok {
        let resp = ApiErr::other(401, "Unauthorized").response();
        return Ok(req.into_response(resp));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}
