//! The Heat orchestration API subset (`/heat-api/v1/{project}`): stacks (create, show,
//! update, delete, template, files), resources (list with `nested_depth` and
//! `with_detail`, show, mark unhealthy), events (with `marker`, `sort_dir`, `limit`).

use std::collections::HashMap;

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::Sim;
use crate::engine::{self, Event, Resource, Stack, State};
use crate::error::SimError;
use crate::hot::{self, Template};
use crate::keystone::authorize;

type Answer = Result<HttpResponse, SimError>;

fn time(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn base(sim: &Sim) -> String {
    format!("{}/heat-api/v1/{}", sim.url, sim.identity.project_id)
}

fn stack_url(sim: &Sim, s: &Stack) -> String {
    format!("{}/stacks/{}/{}", base(sim), s.name, s.id)
}

/// Finds a live stack by name or id (deleted stacks are found by id only).
fn lookup<'a>(st: &'a State, name_or_id: &str) -> Result<&'a Stack, SimError> {
    if let Ok(id) = name_or_id.parse::<Uuid>()
        && let Some(s) = st.stacks.get(&id)
    {
        return Ok(s);
    }
    st.by_name(name_or_id)
        .ok_or_else(|| SimError::not_found(format!("The Stack ({name_or_id}) could not be found.")))
}

/// The stack at `{name}/{id}`.
fn exact<'a>(st: &'a State, name: &str, id: &str) -> Result<&'a Stack, SimError> {
    let s = id
        .parse::<Uuid>()
        .ok()
        .and_then(|u| st.stacks.get(&u))
        .filter(|s| s.name == name)
        .ok_or_else(|| SimError::not_found(format!("The Stack ({name}) could not be found.")))?;
    Ok(s)
}

fn parameters_text(s: &Stack) -> Map<String, Value> {
    let mut out: Map<String, Value> = s
        .parameters
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            (k.clone(), Value::String(text))
        })
        .collect();
    out.insert("OS::stack_id".into(), json!(s.id));
    out.insert("OS::stack_name".into(), json!(s.name));
    out.insert("OS::project_id".into(), json!(s.project));
    out
}

fn stack_json(sim: &Sim, s: &Stack) -> Value {
    json!({
        "id": s.id,
        "stack_name": s.name,
        "description": s.raw_template_description(),
        "template_description": s.raw_template_description(),
        "creation_time": time(&s.created),
        "updated_time": s.updated.as_ref().map(time),
        "deletion_time": null,
        "stack_status": s.status.text(),
        "stack_status_reason": s.reason,
        "parameters": parameters_text(s),
        "outputs": [],
        "links": [{"href": stack_url(sim, s), "rel": "self"}],
        "disable_rollback": true,
        "timeout_mins": null,
        "parent": s.parent.as_ref().map(|(p, _)| p.to_string()),
        "project": s.project,
        "stack_owner": sim.identity.user,
        "stack_user_project_id": s.project,
        "tags": null,
        "capabilities": [],
        "notification_topics": [],
    })
}

impl Stack {
    fn raw_template_description(&self) -> String {
        let t = match &self.raw_template {
            Value::String(text) => hot::parse_text(text).unwrap_or(Value::Null),
            other => other.clone(),
        };
        t.get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }
}

/// `GET /stacks`: the live top-level stacks.
pub async fn list(req: HttpRequest, sim: web::Data<Sim>) -> Answer {
    authorize(&req, &sim).await?;
    let st = sim.engine.lock();
    let mut stacks: Vec<&Stack> = st
        .stacks
        .values()
        .filter(|s| s.parent.is_none() && !s.deleted)
        .collect();
    stacks.sort_by_key(|s| s.created);
    let items: Vec<Value> = stacks.iter().map(|s| stack_json(&sim, s)).collect();
    Ok(HttpResponse::Ok().json(json!({"stacks": items})))
}

fn object_of(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object).cloned().unwrap_or_default()
}

/// Checks every resource type of `t`, nested templates included.
fn validate(t: &Template, files: &Map<String, Value>, depth: usize) -> Result<(), SimError> {
    if depth > 5 {
        return Err(SimError::bad("templates are nested too deeply"));
    }
    let mut kinds: Vec<(String, String)> = t
        .resources
        .iter()
        .map(|(n, d)| (n.clone(), d.kind.clone()))
        .collect();
    for (n, d) in &t.resources {
        if d.kind == "OS::Heat::AutoScalingGroup"
            && let Some(k) = d
                .properties
                .pointer("/resource/type")
                .and_then(Value::as_str)
        {
            kinds.push((n.clone(), k.to_owned()));
        }
    }
    for (name, kind) in kinds {
        if !engine::known_type(&kind, files) {
            return Err(SimError::bad(format!(
                "resources.{name}: The Resource Type ({kind}) could not be found."
            )));
        }
        if let Some(Value::String(text)) = files.get(&kind) {
            let nested = hot::parse(&Value::String(text.clone()))
                .map_err(|e| SimError::bad(format!("resources.{name}: {}", e.message)))?;
            validate(&nested, files, depth + 1)?;
        }
    }
    Ok(())
}

