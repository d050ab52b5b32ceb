//! `auto_scales`: the scale steps auto-scale alerts asked for, one pending step per
//! instance and aspect (a later alert sets its direction), taken into one automatic
//! SCALE occurrence in the transaction that creates it, and removed once it ended. A
//! step beyond the aspect's limits, or of an aspect the VNFD does not have, is dropped
//! and said so (the caller raises an alarm), never started to fail.

use std::time::Duration;

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as D};
use tacker_domain::lcm::request::{ScaleRequest, ScaleType};
use tacker_domain::lcm::{OpOcc, VnfInstance, plan};
use uuid::Uuid;

use crate::auto_heals::after;
use crate::op_occs::{self as ops, Automatic};
use crate::schema::auto_scales::{self, dsl};
use crate::{DbConnection, Result, instances, now};

#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = auto_scales)]
struct NewRow {
    id: String,
    vnf_instance_id: String,
    aspect_id: String,
    direction: String,
    received_at: NaiveDateTime,
    due_at: NaiveDateTime,
}

fn direction_text(d: ScaleType) -> &'static str {
    match d {
        ScaleType::ScaleOut => "SCALE_OUT",
        ScaleType::ScaleIn => "SCALE_IN",
    }
}

/// Asks for one `direction` step of `aspect` on `instance`, due `window` from now; a
/// step pending already for the aspect takes the new direction instead. Whether a step
/// was added.
pub fn request(
    c: &mut DbConnection,
    instance: Uuid,
    aspect: &str,
    direction: ScaleType,
    window: Duration,
) -> Result<bool> {
    c.transaction(|c| {
        let pending = || {
            dsl::auto_scales
                .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                .filter(dsl::aspect_id.eq(aspect.to_owned()))
                .filter(dsl::op_occ_id.is_null())
        };
        // Writes first (SQLite's write lock at once).
        let n = diesel::update(pending())
            .set(dsl::direction.eq(direction_text(direction)))
            .execute(c)?;
        if n > 0 {
            return Ok(false);
        }
        let t = now();
        let row = NewRow {
            id: Uuid::new_v4().to_string(),
            vnf_instance_id: instance.to_string(),
            aspect_id: aspect.to_owned(),
            direction: direction_text(direction).to_owned(),
            received_at: t,
            due_at: after(t, window),
        };
        match c.transaction(|c| {
            diesel::insert_into(auto_scales::table)
                .values(&row)
                .execute(c)
        }) {
            Ok(_) => Ok(true),
            Err(D::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                diesel::update(pending())
                    .set(dsl::direction.eq(direction_text(direction)))
                    .execute(c)?;
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    })
}

crate::rows::pending_work!(auto_scales, "pending step");

/// What [`start`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// The step started (STARTING, notified): cast it.
    Started(Box<OpOcc>),
    /// Another operation holds the instance: the step waits.
    Busy,
    /// Within the cool-down of the last automatic operation: the step waits.
    CoolingDown,
    /// The step would go beyond the aspect's limits, or the aspect is not the VNFD's:
    /// dropped (`aspect`, `direction`, why).
    Refused(String, ScaleType, String),
    /// Nothing pending.
    Nothing,
}

/// Starts the instance's oldest pending step (`scale` makes the occurrence of the
/// request), unless another operation holds the instance or it is within `cooldown` of
/// the end of its last automatic operation. All in one transaction.
pub fn start(
    c: &mut DbConnection,
    instance: Uuid,
    cooldown: Duration,
    scale: impl FnOnce(&VnfInstance, ScaleRequest) -> OpOcc,
) -> Result<Start> {
    c.transaction(|c| {
        let mine = || {
            dsl::auto_scales
                .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                .filter(dsl::op_occ_id.is_null())
        };
        if !lock_pending(c, instance)? {
            return Ok(Start::Nothing);
        }
        let Some((id, aspect, direction)) = mine()
            .filter(dsl::due_at.le(now()))
            .order(dsl::received_at.asc())
            .select((dsl::id, dsl::aspect_id, dsl::direction))
            .first::<(String, String, String)>(c)
            .optional()?
        else {
            return Ok(Start::Nothing);
        };
        let kind = if direction == "SCALE_IN" {
            ScaleType::ScaleIn
        } else {
            ScaleType::ScaleOut
        };
        let drop_it = |c: &mut DbConnection| {
            diesel::delete(dsl::auto_scales.filter(dsl::id.eq(&id))).execute(c)
        };
        let Some(i) = instances::get(c, instance)? else {
            diesel::delete(dsl::auto_scales.filter(dsl::vnf_instance_id.eq(instance.to_string())))
                .execute(c)?;
            return Ok(Start::Nothing);
        };
        let Some(info) = i.instantiated_vnf_info.clone() else {
            drop_it(c)?;
            return Ok(Start::Refused(
                aspect,
                kind,
                "the VNF instance is not instantiated".into(),
            ));
        };
        let refuse = |c: &mut DbConnection, why: String| -> Result<Start> {
            drop_it(c)?;
            Ok(Start::Refused(aspect.clone(), kind, why))
        };
        let Some(model) = crate::packages::model(c, i.vnf_pkg_id)? else {
            return refuse(
                c,
                format!("the package {} has no VNFD any more", i.vnf_pkg_id),
            );
        };
        let Some(f) = model.vnfd.flavour(&info.flavour_id) else {
            return refuse(c, format!("flavour {} is not in the VNFD", info.flavour_id));
        };
        let request = ScaleRequest {
            kind,
            aspect_id: aspect.clone(),
            number_of_steps: 1,
            additional_params: Default::default(),
        };
        if let Err(e) = request.check(f) {
            return refuse(c, e.detail);
        }
        if let Err(why) = plan::checked_scale_step(f, &info, &request) {
            return refuse(c, why);
        }
        let op = match ops::create_automatic(c, instance, cooldown, || scale(&i, request))? {
            Automatic::Created(op) => *op,
            Automatic::CoolingDown => return Ok(Start::CoolingDown),
            Automatic::Busy => return Ok(Start::Busy),
        };
        diesel::update(dsl::auto_scales.filter(dsl::id.eq(&id)))
            .set(dsl::op_occ_id.eq(Some(op.id.to_string())))
            .execute(c)?;
        let stored = ops::get(c, op.id)?.unwrap_or(op);
        Ok(Start::Started(Box::new(stored)))
    })
}

crate::handle::handle! {
    /// Scale steps waiting to run automatically.
    AutoScales = auto_scales {
        fn request(instance: Uuid, aspect: &str, direction: ScaleType, window: Duration) -> bool;
        fn due() -> Vec<Uuid>;
        fn settle() -> usize;
        fn next_due(instance: Uuid) -> Option<NaiveDateTime>;
        fn start(instance: Uuid, cooldown: Duration, scale: fn(&VnfInstance, ScaleRequest) -> OpOcc) -> Start;
    }
}
