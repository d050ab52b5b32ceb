//! Actions on stacks: create, update (what is marked unhealthy, failed or changed is
//! replaced; groups grow and shrink, unhealthy members leaving first, then the oldest),
//! delete. They run as tasks; each step is a status change and an event, as in Heat.

use std::future::Future;
use std::net::Ipv4Addr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::types::{self, Kind};
use super::{Engine, Resource, Stack, State, Status};
use crate::hot::{self, ResourceDef, Scope, Template};

type Step = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

const fn status(action: &'static str, state: &'static str) -> Status {
    Status { action, state }
}

/// CREATE_IN_PROGRESS.
pub const CREATING: Status = status("CREATE", "IN_PROGRESS");
/// UPDATE_IN_PROGRESS.
pub const UPDATING: Status = status("UPDATE", "IN_PROGRESS");
/// DELETE_IN_PROGRESS.
pub const DELETING: Status = status("DELETE", "IN_PROGRESS");

struct Scoped<'a>(&'a Stack);

impl Scope for Scoped<'_> {
    fn param(&self, name: &str) -> Option<&Value> {
        self.0.parameters.get(name)
    }
    fn resource_id(&self, name: &str) -> Option<String> {
        self.0.resource(name).map(|r| r.physical_id.clone())
    }
    fn attribute(&self, name: &str, attr: &str) -> Option<Value> {
        self.0.resource(name)?.attributes.get(attr).cloned()
    }
    fn file(&self, name: &str) -> Option<String> {
        self.0
            .files
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

fn short_id() -> String {
    Uuid::new_v4().simple().to_string()[..12].to_owned()
}

/// A new stack record (not stored).
pub fn new_stack(
    name: String,
    project: String,
    parent: Option<(Uuid, String)>,
    template: Template,
    raw_template: Value,
    files: Map<String, Value>,
    parameters: Map<String, Value>,
) -> Stack {
    Stack {
        id: Uuid::new_v4(),
        name,
        project,
        parent,
        template,
        raw_template,
        files,
        parameters,
        status: CREATING,
        reason: "Stack CREATE started".into(),
        resources: Vec::new(),
        events: Vec::new(),
        created: Utc::now(),
        updated: None,
        deleted: false,
    }
}

/// Creates every resource of stack `id` (stored, CREATE_IN_PROGRESS), wave by wave.
pub fn create(engine: Arc<Engine>, id: Uuid) -> Step {
    Box::pin(async move {
        let result = create_resources(&engine, id).await;
        let mut st = engine.lock();
        if let Ok(s) = st.stack_mut(id) {
            match &result {
                Ok(()) => s.set_status(
                    status("CREATE", "COMPLETE"),
                    "Stack CREATE completed successfully",
                ),
                Err(e) => s.set_status(
                    status("CREATE", "FAILED"),
                    format!("Resource CREATE failed: {e}"),
                ),
            }
        }
        result
    })
}

async fn create_resources(engine: &Arc<Engine>, id: Uuid) -> Result<(), String> {
    let waves = {
        let st = engine.lock();
        let s = st.stack(id).map_err(|e| e.message)?;
        s.template.waves().map_err(|e| e.message)?
    };
    for wave in waves {
        let steps = wave
            .into_iter()
            .map(|n| create_resource(engine.clone(), id, n));
        first_error(futures::future::join_all(steps).await)?;
    }
    Ok(())
}

fn first_error(results: Vec<Result<(), String>>) -> Result<(), String> {
    results
        .into_iter()
        .collect::<Result<Vec<()>, String>>()
        .map(|_| ())
}

/// What a step needs to know about the resource it works on.
struct Work {
    kind_text: String,
    kind: Kind,
    props: Value,
    stack_name: String,
}

fn prepare(engine: &Engine, stack: Uuid, name: &str) -> Result<Work, String> {
    let st = engine.lock();
    let s = st.stack(stack).map_err(|e| e.message)?;
    let def = s
        .template
        .resource(name)
        .ok_or_else(|| format!("resources.{name}: not in the template"))?;
    let kind = types::kind(&def.kind, &s.files)
        .ok_or_else(|| format!("The Resource Type ({}) could not be found.", def.kind))?;
    let props = hot::resolve(&def.properties, &Scoped(s))
        .map_err(|e| format!("resources.{name}: {}", e.message))?;
    Ok(Work {
        kind_text: def.kind.clone(),
        kind,
        props,
        stack_name: s.name.clone(),
    })
}

fn with_stack<T>(engine: &Engine, id: Uuid, f: impl FnOnce(&mut Stack) -> T) -> Option<T> {
    let mut st = engine.lock();
    st.stack_mut(id).ok().map(f)
}

/// Creates resource `name` of stack `stack` from its definition.
fn create_resource(engine: Arc<Engine>, stack: Uuid, name: String) -> Step {
    Box::pin(async move {
        let w = match prepare(&engine, stack, &name) {
            Ok(w) => w,
            Err(e) => {
                record_failure(&engine, stack, &name, "CREATE", &e);
                return Err(e);
            }
        };
        let now = Utc::now();
        let record = Resource {
            name: name.clone(),
            kind: w.kind_text.clone(),
            physical_id: Uuid::new_v4().to_string(),
            status: CREATING,
            reason: "state changed".into(),
            properties: w.props.clone(),
            attributes: Map::new(),
            nested: None,
            host: None,
            addresses: Vec::new(),
            created: now,
            updated: now,
        };
        with_stack(&engine, stack, |s| {
            s.resources.retain(|r| r.name != name);
            s.resources.push(record);
            s.set_resource_status(&name, CREATING, "state changed");
        });
        let result = match w.kind {
            Kind::Plain => {
                let a = types::plain_attributes(&w.kind_text, &w.props);
                with_stack(&engine, stack, |s| {
                    if let Some(r) = s.resource_mut(&name) {
                        r.attributes = a;
                    }
                });
                Ok(())
            }
            Kind::Port => create_port(&engine, stack, &name, &w.props),
            Kind::FloatingIp => create_floating_ip(&engine, stack, &name, &w.props),
            Kind::Server => create_server(&engine, stack, &name, &w.props).await,
            Kind::Group => create_group(&engine, stack, &name, &w).await,
            Kind::Template => create_nested(&engine, stack, &name, &w).await,
        };
        match &result {
            Ok(()) => {
                with_stack(&engine, stack, |s| {
                    s.set_resource_status(&name, status("CREATE", "COMPLETE"), "state changed")
                });
            }
            Err(e) => record_failure(&engine, stack, &name, "CREATE", e),
        }
        result
    })
}

fn record_failure(engine: &Engine, stack: Uuid, name: &str, action: &'static str, why: &str) {
    with_stack(engine, stack, |s| {
        if s.resource(name).is_some() {
            s.set_resource_status(name, status(action, "FAILED"), why);
        }
    });
}

fn set_attributes(
    engine: &Engine,
    stack: Uuid,
    name: &str,
    a: Map<String, Value>,
    addrs: Vec<Ipv4Addr>,
) {
    with_stack(engine, stack, |s| {
        if let Some(r) = s.resource_mut(name) {
            r.attributes = a;
            r.addresses = addrs;
        }
    });
}

fn create_port(engine: &Engine, stack: Uuid, name: &str, props: &Value) -> Result<(), String> {
    let ip = engine
        .hosts
        .allocate(types::wanted_address(props).as_deref())
        .map_err(|e| format!("resources.{name}: {}", e.message))?;
    let id = with_stack(engine, stack, |s| {
        s.resource(name).map(|r| r.physical_id.clone())
    })
    .flatten()
    .unwrap_or_default();
    let a = types::port_attributes(&id, props, &ip.to_string());
    set_attributes(engine, stack, name, a, vec![ip]);
    Ok(())
}

/// The (stack, resource) of the live resource with this physical id.
fn find(st: &State, physical_id: &str) -> Option<(Uuid, Resource)> {
    st.stacks.values().filter(|s| !s.deleted).find_map(|s| {
        s.resources
            .iter()
            .find(|r| r.physical_id == physical_id)
            .map(|r| (s.id, r.clone()))
    })
}

/// The image of the volume a server without `image` boots from (Nova: the
/// `block_device_mapping_v2` entry with `boot_index` 0, else the first that gives none,
/// its volume made from an image).
fn boot_volume_image(st: &State, props: &Value) -> Result<String, String> {
    let mappings: Vec<&Value> = props
        .get("block_device_mapping_v2")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let index = |m: &Value| m.get("boot_index").and_then(Value::as_i64);
    let boot = mappings
        .iter()
        .find(|m| index(m) == Some(0))
        .or_else(|| mappings.iter().find(|m| index(m).is_none()))
        .ok_or("a server needs an image or a volume to boot from (boot_index 0)")?;
    let volume = boot
        .get("volume_id")
        .and_then(Value::as_str)
        .ok_or("block_device_mapping_v2: the boot entry names no volume_id")?;
    let (_, v) = find(st, volume).ok_or_else(|| format!("volume {volume} could not be found"))?;
    v.properties
        .get("image")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("volume {volume} was not made from an image and cannot boot"))
}

