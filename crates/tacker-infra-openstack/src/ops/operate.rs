//! Operate: the VNF's servers (all, or the named VNFCs') are stopped or started through
//! Nova (`os-stop` / `os-start`), then waited for until Nova reports `SHUTOFF` /
//! `ACTIVE`. Nova stops a server by shutting its guest down and powering it off after
//! its own timeout, so GRACEFUL and FORCEFUL send the same action; GRACEFUL waits at most
//! `gracefulStopTimeout` for the server to be off (else the operation fails saying so),
//! FORCEFUL the stack timeout. `vnfcInfo[].vnfcState` and, for the whole VNF,
//! `vnfState` record the result; a server already in the state asked is left alone.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::operate::{OperationalState, StopType};
use tacker_domain::lcm::{OperationParams, VnfcInfo};

use super::{Work, stored};
use crate::error::{Error, Result};
use crate::vnfc;

/// Nova's status of server `id`.
async fn status(w: &Work<'_>, id: &str) -> Result<String> {
    let a = w
        .session
        .nova(Method::GET, &format!("servers/{id}"), None)
        .await?;
    if a.status != 200 {
        return Err(Error::Api {
            status: a.status,
            message: format!("Nova, server {id}: {}", a.message()),
        });
    }
    Ok(a.body
        .pointer("/server/status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned())
}

/// Sends `action` to server `id` unless it is `target` already, then waits until it is.
async fn change(
    w: &Work<'_>,
    id: &str,
    action: &str,
    target: &str,
    within: Duration,
) -> Result<()> {
    if status(w, id).await? != target {
        let a = w
            .session
            .nova(
                Method::POST,
                &format!("servers/{id}/action"),
                Some(&json!({ action: null })),
            )
            .await?;
        // 409: an action of an earlier attempt is under way or done; the wait tells.
        if a.status != 202 && a.status != 409 {
            return Err(Error::Api {
                status: a.status,
                message: format!("Nova, {action} of server {id}: {}", a.message()),
            });
        }
    }
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let now = status(w, id).await?;
        if now == target {
            return Ok(());
        }
        if now == "ERROR" || tokio::time::Instant::now() >= deadline {
            return Err(Error::Invalid(format!(
                "server {id} is {now}, not {target}, {}s after {action}",
                within.as_secs()
            )));
        }
        tokio::time::sleep(w.heat.settings().poll_interval).await;
    }
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let OperationParams::Operate(req) = &w.octx.op.request else {
        return Err(Error::Invalid("not an operate request".into()));
    };
    let s = stored(w.octx)?;
    let timeout = w.heat.settings().stack_timeout;
    let (action, target, within) = match req.change_state_to {
        OperationalState::Started => ("os-start", "ACTIVE", timeout),
        OperationalState::Stopped => {
            let within = match (req.stop_type, req.graceful_stop_timeout) {
                (Some(StopType::Graceful), Some(t)) => Duration::from_secs(u64::from(t)),
                _ => timeout,
            };
            ("os-stop", "SHUTOFF", within)
        }
    };
    let to = req.change_state_to.as_str();
    let mut info = s.info;
    let mut affected = Vec::new();
    let chosen: Vec<VnfcInfo> = info
        .vnfc_info
        .iter()
        .filter(|c| req.covers(&c.id) && c.vnfc_state != to)
        .cloned()
        .collect();
    for c in &chosen {
        let Some(r) = info
            .vnfc_resource_info
            .iter()
            .find(|r| r.id == c.vnfc_resource_info_id)
        else {
            // Never record a state no server was brought to.
            return Err(Error::Invalid(format!(
                "VNFC {} has no server recorded (vnfcResourceInfo {})",
                c.id, c.vnfc_resource_info_id
            )));
        };
        tracing::info!(vnfc = %c.id, server = %r.compute_resource.resource_id, action, "operating a VNFC");
        change(w, &r.compute_resource.resource_id, action, target, within).await?;
        affected.push(vnfc::affected(r, "MODIFIED"));
    }
    for c in info.vnfc_info.iter_mut().filter(|c| req.covers(&c.id)) {
        c.vnfc_state = to.to_owned();
    }
    if req.vnfc_instance_id.is_empty() {
        info.vnf_state = to.to_owned();
    }
    let mut resource_changes = Map::new();
    if !affected.is_empty() {
        resource_changes.insert("affectedVnfcs".into(), Value::Array(affected));
    }
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes,
    })
}

/// A fresh read of the VNFCs with the recorded `vnfcState` of every VNFC still there (a
/// stopped server stays STOPPED across a sync, a scale or another VNFC's heal).
pub fn kept(before: &[VnfcInfo], mut after: Vec<VnfcInfo>) -> Vec<VnfcInfo> {
    for c in &mut after {
        if let Some(old) = before.iter().find(|o| o.id == c.id) {
            c.vnfc_state = old.vnfc_state.clone();
        }
    }
    after
}
