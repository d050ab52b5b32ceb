//! `/sim`: what tests see and control (no authentication): the network, the servers
//! and their hosts, faults, token expiry.

use actix_web::{HttpResponse, web};
use serde_json::{Value, json};

use crate::Sim;
use crate::engine::Resource;
use crate::error::SimError;
use crate::faults::Faults;

/// `GET /sim/network`: the simulated network.
pub async fn network(sim: web::Data<Sim>) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "cidr": sim.engine.hosts.cidr(),
        "gateway": sim.engine.hosts.gateway().to_string(),
        "hosts": sim.engine.hosts.running(),
    }))
}

fn server_json(sim: &Sim, stack: &str, r: &Resource) -> Value {
    let host = r.host.clone();
    json!({
        "id": r.physical_id,
        "name": r.attributes.get("name").cloned().unwrap_or(Value::Null),
        "resource_name": r.name,
        "stack": stack,
        "status": r.status.text(),
        "image": r.attributes.get("image").cloned().unwrap_or(Value::Null),
        "addresses": r.attributes.get("networks").and_then(|n| n.get("sim-net")).cloned().unwrap_or(json!([])),
        "host": host,
        "init_pid": host.as_deref().and_then(|h| sim.engine.hosts.init_pid(h)),
    })
}

/// `GET /sim/servers`: every server with its host and the host's PID 1.
pub async fn servers(sim: web::Data<Sim>) -> HttpResponse {
    let st = sim.engine.lock();
    let mut out = Vec::new();
    for s in st.stacks.values().filter(|s| !s.deleted) {
        for r in s.resources.iter().filter(|r| r.kind == "OS::Nova::Server") {
            out.push(server_json(&sim, &s.name, r));
        }
    }
    HttpResponse::Ok().json(out)
}

/// `POST /sim/servers/{id}/kill`: the server's host disappears behind Heat's back.
pub async fn kill(sim: web::Data<Sim>, id: web::Path<String>) -> Result<HttpResponse, SimError> {
    sim.engine.kill_server(&id)?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /sim/servers/{id}/link/{up|down}`: the server's network link.
pub async fn link(
    sim: web::Data<Sim>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, SimError> {
    let (id, state) = path.into_inner();
    let up = match state.as_str() {
        "up" => true,
        "down" => false,
        other => return Err(SimError::bad(format!("link state {other:?} is up or down"))),
    };
    sim.engine.set_server_link(&id, up)?;
    Ok(HttpResponse::NoContent().finish())
}

/// `GET /sim/faults`.
pub async fn get_faults(sim: web::Data<Sim>) -> HttpResponse {
    HttpResponse::Ok().json(sim.engine.faults().clone())
}

/// `PUT /sim/faults`: replaces the injected faults.
pub async fn put_faults(sim: web::Data<Sim>, f: web::Json<Faults>) -> HttpResponse {
    *sim.engine.faults() = f.into_inner();
    HttpResponse::NoContent().finish()
}

/// `DELETE /sim/faults`.
pub async fn clear_faults(sim: web::Data<Sim>) -> HttpResponse {
    *sim.engine.faults() = Faults::default();
    HttpResponse::NoContent().finish()
}

/// `POST /sim/tokens/expire`: every token issued so far stops working.
pub async fn expire_tokens(sim: web::Data<Sim>) -> HttpResponse {
    sim.tokens.expire_all();
    HttpResponse::NoContent().finish()
}