fn create_floating_ip(
    engine: &Engine,
    stack: Uuid,
    name: &str,
    props: &Value,
) -> Result<(), String> {
    let ip = engine
        .hosts
        .allocate(None)
        .map_err(|e| format!("resources.{name}: {}", e.message))?;
    let port = props
        .get("port_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let a = Map::from_iter([
        ("floating_ip_address".into(), json!(ip.to_string())),
        ("port_id".into(), json!(port)),
    ]);
    set_attributes(engine, stack, name, a, vec![ip]);
    // A server already running behind the port gets the address now.
    if let Some(port) = port {
        let host = {
            let st = engine.lock();
            st.stacks.values().filter(|s| !s.deleted).find_map(|s| {
                s.resources
                    .iter()
                    .filter(|r| r.kind == types::SERVER)
                    .find(|r| types::server_ports(&r.properties).0.contains(&port))
                    .and_then(|r| r.host.clone())
            })
        };
        if let Some(h) = host {
            engine
                .hosts
                .add_address(&h, ip)
                .map_err(|e| format!("resources.{name}: {e}"))?;
        }
    }
    Ok(())
}

/// The floating addresses on `ports`.
fn floating_of(st: &State, ports: &[String]) -> Vec<Ipv4Addr> {
    st.stacks
        .values()
        .filter(|s| !s.deleted)
        .flat_map(|s| s.resources.iter())
        .filter(|r| r.kind == types::FLOATING_IP)
        .filter(|r| {
            r.properties
                .get("port_id")
                .and_then(Value::as_str)
                .is_some_and(|p| ports.iter().any(|x| x == p))
        })
        .flat_map(|r| r.addresses.iter().copied())
        .collect()
}

