//! The garbage collector: dependents of deleted owners go, foreground deletions finish
//! once their dependents are gone, terminating namespaces are emptied.

use std::time::Instant;

use serde_json::json;

use crate::meta;
use crate::objects::{self, DeleteOpts, Propagation};
use crate::store::Store;

pub fn run(store: &mut Store, _now: Instant) {
    // Orphans of a deleted owner, and objects waiting for their dependents to go.
    let mut orphans = Vec::new();
    let mut foreground = Vec::new();
    for (key, obj) in store.iter() {
        let owners = meta::owner_uids(obj);
        if !owners.is_empty() && owners.iter().all(|o| !store.has_uid(o)) {
            if !meta::terminating(obj) {
                orphans.push(key.clone());
            }
            continue;
        }
        if meta::terminating(obj)
            && meta::finalizers(obj)
                .iter()
                .any(|x| x == "foregroundDeletion")
        {
            foreground.push(key.clone());
        }
    }
    for key in orphans {
        objects::delete(store, &key, DeleteOpts::default());
    }
    for key in foreground {
        let Some(obj) = store.get(&key).cloned() else {
            continue;
        };
        let f = meta::finalizers(&obj);
        let uid = meta::uid(&obj).unwrap_or_default();
        let deps = store.dependents(&uid);
        if deps.is_empty() {
            let rest: Vec<&String> = f.iter().filter(|x| *x != "foregroundDeletion").collect();
            if rest.is_empty() {
                store.remove(&key);
            } else {
                let mut new = obj.clone();
                meta::set(&mut new, "/metadata/finalizers", json!(rest));
                store.update(&key, new);
            }
        } else {
            for d in deps {
                if store.get(&d).is_some_and(|v| !meta::terminating(v)) {
                    objects::delete(
                        store,
                        &d,
                        DeleteOpts {
                            grace: None,
                            propagation: Propagation::Foreground,
                        },
                    );
                }
            }
        }
    }
    // Terminating namespaces.
    for (key, ns) in store.list("/namespaces", None) {
        if !meta::terminating(&ns) {
            continue;
        }
        let inside: Vec<_> = store
            .iter()
            .filter(|(k, _)| k.1 == key.2)
            .map(|(k, _)| k.clone())
            .collect();
        if inside.is_empty() {
            store.remove(&key);
            continue;
        }
        for k in inside {
            if store.get(&k).is_some_and(|v| !meta::terminating(v)) {
                objects::delete(store, &k, DeleteOpts::default());
            }
        }
    }
}
