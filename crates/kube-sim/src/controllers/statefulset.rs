//! StatefulSets keep Pods `<name>-<ordinal>` (re-created under the same name) and one
//! PersistentVolumeClaim per claim template and ordinal, kept when Pods go.

use serde_json::{Value, json};

use super::{create_pod, live, owned_pods, pod_ready, replicas, set_status};
use crate::meta;
use crate::objects::{self, DeleteOpts};
use crate::registry;
use crate::store::Store;

fn ensure_claims(store: &mut Store, sts: &Value, ordinal: i64) -> Vec<Value> {
    let ns = meta::namespace(sts);
    let name = meta::name(sts);
    let selector_labels = sts
        .pointer("/spec/selector/matchLabels")
        .cloned()
        .unwrap_or(json!({}));
    let mut volumes = Vec::new();
    let templates = sts
        .pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let Some(pvc_kind) = registry::by_resource("/persistentvolumeclaims") else {
        return volumes;
    };
    for t in templates {
        let tname = meta::name(&t);
        let claim = format!("{tname}-{name}-{ordinal}");
        let key = objects::key(pvc_kind, &ns, &claim);
        if !store.contains(&key) {
            let mut labels = t.pointer("/metadata/labels").cloned().unwrap_or(json!({}));
            if let (Value::Object(l), Value::Object(s)) = (&mut labels, &selector_labels) {
                for (k, v) in s {
                    l.insert(k.clone(), v.clone());
                }
            }
            let pvc = json!({
                "metadata": {"name": claim, "labels": labels},
                "spec": t.get("spec").cloned().unwrap_or(json!({})),
            });
            if let Err(e) = objects::create(store, pvc_kind, &ns, pvc) {
                tracing::debug!(claim, error = %e, "cannot create a StatefulSet claim");
            }
        }
        volumes.push(json!({"name": tname, "persistentVolumeClaim": {"claimName": claim}}));
    }
    volumes
}

pub fn run(store: &mut Store) {
    for (key, sts) in live(store, "apps/statefulsets") {
        let Some(uid) = meta::uid(&sts) else { continue };
        let revision = format!(
            "{}-{}",
            key.2,
            &meta::hash(&sts.pointer("/spec/template").cloned().unwrap_or_default())
        );
        let want = replicas(&sts);
        let parallel = meta::str_at(&sts, "/spec/podManagementPolicy") == "Parallel";
        let pod_key = |i: i64| ("/pods".to_owned(), key.1.clone(), format!("{}-{i}", key.2));
        for i in 0..want {
            let k = pod_key(i);
            if store.contains(&k) {
                let ok = store
                    .get(&k)
                    .is_some_and(|p| pod_ready(p) && !meta::terminating(p));
                if !ok && !parallel {
                    break;
                }
                continue;
            }
            let volumes = ensure_claims(store, &sts, i);
            let name = k.2.clone();
            let service = meta::str_at(&sts, "/spec/serviceName");
            create_pod(store, &sts, &name, |pod| {
                meta::set_str(
                    pod,
                    "/metadata/labels/statefulset.kubernetes.io~1pod-name",
                    &name,
                );
                meta::set_str(pod, "/metadata/labels/controller-revision-hash", &revision);
                meta::set_str(pod, "/spec/hostname", &name);
                if !service.is_empty() {
                    meta::set_str(pod, "/spec/subdomain", &service);
                }
                if !volumes.is_empty() {
                    let mut all = pod
                        .pointer("/spec/volumes")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    all.extend(volumes);
                    meta::set(pod, "/spec/volumes", Value::Array(all));
                }
            });
            if !parallel {
                break;
            }
        }
        // Scale down: highest ordinals first, one at a time unless Parallel.
        let (active, _) = owned_pods(store, &key.1, &uid);
        let mut extra: Vec<_> = active
            .into_iter()
            .filter_map(|(k, _)| {
                let ord: i64 = k.2.rsplit('-').next()?.parse().ok()?;
                (ord >= want).then_some((ord, k))
            })
            .collect();
        extra.sort_by_key(|(o, _)| std::cmp::Reverse(*o));
        for (_, k) in extra.iter().take(if parallel { extra.len() } else { 1 }) {
            objects::delete(store, k, DeleteOpts::default());
        }
        // RollingUpdate: once every Pod is ready, the highest ordinal of an older
        // revision goes (and comes back from the new template), one at a time.
        let (active, terminating) = owned_pods(store, &key.1, &uid);
        let stale =
            |p: &Value| meta::str_at(p, "/metadata/labels/controller-revision-hash") != revision;
        let all_ready = active.len() as i64 == want
            && terminating.is_empty()
            && active.iter().all(|(_, p)| pod_ready(p));
        if all_ready {
            let mut old: Vec<_> = active
                .iter()
                .filter(|(_, p)| stale(p))
                .filter_map(|(k, _)| {
                    Some((k.2.rsplit('-').next()?.parse::<i64>().ok()?, k.clone()))
                })
                .collect();
            old.sort_by_key(|(o, _)| std::cmp::Reverse(*o));
            if let Some((_, k)) = old.first() {
                objects::delete(store, k, DeleteOpts::default());
            }
        }
        let (active, _) = owned_pods(store, &key.1, &uid);
        let ready = active.iter().filter(|(_, p)| pod_ready(p)).count();
        let updated = active.iter().filter(|(_, p)| !stale(p)).count();
        let current = active
            .iter()
            .map(|(_, p)| meta::str_at(p, "/metadata/labels/controller-revision-hash"))
            .find(|r| *r != revision)
            .unwrap_or_else(|| revision.clone());
        let status = json!({
            "replicas": active.len(),
            "readyReplicas": ready,
            "availableReplicas": ready,
            "currentReplicas": active.len() - updated,
            "updatedReplicas": updated,
            "currentRevision": current,
            "updateRevision": revision,
        });
        if let Some(cur) = store.get(&key).cloned() {
            set_status(store, &key, &cur, status);
        }
    }
}