fn floating_ips(engine: &Engine, ports: &[String]) -> Vec<Ipv4Addr> {
    floating_of(&engine.lock(), ports)
}

async fn create_server(
    engine: &Arc<Engine>,
    stack: Uuid,
    name: &str,
    props: &Value,
) -> Result<(), String> {
    let (ports, bare) = types::server_ports(props);
    let (mut ips, floating) = {
        let st = engine.lock();
        let mut ips = Vec::new();
        for p in &ports {
            let (_, port) = find(&st, p)
                .ok_or_else(|| format!("resources.{name}: port {p} could not be found"))?;
            ips.extend(port.addresses.iter().copied());
        }
        (ips, floating_of(&st, &ports))
    };
    let mut own = Vec::new();
    for _ in 0..bare {
        let ip = engine
            .hosts
            .allocate(None)
            .map_err(|e| format!("resources.{name}: {}", e.message))?;
        own.push(ip);
        ips.push(ip);
    }
    // Owned addresses are recorded before anything can fail, so a delete returns them.
    set_attributes(engine, stack, name, Map::new(), own.clone());
    if ips.is_empty() {
        return Err(format!("resources.{name}: a server needs a network"));
    }
    let image = match props.get("image").filter(|i| !i.is_null()) {
        Some(i) => i
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| i.to_string()),
        None => boot_volume_image(&engine.lock(), props)
            .map_err(|why| format!("resources.{name}: {why}"))?,
    };
    if let Some(x) = &engine.external {
        x.check_image(&image)
            .await
            .map_err(|why| format!("resources.{name}.properties.image: {why}"))?;
    }
    let hostname = props
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(name)
        .to_owned();
    let (fault, delay, unreachable) = {
        let mut f = engine.faults();
        (
            f.build_fails(&image, &hostname),
            f.build_delay_ms,
            f.unreachable(&image, &hostname),
        )
    };
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if let Some(why) = fault {
        return Err(format!(
            "ResourceInError: resources.{name}: Went to status ERROR due to \"Message: {why}, Code: 500\""
        ));
    }
    let all: Vec<Ipv4Addr> = ips.iter().chain(floating.iter()).copied().collect();
    let e = engine.clone();
    let hn = hostname.clone();
    let host = tokio::task::spawn_blocking(move || e.hosts.up(&hn, &all))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| {
            format!("ResourceInError: resources.{name}: Went to status ERROR due to \"Message: {e}, Code: 500\"")
        })?;
    if unreachable {
        engine
            .hosts
            .set_link(&host, false)
            .map_err(|e| format!("resources.{name}: {e}"))?;
    }
    // The host is recorded first, so a floating IP created from now on finds it; those
    // created while it was building are added here (adding twice is harmless).
    with_stack(engine, stack, |s| {
        if let Some(r) = s.resource_mut(name) {
            r.host = Some(host.clone());
        }
    });
    let late: Vec<Ipv4Addr> = floating_ips(engine, &ports)
        .into_iter()
        .filter(|ip| !floating.contains(ip))
        .collect();
    for ip in &late {
        engine
            .hosts
            .add_address(&host, *ip)
            .map_err(|e| format!("resources.{name}: {e}"))?;
    }
    let floating: Vec<Ipv4Addr> = floating.into_iter().chain(late).collect();
    let text = |v: &[Ipv4Addr]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
    let a = types::server_attributes(props, &hostname, &text(&ips), &text(&floating));
    let kept = with_stack(engine, stack, |s| match s.resource_mut(name) {
        Some(r) => {
            r.attributes = a;
            r.host = Some(host.clone());
            true
        }
        None => false,
    });
    if kept != Some(true) {
        // Deleted meanwhile: the host goes too.
        engine.hosts.down(&host);
    }
    Ok(())
}

