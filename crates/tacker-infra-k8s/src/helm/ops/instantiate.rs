//! Instantiate: release `vnf<instance id without dashes>` installed (a retry upgrades it:
//! never a second install) with `helm_parameters` and the VDUs' replica values, then
//! waited for.

use std::collections::HashSet;

use serde_json::Map;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::request::InstantiateRequest;
use tacker_domain::lcm::{InstantiatedVnfInfo, plan};

use super::Op;
use crate::error::Result;
use crate::helm::release::{self, Params};
use crate::ops;
use crate::record::HelmRecord;

impl Op<'_, '_> {
    /// The instantiate request and its Helm parameters.
    pub(super) fn instantiate_params(&self) -> Result<(Params, &InstantiateRequest)> {
        let req = ops::instantiate::request(self.w)?;
        Ok((Params::parse(&req.additional_params, None)?, req))
    }

    pub async fn instantiate(&self) -> Result<Outcome> {
        let (p, req) = self.instantiate_params()?;
        let flavour = self.w.flavour()?;
        let level = plan::level(flavour, req);
        let counts: Vec<(String, i64)> = plan::initial_counts(flavour, level.as_deref())
            .into_iter()
            .map(|(v, n)| (v, i64::from(n)))
            .collect();
        let ns = p.namespace.clone().unwrap_or_else(|| "default".into());
        let name = self.instance_release(&ns).await?;
        let h = self.helm(&name, &ns);
        let chart = release::chart_in(&self.w.octx.package_dir, &p.chart)?;
        let values = release::with_replicas(p.values.clone(), &p.names, &counts)?;
        let (live, revision) = self.apply(&h, &chart, &values, flavour).await?;
        let rec = HelmRecord {
            release: name.clone(),
            namespace: ns.clone(),
            chart: p.chart.clone(),
            names: p.names.clone(),
            revision,
            vdus: live.vdus,
            stopped_replicas: Default::default(),
        };
        let (scale_status, max_scale_levels) =
            plan::initial_scale(&self.w.octx.vnfd.vnfd_id, flavour, level.as_deref());
        let info = InstantiatedVnfInfo {
            flavour_id: self.w.octx.flavour_id.clone(),
            vnf_state: "STARTED".into(),
            scale_status,
            max_scale_levels,
            vnfc_resource_info: Vec::new(),
            vnfc_info: Vec::new(),
            other: Map::new(),
        };
        self.outcome(info, &rec, None, &HashSet::new()).await
    }
}
