//! `vnf_lcm_op_occs`: operation occurrences and their transitions, each with its
//! notifications queued in the same transaction.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::Value;
use tacker_domain::ProblemDetails;
use tacker_domain::lcm::{
    CancelMode, Notification, OpOcc, OperationParams, OperationState, VnfInstance,
};
use uuid::Uuid;

use crate::instances;
use crate::schema::vnf_lcm_op_occs::{self, dsl};
use crate::{DbConnection, Error, Result, json_text, now, outbox};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = vnf_lcm_op_occs)]
struct Row {
    id: String,
    vnf_instance_id: String,
    operation: String,
    operation_state: String,
    state_entered_time: NaiveDateTime,
    start_time: NaiveDateTime,
    is_automatic_invocation: bool,
    is_cancel_pending: bool,
    operation_params: String,
    error: Option<String>,
    resource_changes: Option<String>,
    changed_info: Option<String>,
    changed_ext_connectivity: Option<String>,
    grant_id: Option<String>,
    conductor_id: Option<String>,
    revision: i64,
    created_at: NaiveDateTime,
    request: Option<String>,
    tenant: Option<String>,
    cancel_mode: Option<String>,
}

crate::rows::corrupt_in!("vnf_lcm_op_occs");

fn json_opt(what: &str, s: Option<String>) -> Result<Option<Value>> {
    s.map(|t| serde_json::from_str(&t).map_err(|e| corrupt(what, e)))
        .transpose()
}

impl Row {
    fn into_domain(self) -> Result<OpOcc> {
        let operation = self
            .operation
            .parse()
            .map_err(|e| corrupt("operation", e))?;
        let operation_params: Value = serde_json::from_str(&self.operation_params)
            .map_err(|e| corrupt("operation_params", e))?;
        let request = match &self.request {
            Some(t) => serde_json::from_str(t).map_err(|e| corrupt("request", e))?,
            // Occurrences from before typed requests were stored: the body is v2.
            None => OperationParams::parse(operation, &operation_params)
                .map_err(|e| corrupt("operation_params", e))?,
        };
        Ok(OpOcc {
            id: self.id.parse().map_err(|e| corrupt("id", e))?,
            vnf_instance_id: self
                .vnf_instance_id
                .parse()
                .map_err(|e| corrupt("vnf_instance_id", e))?,
            operation,
            state: self
                .operation_state
                .parse()
                .map_err(|e| corrupt("operation_state", e))?,
            state_entered_time: self.state_entered_time.and_utc(),
            start_time: self.start_time.and_utc(),
            operation_params,
            request,
            error: self
                .error
                .map(|t| serde_json::from_str::<ProblemDetails>(&t))
                .transpose()
                .map_err(|e| corrupt("error", e))?,
            resource_changes: json_opt("resource_changes", self.resource_changes)?,
            changed_info: json_opt("changed_info", self.changed_info)?,
            changed_ext_connectivity: json_opt(
                "changed_ext_connectivity",
                self.changed_ext_connectivity,
            )?,
            grant_id: self.grant_id,
            conductor_id: self.conductor_id,
            tenant: self.tenant,
            is_automatic_invocation: self.is_automatic_invocation,
            cancel_pending: match (self.is_cancel_pending, self.cancel_mode) {
                (false, _) => None,
                (true, None) => Some(CancelMode::Graceful),
                (true, Some(m)) => Some(m.parse().map_err(|e| corrupt("cancel_mode", e))?),
            },
        })
    }
}

/// Whether an operation could start.
#[derive(Debug, PartialEq, Eq)]
pub enum CreateOutcome {
    /// Created in STARTING.
    Created,
    /// Another operation is in progress or FAILED_TEMP on the instance.
    Busy,
    /// CHANGE_VNFPKG: no ONBOARDED and ENABLED package has the requested vnfdId.
    NoTargetPackage,
}

/// Queues the notification of `op`'s current state.
fn notify(c: &mut DbConnection, op: &OpOcc) -> Result<()> {
    let Some(instance) = instances::get(c, op.vnf_instance_id)? else {
        return Ok(());
    };
    outbox::enqueue_matching(c, &Notification::of_op(op), &instance)
}