fn member_def(props: &Value) -> Result<ResourceDef, String> {
    let r = props
        .get("resource")
        .ok_or_else(|| "an autoscaling group needs a resource".to_owned())?;
    let kind = r
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| "an autoscaling group's resource needs a type".to_owned())?;
    Ok(ResourceDef {
        kind: kind.to_owned(),
        properties: r.get("properties").cloned().unwrap_or(Value::Null),
        needs: Default::default(),
    })
}

async fn create_group(
    engine: &Arc<Engine>,
    stack: Uuid,
    name: &str,
    w: &Work,
) -> Result<(), String> {
    let size = types::group_size(&w.props).map_err(|e| format!("resources.{name}: {e}"))?;
    let def = member_def(&w.props).map_err(|e| format!("resources.{name}: {e}"))?;
    let nid = nest(
        engine,
        stack,
        name,
        w,
        Template::empty(),
        Value::Null,
        Map::new(),
    )?;
    let adds = (0..size).map(|_| add_member(engine.clone(), nid, def.clone()));
    let result = first_error(futures::future::join_all(adds).await);
    settle_nested(engine, nid, "CREATE", &result);
    result.map_err(|e| format!("resources.{name}: {e}"))
}

/// Stores a nested stack of resource `name` and links it; returns its id.
fn nest(
    engine: &Engine,
    stack: Uuid,
    name: &str,
    w: &Work,
    template: Template,
    raw: Value,
    params: Map<String, Value>,
) -> Result<Uuid, String> {
    let mut st = engine.lock();
    let (project, files) = {
        let s = st.stack(stack).map_err(|e| e.message)?;
        (s.project.clone(), s.files.clone())
    };
    let nested = new_stack(
        format!("{}-{name}-{}", w.stack_name, short_id()),
        project,
        Some((stack, name.to_owned())),
        template,
        raw,
        files,
        params,
    );
    let nid = nested.id;
    st.stacks.insert(nid, nested);
    if let Ok(s) = st.stack_mut(stack)
        && let Some(r) = s.resource_mut(name)
    {
        r.nested = Some(nid);
        r.physical_id = nid.to_string();
    }
    Ok(nid)
}

