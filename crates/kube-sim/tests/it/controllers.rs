//! Controllers behave like Kubernetes': names, replacement, volumes, deletion.

use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn deployment_pods_are_replaced_under_new_names() {
    let k = sim(0, 0);
    let (c, v) = k
        .post(
            "/apis/apps/v1/namespaces/default/deployments",
            deployment("web", 2),
        )
        .await;
    assert_eq!(c, 201, "{v}");
    let pods = k.wait_pods("app=web", "2 ready", all_ready(2)).await;
    let rs = pods[0]["metadata"]["ownerReferences"][0]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        // The pod-template-hash: a 32-bit number's decimal digits, safe-encoded.
        rs.starts_with("web-") && (1..=10).contains(&(rs.len() - "web-".len())),
        "{rs}"
    );
    for n in names(&pods) {
        assert!(
            n.starts_with(&format!("{rs}-")) && n.len() == rs.len() + 6,
            "{n}"
        );
    }
    let victim = names(&pods)[0].clone();
    let (c, _) = k
        .delete(
            &format!("/api/v1/namespaces/default/pods/{victim}"),
            json!({}),
        )
        .await;
    assert_eq!(c, 200);
    let after = k
        .wait_pods("app=web", "replacement", |p| {
            all_ready(2)(p) && !names(p).contains(&victim)
        })
        .await;
    let kept: Vec<_> = names(&after)
        .into_iter()
        .filter(|n| names(&pods).contains(n))
        .collect();
    assert_eq!(kept.len(), 1, "the other Pod is untouched");
    // Status follows.
    let (_, d) = k
        .get("/apis/apps/v1/namespaces/default/deployments/web")
        .await;
    assert_eq!(d["status"]["readyReplicas"], 2);
}

#[tokio::test]
async fn statefulset_pods_come_back_under_the_same_name_with_their_claims() {
    let k = sim(0, 300);
    let sts = json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "replicas": 2, "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "pg"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]
        }
    });
    let (c, v) = k
        .post("/apis/apps/v1/namespaces/default/statefulsets", sts)
        .await;
    assert_eq!(c, 201, "{v}");
    let pods = k.wait_pods("app=db", "2 ready", all_ready(2)).await;
    assert_eq!(names(&pods), ["db-0", "db-1"]);
    let (_, pvc) = k
        .get("/api/v1/namespaces/default/persistentvolumeclaims/data-db-0")
        .await;
    assert_eq!(pvc["status"]["phase"], "Bound");
    let volume = pvc["spec"]["volumeName"].as_str().unwrap().to_owned();
    let old_uid = pods[0]["metadata"]["uid"].clone();
    k.delete("/api/v1/namespaces/default/pods/db-0", json!({}))
        .await;
    let (_, terminating) = k.get("/api/v1/namespaces/default/pods/db-0").await;
    assert!(
        !terminating["metadata"]["deletionTimestamp"].is_null(),
        "graceful deletion takes time"
    );
    let after = k
        .wait_pods("app=db", "db-0 back", |p| {
            all_ready(2)(p)
                && p.iter()
                    .any(|x| x["metadata"]["name"] == "db-0" && x["metadata"]["uid"] != old_uid)
        })
        .await;
    assert_eq!(names(&after), ["db-0", "db-1"]);
    let (_, pvc2) = k
        .get("/api/v1/namespaces/default/persistentvolumeclaims/data-db-0")
        .await;
    assert_eq!(
        pvc2["metadata"]["uid"], pvc["metadata"]["uid"],
        "the claim is kept"
    );
    assert_eq!(pvc2["spec"]["volumeName"], volume.as_str());
    // Deleting the StatefulSet leaves the claims (and their volumes).
    k.delete(
        "/apis/apps/v1/namespaces/default/statefulsets/db",
        json!({"propagationPolicy": "Foreground"}),
    )
    .await;
    k.wait_pods("app=db", "all gone", |p| p.is_empty()).await;
    let (c, _) = k
        .get("/apis/apps/v1/namespaces/default/statefulsets/db")
        .await;
    assert_eq!(c, 404);
    let (c, _) = k.get(&format!("/api/v1/persistentvolumes/{volume}")).await;
    assert_eq!(c, 200);
}

#[tokio::test]
async fn bare_pods_stay_deleted_and_daemonsets_run_on_every_node() {
    let k = sim(0, 0);
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo", "labels": {"app": "solo"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}});
    assert_eq!(k.post("/api/v1/namespaces/default/pods", pod).await.0, 201);
    k.wait_pods("app=solo", "ready", all_ready(1)).await;
    k.delete("/api/v1/namespaces/default/pods/solo", json!({}))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(k.pods("app=solo").await.is_empty());

    let ds = json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}
    });
    assert_eq!(
        k.post("/apis/apps/v1/namespaces/default/daemonsets", ds)
            .await
            .0,
        201
    );
    let pods = k.wait_pods("app=agent", "3 ready", all_ready(3)).await;
    let mut nodes: Vec<_> = pods
        .iter()
        .map(|p| p["spec"]["nodeName"].as_str().unwrap().to_owned())
        .collect();
    nodes.sort();
    assert_eq!(nodes, ["node-1", "node-2", "node-3"]);
    for n in names(&pods) {
        assert!(
            n.starts_with("agent-") && n.len() == "agent-".len() + 5,
            "{n}"
        );
    }
    let (_, d) = k
        .get("/apis/apps/v1/namespaces/default/daemonsets/agent")
        .await;
    assert_eq!(d["status"]["numberReady"], 3);
}

