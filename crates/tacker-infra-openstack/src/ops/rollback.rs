//! Rollback of a failed instantiate (the stack goes), scale-out (the members added go:
//! marked unhealthy, the group back to its stored size; StandardUserData: the recorded
//! copies), flavour change (the stack back on the old flavour's base HOT) or package
//! change (back on the old package's).

use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{LcmOperation, OperationParams};

use super::{Work, apply, counts_of, stored, with_capacities};
use crate::error::{Error, Result};
use crate::per_vnfc::Layout;

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    match &w.octx.op.request {
        OperationParams::Instantiate(_) => {
            super::terminate::remove(w).await?;
            Ok(Outcome::default())
        }
        OperationParams::Scale(s) if s.is_out() => {
            let st = stored(w.octx)?;
            if st.layout == Layout::PerVnfc {
                // The template back to the recorded copies: the added ones go.
                return super::recorded::restore(w, st, w.flavour()?).await;
            }
            let now = w.read(&st.stack, &st.info.vnfc_resource_info).await?;
            for added in now
                .resources
                .iter()
                .filter(|r| !st.info.vnfc_resource_info.iter().any(|o| o.id == r.id))
            {
                super::scale::mark_member(w, added).await?;
            }
            let nfv = with_capacities(&st.nfv, &counts_of(&st.info.vnfc_resource_info));
            apply(w, &st.stack, &nfv).await?;
            Ok(Outcome {
                instantiated_vnf_info: Some(st.info),
                resource_changes: Default::default(),
            })
        }
        OperationParams::ChangeFlavour(_) => super::change_flavour::rollback(w).await,
        OperationParams::ChangeVnfpkg(_) => super::change_vnfpkg::rollback(w).await,
        other => Err(Error::Invalid(format!(
            "{} cannot be rolled back on OpenStack",
            if other.operation() == LcmOperation::Scale {
                "SCALE_IN".to_owned()
            } else {
                other.operation().to_string()
            }
        ))),
    }
}
