//! Claims bind to matching PersistentVolumes, or to volumes a StorageClass provisions;
//! a volume whose claim is gone is deleted or released per its reclaim policy.

use serde_json::{Value, json};

use crate::meta;
use crate::objects::{self, DeleteOpts};
use crate::registry;
use crate::store::Store;

/// Bytes in a Kubernetes quantity (`1Gi`, `500M`, `1024`).
pub fn quantity(q: &str) -> Option<f64> {
    let q = q.trim();
    let units: &[(&str, f64)] = &[
        ("Ki", 1024.0),
        ("Mi", 1024.0 * 1024.0),
        ("Gi", 1024.0 * 1024.0 * 1024.0),
        ("Ti", 1024.0_f64.powi(4)),
        ("Pi", 1024.0_f64.powi(5)),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("P", 1e15),
        ("m", 1e-3),
    ];
    for (u, f) in units {
        if let Some(n) = q.strip_suffix(u) {
            return n.parse::<f64>().ok().map(|n| n * f);
        }
    }
    q.parse().ok()
}

fn size(v: &Value, pointer: &str) -> f64 {
    match v.pointer(pointer) {
        Some(Value::String(s)) => quantity(s).unwrap_or(0.0),
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        _ => 0.0,
    }
}

fn default_class(store: &Store) -> Option<String> {
    store
        .list("storage.k8s.io/storageclasses", None)
        .into_iter()
        .find(|(_, c)| {
            meta::str_at(
                c,
                "/metadata/annotations/storageclass.kubernetes.io~1is-default-class",
            ) == "true"
        })
        .map(|(k, _)| k.2)
}

pub fn run(store: &mut Store) {
    let Some(pv_kind) = registry::by_resource("/persistentvolumes") else {
        return;
    };
    for (key, pvc) in store.list("/persistentvolumeclaims", None) {
        if meta::terminating(&pvc) || meta::str_at(&pvc, "/status/phase") == "Bound" {
            continue;
        }
        let class = match pvc
            .pointer("/spec/storageClassName")
            .and_then(Value::as_str)
        {
            Some(c) => c.to_owned(),
            None => default_class(store).unwrap_or_default(),
        };
        let want = size(&pvc, "/spec/resources/requests/storage");
        let pvc_uid = meta::uid(&pvc).unwrap_or_default();
        let named = meta::str_at(&pvc, "/spec/volumeName");
        let candidate = store
            .list("/persistentvolumes", None)
            .into_iter()
            .find(|(k, pv)| {
                let free = pv.pointer("/spec/claimRef").is_none_or(|c| {
                    c.get("name").and_then(Value::as_str) == Some(key.2.as_str())
                        && c.get("namespace").and_then(Value::as_str) == Some(key.1.as_str())
                });
                !meta::terminating(pv)
                    && free
                    && meta::str_at(pv, "/status/phase") != "Released"
                    && (named.is_empty() || named == k.2)
                    && meta::str_at(pv, "/spec/storageClassName") == class
                    && size(pv, "/spec/capacity/storage") >= want
            })
            .map(|(k, _)| k);
        let claim_ref = json!({
            "kind": "PersistentVolumeClaim",
            "apiVersion": "v1",
            "namespace": key.1,
            "name": key.2,
            "uid": pvc_uid,
        });
        let pv_key = match candidate {
            Some(k) => Some(k),
            None => {
                let provisioned = !class.is_empty()
                    && store
                        .get(&(
                            "storage.k8s.io/storageclasses".into(),
                            String::new(),
                            class.clone(),
                        ))
                        .is_some_and(|c| {
                            meta::str_at(c, "/provisioner") != "kubernetes.io/no-provisioner"
                        });
                if provisioned {
                    let pv = json!({
                        "metadata": {"name": format!("pvc-{pvc_uid}"), "annotations": {"pv.kubernetes.io/provisioned-by": "kube-sim"}},
                        "spec": {
                            "capacity": {"storage": pvc.pointer("/spec/resources/requests/storage").cloned().unwrap_or(json!("1Gi"))},
                            "accessModes": pvc.pointer("/spec/accessModes").cloned().unwrap_or(json!(["ReadWriteOnce"])),
                            "persistentVolumeReclaimPolicy": "Delete",
                            "storageClassName": class,
                            "hostPath": {"path": format!("/var/lib/kube-sim/{pvc_uid}")},
                            "claimRef": claim_ref,
                        },
                    });
                    objects::create(store, pv_kind, "", pv)
                        .ok()
                        .map(|v| (pv_kind.resource(), String::new(), meta::name(&v)))
                } else {
                    None
                }
            }
        };
        let Some(pv_key) = pv_key else { continue };
        if let Some(mut pv) = store.get(&pv_key).cloned() {
            meta::set(&mut pv, "/spec/claimRef", claim_ref);
            meta::set_str(&mut pv, "/status/phase", "Bound");
            let capacity = pv.pointer("/spec/capacity").cloned().unwrap_or(json!({}));
            let modes = pv
                .pointer("/spec/accessModes")
                .cloned()
                .unwrap_or(json!([]));
            store.update(&pv_key, pv);
            let mut new = pvc.clone();
            meta::set_str(&mut new, "/spec/volumeName", &pv_key.2);
            meta::set(
                &mut new,
                "/status",
                json!({"phase": "Bound", "capacity": capacity, "accessModes": modes}),
            );
            store.update(&key, new);
        }
    }
    // Volumes whose claim is gone.
    for (key, pv) in store.list("/persistentvolumes", None) {
        let Some(claim_uid) = pv.pointer("/spec/claimRef/uid").and_then(Value::as_str) else {
            continue;
        };
        if store.has_uid(claim_uid) || meta::terminating(&pv) {
            continue;
        }
        if meta::str_at(&pv, "/spec/persistentVolumeReclaimPolicy") == "Delete" {
            objects::delete(store, &key, DeleteOpts::default());
        } else if meta::str_at(&pv, "/status/phase") != "Released" {
            let mut new = pv.clone();
            meta::set_str(&mut new, "/status/phase", "Released");
            store.update(&key, new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::quantity;

    #[test]
    fn quantities() {
        assert_eq!(quantity("1Gi"), Some(1024.0 * 1024.0 * 1024.0));
        assert_eq!(quantity("500M"), Some(5e8));
        assert_eq!(quantity("100"), Some(100.0));
        assert_eq!(quantity("x"), None);
    }
}
