//! The Heat calls the driver makes: find, create, update (`PATCH`, parameters kept),
//! delete, resources (`nested_depth=2`, with attributes), mark unhealthy; and waiting
//! for a stack to settle.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::session::{Answer, Session};
use crate::settings::OpenStackSettings;

/// A stack, addressed as Heat does: `<name>/<id>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackRef {
    /// Its name.
    pub name: String,
    /// Its id.
    pub id: String,
}

impl StackRef {
    /// Reads `<name>/<id>`.
    pub fn parse(text: &str) -> Option<Self> {
        let (name, id) = text.rsplit_once('/')?;
        (!name.is_empty() && !id.is_empty()).then(|| Self {
            name: name.to_owned(),
            id: id.to_owned(),
        })
    }

    /// `<name>/<id>`.
    pub fn text(&self) -> String {
        format!("{}/{}", self.name, self.id)
    }

    fn path(&self) -> String {
        format!("stacks/{}/{}", self.name, self.id)
    }
}

/// Where a stack is.
#[derive(Debug, Clone)]
pub struct StackState {
    /// `CREATE_COMPLETE`, ...
    pub status: String,
    /// Why.
    pub reason: String,
}

/// Heat, through a session.
#[derive(Debug)]
pub struct Heat<'a> {
    s: &'a Session,
    settings: OpenStackSettings,
}

fn api(a: &Answer) -> Error {
    Error::Api {
        status: a.status,
        message: a.message(),
    }
}

impl<'a> Heat<'a> {
    /// Heat over `s`.
    pub fn new(s: &'a Session, settings: OpenStackSettings) -> Self {
        Self { s, settings }
    }

    /// The driver's settings (timeouts, poll interval).
    pub fn settings(&self) -> &OpenStackSettings {
        &self.settings
    }

