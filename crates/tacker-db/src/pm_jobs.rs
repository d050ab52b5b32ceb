//! `pm_jobs` and `pm_reports`: PM jobs, the reports alerts feed them, and the
//! `PerformanceInformationAvailableNotification`s announcing each report (queued in the
//! transaction that stores it, under the job's id).

use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use tacker_domain::lcm::SubscriptionAuth;
use tacker_domain::pm::job::{PmJob, ReportRef};
use tacker_domain::pm::report::{Report, ReportFacts};
use uuid::Uuid;

use crate::schema::notification_outbox::dsl as ob;
use crate::schema::pm_jobs::{self, dsl};
use crate::schema::pm_reports::{self, dsl as rd};
use crate::{DbConnection, Result, json_text, now};

crate::rows::corrupt_in!("pm_jobs");

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = pm_jobs)]
struct Row {
    id: String,
    tenant: Option<String>,
    body: String,
    created_at: NaiveDateTime,
}

fn report_refs(c: &mut DbConnection, job: Uuid) -> Result<Vec<ReportRef>> {
    let rows: Vec<(String, NaiveDateTime)> = rd::pm_reports
        .filter(rd::job_id.eq(job.to_string()))
        .order((rd::created_at.asc(), rd::id.asc()))
        .select((rd::id, rd::created_at))
        .load(c)?;
    rows.into_iter()
        .map(|(id, t)| {
            Ok(ReportRef {
                id: id.parse().map_err(|e| corrupt("report id", e))?,
                ready_time: t.and_utc(),
            })
        })
        .collect()
}

fn read(c: &mut DbConnection, r: Row) -> Result<(PmJob, DateTime<Utc>)> {
    let mut j: PmJob = serde_json::from_str(&r.body).map_err(|e| corrupt("body", e))?;
    j.reports = report_refs(c, j.id)?;
    Ok((j, r.created_at.and_utc()))
}

crate::rows::insert_body!(pm_jobs, PmJob, "job");

/// The job `id`, with its reports.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<PmJob>> {
    let Some(r) = dsl::pm_jobs
        .filter(dsl::id.eq(id.to_string()))
        .select(Row::as_select())
        .first(c)
        .optional()?
    else {
        return Ok(None);
    };
    read(c, r).map(|(j, _)| Some(j))
}

/// The jobs of `tenant` (`None`: all), oldest first, with their creation time.
pub fn list(c: &mut DbConnection, tenant: Option<&str>) -> Result<Vec<(PmJob, DateTime<Utc>)>> {
    let rows = crate::rows::of_tenant!(dsl::pm_jobs, dsl::tenant, tenant)
        .order((dsl::created_at.asc(), dsl::id.asc()))
        .select(Row::as_select())
        .load(c)?;
    rows.into_iter().map(|r| read(c, r)).collect()
}

/// Changes where the job's reports are announced; false when it is gone.
pub fn set_callback(
    c: &mut DbConnection,
    id: Uuid,
    callback_uri: Option<String>,
    authentication: Option<Option<SubscriptionAuth>>,
) -> Result<Option<PmJob>> {
    c.transaction(|c| {
        diesel::update(dsl::pm_jobs.filter(dsl::id.eq(id.to_string())))
            .set(dsl::id.eq(dsl::id))
            .execute(c)?;
        let Some(mut j) = get(c, id)? else {
            return Ok(None);
        };
        if let Some(u) = callback_uri {
            j.callback_uri = u;
        }
        if let Some(a) = authentication {
            j.authentication = a;
        }
        diesel::update(dsl::pm_jobs.filter(dsl::id.eq(id.to_string())))
            .set(dsl::body.eq(json_text(&j)))
            .execute(c)?;
        Ok(Some(j))
    })
}