#[tokio::test]
async fn scale_subresource_and_background_deletion() {
    let k = sim(0, 0);
    k.post(
        "/apis/apps/v1/namespaces/default/deployments",
        deployment("api", 1),
    )
    .await;
    k.wait_pods("app=api", "1", all_ready(1)).await;
    let (c, s) = k
        .req(
            "PATCH",
            "/apis/apps/v1/namespaces/default/deployments/api/scale",
            Some(json!({"spec": {"replicas": 3}})),
            "application/merge-patch+json",
        )
        .await;
    assert_eq!(c, 200, "{s}");
    assert_eq!(s["spec"]["replicas"], 3);
    k.wait_pods("app=api", "3", all_ready(3)).await;
    let (_, s) = k
        .get("/apis/apps/v1/namespaces/default/deployments/api/scale")
        .await;
    assert_eq!(s["status"]["replicas"], 3);
    assert_eq!(s["status"]["selector"], "app=api");
    k.delete(
        "/apis/apps/v1/namespaces/default/deployments/api",
        json!({}),
    )
    .await;
    k.wait_pods("app=api", "gone", |p| p.is_empty()).await;
    let (_, rs) = k.get("/apis/apps/v1/namespaces/default/replicasets").await;
    assert_eq!(rs["items"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn faults_hold_pods_unready_and_replace_them() {
    let k = sim(0, 0);
    let (c, _) = k
        .req(
            "PUT",
            "/sim/faults",
            Some(json!({"neverReady": ["held-"]})),
            "application/json",
        )
        .await;
    assert_eq!(c, 204);
    k.post(
        "/apis/apps/v1/namespaces/default/deployments",
        deployment("held", 1),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let p = k.pods("app=held").await;
    assert_eq!(p.len(), 1);
    assert_eq!(p[0]["status"]["phase"], "Running");
    assert!(!ready(&p[0]), "held unready");
    k.req("DELETE", "/sim/faults", None, "").await;
    let p = k
        .wait_pods("app=held", "ready once cleared", all_ready(1))
        .await;
    let old = names(&p)[0].clone();
    let (c, _) = k
        .post(
            &format!("/sim/namespaces/default/pods/{old}/replace"),
            json!({}),
        )
        .await;
    assert_eq!(c, 202);
    let p = k
        .wait_pods("app=held", "replaced", |p| {
            all_ready(1)(p) && names(p)[0] != old
        })
        .await;
    assert_ne!(names(&p)[0], old);
    // API errors by verb.
    k.req("PUT", "/sim/faults", Some(json!({"apiErrors": [{"verb": "create", "resource": "configmaps", "status": 503, "message": "etcd down", "times": 1}]})), "application/json").await;
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}});
    let (c, v) = k
        .post("/api/v1/namespaces/default/configmaps", cm.clone())
        .await;
    assert_eq!(c, 503);
    assert_eq!(v["message"], "etcd down");
    assert_eq!(
        k.post("/api/v1/namespaces/default/configmaps", cm).await.0,
        201
    );
}

#[tokio::test]
async fn services_get_an_address_and_endpoints_listing_their_ready_pods() {
    let k = sim(0, 0);
    let (c, v) = k
        .post(
            "/apis/apps/v1/namespaces/default/deployments",
            deployment("web", 2),
        )
        .await;
    assert_eq!(c, 201, "{v}");
    let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}});
    let (c, v) = k.post("/api/v1/namespaces/default/services", svc).await;
    assert_eq!(c, 201, "{v}");
    let ip = v["spec"]["clusterIP"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(ip.starts_with("198.18."), "{v}");
    let pods = k.wait_pods("app=web", "2 ready", all_ready(2)).await;
    let mut want: Vec<String> = pods
        .iter()
        .map(|p| p["status"]["podIP"].as_str().unwrap().to_owned())
        .collect();
    want.sort();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let ep = loop {
        let (c, ep) = k.get("/api/v1/namespaces/default/endpoints/web").await;
        let mut got: Vec<String> = ep["subsets"][0]["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["ip"].as_str().map(str::to_owned))
            .collect();
        got.sort();
        if c == 200 && got == want {
            break ep;
        }
        assert!(std::time::Instant::now() < deadline, "{ep}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(ep["subsets"][0]["ports"][0]["port"], 8080, "{ep}");
    // The address stays through an update that leaves it out.
    let mut svc = k.get("/api/v1/namespaces/default/services/web").await.1;
    svc["spec"].as_object_mut().unwrap().remove("clusterIP");
    let (c, v) = k
        .req(
            "PUT",
            "/api/v1/namespaces/default/services/web",
            Some(svc),
            "application/json",
        )
        .await;
    assert_eq!(
        (c, v["spec"]["clusterIP"].as_str()),
        (200, Some(ip.as_str())),
        "{v}"
    );
    // Endpoints a client made for a Service of no selector stay; the Service's go with it.
    let own = json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "external"},
        "subsets": [{"addresses": [{"ip": "198.18.255.1"}], "ports": [{"port": 5432}]}]});
    assert_eq!(
        k.post("/api/v1/namespaces/default/endpoints", own).await.0,
        201
    );
    let (c, _) = k
        .delete("/api/v1/namespaces/default/services/web", json!({}))
        .await;
    assert_eq!(c, 200);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while k.get("/api/v1/namespaces/default/endpoints/web").await.0 != 404 {
        assert!(
            std::time::Instant::now() < deadline,
            "Endpoints of a deleted Service stay"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        k.get("/api/v1/namespaces/default/endpoints/external")
            .await
            .0,
        200
    );
}