fn settle_nested(engine: &Engine, nid: Uuid, action: &'static str, result: &Result<(), String>) {
    with_stack(engine, nid, |s| match result {
        Ok(()) => s.set_status(
            status(action, "COMPLETE"),
            format!("Stack {action} completed successfully"),
        ),
        Err(e) => s.set_status(status(action, "FAILED"), e.clone()),
    });
}

/// Adds a member to group stack `nid` and creates it.
fn add_member(engine: Arc<Engine>, nid: Uuid, def: ResourceDef) -> Step {
    Box::pin(async move {
        let member = short_id();
        with_stack(&engine, nid, |s| {
            s.template.resources.push((member.clone(), def))
        });
        create_resource(engine, nid, member).await
    })
}

async fn create_nested(
    engine: &Arc<Engine>,
    stack: Uuid,
    name: &str,
    w: &Work,
) -> Result<(), String> {
    let (template, raw, params) = nested_template(engine, stack, name, w)?;
    let nid = nest(engine, stack, name, w, template, raw, params)?;
    create(engine.clone(), nid)
        .await
        .map_err(|e| format!("resources.{name}: {e}"))
}

fn nested_template(
    engine: &Engine,
    stack: Uuid,
    name: &str,
    w: &Work,
) -> Result<(Template, Value, Map<String, Value>), String> {
    let text = {
        let st = engine.lock();
        let s = st.stack(stack).map_err(|e| e.message)?;
        s.files
            .get(&w.kind_text)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("resources.{name}: no file {} was given", w.kind_text))?
    };
    let raw = Value::String(text);
    let template = hot::parse(&raw).map_err(|e| format!("resources.{name}: {}", e.message))?;
    let given = w.props.as_object().cloned().unwrap_or_default();
    let params = template
        .parameter_values(&given)
        .map_err(|e| format!("resources.{name}: {}", e.message))?;
    Ok((template, raw, params))
}

/// Updates stack `id` (stored, UPDATE_IN_PROGRESS) to `template` (None: keep it) with
/// these parameter values.
pub fn update(
    engine: Arc<Engine>,
    id: Uuid,
    template: Option<(Template, Value, Map<String, Value>)>,
    parameters: Map<String, Value>,
) -> Step {
    Box::pin(async move {
        with_stack(&engine, id, |s| {
            if let Some((t, raw, files)) = template {
                s.template = t;
                s.raw_template = raw;
                s.files = files;
            }
            s.parameters = parameters;
            s.updated = Some(Utc::now());
        });
        let result = update_resources(&engine, id).await;
        with_stack(&engine, id, |s| match &result {
            Ok(()) => s.set_status(
                status("UPDATE", "COMPLETE"),
                "Stack UPDATE completed successfully",
            ),
            Err(e) => s.set_status(
                status("UPDATE", "FAILED"),
                format!("Resource UPDATE failed: {e}"),
            ),
        });
        result
    })
}

async fn update_resources(engine: &Arc<Engine>, id: Uuid) -> Result<(), String> {
    let (waves, gone) = {
        let st = engine.lock();
        let s = st.stack(id).map_err(|e| e.message)?;
        let waves = s.template.waves().map_err(|e| e.message)?;
        let gone: Vec<String> = s
            .resources
            .iter()
            .filter(|r| s.template.resource(&r.name).is_none())
            .map(|r| r.name.clone())
            .collect();
        (waves, gone)
    };
    for name in gone.into_iter().rev() {
        delete_resource(engine.clone(), id, name).await?;
    }
    for wave in waves {
        let steps = wave
            .into_iter()
            .map(|n| update_resource(engine.clone(), id, n));
        first_error(futures::future::join_all(steps).await)?;
    }
    Ok(())
}

