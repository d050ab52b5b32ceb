//! `conductors`: membership of the conductor cluster.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use tacker_domain::conductor::{Conductor, ConductorState};

use crate::schema::conductors::{self, dsl};
use crate::{DbConnection, Error, Result, now};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = conductors)]
struct Row {
    id: String,
    host: String,
    state: String,
    started_at: NaiveDateTime,
    last_heartbeat: NaiveDateTime,
    incarnation: String,
}

impl Row {
    fn into_domain(self) -> Result<Conductor> {
        Ok(Conductor {
            state: self
                .state
                .parse()
                .map_err(|e| Error::Corrupt(format!("conductors.state: {e}")))?,
            id: self.id,
            host: self.host,
            started_at: self.started_at.and_utc(),
            last_heartbeat: self.last_heartbeat.and_utc(),
            incarnation: self.incarnation,
        })
    }
}

/// Registers incarnation `incarnation` of conductor `id` in SYNCING (re-using its row
/// after a restart with the same id).
pub fn register(c: &mut DbConnection, id: &str, host: &str, incarnation: &str) -> Result<()> {
    let t = now();
    let state = ConductorState::Syncing.as_str();
    let n = diesel::update(dsl::conductors.filter(dsl::id.eq(id)))
        .set((
            dsl::host.eq(host),
            dsl::state.eq(state),
            dsl::started_at.eq(t),
            dsl::last_heartbeat.eq(t),
            dsl::incarnation.eq(incarnation),
        ))
        .execute(c)?;
    if n == 0 {
        let row = Row {
            id: id.into(),
            host: host.into(),
            state: state.into(),
            started_at: t,
            last_heartbeat: t,
            incarnation: incarnation.into(),
        };
        diesel::insert_into(conductors::table)
            .values(row)
            .execute(c)?;
    }
    Ok(())
}

/// Records a heartbeat; false when the row is gone (the caller registers again).
pub fn heartbeat(c: &mut DbConnection, id: &str) -> Result<bool> {
    let n = diesel::update(dsl::conductors.filter(dsl::id.eq(id)))
        .set(dsl::last_heartbeat.eq(now()))
        .execute(c)?;
    Ok(n == 1)
}

/// Sets the state of conductor `id`.
pub fn set_state(c: &mut DbConnection, id: &str, state: ConductorState) -> Result<bool> {
    let n = diesel::update(dsl::conductors.filter(dsl::id.eq(id)))
        .set((dsl::state.eq(state.as_str()), dsl::last_heartbeat.eq(now())))
        .execute(c)?;
    Ok(n == 1)
}

/// Every registered conductor, live or not, by id.
pub fn list(c: &mut DbConnection) -> Result<Vec<Conductor>> {
    dsl::conductors
        .order(dsl::id.asc())
        .select(Row::as_select())
        .load(c)?
        .into_iter()
        .map(Row::into_domain)
        .collect()
}

/// The members, read under a shared lock on their rows (PostgreSQL; SQLite serialises
/// writers anyway) held until the transaction ends: a conductor registering a new
/// incarnation meanwhile waits, and one that registered first is seen. A decision taken
/// on a member's incarnation (an onboarding completed on its confirmation) can then
/// never interleave with its restart.
pub fn list_locked(c: &mut DbConnection) -> Result<Vec<Conductor>> {
    if let DbConnection::Pg(pg) = c {
        diesel::sql_query("SELECT id FROM conductors ORDER BY id FOR SHARE").execute(pg)?;
    }
    list(c)
}

/// The conductors still heartbeating (they own their work, even while STOPPING).
pub fn alive(c: &mut DbConnection, dead_after: std::time::Duration) -> Result<Vec<Conductor>> {
    let now = chrono::Utc::now();
    list_where(c, |m| m.is_alive(now, dead_after))
}

/// The live READY set (see `Conductor::is_live_ready`), by id.
pub fn live_ready(c: &mut DbConnection, dead_after: std::time::Duration) -> Result<Vec<Conductor>> {
    let now = chrono::Utc::now();
    list_where(c, |m| m.is_live_ready(now, dead_after))
}

fn list_where(c: &mut DbConnection, keep: impl Fn(&Conductor) -> bool) -> Result<Vec<Conductor>> {
    Ok(list(c)?.into_iter().filter(|m| keep(m)).collect())
}

/// Removes rows of conductors silent for longer than `older_than` (long-gone incarnations
/// with random ids); returns how many.
pub fn prune(c: &mut DbConnection, older_than: std::time::Duration) -> Result<usize> {
    let age = chrono::Duration::from_std(older_than)
        .map_err(|e| Error::Corrupt(format!("prune age: {e}")))?;
    let before = now() - age;
    Ok(diesel::delete(dsl::conductors.filter(dsl::last_heartbeat.lt(before))).execute(c)?)
}

crate::handle::handle! {
    /// Conductor membership.
    Conductors = conductors {
        fn register(id: &str, host: &str, incarnation: &str) -> ();
        fn heartbeat(id: &str) -> bool;
        fn set_state(id: &str, state: ConductorState) -> bool;
        fn list() -> Vec<Conductor>;
        fn list_locked() -> Vec<Conductor>;
        fn alive(dead_after: std::time::Duration) -> Vec<Conductor>;
        fn live_ready(dead_after: std::time::Duration) -> Vec<Conductor>;
        fn prune(older_than: std::time::Duration) -> usize;
    }
}
