//! Change external connectivity: the CPs of the new external virtual links get their
//! networks and fixed addresses; the stack is updated (Heat replaces the ports that
//! change, and the servers on them).

use serde_json::{Value, json};
use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::Outcome;

use super::{Work, apply, stored};
use crate::error::{Error, Result};
use crate::nfv;

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let OperationParams::ChangeExtConn(req) = &w.octx.op.request else {
        return Err(Error::Invalid("not a change_ext_conn request".into()));
    };
    let flavour = w.flavour()?;
    let fresh = nfv::build(&nfv::Inputs {
        flavour,
        template: &Value::Null,
        counts: &Default::default(),
        grant: &w.octx.grant,
        ext_virtual_links: &req.ext_virtual_links,
        extra: None,
    });
    let mut nfv = s.nfv.clone();
    if let (Some(cps), Some(new)) = (
        nfv.as_object_mut()
            .map(|n| n.entry("CP").or_insert_with(|| json!({}))),
        fresh.get("CP").and_then(Value::as_object),
    ) && let Some(cps) = cps.as_object_mut()
    {
        for (k, v) in new {
            cps.insert(k.clone(), v.clone());
        }
    }
    // The per-VNFC copies of the CPs move with them.
    let changed: Vec<String> = fresh
        .get("CP")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    crate::per_vnfc::refresh(&mut nfv, "CP", &changed);
    apply(w, &s.stack, &nfv).await?;
    let read = w.read(&s.stack, &s.info.vnfc_resource_info).await?;
    let stack = s.stack.clone();
    let mut o = super::outcome(s, read, &stack, &nfv);
    if let Some(info) = o.instantiated_vnf_info.as_mut() {
        info.other.insert(
            "extVirtualLinkInfo".into(),
            Value::Array(req.ext_virtual_links.clone()),
        );
    }
    Ok(o)
}
