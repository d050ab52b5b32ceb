//! Alertmanager's webhooks of PM rules: `POST /pm_event` (`function_type: vnfpm`: a
//! value of a job's metric, stored as a report, at most one per metric and object per
//! reporting period, announced to the job's callback) and `POST /pm_threshold`
//! (`function_type: vnfpm_threshold`: a value of a threshold's metric, announced when it
//! crosses the threshold UP or DOWN beyond its hysteresis). Each alert is taken or
//! skipped on its own; the answer says why for the skipped ones.

use std::collections::BTreeMap;

use actix_web::HttpResponse;
use chrono::Utc;
use serde_json::{Value, json};
use tacker_domain::fm::alert::{Alert, Status, Webhook};
use tacker_domain::pm::job::PmJob;
use tacker_domain::pm::report::{Entry, Report, Sample};
use uuid::Uuid;

use crate::extract::{Call, JsonBody};
use crate::{ApiError, ServerState};

fn label_id(a: &Alert, k: &str) -> Result<Uuid, String> {
    let raw = a.label(k).ok_or_else(|| format!("labels.{k} is missing"))?;
    raw.parse()
        .map_err(|_| format!("labels.{k} {raw:?} is not an id"))
}

fn value(a: &Alert) -> Result<f64, String> {
    let raw = a
        .annotations
        .get("value")
        .and_then(|v| match v {
            Value::String(s) => Some(s.trim().to_owned()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .ok_or("annotations.value is missing")?;
    raw.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("annotations.value {raw:?} is not a number"))
}

/// What came of a call's alerts.
#[derive(Default)]
struct Outcome {
    counts: BTreeMap<&'static str, u64>,
    skipped: Vec<Value>,
}

impl Outcome {
    fn count(&mut self, st: &ServerState, function: &str, what: &'static str) {
        *self.counts.entry(what).or_default() += 1;
        st.metrics.alert(function, what);
    }

    fn skip(&mut self, st: &ServerState, function: &str, a: &Alert, why: String) {
        tracing::warn!(fingerprint = %a.fingerprint, reason = %why, "alert skipped");
        self.count(st, function, "skipped");
        self.skipped
            .push(json!({"fingerprint": a.fingerprint, "reason": why}));
    }

    fn answer(self, n: usize) -> HttpResponse {
        HttpResponse::Ok()
            .json(json!({"alerts": n, "outcomes": self.counts, "skipped": self.skipped}))
    }
}

fn too_many(st: &ServerState, w: &Webhook) -> Result<(), ApiError> {
    let max = st.settings.max_alerts_per_call;
    if w.alerts.len() > max {
        return Err(ApiError::Unprocessable(format!(
            "{} alerts in one call; at most {max} (fm.max_alerts_per_call)",
            w.alerts.len()
        )));
    }
    Ok(())
}

/// Checks a PM alert against its job: the entry it makes.
fn entry(a: &Alert, j: &PmJob) -> Result<Entry, String> {
    let object = label_id(a, "object_instance_id")?;
    if !j.object_instance_ids.contains(&object) {
        return Err(format!(
            "object_instance_id {object} is not an object of PM job {}",
            j.id
        ));
    }
    let sub = a.label("sub_object_instance_id").map(str::to_owned);
    if let Some(s) = &sub
        && !j.sub_object_instance_ids.contains(s)
    {
        return Err(format!(
            "sub_object_instance_id {s} is not a sub-object of PM job {}",
            j.id
        ));
    }
    let metric = a.label("metric").ok_or("labels.metric is missing")?;
    if !j.metrics().iter().any(|m| m.full == metric) {
        return Err(format!(
            "metric {metric} is not collected by PM job {}",
            j.id
        ));
    }
    Ok(Entry {
        object_type: j.object_type,
        object_instance_id: object,
        sub_object_instance_id: sub,
        performance_metric: metric.to_owned(),
        performance_values: vec![Sample {
            time_stamp: Utc::now(),
            value: value(a)?,
        }],
    })
}

/// `POST /pm_event`.
pub async fn pm_event(
    Call { who, st, .. }: Call,
    JsonBody(w): JsonBody<Webhook>,
) -> Result<HttpResponse, ApiError> {
    too_many(&st, &w)?;
    const F: &str = "vnfpm";
    let mut out = Outcome::default();
    let mut jobs: BTreeMap<Uuid, Option<PmJob>> = BTreeMap::new();
    let mut entries: BTreeMap<Uuid, Vec<Entry>> = BTreeMap::new();
    for a in &w.alerts {
        if a.label("receiver_type") != Some("tacker") || a.label("function_type") != Some(F) {
            out.skip(
                &st,
                F,
                a,
                "not a PM alert (receiver_type tacker, function_type vnfpm)".into(),
            );
            continue;
        }
        if a.status == Status::Resolved {
            out.count(&st, F, "resolved");
            continue;
        }
        let id = match label_id(a, "job_id") {
            Ok(id) => id,
            Err(why) => {
                out.skip(&st, F, a, why);
                continue;
            }
        };
        if let std::collections::btree_map::Entry::Vacant(e) = jobs.entry(id) {
            let j = st.db.pm_jobs().get(id).await?;
            e.insert(j.filter(|j| who.sees(j.tenant.as_deref())));
        }
        let Some(Some(j)) = jobs.get(&id) else {
            out.skip(&st, F, a, format!("PM job {id} not found"));
            continue;
        };
        if j.criteria
            .reporting_boundary
            .is_some_and(|b| Utc::now() > b)
        {
            out.skip(
                &st,
                F,
                a,
                format!("PM job {id} is past its reportingBoundary"),
            );
            continue;
        }
        match entry(a, j) {
            Ok(e) => entries.entry(id).or_default().push(e),
            Err(why) => out.skip(&st, F, a, why),
        }
    }
    for (id, mut list) in entries {
        let Some(Some(j)) = jobs.get(&id) else {
            continue;
        };
        // One value per metric and object per reporting period (Alertmanager sends a
        // firing alert again and again).
        let period = i64::from(j.criteria.reporting_period.saturating_sub(1));
        let since = Utc::now() - chrono::Duration::seconds(period);
        let recent = st.db.pm_jobs().reports_since(id, since).await?;
        let key = |e: &Entry| {
            (
                e.object_instance_id,
                e.sub_object_instance_id.clone(),
                e.performance_metric.clone(),
            )
        };
        let mut seen: Vec<_> = recent
            .iter()
            .flat_map(|r| r.entries.iter().map(key))
            .collect();
        list.retain(|e| {
            let k = key(e);
            let fresh = !seen.contains(&k);
            if fresh {
                seen.push(k);
            }
            fresh
        });
        if list.is_empty() {
            out.count(&st, F, "within_period");
            continue;
        }
        let n = list.len();
        let r = Report {
            id: Uuid::new_v4(),
            job_id: id,
            ready_time: Utc::now(),
            entries: list,
        };
        st.db.pm_jobs().add_report(&r).await?;
        for _ in 0..n {
            out.count(&st, F, "reported");
        }
    }
    Ok(out.answer(w.alerts.len()))
}

/// `POST /pm_threshold`.
pub async fn pm_threshold(
    Call { who, st, .. }: Call,
    JsonBody(w): JsonBody<Webhook>,
) -> Result<HttpResponse, ApiError> {
    too_many(&st, &w)?;
    const F: &str = "vnfpm_threshold";
    let mut out = Outcome::default();
    for a in &w.alerts {
        if a.label("receiver_type") != Some("tacker") || a.label("function_type") != Some(F) {
            out.skip(
                &st,
                F,
                a,
                "not a threshold alert (receiver_type tacker, function_type vnfpm_threshold)"
                    .into(),
            );
            continue;
        }
        if a.status == Status::Resolved {
            out.count(&st, F, "resolved");
            continue;
        }
        let checked = async {
            let id = label_id(a, "threshold_id")?;
            let t = st
                .db
                .pm_thresholds()
                .get(id)
                .await
                .map_err(|e| e.to_string())?
                .filter(|t| who.sees(t.tenant.as_deref()))
                .ok_or_else(|| format!("threshold {id} not found"))?;
            let object = label_id(a, "object_instance_id")?;
            if object != t.object_instance_id {
                return Err(format!(
                    "object_instance_id {object} is not the object of threshold {id}"
                ));
            }
            let sub = a.label("sub_object_instance_id").map(str::to_owned);
            if let Some(s) = &sub
                && !t.sub_object_instance_ids.contains(s)
            {
                return Err(format!(
                    "sub_object_instance_id {s} is not a sub-object of threshold {id}"
                ));
            }
            if a.label("metric") != Some(t.criteria.performance_metric.as_str()) {
                return Err(format!(
                    "metric is not {} of threshold {id}",
                    t.criteria.performance_metric
                ));
            }
            Ok((id, sub, value(a)?))
        }
        .await;
        let (id, sub, v) = match checked {
            Ok(x) => x,
            Err(why) => {
                out.skip(&st, F, a, why);
                continue;
            }
        };
        let now = Utc::now();
        let crossed = st
            .db
            .pm_thresholds()
            .observe(id, sub.as_deref(), v, now)
            .await?;
        match crossed {
            Some(c) => {
                tracing::info!(threshold_id = %id, direction = ?c.crossing_direction, value = v, "threshold crossed");
                out.count(&st, F, "crossed");
            }
            None => out.count(&st, F, "not_crossed"),
        }
    }
    Ok(out.answer(w.alerts.len()))
}