/// `POST /stacks`.
pub async fn create(req: HttpRequest, sim: web::Data<Sim>, body: web::Json<Value>) -> Answer {
    authorize(&req, &sim).await?;
    let b = body.into_inner();
    let name = b
        .get("stack_name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| SimError::bad("stack_name is required"))?
        .to_owned();
    let raw = b
        .get("template")
        .cloned()
        .ok_or_else(|| SimError::bad("template is required"))?;
    let template = hot::parse(&raw)?;
    let files = object_of(b.get("files"));
    validate(&template, &files, 0)?;
    let params = template.parameter_values(&object_of(b.get("parameters")))?;
    let stack = {
        let mut st = sim.engine.lock();
        if st.by_name(&name).is_some() {
            return Err(SimError::conflict(format!(
                "The Stack ({name}) already exists."
            )));
        }
        let mut s = engine::new_stack(
            name,
            sim.identity.project_id.clone(),
            None,
            template,
            raw,
            files,
            params,
        );
        s.set_status(engine::CREATING, "Stack CREATE started");
        let out =
            json!({"stack": {"id": s.id, "links": [{"href": stack_url(&sim, &s), "rel": "self"}]}});
        let id = s.id;
        st.stacks.insert(id, s);
        (id, out)
    };
    tokio::spawn(engine::create(sim.engine.clone(), stack.0));
    Ok(HttpResponse::Created().json(stack.1))
}

/// `/stacks/{name_or_id}[/...]` without the id: 302 to the stack's own URL (query kept).
pub async fn redirect(
    req: HttpRequest,
    sim: web::Data<Sim>,
    path: web::Path<(String, String)>,
) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name) = path.into_inner();
    let st = sim.engine.lock();
    let s = lookup(&st, &name)?;
    let rest = req
        .match_info()
        .get("rest")
        .map(|r| format!("/{r}"))
        .unwrap_or_default();
    let query = if req.query_string().is_empty() {
        String::new()
    } else {
        format!("?{}", req.query_string())
    };
    Ok(HttpResponse::Found()
        .insert_header(("Location", format!("{}{rest}{query}", stack_url(&sim, s))))
        .finish())
}

type StackPath = web::Path<(String, String, String)>;

/// `GET /stacks/{name}/{id}`.
pub async fn show(req: HttpRequest, sim: web::Data<Sim>, path: StackPath) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let st = sim.engine.lock();
    let s = exact(&st, &name, &id)?;
    Ok(HttpResponse::Ok().json(json!({"stack": stack_json(&sim, s)})))
}

/// `GET /stacks/{name}/{id}/template`.
pub async fn template(req: HttpRequest, sim: web::Data<Sim>, path: StackPath) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let st = sim.engine.lock();
    let s = exact(&st, &name, &id)?;
    let t = match &s.raw_template {
        Value::String(text) => hot::parse_text(text)?,
        // An autoscaling group's stack, which Heat writes itself: one resource per
        // member with the properties it was made with (what clients read a member's
        // flavor and image from).
        Value::Null => {
            let resources: serde_json::Map<String, Value> = s
                .resources
                .iter()
                .map(|r| {
                    (
                        r.name.clone(),
                        serde_json::json!({"type": r.kind, "properties": r.properties}),
                    )
                })
                .collect();
            serde_json::json!({"heat_template_version": "2015-04-30", "resources": resources})
        }
        other => other.clone(),
    };
    Ok(HttpResponse::Ok().json(t))
}

/// `GET /stacks/{name}/{id}/files`.
pub async fn files(req: HttpRequest, sim: web::Data<Sim>, path: StackPath) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let st = sim.engine.lock();
    let s = exact(&st, &name, &id)?;
    Ok(HttpResponse::Ok().json(&s.files))
}