    /// The live stack called `name`, if any.
    pub async fn find(&self, name: &str) -> Result<Option<StackRef>> {
        let a = self
            .s
            .heat(Method::GET, &format!("stacks/{name}"), None)
            .await?;
        match a.status {
            404 => Ok(None),
            301 | 302 | 303 | 307 | 308 => {
                let loc = a.location.clone().unwrap_or_default();
                let tail = loc.split("/stacks/").nth(1).unwrap_or_default();
                let tail = tail.split('?').next().unwrap_or_default();
                StackRef::parse(tail)
                    .map(Some)
                    .ok_or_else(|| Error::Vim(format!("Heat redirected to {loc:?}")))
            }
            200 => {
                let id = a
                    .body
                    .pointer("/stack/id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| api(&a))?;
                Ok(Some(StackRef {
                    name: name.to_owned(),
                    id: id.to_owned(),
                }))
            }
            _ => Err(api(&a)),
        }
    }

    fn timeout_mins(&self) -> u64 {
        self.settings.stack_timeout.as_secs().div_ceil(60).max(1)
    }

    /// Creates stack `name`.
    pub async fn create(
        &self,
        name: &str,
        template: &str,
        files: &Map<String, Value>,
        parameters: &Map<String, Value>,
    ) -> Result<StackRef> {
        let body = json!({
            "stack_name": name,
            "template": template,
            "files": files,
            "parameters": parameters,
            "timeout_mins": self.timeout_mins(),
            "disable_rollback": true,
        });
        let a = self.s.heat(Method::POST, "stacks", Some(&body)).await?;
        match a.status {
            200 | 201 => {
                let id = a
                    .body
                    .pointer("/stack/id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| api(&a))?;
                Ok(StackRef {
                    name: name.to_owned(),
                    id: id.to_owned(),
                })
            }
            400 => Err(Error::Package(format!(
                "Heat refused the stack: {}",
                a.message()
            ))),
            _ => Err(api(&a)),
        }
    }

    /// The stack's status, `None` when it is gone.
    pub async fn state(&self, r: &StackRef) -> Result<Option<StackState>> {
        let a = self.s.heat(Method::GET, &r.path(), None).await?;
        match a.status {
            404 => Ok(None),
            200 => {
                let s = |k: &str| {
                    a.body
                        .pointer(&format!("/stack/{k}"))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                Ok(Some(StackState {
                    status: s("stack_status"),
                    reason: s("stack_status_reason"),
                }))
            }
            _ => Err(api(&a)),
        }
    }

    /// Replaces the stack's template, files and parameters (`PUT`: a flavour change).
    pub async fn replace(
        &self,
        r: &StackRef,
        template: &str,
        files: &Map<String, Value>,
        parameters: &Map<String, Value>,
    ) -> Result<()> {
        let body = json!({
            "template": template,
            "files": files,
            "parameters": parameters,
            "timeout_mins": self.timeout_mins(),
        });
        let a = self.s.heat(Method::PUT, &r.path(), Some(&body)).await?;
        match a.status {
            200 | 202 => Ok(()),
            400 => Err(Error::Package(format!(
                "Heat refused the new template: {}",
                a.message()
            ))),
            _ => Err(api(&a)),
        }
    }

    /// Updates the stack's parameters (`PATCH`: the others are kept).
    pub async fn update(&self, r: &StackRef, parameters: &Map<String, Value>) -> Result<()> {
        let body = json!({"parameters": parameters, "timeout_mins": self.timeout_mins()});
        let a = self.s.heat(Method::PATCH, &r.path(), Some(&body)).await?;
        match a.status {
            200 | 202 => Ok(()),
            400 => Err(Error::Package(format!(
                "Heat refused the update: {}",
                a.message()
            ))),
            _ => Err(api(&a)),
        }
    }

    /// Deletes the stack (gone already is fine).
    pub async fn delete(&self, r: &StackRef) -> Result<()> {
        let a = self.s.heat(Method::DELETE, &r.path(), None).await?;
        match a.status {
            200 | 202 | 204 | 404 => Ok(()),
            _ => Err(api(&a)),
        }
    }

    /// Every resource, two levels of nested stacks deep, with attributes.
    pub async fn resources(&self, r: &StackRef) -> Result<Vec<Value>> {
        let path = format!("{}/resources?nested_depth=2&with_detail=true", r.path());
        let a = self.s.heat(Method::GET, &path, None).await?;
        if a.status != 200 {
            return Err(api(&a));
        }
        Ok(a.body
            .get("resources")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default())
    }

    /// Marks resource `name` of stack `r` unhealthy: the next update replaces it.
    pub async fn mark_unhealthy(&self, r: &StackRef, name: &str) -> Result<()> {
        let body = json!({"mark_unhealthy": true, "resource_status_reason": "marked by tacker"});
        let path = format!("{}/resources/{name}", r.path());
        let a = self.s.heat(Method::PATCH, &path, Some(&body)).await?;
        match a.status {
            200 | 202 | 204 => Ok(()),
            _ => Err(api(&a)),
        }
    }

    /// Signals resource `name` of stack `r` (a scaling policy: its group resizes).
    pub async fn signal(&self, r: &StackRef, name: &str) -> Result<()> {
        let path = format!("{}/resources/{name}/signal", r.path());
        let a = self.s.heat(Method::POST, &path, Some(&json!({}))).await?;
        match a.status {
            200 | 202 | 204 => Ok(()),
            _ => Err(api(&a)),
        }
    }

    /// Waits until resource `name` of stack `r` has ended its update (after a signal):
    /// its failure is Heat's reason.
    pub async fn wait_resource(&self, r: &StackRef, name: &str) -> Result<()> {
        let path = format!("{}/resources/{name}", r.path());
        let deadline = tokio::time::Instant::now() + self.settings.stack_timeout;
        let mut pause = Duration::from_millis(50);
        loop {
            let a = self.s.heat(Method::GET, &path, None).await?;
            if a.status != 200 {
                return Err(api(&a));
            }
            let status = a
                .body
                .pointer("/resource/resource_status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if status.ends_with("_FAILED") {
                return Err(Error::Stack {
                    title: "Scaling failed".into(),
                    reason: a
                        .body
                        .pointer("/resource/resource_status_reason")
                        .and_then(Value::as_str)
                        .unwrap_or(&status)
                        .to_owned(),
                });
            }
            if !status.ends_with("_IN_PROGRESS") {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Error::Timeout {
                    stack: format!("{} resource {name}", r.text()),
                    after: self.settings.stack_timeout,
                    status,
                });
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(self.settings.poll_interval);
        }
    }

    async fn poll<T>(
        &self,
        r: &StackRef,
        mut settled: impl FnMut(Option<&StackState>) -> Option<Result<T>>,
    ) -> Result<T> {
        let deadline = tokio::time::Instant::now() + self.settings.stack_timeout;
        let mut pause = Duration::from_millis(50);
        let mut last = String::new();
        loop {
            let st = self.state(r).await?;
            if let Some(done) = settled(st.as_ref()) {
                return done;
            }
            if let Some(s) = st {
                last = s.status;
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Error::Timeout {
                    stack: r.text(),
                    after: self.settings.stack_timeout,
                    status: last,
                });
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(self.settings.poll_interval);
        }
    }

    /// Waits until `action` (CREATE, UPDATE) on the stack completes; its failure is
    /// Heat's `stack_status_reason`.
    pub async fn wait(&self, r: &StackRef, action: &str) -> Result<()> {
        let title = format!("Stack {} failed", action.to_ascii_lowercase());
        self.poll(r, |st| {
            let Some(st) = st else {
                return Some(Err(Error::Stack {
                    title: title.clone(),
                    reason: format!("stack {} is gone", r.text()),
                }));
            };
            match st.status.as_str() {
                s if s == format!("{action}_COMPLETE") => Some(Ok(())),
                s if s == format!("{action}_FAILED") => Some(Err(Error::Stack {
                    title: title.clone(),
                    reason: st.reason.clone(),
                })),
                _ => None,
            }
        })
        .await
    }

    /// Waits until the stack is gone.
    pub async fn wait_gone(&self, r: &StackRef) -> Result<()> {
        self.poll(r, |st| match st.map(|s| s.status.as_str()) {
            None | Some("DELETE_COMPLETE") => Some(Ok(())),
            Some("DELETE_FAILED") => Some(Err(Error::Stack {
                title: "Stack delete failed".into(),
                reason: st.map(|s| s.reason.clone()).unwrap_or_default(),
            })),
            _ => None,
        })
        .await
    }
}
