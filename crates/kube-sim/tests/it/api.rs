//! REST semantics: discovery, conflicts, errors as Status, selectors, watch.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test]
async fn discovery_lists_groups_and_resources() {
    let k = sim(0, 0);
    let (c, v) = k.get("/version").await;
    assert_eq!(c, 200);
    assert_eq!(v["major"], "1");
    let (_, apis) = k.get("/apis").await;
    let groups: Vec<&str> = apis["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert!(groups.contains(&"apps") && groups.contains(&"storage.k8s.io"));
    let (_, apps) = k.get("/apis/apps/v1").await;
    let res: Vec<&str> = apps["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(res.contains(&"deployments/scale") && res.contains(&"statefulsets"));
    assert_eq!(k.get("/apis/nope/v1").await.0, 404);
}

#[tokio::test]
async fn errors_are_status_objects_and_versions_conflict() {
    let k = sim(0, 0);
    let (c, v) = k.get("/api/v1/namespaces/default/pods/missing").await;
    assert_eq!(c, 404);
    assert_eq!(v["kind"], "Status");
    assert_eq!(v["reason"], "NotFound");
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}});
    let (_, created) = k
        .post("/api/v1/namespaces/default/configmaps", cm.clone())
        .await;
    let (c, v) = k
        .post("/api/v1/namespaces/default/configmaps", cm.clone())
        .await;
    assert_eq!((c, v["reason"].as_str()), (409, Some("AlreadyExists")));
    let (c, _) = k
        .post("/api/v1/namespaces/nowhere/configmaps", cm.clone())
        .await;
    assert_eq!(c, 404, "namespace must exist");
    let mut stale = created.clone();
    stale["data"]["a"] = json!("2");
    let (c, updated) = k
        .req(
            "PUT",
            "/api/v1/namespaces/default/configmaps/cm",
            Some(stale.clone()),
            "application/json",
        )
        .await;
    assert_eq!(c, 200, "{updated}");
    let (c, v) = k
        .req(
            "PUT",
            "/api/v1/namespaces/default/configmaps/cm",
            Some(stale),
            "application/json",
        )
        .await;
    assert_eq!((c, v["reason"].as_str()), (409, Some("Conflict")));
    let bad = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}});
    assert_eq!(
        k.post("/api/v1/namespaces/default/configmaps", bad).await.0,
        422
    );
    let (c, v) = k
        .req(
            "PATCH",
            "/api/v1/namespaces/default/configmaps/cm",
            Some(json!([{"op": "replace", "path": "/data/a", "value": "3"}])),
            "application/json-patch+json",
        )
        .await;
    assert_eq!(c, 200);
    assert_eq!(v["data"]["a"], "3");
}

#[tokio::test]
async fn label_selectors_filter_lists() {
    let k = sim(0, 0);
    for (n, tier) in [("a", "fe"), ("b", "be"), ("c", "fe")] {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": n, "labels": {"tier": tier}}});
        k.post("/api/v1/namespaces/default/configmaps", cm).await;
    }
    let (_, v) = k
        .get("/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dfe")
        .await;
    let got: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(got, ["a", "c"]);
    let (_, v) = k
        .get("/api/v1/namespaces/default/configmaps?labelSelector=tier%20notin%20(fe)")
        .await;
    assert_eq!(v["items"].as_array().unwrap().len(), 1);
    let (_, v) = k
        .get("/api/v1/configmaps?fieldSelector=metadata.name%3Db")
        .await;
    assert_eq!(v["items"][0]["metadata"]["name"], "b");
}

async fn next_event(
    s: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
    buf: &mut String,
) -> Value {
    loop {
        if let Some(i) = buf.find('\n') {
            let line: String = buf.drain(..=i).collect();
            return serde_json::from_str(&line).unwrap();
        }
        let chunk = tokio::time::timeout(Duration::from_secs(5), s.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[tokio::test]
async fn watch_streams_changes_and_resumes() {
    let k = sim(0, 0);
    let (_, list) = k.get("/api/v1/namespaces/default/configmaps").await;
    let rv = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "w"}, "data": {"a": "1"}});
    k.post("/api/v1/namespaces/default/configmaps", cm).await;
    // Resuming from the list's version replays the creation, then streams live changes.
    let resp = k
        .http
        .get(format!(
            "{}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={rv}",
            k.base
        ))
        .send()
        .await
        .unwrap();
    let mut s = resp.bytes_stream();
    let mut buf = String::new();
    let e = next_event(&mut s, &mut buf).await;
    assert_eq!(
        (e["type"].as_str(), e["object"]["metadata"]["name"].as_str()),
        (Some("ADDED"), Some("w"))
    );
    k.req(
        "PATCH",
        "/api/v1/namespaces/default/configmaps/w",
        Some(json!({"data": {"a": "2"}})),
        "application/merge-patch+json",
    )
    .await;
    let e = next_event(&mut s, &mut buf).await;
    assert_eq!(e["type"], "MODIFIED");
    assert_eq!(e["object"]["data"]["a"], "2");
    k.delete("/api/v1/namespaces/default/configmaps/w", json!({}))
        .await;
    let e = next_event(&mut s, &mut buf).await;
    assert_eq!(e["type"], "DELETED");
}

#[tokio::test]
async fn authentication_is_enforced_when_configured() {
    let s = kube_sim::Settings {
        token: Some("t0k".into()),
        ..Default::default()
    };
    let h = kube_sim::spawn(s).unwrap();
    let c = reqwest::Client::new();
    assert_eq!(
        c.get(format!("{}/version", h.url))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        c.get(format!("{}/api/v1/pods", h.url))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    let ok = c
        .get(format!("{}/api/v1/pods", h.url))
        .bearer_auth("t0k")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
}
