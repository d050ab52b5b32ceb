//! Liveness, readiness and metrics.

use std::time::Duration;

use actix_web::{HttpResponse, web};
use serde_json::json;

use crate::{ApiError, ServerState};

pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(json!({"status": "alive"}))
}

/// Ready when the database answers and the bus is reachable.
pub async fn readyz(st: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    let t = Duration::from_secs(3);
    let db = matches!(tokio::time::timeout(t, st.db.ping()).await, Ok(Ok(())));
    let bus = matches!(tokio::time::timeout(t, st.bus.healthy()).await, Ok(true));
    if db && bus {
        Ok(HttpResponse::Ok().json(json!({"status": "ready", "database": "ok", "bus": "ok"})))
    } else {
        let down: Vec<&str> = [(db, "database"), (bus, "bus")]
            .into_iter()
            .filter(|(ok, _)| !ok)
            .map(|(_, n)| n)
            .collect();
        Err(ApiError::Unavailable(format!(
            "not ready: {} unreachable",
            down.join(" and ")
        )))
    }
}

pub async fn metrics(st: web::Data<ServerState>) -> HttpResponse {
    st.metrics.observe_bus(&st.bus);
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(st.metrics.render())
}
