//! Stacks and their resources: what Heat keeps, and how actions (create, update,
//! delete) move them. Nested stacks (template resources, autoscaling group members) are
//! stacks of their own with a parent, addressable like any stack.

mod build;
mod types;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use uuid::Uuid;

pub use build::{CREATING, DELETING, UPDATING, create, delete, new_stack, signal, update};

/// CHECK_FAILED: marked unhealthy (replaced at the next update).
pub const CHECK_FAILED: Status = Status {
    action: "CHECK",
    state: "FAILED",
};
/// CHECK_COMPLETE: marked healthy again.
pub const CHECK_COMPLETE: Status = Status {
    action: "CHECK",
    state: "COMPLETE",
};

/// Whether the simulator knows resource type `kind` (given the stack's files).
pub fn known_type(kind: &str, files: &Map<String, Value>) -> bool {
    types::kind(kind, files).is_some()
}

use crate::error::SimError;
use crate::faults::Faults;
use crate::hosts::Hosts;
use crate::hot::Template;

/// An action and how far it got (`CREATE_IN_PROGRESS`, `UPDATE_COMPLETE`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// CREATE, UPDATE, DELETE, CHECK.
    pub action: &'static str,
    /// IN_PROGRESS, COMPLETE, FAILED.
    pub state: &'static str,
}

impl Status {
    /// `<ACTION>_<STATE>`.
    pub fn text(&self) -> String {
        format!("{}_{}", self.action, self.state)
    }

    /// Whether the action ended.
    pub fn settled(&self) -> bool {
        self.state != "IN_PROGRESS"
    }

    /// Whether it failed.
    pub fn failed(&self) -> bool {
        self.state == "FAILED"
    }
}

/// One resource of a stack.
#[derive(Debug, Clone)]
pub struct Resource {
    /// Its name in the template.
    pub name: String,
    /// Its type.
    pub kind: String,
    /// Its id in the (simulated) cloud.
    pub physical_id: String,
    /// Status.
    pub status: Status,
    /// Why (failures, mark-unhealthy reasons).
    pub reason: String,
    /// Properties as resolved when it was created or last updated.
    pub properties: Value,
    /// Attributes (`fixed_ips`, `addresses`, ...).
    pub attributes: Map<String, Value>,
    /// The nested stack (template resources, autoscaling groups).
    pub nested: Option<Uuid>,
    /// The test host behind a server.
    pub host: Option<String>,
    /// Addresses this resource took from the pool.
    pub addresses: Vec<std::net::Ipv4Addr>,
    /// When it was created.
    pub created: DateTime<Utc>,
    /// When it last changed.
    pub updated: DateTime<Utc>,
}

/// A stack event.
#[derive(Debug, Clone)]
pub struct Event {
    /// Id.
    pub id: Uuid,
    /// The resource (or the stack's name for stack events).
    pub resource_name: String,
    /// Its physical id.
    pub physical_id: String,
    /// The status it entered.
    pub status: String,
    /// Why.
    pub reason: String,
    /// When.
    pub time: DateTime<Utc>,
}

/// A stack.
#[derive(Debug, Clone)]
pub struct Stack {
    /// Id.
    pub id: Uuid,
    /// Name (nested stacks: `<parent>-<resource>-<suffix>`).
    pub name: String,
    /// The project it belongs to.
    pub project: String,
    /// The stack and resource it is nested in.
    pub parent: Option<(Uuid, String)>,
    /// The template.
    pub template: Template,
    /// The template as given (answered by `GET .../template`).
    pub raw_template: Value,
    /// Files passed with it.
    pub files: Map<String, Value>,
    /// Parameter values (after defaults).
    pub parameters: Map<String, Value>,
    /// Status.
    pub status: Status,
    /// Why.
    pub reason: String,
    /// Resources by name.
    pub resources: Vec<Resource>,
    /// Events, oldest first.
    pub events: Vec<Event>,
    /// Created.
    pub created: DateTime<Utc>,
    /// Last updated.
    pub updated: Option<DateTime<Utc>>,
    /// Deleted (kept so an id lookup answers DELETE_COMPLETE for a while).
    pub deleted: bool,
}

impl Stack {
    /// Resource `name`.
    pub fn resource(&self, name: &str) -> Option<&Resource> {
        self.resources.iter().find(|r| r.name == name)
    }

    /// Resource `name`, mutable.
    pub fn resource_mut(&mut self, name: &str) -> Option<&mut Resource> {
        self.resources.iter_mut().find(|r| r.name == name)
    }

