//! Heal. SOL002: the named VNFCs' Pods deleted, their controllers replace them (the
//! manifest driver's code; a bare Pod of a chart is healed with the whole VNF). SOL003:
//! the release uninstalled and installed again with the same values; the StatefulSets'
//! volumes stay.

use std::collections::HashSet;

use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::Outcome;

use super::{Op, counts};
use crate::error::{Error, Result};
use crate::helm::release::{self, Params};
use crate::ops::{self, Claims, Stored};

impl Op<'_, '_> {
    pub async fn heal(&self) -> Result<Outcome> {
        let (mut rec, info) = self.recorded_running()?;
        let ids = match &self.w.octx.op.request {
            OperationParams::Heal(h) => h.vnfc_instance_id.clone(),
            _ => Vec::new(),
        };
        if !ids.is_empty() {
            for id in &ids {
                let vdu = info
                    .vnfc_info
                    .iter()
                    .find(|c| c.id == *id)
                    .map(|c| c.vdu_id.clone());
                if let Some(v) = vdu.and_then(|vdu| rec.vdus.iter().find(|v| v.vdu_id == vdu))
                    && v.kind == "Pod"
                {
                    return Err(Error::Invalid(format!(
                        "VNFC {id} is a bare Pod of the Helm release: heal the whole VNF (no vnfcInstanceId) to re-create it"
                    )));
                }
            }
            let stored = Stored {
                info: info.clone(),
                namespace: rec.namespace.clone(),
                files: Vec::new(),
                vdus: rec.vdus.clone(),
            };
            let mut o = ops::heal::sol002(self.w, &stored, &ids).await?;
            if let Some(i) = o.instantiated_vnf_info.as_mut() {
                rec.write_to(i);
            }
            return Ok(o);
        }
        let flavour = self.w.flavour()?;
        let h = self.helm(&rec.release, &rec.namespace);
        let values = match h.revision().await? {
            Some(_) => h.values().await?,
            None => {
                let p = Params::parse(&self.w.octx.instantiate_params, Some(&rec.chart))?;
                release::with_replicas(p.values, &rec.names, &counts(&info))?
            }
        };
        tracing::info!(instance = %self.w.instance, release = %rec.release, "healing the whole VNF: reinstalling the release");
        self.remove(
            &rec.release,
            &rec.namespace,
            &rec.vdus,
            flavour,
            Claims::Keep,
        )
        .await?;
        let chart = release::chart_in(&self.w.octx.package_dir, &rec.chart)?;
        let (live, revision) = self.apply(&h, &chart, &values, flavour).await?;
        rec.revision = revision;
        rec.vdus = live.vdus;
        // Everything was re-created: Pods under a stored name are the same VNFC, modified.
        let recreated: HashSet<String> = info
            .vnfc_resource_info
            .iter()
            .map(|r| r.compute_resource.resource_id.clone())
            .collect();
        self.outcome(info, &rec, None, &recreated).await
    }
}