/// `PATCH` (existing parameters kept) or `PUT` (replaced) `/stacks/{name}/{id}`.
pub async fn update(
    req: HttpRequest,
    sim: web::Data<Sim>,
    path: StackPath,
    body: web::Json<Value>,
) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let existing = req.method() == actix_web::http::Method::PATCH;
    let b = body.into_inner();
    let (sid, new_template, params) = {
        let mut st = sim.engine.lock();
        let s = exact(&st, &name, &id)?;
        if s.deleted || s.status.action == "DELETE" {
            return Err(SimError::not_found(format!(
                "The Stack ({name}) could not be found."
            )));
        }
        if !s.status.settled() {
            return Err(SimError::conflict(format!(
                "Stack {name} already has an action ({}) in progress.",
                s.status.action
            )));
        }
        let given_template = b.get("template").filter(|t| !t.is_null()).cloned();
        let files = match b.get("files").and_then(Value::as_object) {
            Some(f) if !f.is_empty() || given_template.is_some() => {
                let mut all = if existing {
                    s.files.clone()
                } else {
                    Map::new()
                };
                all.extend(f.clone());
                all
            }
            _ => s.files.clone(),
        };
        let new_template = match given_template {
            Some(raw) => {
                let t = hot::parse(&raw)?;
                validate(&t, &files, 0)?;
                Some((t, raw, files))
            }
            None if !existing => {
                return Err(SimError::bad("a PUT update needs the template"));
            }
            None => None,
        };
        let template = new_template
            .as_ref()
            .map(|(t, _, _)| t)
            .unwrap_or(&s.template);
        let mut given = if existing {
            s.parameters.clone()
        } else {
            Map::new()
        };
        given.extend(object_of(b.get("parameters")));
        let params = template.parameter_values(&given)?;
        let sid = s.id;
        st.stack_mut(sid)?
            .set_status(engine::UPDATING, "Stack UPDATE started");
        (sid, new_template, params)
    };
    tokio::spawn(engine::update(
        sim.engine.clone(),
        sid,
        new_template,
        params,
    ));
    Ok(HttpResponse::Accepted().json(json!({})))
}

/// `DELETE /stacks/{name}/{id}`.
pub async fn delete(req: HttpRequest, sim: web::Data<Sim>, path: StackPath) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let sid = {
        let st = sim.engine.lock();
        let s = exact(&st, &name, &id)?;
        if s.deleted {
            return Err(SimError::not_found(format!(
                "The Stack ({name}) could not be found."
            )));
        }
        s.id
    };
    tokio::spawn(engine::delete(sim.engine.clone(), sid));
    Ok(HttpResponse::NoContent().finish())
}

fn resource_json(sim: &Sim, st: &State, s: &Stack, r: &Resource, detail: bool) -> Value {
    let url = stack_url(sim, s);
    let mut links = vec![
        json!({"href": format!("{url}/resources/{}", r.name), "rel": "self"}),
        json!({"href": url, "rel": "stack"}),
    ];
    if let Some(n) = r.nested.and_then(|n| st.stacks.get(&n)) {
        links.push(json!({"href": stack_url(sim, n), "rel": "nested"}));
    }
    let required_by: Vec<&str> = s
        .template
        .resources
        .iter()
        .filter(|(_, d)| d.needs.contains(&r.name))
        .map(|(n, _)| n.as_str())
        .collect();
    let mut v = json!({
        "resource_name": r.name,
        "logical_resource_id": r.name,
        "physical_resource_id": r.physical_id,
        "resource_type": r.kind,
        "resource_status": r.status.text(),
        "resource_status_reason": r.reason,
        "creation_time": time(&r.created),
        "updated_time": time(&r.updated),
        "required_by": required_by,
        "description": "",
        "links": links,
    });
    if let Some((_, parent_resource)) = &s.parent {
        v["parent_resource"] = json!(parent_resource);
    }
    if detail {
        v["attributes"] = Value::Object(r.attributes.clone());
    }
    v
}

fn flag(q: &HashMap<String, String>, k: &str) -> bool {
    q.get(k)
        .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "yes"))
}

/// `GET /stacks/{name}/{id}/resources[?nested_depth=N&with_detail=true]`.
pub async fn resources(
    req: HttpRequest,
    sim: web::Data<Sim>,
    path: StackPath,
    q: web::Query<HashMap<String, String>>,
) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let depth: usize = q
        .get("nested_depth")
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    let detail = flag(&q, "with_detail");
    let st = sim.engine.lock();
    let s = exact(&st, &name, &id)?;
    let mut tree = Vec::new();
    st.tree(s.id, 0, &mut tree);
    let mut out = Vec::new();
    for (sid, d) in tree {
        if d > depth {
            continue;
        }
        if let Some(x) = st.stacks.get(&sid) {
            out.extend(
                x.resources
                    .iter()
                    .map(|r| resource_json(&sim, &st, x, r, detail)),
            );
        }
    }
    Ok(HttpResponse::Ok().json(json!({"resources": out})))
}

type ResourcePath = web::Path<(String, String, String, String)>;

