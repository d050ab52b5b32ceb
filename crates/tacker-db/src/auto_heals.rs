//! `auto_heals`: the VNFCs auto-heal alerts asked to heal, gathered per instance until
//! they are due, then taken into one automatic HEAL occurrence in the transaction that
//! creates it (so a heal is never started twice, nor lost), and removed once it ended.

use std::time::Duration;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as D};
use tacker_domain::lcm::{OpOcc, VnfInstance};
use uuid::Uuid;

use crate::op_occs::{self as ops, Automatic};
use crate::schema::auto_heals::{self, dsl};
use crate::{DbConnection, Result, instances, now};

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = auto_heals)]
struct NewRow {
    vnf_instance_id: String,
    vnfc_id: String,
    received_at: NaiveDateTime,
    due_at: NaiveDateTime,
}

pub(crate) fn after(t: NaiveDateTime, d: Duration) -> NaiveDateTime {
    t + chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}

/// Asks to heal `vnfcs` of `instance`: each VNFC not yet asked for is added, due with
/// the instance's other pending VNFCs (or `window` from now when it has none); a VNFC
/// pending already, or in a heal that runs, adds nothing. How many were added.
pub fn request(
    c: &mut DbConnection,
    instance: Uuid,
    vnfcs: &[String],
    window: Duration,
) -> Result<usize> {
    c.transaction(|c| {
        // Writes first, so SQLite takes its write lock at once (see `start`).
        diesel::update(dsl::auto_heals.filter(dsl::vnf_instance_id.eq(instance.to_string())))
            .set(dsl::due_at.eq(dsl::due_at))
            .execute(c)?;
        let t = now();
        let mut added = 0;
        let mut due: Option<NaiveDateTime> = None;
        for v in vnfcs {
            let due_at = match due {
                Some(d) => d,
                None => {
                    let d = dsl::auto_heals
                        .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                        .filter(dsl::op_occ_id.is_null())
                        .select(diesel::dsl::min(dsl::due_at))
                        .first::<Option<NaiveDateTime>>(c)?
                        .unwrap_or_else(|| after(t, window));
                    due = Some(d);
                    d
                }
            };
            let row = NewRow {
                vnf_instance_id: instance.to_string(),
                vnfc_id: v.clone(),
                received_at: t,
                due_at,
            };
            match c.transaction(|c| {
                diesel::insert_into(auto_heals::table)
                    .values(&row)
                    .execute(c)
            }) {
                Ok(_) => added += 1,
                Err(D::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(added)
    })
}

crate::rows::pending_work!(auto_heals, "pending VNFC");

/// Pending VNFCs (not yet in a heal) of every instance, for the record.
pub fn pending(c: &mut DbConnection, instance: Uuid) -> Result<Vec<String>> {
    Ok(dsl::auto_heals
        .filter(dsl::vnf_instance_id.eq(instance.to_string()))
        .filter(dsl::op_occ_id.is_null())
        .order(dsl::vnfc_id.asc())
        .select(dsl::vnfc_id)
        .load(c)?)
}

/// What [`start`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// The heal started (STARTING, notified): cast it.
    Started(Box<OpOcc>),
    /// Another operation holds the instance: the VNFCs wait.
    Busy,
    /// The instance's last automatic operation ended less than the cool-down ago: they
    /// wait.
    CoolingDown,
    /// Nothing to heal (no pending VNFC left that the instance still has).
    Nothing,
}

/// Starts one automatic heal of `instance`'s pending VNFCs (`heal` makes the occurrence
/// for the instance and the VNFCs it still has), unless another operation holds the
/// instance or its last automatic operation ended less than `cooldown` ago. Pending
/// VNFCs the instance no longer has (replaced meanwhile) are dropped. All in one
/// transaction: the occurrence exists if and only if the VNFCs are marked taken by it.
pub fn start(
    c: &mut DbConnection,
    instance: Uuid,
    cooldown: Duration,
    heal: impl FnOnce(&VnfInstance, Vec<String>) -> OpOcc,
) -> Result<Start> {
    c.transaction(|c| {
        let mine = || {
            dsl::auto_heals
                .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                .filter(dsl::op_occ_id.is_null())
        };
        if !lock_pending(c, instance)? {
            return Ok(Start::Nothing);
        }
        let wanted: Vec<String> = mine()
            .select(dsl::vnfc_id)
            .order(dsl::vnfc_id.asc())
            .load(c)?;
        let Some(i) = instances::get(c, instance)? else {
            diesel::delete(dsl::auto_heals.filter(dsl::vnf_instance_id.eq(instance.to_string())))
                .execute(c)?;
            return Ok(Start::Nothing);
        };
        let present: Vec<&str> = i
            .instantiated_vnf_info
            .as_ref()
            .map(|x| x.vnfc_info.iter().map(|v| v.id.as_str()).collect())
            .unwrap_or_default();
        let (live, stale): (Vec<String>, Vec<String>) = wanted
            .into_iter()
            .partition(|v| present.contains(&v.as_str()));
        if !stale.is_empty() {
            diesel::delete(mine().filter(dsl::vnfc_id.eq_any(&stale))).execute(c)?;
        }
        if live.is_empty() {
            return Ok(Start::Nothing);
        }
        let op = match ops::create_automatic(c, instance, cooldown, || heal(&i, live.clone()))? {
            Automatic::Created(op) => *op,
            Automatic::CoolingDown => return Ok(Start::CoolingDown),
            Automatic::Busy => return Ok(Start::Busy),
        };
        diesel::update(mine().filter(dsl::vnfc_id.eq_any(&live)))
            .set(dsl::op_occ_id.eq(Some(op.id.to_string())))
            .execute(c)?;
        let stored = ops::get(c, op.id)?.unwrap_or(op);
        Ok(Start::Started(Box::new(stored)))
    })
}

crate::handle::handle! {
    /// VNFCs waiting for an automatic heal.
    AutoHeals = auto_heals {
        fn request(instance: Uuid, vnfcs: &[String], window: Duration) -> usize;
        fn pending(instance: Uuid) -> Vec<String>;
        fn due() -> Vec<Uuid>;
        fn settle() -> usize;
        fn next_due(instance: Uuid) -> Option<NaiveDateTime>;
        fn start(instance: Uuid, cooldown: Duration, heal: fn(&VnfInstance, Vec<String>) -> OpOcc) -> Start;
    }
}
