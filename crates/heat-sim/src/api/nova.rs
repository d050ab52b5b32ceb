//! The Nova subset the OpenStack driver calls (`/compute/v2.1`): a server's status, and
//! the `os-stop` / `os-start` actions. A stopped server's host loses its network link
//! (SSH stops answering) and comes back on start; Nova's status is `SHUTOFF` / `ACTIVE`.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use crate::Sim;
use crate::engine::types;
use crate::error::SimError;
use crate::keystone::authorize;

type Answer = Result<HttpResponse, SimError>;

/// The Nova status kept in a server's attributes.
const STATUS: &str = "nova_status";

fn status_of(sim: &Sim, id: &str) -> Result<(String, Value), SimError> {
    let st = sim.engine.lock();
    st.stacks
        .values()
        .filter(|s| !s.deleted)
        .flat_map(|s| s.resources.iter())
        .find(|r| r.physical_id == id && r.kind == types::SERVER)
        .map(|r| {
            let status = r
                .attributes
                .get(STATUS)
                .and_then(Value::as_str)
                .unwrap_or("ACTIVE")
                .to_owned();
            let name = r.attributes.get("name").cloned().unwrap_or(Value::Null);
            (status, name)
        })
        .ok_or_else(|| SimError::not_found(format!("Instance {id} could not be found.")))
}

fn set_status(sim: &Sim, id: &str, status: &str) {
    let mut st = sim.engine.lock();
    for s in st.stacks.values_mut().filter(|s| !s.deleted) {
        for r in s.resources.iter_mut() {
            if r.physical_id == id && r.kind == types::SERVER {
                r.attributes.insert(STATUS.into(), json!(status));
            }
        }
    }
}

/// `GET /compute/v2.1/servers/{id}`.
pub async fn show(req: HttpRequest, sim: web::Data<Sim>, id: web::Path<String>) -> Answer {
    authorize(&req, &sim).await?;
    let (status, name) = status_of(&sim, &id)?;
    let power = if status == "SHUTOFF" { 4 } else { 1 };
    Ok(
        HttpResponse::Ok().json(json!({"server": {"id": *id, "name": name, "status": status,
        "OS-EXT-STS:power_state": power}})),
    )
}

/// `POST /compute/v2.1/servers/{id}/action` with `os-stop` or `os-start`.
pub async fn action(
    req: HttpRequest,
    sim: web::Data<Sim>,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Answer {
    authorize(&req, &sim).await?;
    let (status, _) = status_of(&sim, &id)?;
    let b = body.into_inner();
    let (up, from, to, verb) = if b.get("os-stop").is_some() {
        (false, "ACTIVE", "SHUTOFF", "stop")
    } else if b.get("os-start").is_some() {
        (true, "SHUTOFF", "ACTIVE", "start")
    } else {
        return Err(SimError::bad(format!("unsupported server action: {b}")));
    };
    if status != from {
        return Err(SimError::conflict(format!(
            "Cannot '{verb}' instance {id} while it is in vm_state {}",
            status.to_ascii_lowercase()
        )));
    }
    sim.engine.set_server_link(&id, up)?;
    set_status(&sim, &id, to);
    Ok(HttpResponse::Accepted().finish())
}
