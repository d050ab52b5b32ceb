//! Grants: the built-in NFVO (grants what is asked, supplies the VIM) or an external
//! NFVO over the SOL003 Grant API (`POST {nfvo}/grants`: 201, or 202 then polling).

use std::time::Duration;

use serde_json::{Value, json};
use tacker_domain::Failure;
use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::OpContext;
use tacker_domain::lcm::plan::{self, initial_counts_of};
use uuid::Uuid;

use super::vim;
use crate::Ctx;

fn compute(vdu: &str) -> Value {
    json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resourceTemplateId": vdu})
}

/// The resources one scale step adds and removes.
fn scale_resources(
    octx: &OpContext,
    s: &tacker_domain::lcm::request::ScaleRequest,
    vnfcs: &[(String, String)],
    add: &mut Vec<Value>,
    remove: &mut Vec<Value>,
) {
    let flavour = octx.vnfd.flavour(&octx.flavour_id);
    let info = octx.instance.instantiated_vnf_info.as_ref();
    let (Some(f), Some(info)) = (flavour, info) else {
        return;
    };
    let Ok(step) = plan::scale_step(f, info, s) else {
        return;
    };
    for (vdu, delta) in &step.deltas {
        if *delta > 0 {
            add.extend((0..*delta).map(|_| compute(vdu)));
        }
    }
    for id in plan::scale_in_targets(info, &step) {
        let vdu = vnfcs
            .iter()
            .find(|(r, _)| *r == id)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        remove.push(json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resource": {"resourceId": id}}));
    }
}

/// The flavour the operation's resources belong to: the new one of a flavour change,
/// else the instance's.
fn flavour_id(octx: &OpContext) -> &str {
    match &octx.op.request {
        OperationParams::ChangeFlavour(r) => &r.new_flavour_id,
        _ => &octx.flavour_id,
    }
}

/// The SOL003 GrantRequest for the operation.
pub fn request(ctx: &Ctx, octx: &OpContext) -> Value {
    let op = &octx.op;
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
    match &op.request {
        OperationParams::Instantiate(_) => {
            for (vdu, n) in initial_counts_of(octx) {
                add.extend((0..n).map(|_| compute(&vdu)));
            }
        }
        OperationParams::Scale(s) => {
            scale_resources(octx, s, &vnfcs, &mut add, &mut remove);
        }
        OperationParams::ScaleToLevel(r) => {
            let flavour = octx.vnfd.flavour(&octx.flavour_id);
            let info = octx.instance.instantiated_vnf_info.as_ref();
            if let (Some(f), Some(info)) = (flavour, info)
                && let Ok(steps) = r.steps(f, info)
            {
                for s in &steps {
                    scale_resources(octx, s, &vnfcs, &mut add, &mut remove);
                }
            }
        }
        OperationParams::Terminate(_) => {
            remove.extend(vnfcs.iter().map(|(id, vdu)| json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resource": {"resourceId": id}})));
        }
        // The old flavour's VNFCs go, the new one's come at its level.
        OperationParams::ChangeFlavour(r) => {
            remove.extend(vnfcs.iter().map(|(id, vdu)| json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": vdu, "resource": {"resourceId": id}})));
            if let Some(f) = octx.vnfd.flavour(&r.new_flavour_id) {
                for (vdu, n) in plan::initial_counts(f, r.level(f).as_deref()) {
                    add.extend((0..n).map(|_| compute(&vdu)));
                }
            }
        }
        OperationParams::Heal(h) => {
            let info = octx.instance.instantiated_vnf_info.as_ref();
            for c in info.map(|i| i.vnfc_info.as_slice()).unwrap_or_default() {
                if h.is_whole_vnf() || h.vnfc_instance_id.contains(&c.id) {
                    update.push(json!({"id": Uuid::new_v4(), "type": "COMPUTE", "vduId": c.vdu_id, "resource": {"resourceId": c.vnfc_resource_info_id}}));
                }
            }
        }
        _ => {}
    }
    let base = &tacker_domain::lcm::ApiVersion::V2.base(&ctx.lcm.public_url);
    let mut g = json!({
        "vnfInstanceId": op.vnf_instance_id,
        "vnfLcmOpOccId": op.id,
        "vnfdId": octx.instance.vnfd_id,
        "flavourId": flavour_id(octx),
        "operation": op.operation,
        "isAutomaticInvocation": op.is_automatic_invocation,
        "_links": {
            "vnfLcmOpOcc": {"href": format!("{base}/vnf_lcm_op_occs/{}", op.id)},
            "vnfInstance": {"href": format!("{base}/vnf_instances/{}", op.vnf_instance_id)},
        },
    });
    let level = match &op.request {
        OperationParams::Instantiate(r) => r.instantiation_level_id.as_ref(),
        OperationParams::ChangeFlavour(r) => r.instantiation_level_id.as_ref(),
        _ => None,
    };
    if let Some(l) = level {
        g["instantiationLevelId"] = json!(l);
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
pub async fn obtain(ctx: &Ctx, octx: &OpContext) -> Result<Value, Failure> {
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
        g["vimConnectionInfo"] = json!({ v.id.clone(): vim::entry(v) });
    }
    g["vimAssets"] = vim_assets(octx);
    g
}

/// Flavours and images for the flavour's VDUs (the new flavour's for a flavour change):
/// what the VNFD asks for, by name (images inside the package excepted).
fn vim_assets(octx: &OpContext) -> Value {
    let vim = octx.vim.as_ref().map(|v| v.id.clone());
    let vdus = octx
        .vnfd
        .flavour(flavour_id(octx))
        .map(|f| f.vdus.as_slice())
        .unwrap_or_default();
    let flavours: Vec<Value> = vdus
        .iter()
        .filter_map(|v| {
            v.requested_flavour().map(|f| {
                json!({"id": Uuid::new_v4(), "vimConnectionId": vim, "vnfdVirtualComputeDescId": v.id, "vimFlavourId": f})
            })
        })
        .collect();
    // An image shipped in the package is uploaded by the VIM's driver (Glance), which
    // then names it; the others are the VIM's already, by name.
    let images: Vec<Value> = vdus
        .iter()
        .filter_map(|v| {
            v.sw_image.as_ref().filter(|i| i.artifact.is_none()).map(|i| {
                json!({"id": Uuid::new_v4(), "vimConnectionId": vim, "vnfdSoftwareImageId": v.id, "vimSoftwareImageId": i.name})
            })
        })
        .collect();
    json!({"computeResourceFlavours": flavours, "softwareImages": images})
}

/// The NFVO's answer: the grant (200, 201), undecided (202: `None`), or a refusal.
fn decision(status: u16, body: Value) -> Option<Result<Value, Failure>> {
    match status {
        200 | 201 => Some(Ok(body)),
        202 => None,
        s => {
            let why = body
                .get("detail")
                .and_then(Value::as_str)
                .unwrap_or("no detail");
            Some(Err(Failure::new(
                403,
                format!("the NFVO refused the grant (HTTP {s}): {why}"),
            )))
        }
    }
}

async fn external(ctx: &Ctx, base: &str, req: &Value) -> Result<Value, Failure> {
    let url = format!("{}/grants", base.trim_end_matches('/'));
    let auth = ctx
        .lcm
        .nfvo_auth
        .as_ref()
        .map(|(u, p)| (u.as_str(), p.as_str()));
    let unreachable =
        |e: tacker_outbound::Error| Failure::new(503, format!("NFVO unreachable: {e}"));
    let (status, location, body) = ctx
        .notify
        .post_json(&url, auth, req)
        .await
        .map_err(unreachable)?;
    if let Some(decided) = decision(status, body) {
        return decided;
    }
    let poll =
        location.ok_or_else(|| Failure::new(502, "the NFVO answered 202 without a Location"))?;
    let poll = if poll.starts_with("http") {
        poll
    } else {
        format!("{}{}", origin(base), poll)
    };
    // The NFVO's credentials go only to the NFVO's own origin.
    if origin(&poll) != origin(base) {
        return Err(Failure::new(
            502,
            format!(
                "the NFVO answered 202 with a Location on another origin ({}); not followed",
                origin(&poll)
            ),
        ));
    }
    let deadline = tokio::time::Instant::now() + ctx.lcm.grant_timeout;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (status, _, body) = ctx
            .notify
            .get_json(&poll, auth)
            .await
            .map_err(unreachable)?;
        if let Some(decided) = decision(status, body) {
            return decided;
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Failure::timeout(format!(
                "the NFVO did not decide the grant within {:?}",
                ctx.lcm.grant_timeout
            )));
        }
    }
}

fn origin(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}
