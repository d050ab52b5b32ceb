//! Rollback of a failed instantiate (everything created goes), scale-out (the
//! workloads go back to the stored counts), package or flavour change (the old manifests
//! go back).

use std::collections::HashMap;

use serde_json::Map;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::plan;

use super::instantiate::{manifests_of, request};
use super::{Claims, Work, counts_of, delete_all, stored};
use crate::cluster::Deletion;
use crate::error::{Error, Result};

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    match w.octx.op.operation {
        LcmOperation::Instantiate => {
            let req = request(w)?;
            let (files, ns) = manifests_of(req)?;
            let flavour = w.flavour()?;
            let counts: HashMap<String, u32> =
                plan::initial_counts(flavour, plan::level(flavour, req).as_deref())
                    .into_iter()
                    .collect();
            let plan = match super::plan(w, &files, ns.as_deref(), &counts).await {
                Ok(p) => p,
                // Refused by policy: nothing was created.
                Err(Error::Refused(_)) => {
                    return Ok(Outcome {
                        instantiated_vnf_info: None,
                        resource_changes: Map::new(),
                    });
                }
                Err(e) => return Err(e),
            };
            let how = Deletion {
                grace: Some(0),
                foreground: true,
            };
            delete_all(w, &plan, how, Claims::Remove).await?;
            Ok(Outcome {
                instantiated_vnf_info: None,
                resource_changes: Map::new(),
            })
        }
        LcmOperation::Scale => {
            let s = stored(w.octx)?;
            let counts = counts_of(&s.info);
            let targets: Vec<_> = s
                .vdus
                .iter()
                .filter(|v| matches!(v.kind.as_str(), "Deployment" | "ReplicaSet" | "StatefulSet"))
                .map(|v| {
                    (
                        v.clone(),
                        i64::from(counts.get(&v.vdu_id).copied().unwrap_or(0)),
                    )
                })
                .collect();
            super::scale::apply(w, &s.namespace, &targets).await?;
            Ok(Outcome {
                instantiated_vnf_info: Some(s.info),
                resource_changes: Map::new(),
            })
        }
        LcmOperation::ChangeVnfpkg => super::change_vnfpkg::rollback(w).await,
        LcmOperation::ChangeFlavour => super::change_flavour::rollback(w).await,
        other => Err(Error::Invalid(format!(
            "{other} cannot be rolled back on Kubernetes"
        ))),
    }
}