/// Whether a resource must be replaced whatever its properties say.
fn unhealthy(r: &Resource) -> bool {
    r.status.failed() || !r.status.settled()
}

fn update_resource(engine: Arc<Engine>, stack: Uuid, name: String) -> Step {
    Box::pin(async move {
        let old = with_stack(&engine, stack, |s| s.resource(&name).cloned()).flatten();
        let Some(old) = old else {
            return create_resource(engine, stack, name).await;
        };
        let w = match prepare(&engine, stack, &name) {
            Ok(w) => w,
            Err(e) => {
                record_failure(&engine, stack, &name, "UPDATE", &e);
                return Err(e);
            }
        };
        if w.kind_text != old.kind {
            return replace(engine, stack, name).await;
        }
        match w.kind {
            Kind::Group if !unhealthy(&old) || old.nested.is_some() => {
                let result = update_group(&engine, stack, &name, &w, &old).await;
                finish_update(&engine, stack, &name, &result);
                result
            }
            Kind::Template if !unhealthy(&old) => {
                let result = update_nested(&engine, stack, &name, &w, &old).await;
                finish_update(&engine, stack, &name, &result);
                result
            }
            _ if unhealthy(&old) || w.props != old.properties => replace(engine, stack, name).await,
            _ => Ok(()),
        }
    })
}

fn finish_update(engine: &Engine, stack: Uuid, name: &str, result: &Result<(), String>) {
    match result {
        Ok(()) => {
            with_stack(engine, stack, |s| {
                if let Some(r) = s.resource_mut(name) {
                    r.properties = r.properties.clone();
                }
                s.set_resource_status(name, status("UPDATE", "COMPLETE"), "state changed")
            });
        }
        Err(e) => record_failure(engine, stack, name, "UPDATE", e),
    }
}

fn replace(engine: Arc<Engine>, stack: Uuid, name: String) -> Step {
    Box::pin(async move {
        delete_resource(engine.clone(), stack, name.clone()).await?;
        create_resource(engine, stack, name).await
    })
}

async fn update_nested(
    engine: &Arc<Engine>,
    stack: Uuid,
    name: &str,
    w: &Work,
    old: &Resource,
) -> Result<(), String> {
    let Some(nid) = old.nested else {
        return Err(format!("resources.{name}: no nested stack"));
    };
    let (template, raw, params) = nested_template(engine, stack, name, w)?;
    with_stack(engine, nid, |s| {
        s.set_status(UPDATING, "Stack UPDATE started")
    });
    with_stack(engine, stack, |s| {
        if let Some(r) = s.resource_mut(name) {
            r.properties = w.props.clone();
        }
    });
    let files = with_stack(engine, nid, |s| s.files.clone()).unwrap_or_default();
    update(engine.clone(), nid, Some((template, raw, files)), params)
        .await
        .map_err(|e| format!("resources.{name}: {e}"))
}

async fn update_group(
    engine: &Arc<Engine>,
    stack: Uuid,
    name: &str,
    w: &Work,
    old: &Resource,
) -> Result<(), String> {
    let Some(nid) = old.nested else {
        return replace(engine.clone(), stack, name.to_owned()).await;
    };
    let wanted = types::group_size(&w.props).map_err(|e| format!("resources.{name}: {e}"))?;
    // As Heat: a group whose desired_capacity did not change keeps the size it has (a
    // scaling policy may have moved it); a changed one, or a failed group, is resized.
    let current = with_stack(engine, nid, |s| s.resources.len()).unwrap_or(wanted);
    let target = if !unhealthy(old) && types::group_size(&old.properties).ok() == Some(wanted) {
        current
    } else {
        wanted
    };
    let def = member_def(&w.props).map_err(|e| format!("resources.{name}: {e}"))?;
    with_stack(engine, stack, |s| {
        if let Some(r) = s.resource_mut(name) {
            r.properties = w.props.clone();
        }
    });
    with_stack(engine, nid, |s| {
        s.set_status(UPDATING, "Stack UPDATE started")
    });
    let result = resize(engine, nid, target, &def).await;
    settle_nested(engine, nid, "UPDATE", &result);
    result.map_err(|e| format!("resources.{name}: {e}"))
}

