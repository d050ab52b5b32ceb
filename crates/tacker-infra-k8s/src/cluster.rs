//! One cluster: a client, the resource types discovered so far, and the calls the
//! driver makes (generic objects through discovery, Pods typed).

use std::collections::HashMap;
use std::sync::Mutex;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, PropagationPolicy};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kube::discovery::{Scope, verbs};
use serde_json::{Value, json};

use crate::error::{Error, Result};

/// The label every resource of a VNF instance carries (value: the instance id).
pub const INSTANCE_LABEL: &str = "tacker.io/vnf-instance-id";

/// The label OpenStack Tacker (16) puts on the objects of a CNF it instantiated (value:
/// the instance id); a CNF imported from Tacker keeps it.
pub const TACKER_LABEL: &str = "tacker_vnf_instance_id";

/// A resource type as the cluster serves it.
#[derive(Debug, Clone)]
pub struct Type {
    /// For the dynamic API.
    pub ar: ApiResource,
    /// Namespaced (else cluster-scoped).
    pub namespaced: bool,
    /// Readable once created (reviews and bindings are not).
    pub persisted: bool,
}

/// A connected cluster.
pub struct Cluster {
    client: kube::Client,
    types: Mutex<HashMap<(String, String), Type>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").finish_non_exhaustive()
    }
}

/// How to delete.
#[derive(Debug, Clone, Copy, Default)]
pub struct Deletion {
    /// `gracePeriodSeconds` (`None`: the object's own).
    pub grace: Option<u32>,
    /// Delete dependents first.
    pub foreground: bool,
}

impl Cluster {
    /// Wraps a client.
    pub fn new(client: kube::Client) -> Self {
        Self {
            client,
            types: Mutex::new(HashMap::new()),
        }
    }

    /// The type of `kind` in `api_version`, discovered once.
    pub async fn resolve(&self, api_version: &str, kind: &str) -> Result<Type> {
        let key = (api_version.to_owned(), kind.to_owned());
        if let Some(t) = self
            .types
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
        {
            return Ok(t.clone());
        }
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        let gvk = GroupVersionKind::gvk(group, version, kind);
        let (ar, caps) = kube::discovery::pinned_kind(&self.client, &gvk)
            .await
            .map_err(|e| match Error::from(e) {
                Error::Api { code: 404, .. } => Error::Manifest(format!(
                    "the cluster does not serve {kind} in {api_version}"
                )),
                other => other,
            })?;
        let t = Type {
            namespaced: caps.scope == Scope::Namespaced,
            persisted: caps.supports_operation(verbs::GET),
            ar,
        };
        self.types
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, t.clone());
        Ok(t)
    }

    fn api(&self, t: &Type, ns: &str) -> Api<DynamicObject> {
        if t.namespaced {
            Api::namespaced_with(self.client.clone(), ns, &t.ar)
        } else {
            Api::all_with(self.client.clone(), &t.ar)
        }
    }

    /// Creates `body`; `Ok(None)` when it already exists.
    pub async fn create(&self, t: &Type, ns: &str, body: &Value) -> Result<Option<Value>> {
        let obj: DynamicObject = serde_json::from_value(body.clone())
            .map_err(|e| Error::Manifest(format!("invalid object: {e}")))?;
        match self.api(t, ns).create(&PostParams::default(), &obj).await {
            Ok(o) => Ok(Some(serde_json::to_value(o).unwrap_or(Value::Null))),
            Err(e) => {
                let e = Error::from(e);
                if e.is_already_exists() {
                    Ok(None)
                } else {
                    Err(e)
                }
            }
        }
    }

    /// Replaces the object `body` names with `body` (the stored `resourceVersion` sent
    /// along, so a concurrent change is a conflict, not lost).
    pub async fn replace(&self, t: &Type, ns: &str, name: &str, body: &Value) -> Result<Value> {
        let mut obj: DynamicObject = serde_json::from_value(body.clone())
            .map_err(|e| Error::Manifest(format!("invalid object: {e}")))?;
        let api = self.api(t, ns);
        let current = api.get(name).await?;
        obj.metadata.resource_version = current.metadata.resource_version;
        let o = api.replace(name, &PostParams::default(), &obj).await?;
        Ok(serde_json::to_value(o).unwrap_or(Value::Null))
    }

    /// The object, if it exists.
    pub async fn get(&self, t: &Type, ns: &str, name: &str) -> Result<Option<Value>> {
        let o = self.api(t, ns).get_opt(name).await?;
        Ok(o.map(|o| serde_json::to_value(o).unwrap_or(Value::Null)))
    }

    /// Deletes the object; `false` when it was already gone.
    pub async fn delete(&self, t: &Type, ns: &str, name: &str, how: Deletion) -> Result<bool> {
        let dp = DeleteParams {
            grace_period_seconds: how.grace,
            propagation_policy: Some(if how.foreground {
                PropagationPolicy::Foreground
            } else {
                PropagationPolicy::Background
            }),
            ..DeleteParams::default()
        };
        match self.api(t, ns).delete(name, &dp).await {
            Ok(_) => Ok(true),
            Err(e) => {
                let e = Error::from(e);
                if e.is_not_found() { Ok(false) } else { Err(e) }
            }
        }
    }

    /// Objects of a type with this label selector.
    pub async fn list(&self, t: &Type, ns: &str, selector: &str) -> Result<Vec<Value>> {
        let l = self
            .api(t, ns)
            .list(&ListParams::default().labels(selector))
            .await?;
        Ok(l.items
            .into_iter()
            .map(|o| serde_json::to_value(o).unwrap_or(Value::Null))
            .collect())
    }

    /// Sets the replicas through the `scale` subresource.
    pub async fn scale(&self, t: &Type, ns: &str, name: &str, replicas: i64) -> Result<()> {
        let patch = json!({"spec": {"replicas": replicas}});
        self.api(t, ns)
            .patch_scale(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }

    /// The replicas the `scale` subresource reports (`spec.replicas`).
    pub async fn replicas(&self, t: &Type, ns: &str, name: &str) -> Result<i64> {
        let s = self.api(t, ns).get_scale(name).await?;
        Ok(s.spec.and_then(|s| s.replicas).map_or(0, i64::from))
    }

    /// The Pods in `ns` that match the label `selector` (all when it is empty).
    pub async fn pods(&self, ns: &str, selector: &str) -> Result<Vec<Pod>> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        let l = api.list(&ListParams::default().labels(selector)).await?;
        Ok(l.items)
    }

    /// One Pod, if it exists.
    pub async fn pod(&self, ns: &str, name: &str) -> Result<Option<Pod>> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        Ok(api.get_opt(name).await?)
    }

    /// Deletes one Pod (its own grace period); `false` when it was already gone.
    pub async fn delete_pod(&self, ns: &str, name: &str) -> Result<bool> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        match api.delete(name, &DeleteParams::default()).await {
            Ok(_) => Ok(true),
            Err(e) => {
                let e = Error::from(e);
                if e.is_not_found() { Ok(false) } else { Err(e) }
            }
        }
    }
}
