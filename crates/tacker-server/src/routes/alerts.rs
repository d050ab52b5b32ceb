//! Alertmanager's webhooks, as Tacker's Prometheus plugin takes them: `POST /alert`
//! (`function_type: vnffm`: firing raises an alarm, resolved clears it) and
//! `POST /alert/auto_healing` (`function_type: auto_heal`: an alarm too, and, for an
//! instance with `isAutohealEnabled`, its VNFCs gathered into one automatic heal) and
//! `POST /alert/auto_scaling` (`function_type: auto_scale`: for an instance with
//! `isAutoscaleEnabled`, one step of the aspect it names; otherwise an alarm). Each
//! alert is taken or skipped on its own; the answer counts what came of them and says
//! why each skipped one was (Alertmanager only logs it: the metric
//! `tacker_alerts_total{outcome="skipped"}` is what to watch).

use std::collections::HashMap;

use actix_web::{HttpResponse, web};
use serde_json::{Value, json};
use tacker_db::alarms::Raised;
use tacker_domain::fm::alert::{AUTOHEAL, AUTOSCALE, Alert, Function, Status, Webhook, opted_in};
use tacker_domain::lcm::VnfInstance;
use uuid::Uuid;

use crate::auth::Principal;
use crate::extract::{Call, JsonBody};
use crate::scope::{sees_instance, vim_areas};
use crate::{ApiError, ServerState};

/// `POST /alert`: alarms.
pub async fn fm(
    Call { who, st, .. }: Call,
    body: JsonBody<Webhook>,
) -> Result<HttpResponse, ApiError> {
    take(Function::Fm, who, body, st).await
}

/// `POST /alert/auto_scaling`: automatic scale steps (alarms for instances that did not
/// opt in).
pub async fn auto_scale(
    Call { who, st, .. }: Call,
    body: JsonBody<Webhook>,
) -> Result<HttpResponse, ApiError> {
    take(Function::AutoScale, who, body, st).await
}

/// `POST /alert/auto_healing`: alarms, and automatic heals.
pub async fn auto_heal(
    Call { who, st, .. }: Call,
    body: JsonBody<Webhook>,
) -> Result<HttpResponse, ApiError> {
    take(Function::AutoHeal, who, body, st).await
}

fn function_name(f: Function) -> &'static str {
    match f {
        Function::Fm => "vnffm",
        Function::AutoHeal => "auto_heal",
        Function::AutoScale => "auto_scale",
        Function::Other => "other",
    }
}

/// What came of a call's alerts (and the server that takes them).
struct Outcome<'a> {
    st: &'a ServerState,
    counts: HashMap<&'static str, u64>,
    skipped: Vec<Value>,
}

impl Outcome<'_> {
    fn count(&mut self, function: Function, what: &'static str) {
        *self.counts.entry(what).or_default() += 1;
        self.st.metrics.alert(function_name(function), what);
    }

    fn skip(&mut self, function: Function, a: &Alert, why: String) {
        tracing::warn!(fingerprint = %a.fingerprint, reason = %why, "alert skipped");
        self.count(function, "skipped");
        self.skipped
            .push(json!({"fingerprint": a.fingerprint, "reason": why}));
    }
}

async fn take(
    expected: Function,
    who: Principal,
    JsonBody(w): JsonBody<Webhook>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let max = st.settings.max_alerts_per_call;
    if w.alerts.len() > max {
        return Err(ApiError::Unprocessable(format!(
            "{} alerts in one call; at most {max} (fm.max_alerts_per_call): lower \
             Alertmanager's max_alerts for this receiver",
            w.alerts.len()
        )));
    }
    let mut out = Outcome {
        st: &st,
        counts: HashMap::new(),
        skipped: Vec::new(),
    };
    let mut instances: HashMap<Uuid, Option<VnfInstance>> = HashMap::new();
    let areas = vim_areas(&st, &who).await?;
    for a in &w.alerts {
        let f = a.function();
        if f != expected {
            let why = match f {
                Function::Other => {
                    "not a Tacker alert (labels.receiver_type tacker and a function_type are needed)"
                        .to_owned()
                }
                f => format!(
                    "function_type {} is not served here ({})",
                    function_name(f),
                    match f {
                        Function::Fm => "POST /alert",
                        Function::AutoHeal => "POST /alert/auto_healing",
                        Function::AutoScale => "POST /alert/auto_scaling",
                        Function::Other => "nowhere",
                    }
                ),
            };
            out.skip(expected, a, why);
            continue;
        }
        let id = match a.instance() {
            Ok(id) => id,
            Err(why) => {
                out.skip(f, a, why);
                continue;
            }
        };
        if let std::collections::hash_map::Entry::Vacant(e) = instances.entry(id) {
            let found = st
                .db
                .instances()
                .get(id)
                .await?
                .filter(|i| sees_instance(&who, i, &areas));
            e.insert(found);
        }
        let Some(Some(i)) = instances.get(&id) else {
            out.skip(f, a, format!("VNF instance {id} not found"));
            continue;
        };
        match a.status {
            Status::Firing if f == Function::AutoScale && opted_in(i, AUTOSCALE) => {
                scale(&mut out, a, i).await?;
            }
            Status::Resolved if f == Function::AutoScale && opted_in(i, AUTOSCALE) => {
                out.count(f, "resolved");
            }
            Status::Firing => firing(&mut out, a, i).await?,
            Status::Resolved => {
                let at = a.ended(chrono::Utc::now());
                match st.db.alarms().clear(id, &a.fingerprint, at).await? {
                    Some(alarm) => {
                        tracing::info!(alarm_id = %alarm.id, vnf_instance_id = %id, "alarm cleared");
                        out.count(f, "cleared");
                    }
                    None => out.count(f, "not_open"),
                }
            }
        }
    }
    Ok(HttpResponse::Ok().json(json!({
        "alerts": w.alerts.len(),
        "outcomes": out.counts,
        "skipped": out.skipped,
    })))
}