async fn resize(
    engine: &Arc<Engine>,
    nid: Uuid,
    target: usize,
    def: &ResourceDef,
) -> Result<(), String> {
    // Members oldest first; unhealthy ones leave first when the group shrinks.
    let mut members: Vec<(String, bool)> = with_stack(engine, nid, |s| {
        let mut m: Vec<&Resource> = s.resources.iter().collect();
        m.sort_by_key(|r| r.created);
        m.iter().map(|r| (r.name.clone(), unhealthy(r))).collect()
    })
    .unwrap_or_default();
    while members.len() > target {
        let pos = members.iter().position(|(_, bad)| *bad).unwrap_or(0);
        let (victim, _) = members.remove(pos);
        remove_member(engine, nid, &victim).await?;
    }
    let mut steps: Vec<Step> = Vec::new();
    for (m, bad) in &members {
        with_stack(engine, nid, |s| {
            if let Some((_, d)) = s.template.resources.iter_mut().find(|(n, _)| n == m) {
                *d = def.clone();
            }
        });
        if *bad {
            let (e, d, m) = (engine.clone(), def.clone(), m.clone());
            steps.push(Box::pin(async move {
                remove_member(&e, nid, &m).await?;
                add_member(e, nid, d).await
            }));
        } else {
            steps.push(update_resource(engine.clone(), nid, m.clone()));
        }
    }
    for _ in members.len()..target {
        steps.push(add_member(engine.clone(), nid, def.clone()));
    }
    first_error(futures::future::join_all(steps).await)
}

