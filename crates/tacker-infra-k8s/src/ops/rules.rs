//! Monitoring rules as prometheus-operator `PrometheusRule` objects
//! (`monitoring.coreos.com/v1`) in the CNF's namespace: written (created, or replaced
//! when they exist) or removed (gone already is fine).

use serde_json::{Map, Value, json};

use super::{Work, stored};
use crate::cluster::Deletion;
use crate::error::{Error, Result};

const API_VERSION: &str = "monitoring.coreos.com/v1";
const KIND: &str = "PrometheusRule";

/// Writes (`Some`) or removes (`None`) PrometheusRule `name` holding `group`.
pub async fn run(
    w: &Work<'_>,
    name: &str,
    labels: &Map<String, Value>,
    group: Option<&Value>,
) -> Result<()> {
    let ns = stored(w.octx)?.namespace;
    let t = w
        .cluster
        .resolve(API_VERSION, KIND)
        .await
        .map_err(|e| match e {
            Error::Manifest(m) => Error::Manifest(format!(
                "{m}: is prometheus-operator installed on the VNF's cluster?"
            )),
            other => other,
        })?;
    let Some(group) = group else {
        w.cluster.delete(&t, &ns, name, Deletion::default()).await?;
        return Ok(());
    };
    let body = json!({
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {"groups": [group]},
    });
    if w.cluster.create(&t, &ns, &body).await?.is_none() {
        w.cluster.replace(&t, &ns, name, &body).await?;
    }
    Ok(())
}