/// Deletes a job, its reports and its undelivered notifications; false when absent.
pub fn delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    c.transaction(|c| {
        let n = diesel::delete(dsl::pm_jobs.filter(dsl::id.eq(id.to_string()))).execute(c)?;
        diesel::delete(rd::pm_reports.filter(rd::job_id.eq(id.to_string()))).execute(c)?;
        diesel::delete(ob::notification_outbox.filter(ob::subscription_id.eq(id.to_string())))
            .execute(c)?;
        Ok(n == 1)
    })
}

/// Report `report` of job `job`.
pub fn report(c: &mut DbConnection, job: Uuid, report: Uuid) -> Result<Option<Report>> {
    let body: Option<String> = rd::pm_reports
        .filter(rd::id.eq(report.to_string()))
        .filter(rd::job_id.eq(job.to_string()))
        .select(rd::body)
        .first(c)
        .optional()?;
    body.map(|b| serde_json::from_str(&b).map_err(|e| corrupt("report", e)))
        .transpose()
}

/// The reports of job `job` made since `since`.
pub fn reports_since(c: &mut DbConnection, job: Uuid, since: DateTime<Utc>) -> Result<Vec<Report>> {
    let bodies: Vec<String> = rd::pm_reports
        .filter(rd::job_id.eq(job.to_string()))
        .filter(rd::created_at.ge(since.naive_utc()))
        .select(rd::body)
        .load(c)?;
    bodies
        .iter()
        .map(|b| serde_json::from_str(b).map_err(|e| corrupt("report", e)))
        .collect()
}

/// Stores `r` and queues one notification per instance it reports on, to the job's
/// callback.
pub fn add_report(c: &mut DbConnection, r: &Report) -> Result<()> {
    c.transaction(|c| {
        diesel::insert_into(pm_reports::table)
            .values((
                rd::id.eq(r.id.to_string()),
                rd::job_id.eq(r.job_id.to_string()),
                rd::body.eq(json_text(r)),
                rd::created_at.eq(r.ready_time.naive_utc()),
            ))
            .execute(c)?;
        let mut objects: Vec<Uuid> = r.entries.iter().map(|e| e.object_instance_id).collect();
        objects.sort();
        objects.dedup();
        for o in objects {
            let mut subs: Vec<String> = r
                .entries
                .iter()
                .filter(|e| e.object_instance_id == o)
                .filter_map(|e| e.sub_object_instance_id.clone())
                .collect();
            subs.sort();
            subs.dedup();
            let object_type = r
                .entries
                .iter()
                .find(|e| e.object_instance_id == o)
                .map(|e| e.object_type)
                .ok_or_else(|| corrupt("report", "no entry"))?;
            let facts = ReportFacts {
                id: Uuid::new_v4(),
                time_stamp: r.ready_time,
                pm_job_id: r.job_id,
                report_id: r.id,
                object_type,
                object_instance_id: o,
                sub_object_instance_ids: subs,
            };
            crate::outbox::push(c, r.job_id, facts.id, &json_text(&facts))?;
        }
        Ok(())
    })
}

/// Deletes up to `limit` reports older than `keep`; how many.
pub fn prune_reports(c: &mut DbConnection, keep: Duration, limit: i64) -> Result<usize> {
    crate::rows::prune!(c, rd::pm_reports, rd::pm_reports, rd::id => String, rd::created_at, keep, rd::id, limit)
}

crate::handle::handle! {
    /// PM jobs and their reports.
    PmJobs = pm_jobs {
        fn insert(job: &PmJob, quota: u64) -> bool;
        fn get(id: Uuid) -> Option<PmJob>;
        fn list(tenant: Option<&str>) -> Vec<(PmJob, DateTime<Utc>)>;
        fn set_callback(id: Uuid, callback_uri: Option<String>, authentication: Option<Option<SubscriptionAuth>>) -> Option<PmJob>;
        fn delete(id: Uuid) -> bool;
        fn report(job: Uuid, report: Uuid) -> Option<Report>;
        fn reports_since(job: Uuid, since: DateTime<Utc>) -> Vec<Report>;
        fn add_report(r: &Report) -> ();
        fn prune_reports(keep: Duration, limit: i64) -> usize;
    }
}