/// A firing alert: its alarm (raised once per fingerprint), and for an auto-heal alert
/// of an instance that opted in, its VNFCs asked to be healed.
async fn firing(out: &mut Outcome<'_>, a: &Alert, i: &VnfInstance) -> Result<(), ApiError> {
    let st = out.st;
    let f = a.function();
    let alarm = match a.alarm(i, chrono::Utc::now()) {
        Ok(alarm) => alarm,
        Err(why) => {
            out.skip(f, a, why);
            return Ok(());
        }
    };
    let vnfcs = alarm.vnfc_instance_ids.clone();
    let raised = st.db.alarms().raise(&alarm).await?;
    match raised {
        Raised::New(alarm) => {
            tracing::info!(alarm_id = %alarm.id, vnf_instance_id = %i.id, severity = %alarm.perceived_severity, "alarm raised");
            out.count(f, "raised");
        }
        Raised::Open(_) => out.count(f, "open"),
        // A late copy of a firing already cleared: its VNFCs were healed (or the fault
        // went away) once; healing again would replace what runs now.
        Raised::Cleared(_) => {
            out.count(f, "already_cleared");
            return Ok(());
        }
        Raised::NoInstance => {
            out.skip(f, a, format!("VNF instance {} not found", i.id));
            return Ok(());
        }
    }
    if f == Function::AutoScale {
        out.count(f, "not_enabled");
        return Ok(());
    }
    if f != Function::AutoHeal {
        return Ok(());
    }
    if !opted_in(i, AUTOHEAL) {
        out.count(f, "not_enabled");
        return Ok(());
    }
    let (id, window) = (i.id, st.settings.auto_heal_window);
    let added = st.db.auto_heals().request(id, &vnfcs, window).await?;
    if added > 0 {
        tracing::info!(vnf_instance_id = %id, vnfcs = added, "auto-heal requested");
        due(st, id).await;
    }
    out.count(f, "heal_requested");
    Ok(())
}

/// A firing auto-scale alert of an instance that opted in: one step of its aspect asked
/// for (the conductors start it within the aspect's limits, or raise an alarm).
async fn scale(out: &mut Outcome<'_>, a: &Alert, i: &VnfInstance) -> Result<(), ApiError> {
    let st = out.st;
    let f = a.function();
    let (aspect, direction) = match a.scale() {
        Ok(s) => s,
        Err(why) => {
            out.skip(f, a, why);
            return Ok(());
        }
    };
    let (id, window) = (i.id, st.settings.auto_scale_window);
    let new = st
        .db
        .auto_scales()
        .request(id, &aspect, direction, window)
        .await?;
    if new {
        tracing::info!(vnf_instance_id = %id, "auto-scale requested");
        due(st, id).await;
    }
    out.count(f, "scale_requested");
    Ok(())
}

/// Tells a conductor that automatic work on `instance` was asked for, so it starts when
/// due rather than at the next periodic pass (which takes it anyway if this is lost).
pub(crate) async fn due(st: &ServerState, instance: Uuid) {
    let msg = tacker_rpc::proto::ClosedLoopDue {
        vnf_instance_id: instance.to_string(),
    };
    let id = instance.to_string();
    if let Err(e) = st.bus.cast(&msg, &[("vnf_instance_id", &id)]).await {
        tracing::warn!(error = %e, vnf_instance_id = %id, "closed loop not told; its periodic pass will start the work");
    }
}
