//! Rollback: a failed instantiate is uninstalled; a scale, package or flavour change goes back
//! to the revision recorded when the last operation completed (Helm's own history),
//! and is waited for.

use serde_json::Map;
use tacker_domain::lcm::LcmOperation;
use tacker_domain::lcm::driver::Outcome;

use super::Op;
use crate::error::{Error, Result};
use crate::ops::{self, Claims};
use crate::record::HelmRecord;

impl Op<'_, '_> {
    pub async fn rollback(&self) -> Result<Outcome> {
        match self.w.octx.op.operation {
            LcmOperation::Instantiate => {
                let (p, _) = self.instantiate_params()?;
                let ns = p.namespace.unwrap_or_else(|| "default".into());
                let name = self.instance_release(&ns).await?;
                self.remove(&name, &ns, &[], self.w.flavour()?, Claims::Keep)
                    .await?;
                Ok(Outcome {
                    instantiated_vnf_info: None,
                    resource_changes: Map::new(),
                })
            }
            LcmOperation::Scale | LcmOperation::ChangeVnfpkg | LcmOperation::ChangeFlavour => {
                let (rec, info) = self.recorded()?;
                let h = self.helm(&rec.release, &rec.namespace);
                let before = self.pod_uids(&rec).await?;
                h.settle().await?;
                if h.revision().await? != Some(rec.revision) {
                    tracing::info!(instance = %self.w.instance, release = %rec.release, revision = rec.revision, "helm rollback");
                    h.rollback(rec.revision).await?;
                }
                let live = self.live_plan(&h, self.w.flavour()?).await?;
                ops::wait_ready(self.w, &live).await?;
                let rec = HelmRecord {
                    revision: self.revision(&h).await?,
                    ..rec
                };
                self.moved(info, &rec, &before).await
            }
            other => Err(Error::Invalid(format!(
                "{other} cannot be rolled back on a Helm VIM"
            ))),
        }
    }
}