/// Creates `op` (STARTING) if the instance is free: takes its operation lock, records
/// `instantiate_params` (sealed) with the instance when given, and queues the STARTING
/// notification, in one transaction.
pub fn create(
    c: &mut DbConnection,
    op: &OpOcc,
    instantiate_params: Option<&str>,
) -> Result<CreateOutcome> {
    c.transaction(|c| {
        // A package change reads its target first; otherwise the first statement writes
        // (SQLite then takes its write lock at once, waiting for it, instead of failing
        // to upgrade a read).
        let target = crate::usage::target_of(&op.request).map(str::to_owned);
        if let Some(v) = &target {
            let tenant = instances::get(c, op.vnf_instance_id)?.and_then(|i| i.tenant);
            if instances::usable_package(c, v, tenant.as_deref())?
                .one()
                .is_none()
            {
                return Ok(CreateOutcome::NoTargetPackage);
            }
        }
        if !instances::lock(c, op.vnf_instance_id, op.id)? {
            return Ok(CreateOutcome::Busy);
        }
        let tenant = instances::get(c, op.vnf_instance_id)?.and_then(|i| i.tenant);
        if let Some(p) = instantiate_params {
            instances::set_instantiate_params(c, op.vnf_instance_id, Some(p))?;
        }
        let t = now();
        let row = Row {
            id: op.id.to_string(),
            vnf_instance_id: op.vnf_instance_id.to_string(),
            operation: op.operation.as_str().into(),
            operation_state: OperationState::Starting.as_str().into(),
            state_entered_time: t,
            start_time: t,
            is_automatic_invocation: op.is_automatic_invocation,
            is_cancel_pending: false,
            operation_params: json_text(&op.operation_params),
            error: None,
            resource_changes: None,
            changed_info: None,
            changed_ext_connectivity: None,
            grant_id: None,
            conductor_id: None,
            revision: 0,
            created_at: t,
            request: Some(json_text(&op.request)),
            tenant,
            cancel_mode: None,
        };
        diesel::insert_into(vnf_lcm_op_occs::table)
            .values(row)
            .execute(c)?;
        // The package changed to is pinned (IN_USE) until the change ends.
        if let Some(vnfd) = target {
            crate::usage::refresh_vnfd(c, &vnfd)?;
        }
        let stored = get(c, op.id)?.ok_or_else(|| corrupt("id", "vanished"))?;
        notify(c, &stored)?;
        Ok(CreateOutcome::Created)
    })
}

/// Inserts `op`, an ended occurrence brought over from another VNFM (`tacker import
/// tacker`), as it is: owned by its instance's tenant, no lock taken, nothing notified.
/// False when an occurrence of this id exists, or its instance does not.
pub fn insert_imported(c: &mut DbConnection, op: &OpOcc) -> Result<bool> {
    c.transaction(|c| {
        if get(c, op.id)?.is_some() {
            return Ok(false);
        }
        let Some(instance) = instances::get(c, op.vnf_instance_id)? else {
            return Ok(false);
        };
        let trunc =
            |t: chrono::DateTime<chrono::Utc>| chrono::SubsecRound::trunc_subsecs(t.naive_utc(), 6);
        let row = Row {
            id: op.id.to_string(),
            vnf_instance_id: op.vnf_instance_id.to_string(),
            operation: op.operation.as_str().into(),
            operation_state: op.state.as_str().into(),
            state_entered_time: trunc(op.state_entered_time),
            start_time: trunc(op.start_time),
            is_automatic_invocation: op.is_automatic_invocation,
            is_cancel_pending: false,
            operation_params: json_text(&op.operation_params),
            error: op.error.as_ref().map(json_text),
            resource_changes: op.resource_changes.as_ref().map(json_text),
            changed_info: op.changed_info.as_ref().map(json_text),
            changed_ext_connectivity: op.changed_ext_connectivity.as_ref().map(json_text),
            grant_id: op.grant_id.clone(),
            conductor_id: None,
            revision: 0,
            created_at: trunc(op.start_time),
            request: Some(json_text(&op.request)),
            tenant: instance.tenant,
            cancel_mode: None,
        };
        diesel::insert_into(vnf_lcm_op_occs::table)
            .values(row)
            .execute(c)?;
        Ok(true)
    })
}

// `created_at`, indexed, is the start time: both are set once, at creation.
crate::rows::reads!(vnf_lcm_op_occs, OpOcc, "occurrence", "(start time, id)", OpOccs, {
    "id" => dsl::id,
    "operation" => dsl::operation,
    "operationState" => dsl::operation_state,
    "vnfInstanceId" => dsl::vnf_instance_id,
    crate::scan::TENANT => dsl::tenant,
});

/// Who runs an occurrence after a transition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Runner {
    /// Unchanged.
    #[default]
    Keep,
    /// This conductor (its id and incarnation).
    Set(String, String),
    /// Nobody.
    Clear,
}

