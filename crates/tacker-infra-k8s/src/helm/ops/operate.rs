//! Operate, the whole VNF: STOPPED upgrades the release with every VDU's replica value
//! (`helm_value_names.<vdu>.replica`) at zero, the counts it had kept in the instance's
//! record, and waits until the Pods are gone; STARTED upgrades it back to those counts and
//! waits until they are ready. A VDU without a replica value cannot stop (the chart
//! would keep its Pods): refused before anything changes. Stopped, the VNFCs stay
//! (`vnfcState` STOPPED) and the sync, scale and heal leave the release alone; started,
//! Pods that are new are reported REMOVED/ADDED. Both stop types scale to zero: the
//! Pods' own grace period applies.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::operate::OperationalState;
use tacker_domain::lcm::{InstantiatedVnfInfo, OperationParams};

use super::{Op, counts};
use crate::error::{Error, Result};
use crate::helm::release;
use crate::ops::operate::{STOPPED, is_stopped, outcome, with_state};
use crate::record::HelmRecord;

impl Op<'_, '_> {
    pub async fn operate(&self) -> Result<Outcome> {
        let OperationParams::Operate(req) = &self.w.octx.op.request else {
            return Err(Error::Invalid("not an operate request".into()));
        };
        if !req.vnfc_instance_id.is_empty() {
            return Err(Error::Invalid(
                "operate on named VNFCs is not supported for Helm VIMs (a workload's Pods \
                 start and stop together): operate the whole VNF"
                    .into(),
            ));
        }
        let (mut rec, info) = self.recorded()?;
        match (req.change_state_to, is_stopped(&info)) {
            (OperationalState::Stopped, false) => self.stop(&mut rec, info).await,
            (OperationalState::Started, true) => self.start(&mut rec, info).await,
            // Already as asked: nothing to do.
            _ => Ok(Outcome {
                instantiated_vnf_info: Some(info),
                resource_changes: Map::new(),
            }),
        }
    }

    /// The release upgraded with each VDU's replica value at `counts`, waited for.
    async fn replicas_to(&self, rec: &mut HelmRecord, counts: &[(String, i64)]) -> Result<()> {
        let flavour = self.w.flavour()?;
        let h = self.helm(&rec.release, &rec.namespace);
        let values = release::with_replicas(h.values().await?, &rec.names, counts)?;
        let chart = release::chart_in(&self.w.octx.package_dir, &rec.chart)?;
        rec.revision = self.apply(&h, &chart, &values, flavour).await?.1;
        Ok(())
    }

    async fn stop(&self, rec: &mut HelmRecord, info: InstantiatedVnfInfo) -> Result<Outcome> {
        if let Some(v) = rec.vdus.iter().find(|v| {
            rec.names
                .get(&v.vdu_id)
                .and_then(|n| n.replica.as_ref())
                .is_none()
        }) {
            return Err(Error::Invalid(format!(
                "VDU {} has no replica value (helm_value_names.{}.replica at instantiation): \
                 the VNF cannot be stopped",
                v.vdu_id, v.vdu_id
            )));
        }
        let kept: BTreeMap<String, i64> = counts(&info).into_iter().collect();
        let zero: Vec<(String, i64)> = rec.vdus.iter().map(|v| (v.vdu_id.clone(), 0)).collect();
        tracing::info!(instance = %self.w.instance, release = %rec.release, "helm upgrade: stopping");
        self.replicas_to(rec, &zero).await?;
        let (mut info, affected) = with_state(info, STOPPED);
        rec.stopped_replicas = kept;
        rec.write_to(&mut info);
        Ok(outcome(info, affected))
    }

    async fn start(&self, rec: &mut HelmRecord, info: InstantiatedVnfInfo) -> Result<Outcome> {
        let back: Vec<(String, i64)> = if rec.stopped_replicas.is_empty() {
            counts(&info)
        } else {
            rec.stopped_replicas
                .iter()
                .map(|(v, n)| (v.clone(), *n))
                .collect()
        };
        tracing::info!(instance = %self.w.instance, release = %rec.release, "helm upgrade: starting");
        self.replicas_to(rec, &back).await?;
        rec.stopped_replicas.clear();
        let started = self.outcome(info, rec, None, &HashSet::new()).await?;
        let mut affected = match started.resource_changes.get("affectedVnfcs") {
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        let info = started
            .instantiated_vnf_info
            .ok_or_else(|| Error::Invalid("the VNF instance is not instantiated".into()))?;
        let (mut info, modified) = with_state(info, "STARTED");
        affected.extend(modified);
        rec.write_to(&mut info);
        Ok(outcome(info, affected))
    }
}
