//! Grants: the built-in NFVO (grants what is asked, supplies the VIM) or an external
//! NFVO over the SOL003 Grant API (`POST {nfvo}/grants`: 201, or 202 then polling).

use std::time::Duration;

use serde_json::{Value, json};
use tacker_domain::ProblemDetails;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::OpContext;
use tacker_domain::lcm::plan::{self, initial_counts_of};
use uuid::Uuid;

use super::vim;
use crate::Ctx;

fn compute(vdu: &str) -> Value {
    json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resourceTemplateId": vdu})
}

/// The SOL003 GrantRequest for the operation.
pub fn request(ctx: &Ctx, octx: &OpContext) -> Value {
    let op = &octx.op;
    let p = &op.operation_params;
    let (mut add, mut remove, mut update) = (Vec::new(), Vec::new(), Vec::new());
    let vnfcs: Vec<(String, String)> = octx
        .instance
        .instantiated_vnf_info
        .iter()
        .flat_map(|i| {
            i.vnfc_resource_info
                .iter()
                .map(|r| (r.id.clone(), r.vdu_id.clone()))
        })
        .collect();
    match op.operation {
        LcmOperation::Instantiate => {
            for (vdu, n) in initial_counts_of(octx) {
                add.extend((0..n).map(|_| compute(&vdu)));
            }
        }
        LcmOperation::Scale => {
            let aspect = p
                .get("aspectId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let steps = p.get("numberOfSteps").and_then(Value::as_u64).unwrap_or(1) as u32;
            let out = p.get("type").and_then(Value::as_str) == Some("SCALE_OUT");
            if let Some(f) = octx.vnfd.flavour(&octx.flavour_id) {
                for v in &f.vdus {
                    let Some(deltas) = v.scaling_deltas.get(aspect) else {
                        continue;
                    };
                    let per_step = deltas.values().next().copied().unwrap_or(1);
                    let n = per_step * steps;
                    if out {
                        add.extend((0..n).map(|_| compute(&v.id)));
                    } else {
                        let mine: Vec<&(String, String)> =
                            vnfcs.iter().filter(|(_, vdu)| *vdu == v.id).collect();
                        for (id, vdu) in mine.iter().rev().take(n as usize) {
                            remove.push(json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resource": {"resourceId": id}}));
                        }
                    }
                }
            }
        }
        LcmOperation::Terminate => {
            remove.extend(vnfcs.iter().map(|(id, vdu)| json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resource": {"resourceId": id}})));
        }
        LcmOperation::Heal => {
            let wanted = plan::vnfc_instance_ids(p);
            let info = octx.instance.instantiated_vnf_info.as_ref();
            for c in info.map(|i| i.vnfc_info.as_slice()).unwrap_or_default() {
                if wanted.is_empty() || wanted.contains(&c.id) {
                    update.push(json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": c.vdu_id, "resource": {"resourceId": c.vnfc_resource_info_id}}));
                }
            }
        }
        _ => {}
    }
    let base = &ctx.lcm.base;
    let mut g = json!({
        "vnfInstanceId": op.vnf_instance_id,
        "vnfLcmOpOccId": op.id,
        "vnfdId": octx.instance.vnfd_id,
        "flavourId": octx.flavour_id,
        "operation": op.operation,
        "isAutomaticInvocation": false,
        "_links": {
            "vnfLcmOpOcc": {"href": format!("{base}/vnf_lcm_op_occs/{}", op.id)},
            "vnfInstance": {"href": format!("{base}/vnf_instances/{}", op.vnf_instance_id)},
        },
    });
    if let Some(l) = p.get("instantiationLevelId") {
        g["instantiationLevelId"] = l.clone();
    }
    for (k, v) in [
        ("addResources", add),
        ("removeResources", remove),
        ("updateResources", update),
    ] {
        if !v.is_empty() {
            g[k] = Value::Array(v);
        }
    }
    g
}

/// Obtains a grant for the operation (the `GrantRequest` and the answer).
pub async fn obtain(ctx: &Ctx, octx: &OpContext) -> Result<Value, ProblemDetails> {
    let req = request(ctx, octx);
    match &ctx.lcm.nfvo_grant_url {
        None => Ok(builtin(octx, &req)),
        Some(url) => external(ctx, url, &req).await,
    }
}

/// The built-in NFVO grants every resource asked for, in the VIM the operation uses.
fn builtin(octx: &OpContext, req: &Value) -> Value {
    let granted = |k: &str| -> Vec<Value> {
        req.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|r| json!({"resourceDefinitionId": r["id"]}))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut g = json!({
        "id": Uuid::new_v4(),
        "vnfInstanceId": req["vnfInstanceId"],
        "vnfLcmOpOccId": req["vnfLcmOpOccId"],
        "addResources": granted("addResources"),
        "removeResources": granted("removeResources"),
        "updateResources": granted("updateResources"),
    });
    if let Some(v) = &octx.vim {
        g["vimConnectionInfo"] = json!({ v.id.clone(): vim::to_json(v) });
    }
    g
}

async fn external(ctx: &Ctx, base: &str, req: &Value) -> Result<Value, ProblemDetails> {
    let url = format!("{}/grants", base.trim_end_matches('/'));
    let auth = ctx
        .lcm
        .nfvo_auth
        .as_ref()
        .map(|(u, p)| (u.as_str(), p.as_str()));
    let unreachable =
        |e: tacker_notify::Error| ProblemDetails::new(503, format!("NFVO unreachable: {e}"));
    let (status, location, body) = ctx
        .notify
        .post_json(&url, auth, req)
        .await
        .map_err(unreachable)?;
    match status {
        201 | 200 => return Ok(body),
        202 => {}
        s => {
            let why = body
                .get("detail")
                .and_then(Value::as_str)
                .unwrap_or("no detail")
                .to_owned();
            return Err(ProblemDetails::new(
                403,
                format!("the NFVO refused the grant (HTTP {s}): {why}"),
            ));
        }
    }
    let poll = location.ok_or_else(|| {
        ProblemDetails::new(502, "the NFVO answered 202 without a Location".to_owned())
    })?;
    let poll = if poll.starts_with("http") {
        poll
    } else {
        format!("{}{}", origin(base), poll)
    };
    let deadline = tokio::time::Instant::now() + ctx.lcm.grant_timeout;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (status, _, body) = ctx
            .notify
            .get_json(&poll, auth)
            .await
            .map_err(unreachable)?;
        match status {
            200 | 201 => return Ok(body),
            202 => {}
            s => {
                let why = body
                    .get("detail")
                    .and_then(Value::as_str)
                    .unwrap_or("no detail")
                    .to_owned();
                return Err(ProblemDetails::new(
                    403,
                    format!("the NFVO refused the grant (HTTP {s}): {why}"),
                ));
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(ProblemDetails::new(
                504,
                format!(
                    "the NFVO did not decide the grant within {:?}",
                    ctx.lcm.grant_timeout
                ),
            ));
        }
    }
}

fn origin(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}
