//! The Nova subset the OpenStack driver calls (`/compute/v2.1`): a server's status, and
//! the `os-stop` / `os-start` actions. A stopped server's host loses its network link
//! (SSH stops answering) and comes back on start; Nova's status is `SHUTOFF` / `ACTIVE`.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use crate::Sim;
use crate::engine::Resource;
use crate::error::SimError;
use crate::keystone::authorize;

type Answer = Result<HttpResponse, SimError>;

/// The Nova status kept in a server's attributes.
const STATUS: &str = "nova_status";

/// `f` on server `id`'s resource (found as the admin API finds servers).
fn on_server<T>(sim: &Sim, id: &str, f: impl FnOnce(&mut Resource) -> T) -> Result<T, SimError> {
    let missing = || SimError::not_found(format!("Instance {id} could not be found."));
    let (stack, name, _) = sim.engine.server(id).ok_or_else(missing)?;
    let mut st = sim.engine.lock();
    let r = st
        .stack_mut(stack)?
        .resource_mut(&name)
        .ok_or_else(missing)?;
    Ok(f(r))
}

/// Nova's status of server `id` and its name.
fn status_of(sim: &Sim, id: &str) -> Result<(String, Value), SimError> {
    on_server(sim, id, |r| {
        let status = r
            .attributes
            .get(STATUS)
            .and_then(Value::as_str)
            .unwrap_or("ACTIVE")
            .to_owned();
        (
            status,
            r.attributes.get("name").cloned().unwrap_or(Value::Null),
        )
    })
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
    on_server(&sim, &id, |r| {
        r.attributes.insert(STATUS.into(), json!(to));
    })?;
    Ok(HttpResponse::Accepted().finish())
}
