//! `sim_faults`: how often the simulated VIM failed a step of an operation occurrence
//! on purpose, so that `failTimes` counts across conductors.

use diesel::prelude::*;
use uuid::Uuid;

use crate::schema::sim_faults::dsl;
use crate::{DbConnection, Result};

/// Counts one more failure of `step` of occurrence `op` unless `limit` failures were
/// counted already; whether it is to fail (`None`: no limit, it always fails). One
/// conditional update: two conductors never both take the last failure.
pub fn fail_again(c: &mut DbConnection, op: Uuid, step: &str, limit: Option<u32>) -> Result<bool> {
    let op = op.to_string();
    if let Err(e) = diesel::insert_into(dsl::sim_faults)
        .values((
            dsl::op_occ_id.eq(&op),
            dsl::step.eq(step),
            dsl::failures.eq(0),
        ))
        .execute(c)
    {
        // Counted before: the row is there.
        if !matches!(
            e,
            diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::UniqueViolation,
                _
            )
        ) {
            return Err(e.into());
        }
    }
    let row = dsl::sim_faults.filter(dsl::op_occ_id.eq(&op).and(dsl::step.eq(step)));
    let counted = match limit {
        None => diesel::update(row)
            .set(dsl::failures.eq(dsl::failures + 1))
            .execute(c)?,
        Some(l) => {
            diesel::update(row.filter(dsl::failures.lt(i32::try_from(l).unwrap_or(i32::MAX))))
                .set(dsl::failures.eq(dsl::failures + 1))
                .execute(c)?
        }
    };
    Ok(counted == 1)
}

crate::handle::handle! {
    /// The simulated VIM's injected failures.
    SimFaults = sim_faults {
        fn fail_again(op: Uuid, step: &str, limit: Option<u32>) -> bool;
    }
}
