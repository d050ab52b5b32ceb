//! `/sim/...`: fault injection and timing for tests (not part of the Kubernetes API).

use std::sync::Arc;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use crate::Sim;
use crate::faults::Faults;

/// `GET /sim/faults`.
pub async fn get_faults(sim: web::Data<Arc<Sim>>) -> HttpResponse {
    HttpResponse::Ok().json(&sim.lock().faults)
}

/// `PUT /sim/faults`: replaces every fault.
pub async fn put_faults(sim: web::Data<Arc<Sim>>, body: web::Json<Faults>) -> HttpResponse {
    sim.set_faults(body.into_inner());
    HttpResponse::NoContent().finish()
}

/// `DELETE /sim/faults`: clears every fault.
pub async fn clear_faults(sim: web::Data<Arc<Sim>>) -> HttpResponse {
    sim.lock().faults = Faults::default();
    sim.kick();
    HttpResponse::NoContent().finish()
}

/// Timing changes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimingPatch {
    ready_delay_ms: Option<u64>,
    terminate_delay_ms: Option<u64>,
}

/// `GET /sim/timing`.
pub async fn get_timing(sim: web::Data<Arc<Sim>>) -> HttpResponse {
    let t = sim.lock().timing;
    HttpResponse::Ok().json(json!({
        "readyDelayMs": t.ready_delay_ms,
        "terminateDelayMs": t.terminate_delay_ms,
        "nodes": t.nodes,
    }))
}

/// `PATCH /sim/timing`.
pub async fn patch_timing(sim: web::Data<Arc<Sim>>, body: web::Json<TimingPatch>) -> HttpResponse {
    let mut s = sim.lock();
    if let Some(v) = body.ready_delay_ms {
        s.timing.ready_delay_ms = v;
    }
    if let Some(v) = body.terminate_delay_ms {
        s.timing.terminate_delay_ms = v;
    }
    HttpResponse::NoContent().finish()
}

/// `POST /sim/namespaces/{ns}/pods/{name}/replace`: the cluster heals a Pod on its own
/// (it is removed at once; its controller replaces it as Kubernetes would).
pub async fn replace_pod(
    sim: web::Data<Arc<Sim>>,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    let (ns, name) = path.into_inner();
    match sim.replace_pod(&ns, &name) {
        Ok(()) => HttpResponse::Accepted().json(json!({"replaced": name})),
        Err(e) => e.response(),
    }
}

/// `GET /metrics`: what Prometheus scrapes from the cluster (see [`crate::metrics`]).
pub async fn metrics(sim: web::Data<Arc<Sim>>) -> HttpResponse {
    let text = crate::metrics::render(&mut sim.lock());
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(text)
}

fn pod_uid(sim: &Sim, ns: &str, name: &str) -> Result<String, crate::error::ApiErr> {
    let key: crate::store::Key = ("/pods".into(), ns.to_owned(), name.to_owned());
    sim.lock()
        .get(&key)
        .and_then(crate::meta::uid)
        .ok_or_else(|| crate::error::ApiErr::not_found("pods", name))
}

/// `GET /sim/namespaces/{ns}/pods/{name}/load`.
pub async fn get_load(sim: web::Data<Arc<Sim>>, path: web::Path<(String, String)>) -> HttpResponse {
    let (ns, name) = path.into_inner();
    match pod_uid(&sim, &ns, &name) {
        Ok(uid) => HttpResponse::Ok().json(crate::metrics::load_of(&sim.lock().meters, &uid)),
        Err(e) => e.response(),
    }
}

/// `PUT /sim/namespaces/{ns}/pods/{name}/load`: the Pod's load from now on (CPU cores,
/// memory, disk and network, failed or not), as its metrics report it.
pub async fn put_load(
    sim: web::Data<Arc<Sim>>,
    path: web::Path<(String, String)>,
    body: web::Json<crate::metrics::Load>,
) -> HttpResponse {
    let (ns, name) = path.into_inner();
    match pod_uid(&sim, &ns, &name) {
        Ok(uid) => {
            crate::metrics::set_load(&mut sim.lock().meters, &uid, body.into_inner());
            HttpResponse::NoContent().finish()
        }
        Err(e) => e.response(),
    }
}