/// `GET /stacks/{name}/{id}/resources/{resource}`.
pub async fn resource(req: HttpRequest, sim: web::Data<Sim>, path: ResourcePath) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id, res) = path.into_inner();
    let st = sim.engine.lock();
    let s = exact(&st, &name, &id)?;
    let r = s.resource(&res).ok_or_else(|| {
        SimError::not_found(format!(
            "The Resource ({res}) could not be found in Stack {name}."
        ))
    })?;
    Ok(HttpResponse::Ok().json(json!({"resource": resource_json(&sim, &st, s, r, true)})))
}

/// `PATCH /stacks/{name}/{id}/resources/{resource}` with `mark_unhealthy`.
pub async fn mark(
    req: HttpRequest,
    sim: web::Data<Sim>,
    path: ResourcePath,
    body: web::Json<Value>,
) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id, res) = path.into_inner();
    let unhealthy = body
        .get("mark_unhealthy")
        .and_then(Value::as_bool)
        .ok_or_else(|| SimError::bad("mark_unhealthy (a boolean) is required"))?;
    let reason = body
        .get("resource_status_reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut st = sim.engine.lock();
    let sid = exact(&st, &name, &id)?.id;
    let s = st.stack_mut(sid)?;
    let r = s.resource(&res).ok_or_else(|| {
        SimError::not_found(format!(
            "The Resource ({res}) could not be found in Stack {name}."
        ))
    })?;
    if unhealthy {
        s.set_resource_status(
            &res,
            engine::CHECK_FAILED,
            format!("Marked unhealthy: {reason}"),
        );
    } else if r.status == engine::CHECK_FAILED {
        s.set_resource_status(&res, engine::CHECK_COMPLETE, "Marked healthy");
    }
    Ok(HttpResponse::Ok().json(json!({})))
}

/// `POST /stacks/{name}/{id}/resources/{resource}/signal` to an `OS::Heat::ScalingPolicy`:
/// its group resizes (the group resource UPDATE_IN_PROGRESS, then UPDATE_COMPLETE).
pub async fn signal(req: HttpRequest, sim: web::Data<Sim>, path: ResourcePath) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id, res) = path.into_inner();
    let sid = exact(&sim.engine.lock(), &name, &id)?.id;
    let step = engine::signal(sim.engine.clone(), sid, &res).map_err(SimError::bad)?;
    tokio::spawn(step);
    Ok(HttpResponse::Ok().json(Value::Null))
}

fn event_json(sim: &Sim, s: &Stack, e: &Event) -> Value {
    let url = stack_url(sim, s);
    json!({
        "id": e.id,
        "event_time": time(&e.time),
        "resource_name": e.resource_name,
        "logical_resource_id": e.resource_name,
        "physical_resource_id": e.physical_id,
        "resource_status": e.status,
        "resource_status_reason": e.reason,
        "links": [
            {"href": format!("{url}/resources/{}/events/{}", e.resource_name, e.id), "rel": "self"},
            {"href": format!("{url}/resources/{}", e.resource_name), "rel": "resource"},
            {"href": url, "rel": "stack"},
        ],
    })
}

/// `GET /stacks/{name}/{id}/events[?marker=&sort_dir=&limit=]` (and per resource).
pub async fn events(
    req: HttpRequest,
    sim: web::Data<Sim>,
    path: StackPath,
    q: web::Query<HashMap<String, String>>,
) -> Answer {
    authorize(&req, &sim).await?;
    let (_, name, id) = path.into_inner();
    let only = req.match_info().get("resource").map(str::to_owned);
    let st = sim.engine.lock();
    let s = exact(&st, &name, &id)?;
    if s.deleted {
        return Err(SimError::not_found(format!(
            "The Stack ({name}) could not be found."
        )));
    }
    let mut list: Vec<&Event> = s
        .events
        .iter()
        .filter(|e| only.as_ref().is_none_or(|r| &e.resource_name == r))
        .filter(|e| {
            q.get("resource_status")
                .is_none_or(|w| e.status.ends_with(w.as_str()))
        })
        .collect();
    if let Some(m) = q.get("marker")
        && let Some(pos) = list.iter().position(|e| e.id.to_string() == *m)
    {
        list = list.split_off(pos + 1);
    }
    if q.get("sort_dir").is_some_and(|d| d == "desc") {
        list.reverse();
    }
    if let Some(n) = q.get("limit").and_then(|l| l.parse::<usize>().ok()) {
        list.truncate(n);
    }
    let items: Vec<Value> = list.iter().map(|e| event_json(&sim, s, e)).collect();
    Ok(HttpResponse::Ok().json(json!({"events": items})))
}