    /// Records a status change of the stack.
    pub fn set_status(&mut self, status: Status, reason: impl Into<String>) {
        let reason = reason.into();
        self.status = status;
        self.reason.clone_from(&reason);
        self.events.push(Event {
            id: Uuid::new_v4(),
            resource_name: self.name.clone(),
            physical_id: self.id.to_string(),
            status: status.text(),
            reason,
            time: Utc::now(),
        });
    }

    /// Records a status change of resource `name`.
    pub fn set_resource_status(&mut self, name: &str, status: Status, reason: impl Into<String>) {
        let reason = reason.into();
        let Some(r) = self.resource_mut(name) else {
            return;
        };
        r.status = status;
        r.reason.clone_from(&reason);
        r.updated = Utc::now();
        let physical_id = r.physical_id.clone();
        self.events.push(Event {
            id: Uuid::new_v4(),
            resource_name: name.to_owned(),
            physical_id,
            status: status.text(),
            reason,
            time: Utc::now(),
        });
    }
}

/// Everything the simulator holds.
#[derive(Debug, Default)]
pub struct State {
    /// Every stack, nested ones included.
    pub stacks: HashMap<Uuid, Stack>,
}

impl State {
    /// The live top-level or nested stack called `name` (deleted ones do not count).
    pub fn by_name(&self, name: &str) -> Option<&Stack> {
        self.stacks.values().find(|s| s.name == name && !s.deleted)
    }

    /// Stack `id`.
    pub fn stack(&self, id: Uuid) -> Result<&Stack, SimError> {
        self.stacks
            .get(&id)
            .ok_or_else(|| SimError::not_found(format!("The Stack ({id}) could not be found.")))
    }

    /// Stack `id`, mutable.
    pub fn stack_mut(&mut self, id: Uuid) -> Result<&mut Stack, SimError> {
        self.stacks
            .get_mut(&id)
            .ok_or_else(|| SimError::not_found(format!("The Stack ({id}) could not be found.")))
    }

    /// Stack `id` and every stack nested in it, depth first, with their depth.
    pub fn tree(&self, id: Uuid, depth: usize, out: &mut Vec<(Uuid, usize)>) {
        out.push((id, depth));
        let Some(s) = self.stacks.get(&id) else {
            return;
        };
        for r in &s.resources {
            if let Some(n) = r.nested {
                self.tree(n, depth + 1, out);
            }
        }
    }
}

/// The simulator's engine: state, hosts, faults.
#[derive(Debug)]
pub struct Engine {
    state: Mutex<State>,
    /// The network and its hosts.
    pub hosts: Hosts,
    /// Injected faults.
    pub faults: Mutex<Faults>,
    /// The real Keystone and Glance behind the simulator, if any.
    pub external: Option<crate::external::External>,
}

impl Engine {
    /// An engine over `hosts`, deferring to `external` services when given.
    pub fn new(hosts: Hosts, external: Option<crate::external::External>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State::default()),
            hosts,
            faults: Mutex::new(Faults::default()),
            external,
        })
    }

    /// The state, locked.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The faults, locked.
    pub fn faults(&self) -> MutexGuard<'_, Faults> {
        self.faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The server resource whose physical id is `id`, its stack and its host.
    pub fn server(&self, id: &str) -> Option<(Uuid, String, Option<String>)> {
        let st = self.lock();
        st.stacks.values().filter(|s| !s.deleted).find_map(|s| {
            s.resources
                .iter()
                .find(|r| r.physical_id == id && r.kind == types::SERVER)
                .map(|r| (s.id, r.name.clone(), r.host.clone()))
        })
    }

    /// Makes server `id` reachable again, or unreachable.
    pub fn set_server_link(&self, id: &str, up: bool) -> Result<(), SimError> {
        let (_, _, host) = self
            .server(id)
            .ok_or_else(|| SimError::not_found(format!("no server {id}")))?;
        let h = host.ok_or_else(|| SimError::not_found(format!("server {id} has no host")))?;
        self.hosts.set_link(&h, up).map_err(SimError::internal)
    }

    /// Removes the host behind server `id` as if it died; Heat still lists it (as a
    /// real Heat would until someone checks).
    pub fn kill_server(&self, id: &str) -> Result<(), SimError> {
        let (stack, name, host) = self
            .server(id)
            .ok_or_else(|| SimError::not_found(format!("no server {id}")))?;
        if let Some(h) = &host {
            self.hosts.down(h);
        }
        let mut st = self.lock();
        if let Ok(s) = st.stack_mut(stack)
            && let Some(r) = s.resource_mut(&name)
        {
            r.host = None;
            r.attributes.insert("status".into(), json!("SHUTOFF"));
        }
        Ok(())
    }
}