/// A state change of an occurrence, and what changes with it.
#[derive(Debug, Clone, Default)]
pub struct Transition {
    /// States it may leave.
    pub from: Vec<OperationState>,
    /// The state it enters.
    pub to: Option<OperationState>,
    /// New `error` (`Some(None)` clears it).
    pub error: Option<Option<ProblemDetails>>,
    /// New `resourceChanges`.
    pub resource_changes: Option<Value>,
    /// New `changedInfo`.
    pub changed_info: Option<Value>,
    /// The grant.
    pub grant_id: Option<String>,
    /// Who runs it.
    pub runner: Runner,
    /// The instance as the operation left it.
    pub instance: Option<VnfInstance>,
    /// Whether the instance's operation lock is released (final states).
    pub release: bool,
}

/// Asks for occurrence `id` to be cancelled in `mode`: recorded only while it is
/// STARTING, PROCESSING or ROLLING_BACK with no cancellation pending; the occurrence
/// then (`None`: it was not, nothing changed).
pub fn request_cancel(c: &mut DbConnection, id: Uuid, mode: CancelMode) -> Result<Option<OpOcc>> {
    let n = diesel::update(
        dsl::vnf_lcm_op_occs
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::is_cancel_pending.eq(false))
            .filter(dsl::operation_state.eq_any([
                OperationState::Starting.as_str(),
                OperationState::Processing.as_str(),
                OperationState::RollingBack.as_str(),
            ])),
    )
    .set((
        dsl::is_cancel_pending.eq(true),
        dsl::cancel_mode.eq(Some(mode.as_str())),
        dsl::revision.eq(dsl::revision + 1),
    ))
    .execute(c)?;
    if n == 0 {
        return Ok(None);
    }
    get(c, id)
}

/// The cancellation pending on occurrence `id`, if any.
pub fn pending_cancel(c: &mut DbConnection, id: Uuid) -> Result<Option<CancelMode>> {
    let row: Option<(bool, Option<String>)> = dsl::vnf_lcm_op_occs
        .filter(dsl::id.eq(id.to_string()))
        .select((dsl::is_cancel_pending, dsl::cancel_mode))
        .first(c)
        .optional()?;
    Ok(match row {
        Some((true, m)) => Some(
            m.map(|m| m.parse().map_err(|e| corrupt("cancel_mode", e)))
                .transpose()?
                .unwrap_or(CancelMode::Graceful),
        ),
        _ => None,
    })
}

/// Applies `t` to occurrence `id` if it is in one of `t.from`, and queues the
/// notification of the new state: all in one transaction. `None` when it was not in
/// `t.from` (someone else moved it).
pub fn transition(c: &mut DbConnection, id: Uuid, t: &Transition) -> Result<Option<OpOcc>> {
    let to =
        t.to.ok_or_else(|| Error::Corrupt("transition without a target state".into()))?;
    c.transaction(|c| {
        let from: Vec<&str> = t.from.iter().map(|s| s.as_str()).collect();
        let target = dsl::vnf_lcm_op_occs
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::operation_state.eq_any(from));
        let n = diesel::update(target)
            .set((
                dsl::operation_state.eq(to.as_str()),
                dsl::state_entered_time.eq(now()),
                dsl::revision.eq(dsl::revision + 1),
            ))
            .execute(c)?;
        if n == 0 {
            return Ok(None);
        }
        let me = || dsl::vnf_lcm_op_occs.filter(dsl::id.eq(id.to_string()));
        if !matches!(
            to,
            OperationState::Starting | OperationState::Processing | OperationState::RollingBack
        ) {
            // Out of progress: a cancellation asked for is carried out (or moot).
            diesel::update(me())
                .set((
                    dsl::is_cancel_pending.eq(false),
                    dsl::cancel_mode.eq(None::<String>),
                ))
                .execute(c)?;
        }
        if let Some(e) = &t.error {
            diesel::update(me())
                .set(dsl::error.eq(e.as_ref().map(json_text)))
                .execute(c)?;
        }
        if let Some(r) = &t.resource_changes {
            diesel::update(me())
                .set(dsl::resource_changes.eq(Some(json_text(r))))
                .execute(c)?;
        }
        if let Some(ci) = &t.changed_info {
            diesel::update(me())
                .set(dsl::changed_info.eq(Some(json_text(ci))))
                .execute(c)?;
        }
        if let Some(g) = &t.grant_id {
            diesel::update(me())
                .set(dsl::grant_id.eq(Some(g)))
                .execute(c)?;
        }
        match &t.runner {
            Runner::Keep => {}
            Runner::Set(who, incarnation) => {
                diesel::update(me())
                    .set((
                        dsl::conductor_id.eq(Some(who)),
                        dsl::runner_incarnation.eq(Some(incarnation)),
                    ))
                    .execute(c)?;
            }
            Runner::Clear => {
                diesel::update(me())
                    .set((
                        dsl::conductor_id.eq(None::<String>),
                        dsl::runner_incarnation.eq(None::<String>),
                    ))
                    .execute(c)?;
            }
        }
        let op = get(c, id)?.ok_or_else(|| corrupt("id", "vanished"))?;
        if let Some(i) = &t.instance {
            instances::store(c, i)?;
            if op.operation == tacker_domain::lcm::LcmOperation::Terminate
                && to == OperationState::Completed
            {
                // Terminated: its VMs and their secrets are gone.
                instances::set_instantiate_params(c, i.id, None)?;
                crate::host_keys::forget(c, i.id)?;
            }
        }
        if t.release {
            instances::unlock(c, op.vnf_instance_id, op.id)?;
        }
        if let Some(v) = crate::usage::target_of(&op.request)
            && matches!(
                to,
                OperationState::Completed | OperationState::RolledBack | OperationState::Failed
            )
        {
            crate::usage::refresh_vnfd(c, v)?;
        }
        notify(c, &op)?;
        Ok(Some(op))
    })
}