/// A signal to scaling policy `policy` of stack `stack`: its group's capacity moves by the
/// policy's adjustment (`change_in_capacity`, `exact_capacity` or
/// `percent_change_in_capacity`, at least one member; clamped to `min_size` and
/// `max_size`), unhealthy members leaving first. The group is UPDATE_IN_PROGRESS when
/// this returns; the step resizes it.
pub fn signal(engine: Arc<Engine>, stack: Uuid, policy: &str) -> Result<Step, String> {
    let (group, nid, target, def) = {
        let mut st = engine.lock();
        let s = st.stack(stack).map_err(|e| e.message)?;
        let p = s
            .resource(policy)
            .ok_or_else(|| format!("The Resource ({policy}) could not be found."))?;
        if p.kind != "OS::Heat::ScalingPolicy" {
            return Err(format!("{policy} is a {}, not a scaling policy", p.kind));
        }
        let props = &p.properties;
        let adjustment = types::number(props, "scaling_adjustment")
            .ok_or_else(|| format!("{policy}: scaling_adjustment is required"))?;
        let group_id = props
            .get("auto_scaling_group_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let g = s
            .resources
            .iter()
            .find(|r| r.physical_id == group_id || r.name == group_id)
            .ok_or_else(|| format!("{policy}: auto_scaling_group_id {group_id:?} is no group"))?;
        let nid = g
            .nested
            .ok_or_else(|| format!("{policy}: group {} has no members", g.name))?;
        let (name, gprops) = (g.name.clone(), g.properties.clone());
        let current = i64::try_from(st.stack(nid).map(|n| n.resources.len()).unwrap_or(0))
            .unwrap_or(i64::MAX);
        let limit = |k: &str, d: i64| types::number(&gprops, k).unwrap_or(d);
        let wanted = match props
            .get("adjustment_type")
            .and_then(Value::as_str)
            .unwrap_or("change_in_capacity")
        {
            "exact_capacity" => adjustment,
            "percent_change_in_capacity" => {
                let delta = current * adjustment / 100;
                current
                    + if delta == 0 {
                        adjustment.signum()
                    } else {
                        delta
                    }
            }
            _ => current + adjustment,
        };
        let target = wanted.clamp(limit("min_size", 0), limit("max_size", i64::MAX));
        let def = member_def(&gprops)?;
        let s = st.stack_mut(stack).map_err(|e| e.message)?;
        s.set_resource_status(
            &name,
            status("UPDATE", "IN_PROGRESS"),
            format!("signal from {policy}"),
        );
        (name, nid, usize::try_from(target).unwrap_or(0), def)
    };
    Ok(Box::pin(async move {
        with_stack(&engine, nid, |s| {
            s.set_status(UPDATING, "Stack UPDATE started")
        });
        let result = resize(&engine, nid, target, &def).await;
        settle_nested(&engine, nid, "UPDATE", &result);
        finish_update(&engine, stack, &group, &result);
        result
    }))
}

async fn remove_member(engine: &Arc<Engine>, nid: Uuid, member: &str) -> Result<(), String> {
    delete_resource(engine.clone(), nid, member.to_owned()).await?;
    with_stack(engine, nid, |s| {
        s.template.resources.retain(|(n, _)| n != member)
    });
    Ok(())
}

/// Deletes resource `name` of stack `stack` and what it holds (host, addresses, nested
/// stacks), then forgets it.
fn delete_resource(engine: Arc<Engine>, stack: Uuid, name: String) -> Step {
    Box::pin(async move {
        let r = with_stack(&engine, stack, |s| {
            let r = s.resource(&name).cloned();
            if r.is_some() {
                s.set_resource_status(&name, DELETING, "state changed");
            }
            r
        })
        .flatten();
        let Some(r) = r else { return Ok(()) };
        if let Some(nid) = r.nested {
            delete(engine.clone(), nid).await?;
        }
        if let Some(h) = r.host.clone() {
            let e = engine.clone();
            tokio::task::spawn_blocking(move || e.hosts.down(&h))
                .await
                .map_err(|e| e.to_string())?;
        }
        for ip in &r.addresses {
            engine.hosts.release(*ip);
        }
        with_stack(&engine, stack, |s| {
            s.set_resource_status(&name, status("DELETE", "COMPLETE"), "state changed");
            s.resources.retain(|x| x.name != name);
        });
        Ok(())
    })
}

/// Deletes stack `id`: its resources in reverse order, then the stack itself. Waits for
/// an action in progress to end first.
pub fn delete(engine: Arc<Engine>, id: Uuid) -> Step {
    Box::pin(async move {
        loop {
            let busy = with_stack(&engine, id, |s| {
                !s.status.settled() && s.status.action != "DELETE"
            });
            match busy {
                Some(true) => tokio::time::sleep(Duration::from_millis(50)).await,
                Some(false) => break,
                None => return Ok(()),
            }
        }
        with_stack(&engine, id, |s| {
            s.set_status(DELETING, "Stack DELETE started")
        });
        let order: Vec<Vec<String>> = with_stack(&engine, id, |s| {
            let mut waves = s.template.waves().unwrap_or_default();
            let known: Vec<String> = waves.iter().flatten().cloned().collect();
            let rest: Vec<String> = s
                .resources
                .iter()
                .filter(|r| !known.contains(&r.name))
                .map(|r| r.name.clone())
                .collect();
            waves.push(rest);
            waves.reverse();
            waves
        })
        .unwrap_or_default();
        let mut result = Ok(());
        for wave in order {
            let steps = wave
                .into_iter()
                .map(|n| delete_resource(engine.clone(), id, n));
            if let Err(e) = first_error(futures::future::join_all(steps).await) {
                result = Err(e);
            }
        }
        with_stack(&engine, id, |s| match &result {
            Ok(()) => {
                s.deleted = true;
                s.set_status(
                    status("DELETE", "COMPLETE"),
                    "Stack DELETE completed successfully",
                );
            }
            Err(e) => s.set_status(
                status("DELETE", "FAILED"),
                format!("Resource DELETE failed: {e}"),
            ),
        });
        result
    })
}

impl Template {
    /// A template without resources (a group's nested stack gets members added).
    pub fn empty() -> Self {
        Template {
            parameters: Map::new(),
            resources: Vec::new(),
            outputs: Map::new(),
        }
    }
}