/// Records what the infra step of `id` did (`checkpoint`), while `runner` runs it in
/// PROCESSING; whether it was recorded.
pub fn set_checkpoint(
    c: &mut DbConnection,
    id: Uuid,
    runner: &str,
    checkpoint: &Value,
) -> Result<bool> {
    let n = diesel::update(
        dsl::vnf_lcm_op_occs
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::operation_state.eq(OperationState::Processing.as_str()))
            .filter(dsl::conductor_id.eq(runner)),
    )
    .set(dsl::checkpoint.eq(Some(json_text(checkpoint))))
    .execute(c)?;
    Ok(n == 1)
}

/// What the infra step of `id` did, if it was recorded.
pub fn checkpoint(c: &mut DbConnection, id: Uuid) -> Result<Option<Value>> {
    let t: Option<Option<String>> = dsl::vnf_lcm_op_occs
        .filter(dsl::id.eq(id.to_string()))
        .select(dsl::checkpoint)
        .first(c)
        .optional()?;
    json_opt("checkpoint", t.flatten())
}

/// Records incarnation `incarnation` of `conductor` as the one running `id`, while it
/// is in one of `states` and nobody runs it: of two conductors handed the same
/// occurrence (a cast delivered twice, or cast again after it was lost), one takes it.
pub fn claim(
    c: &mut DbConnection,
    id: Uuid,
    conductor: &str,
    incarnation: &str,
    states: &[OperationState],
) -> Result<bool> {
    let states: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
    let n = diesel::update(
        dsl::vnf_lcm_op_occs
            .filter(dsl::id.eq(id.to_string()))
            .filter(dsl::operation_state.eq_any(states))
            .filter(dsl::conductor_id.is_null()),
    )
    .set((
        dsl::conductor_id.eq(Some(conductor)),
        dsl::runner_incarnation.eq(Some(incarnation)),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// An occurrence in progress and who runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// The occurrence.
    pub id: Uuid,
    /// Its VNF instance.
    pub vnf_instance_id: Uuid,
    /// STARTING, PROCESSING or ROLLING_BACK.
    pub state: OperationState,
    /// The conductor running it, if one took it.
    pub runner: Option<String>,
    /// Its incarnation that took it.
    pub incarnation: Option<String>,
    /// When it entered its state.
    pub since: chrono::DateTime<chrono::Utc>,
}

/// Occurrences in progress (STARTING, PROCESSING, ROLLING_BACK) and who runs them.
pub fn in_progress(c: &mut DbConnection) -> Result<Vec<Running>> {
    type RunningRow = (
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        NaiveDateTime,
    );
    let rows: Vec<RunningRow> = dsl::vnf_lcm_op_occs
        .filter(dsl::operation_state.eq_any([
            OperationState::Starting.as_str(),
            OperationState::Processing.as_str(),
            OperationState::RollingBack.as_str(),
        ]))
        .select((
            dsl::id,
            dsl::vnf_instance_id,
            dsl::operation_state,
            dsl::conductor_id,
            dsl::runner_incarnation,
            dsl::state_entered_time,
        ))
        .load(c)?;
    rows.into_iter()
        .map(|(id, instance, state, runner, incarnation, since)| {
            Ok(Running {
                id: id.parse().map_err(|e| corrupt("id", e))?,
                vnf_instance_id: instance
                    .parse()
                    .map_err(|e| corrupt("vnf_instance_id", e))?,
                state: state.parse().map_err(|e| corrupt("operation_state", e))?,
                runner,
                incarnation,
                since: since.and_utc(),
            })
        })
        .collect()
}

/// States in which an occurrence has ended for good.
const ENDED: [OperationState; 3] = [
    OperationState::Completed,
    OperationState::Failed,
    OperationState::RolledBack,
];

/// Deletes up to `batch` occurrences that ended more than `older_than` ago (oldest
/// first); how many. In-progress and FAILED_TEMP ones are never touched.
pub fn prune_ended(
    c: &mut DbConnection,
    older_than: std::time::Duration,
    batch: i64,
) -> Result<usize> {
    let ended =
        dsl::vnf_lcm_op_occs.filter(dsl::operation_state.eq_any(ENDED.iter().map(|s| s.as_str())));
    crate::rows::prune!(c, dsl::vnf_lcm_op_occs, ended, dsl::id => String, dsl::state_entered_time, older_than, dsl::state_entered_time, batch)
}

/// How many occurrences are in each state.
pub fn counts(c: &mut DbConnection) -> Result<Vec<(String, i64)>> {
    use diesel::dsl::count_star;
    Ok(dsl::vnf_lcm_op_occs
        .group_by(dsl::operation_state)
        .select((dsl::operation_state, count_star()))
        .load(c)?)
}

/// What became of an automatic operation asked for.
#[derive(Debug)]
pub enum Automatic {
    /// Created (STARTING).
    Created(Box<OpOcc>),
    /// The instance's last automatic operation ended less than the cool-down ago.
    CoolingDown,
    /// Another operation holds the instance (or its package is gone).
    Busy,
}

/// Creates the automatic operation `make` gives on `instance`, unless its last
/// automatic operation ended less than `cooldown` ago or another operation holds it.
pub fn create_automatic(
    c: &mut DbConnection,
    instance: Uuid,
    cooldown: std::time::Duration,
    make: impl FnOnce() -> OpOcc,
) -> Result<Automatic> {
    if let Some(end) = last_automatic_end(c, instance)?
        && crate::auto_heals::after(end, cooldown) > now()
    {
        return Ok(Automatic::CoolingDown);
    }
    let op = make();
    Ok(match create(c, &op, None)? {
        CreateOutcome::Created => Automatic::Created(Box::new(op)),
        CreateOutcome::Busy | CreateOutcome::NoTargetPackage => Automatic::Busy,
    })
}

/// When the instance's last automatic operation ended, if one did.
pub(crate) fn last_automatic_end(
    c: &mut DbConnection,
    instance: Uuid,
) -> Result<Option<NaiveDateTime>> {
    Ok(dsl::vnf_lcm_op_occs
        .filter(dsl::vnf_instance_id.eq(instance.to_string()))
        .filter(dsl::is_automatic_invocation.eq(true))
        .filter(dsl::operation_state.eq_any(["COMPLETED", "FAILED", "ROLLED_BACK"]))
        .select(diesel::dsl::max(dsl::state_entered_time))
        .first::<Option<NaiveDateTime>>(c)?)
}

/// Whether occurrence `id` has ended (or is gone).
pub(crate) fn has_ended(c: &mut DbConnection, id: &str) -> Result<bool> {
    let state: Option<String> = dsl::vnf_lcm_op_occs
        .filter(dsl::id.eq(id))
        .select(dsl::operation_state)
        .first(c)
        .optional()?;
    Ok(state.is_none_or(|s| matches!(s.as_str(), "COMPLETED" | "FAILED" | "ROLLED_BACK")))
}

crate::handle::handle! {
    /// LCM operation occurrences.
    OpOccs = op_occs {
        fn create(op: &OpOcc, instantiate_params: Option<&str>) -> CreateOutcome;
        fn insert_imported(op: &OpOcc) -> bool;
        fn request_cancel(id: Uuid, mode: CancelMode) -> Option<OpOcc>;
        fn pending_cancel(id: Uuid) -> Option<CancelMode>;
        fn transition(id: Uuid, t: &Transition) -> Option<OpOcc>;
        fn set_checkpoint(id: Uuid, runner: &str, checkpoint: &Value) -> bool;
        fn checkpoint(id: Uuid) -> Option<Value>;
        fn claim(id: Uuid, conductor: &str, incarnation: &str, states: &[OperationState]) -> bool;
        fn in_progress() -> Vec<Running>;
        fn prune_ended(older_than: std::time::Duration, batch: i64) -> usize;
        fn counts() -> Vec<(String, i64)>;
    }
}
