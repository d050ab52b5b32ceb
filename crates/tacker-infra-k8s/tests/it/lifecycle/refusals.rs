//! What the driver refuses or fails with its reason: bad requests, API errors, timeouts, denied namespaces.

use super::*;

#[tokio::test]
async fn bad_requests_and_api_errors_fail_with_the_reason() {
    let t = Target::sim().await;
    let d = driver();
    let f = Fixture::new(t.vim.clone());
    // No manifests named.
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, json!({"flavourId": "simple"})))
        .await
        .unwrap_err();
    assert_eq!(e.status, 400);
    assert!(e.detail.contains("lcm-kubernetes-def-files"), "{e:?}");
    // Not in the package.
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, json!({"flavourId": "simple", "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/nope.yaml"]}})))
        .await
        .unwrap_err();
    assert!(e.detail.contains("not an artifact"), "{e:?}");
    // Several namespaces and no override.
    let dep = f.dir.path().join("Files/kubernetes/deployment.yaml");
    let text = std::fs::read_to_string(&dep).unwrap().replace(
        "name: vdu2-deploy\n",
        "name: vdu2-deploy\n  namespace: one\n",
    );
    std::fs::write(&dep, text).unwrap();
    let pod = f.dir.path().join("Files/kubernetes/pod.yaml");
    let text = std::fs::read_to_string(&pod)
        .unwrap()
        .replace("name: vdu1-pod\n", "name: vdu1-pod\n  namespace: two\n");
    std::fs::write(&pod, text).unwrap();
    let p =
        json!({"flavourId": "simple", "additionalParams": tacker_testkit::cnf::cnf_params(None)});
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, p))
        .await
        .unwrap_err();
    assert!(e.detail.contains("several namespaces (one, two)"), "{e:?}");
    // The API refuses a create: its message is the reason.
    let h = t.sim.as_ref().unwrap();
    h.sim.lock().faults.api_errors.push(kube_sim::ApiFault {
        verb: "create".into(),
        resource: "statefulsets".into(),
        name: None,
        status: 403,
        message: "statefulsets are forbidden by policy".into(),
        times: None,
    });
    let e = d
        .instantiate(&f.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap_err();
    assert_eq!(e.status, 403);
    assert!(
        e.detail.contains("statefulsets are forbidden by policy") && e.detail.contains("vdu4-sts"),
        "{e:?}"
    );
    // A wrong token.
    let mut bad = t.vim.clone();
    bad.info
        .set(Place::Access, "bearer_token", Value::String("wrong".into()));
    let f2 = Fixture::new(bad);
    let e = d
        .instantiate(&f2.ctx(LcmOperation::Instantiate, params(&t.namespace)))
        .await
        .unwrap_err();
    assert_eq!(e.status, 401, "{e:?}");
}

#[tokio::test]
async fn readiness_times_out_and_a_retry_completes() {
    let t = Target::sim().await;
    let d = KubernetesDriver::new(K8sSettings {
        ready_timeout: Duration::from_millis(1500),
        delete_timeout: Duration::from_secs(30),
        poll_interval: Duration::from_millis(100),
        request_timeout: Duration::from_secs(10),
        ..tested()
    });
    let mut f = Fixture::new(t.vim.clone());
    let h = t.sim.as_ref().unwrap();
    h.sim.lock().faults.never_ready.push("vdu3-rs-".into());
    let ctx = f.ctx(LcmOperation::Instantiate, params(&t.namespace));
    let e = d.instantiate(&ctx).await.unwrap_err();
    assert_eq!(e.status, 504);
    assert!(
        e.detail.contains("timed out") && e.detail.contains("vdu3-rs"),
        "{e:?}"
    );
    h.sim.lock().faults.never_ready.clear();
    // The same operation again: what exists is kept, and it completes.
    let o = d.instantiate(&ctx).await.unwrap();
    f.apply(&o);
    assert_eq!(count(&f.vnfcs(), "VDU3"), 1);
}

#[tokio::test]
async fn denied_namespaces_cluster_scoped_objects_and_plain_http_are_refused() {
    let t = Target::sim().await;
    let ctx = |f: &Fixture, ns: &str| {
        f.ctx(
            LcmOperation::Instantiate,
            json!({"flavourId": "simple", "additionalParams": tacker_testkit::cnf::cnf_params(Some(ns))}),
        )
    };
    // kube-* by default.
    let f = Fixture::new(t.vim.clone());
    let e = driver()
        .instantiate(&ctx(&f, "kube-system"))
        .await
        .unwrap_err();
    assert!(e.detail.contains("kubernetes.denied_namespaces"), "{e:?}");

    // A Namespace object in the manifests, with cluster_scoped = deny: nothing created.
    let dep = f.dir.path().join("Files/kubernetes/deployment.yaml");
    let text = std::fs::read_to_string(&dep).unwrap();
    std::fs::write(
        &dep,
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: escape\n---\n{text}"),
    )
    .unwrap();
    let strict = KubernetesDriver::new(K8sSettings {
        cluster_scoped: false,
        ..tested()
    });
    let e = strict
        .instantiate(&ctx(&f, &t.namespace))
        .await
        .unwrap_err();
    assert!(
        e.detail.contains("Namespace escape is cluster-scoped"),
        "{e:?}"
    );
    let h = t.sim.as_ref().unwrap();
    {
        let s = h.sim.lock();
        assert!(
            s.list("/namespaces", None)
                .iter()
                .all(|(k, _)| k.2 != "escape")
        );
        for r in ["/deployments", "/statefulsets", "/pods", "/services"] {
            assert!(s.list(r, Some(&t.namespace)).is_empty(), "{r} created");
        }
    }

    // Plain http beyond loopback: refused before any connection (TEST-NET address).
    let mut plain = t.vim.clone();
    plain.info.set(
        Place::Interface,
        "endpoint",
        Value::String("http://192.0.2.10:6443".into()),
    );
    let f = Fixture::new(plain);
    let e = driver()
        .instantiate(&ctx(&f, &t.namespace))
        .await
        .unwrap_err();
    assert!(e.detail.contains("kubernetes.allow_http"), "{e:?}");

    // The API server on loopback, which this conductor's outbound.allowed_networks does
    // not name: no request, by address or by a name resolving there.
    let guarded = KubernetesDriver::new(defaults());
    let port = reqwest::Url::parse(&h.url).unwrap().port().unwrap();
    for endpoint in [h.url.clone(), format!("https://localhost:{port}")] {
        let mut vim = t.vim.clone();
        vim.info.set(
            Place::Interface,
            "endpoint",
            Value::String(endpoint.clone()),
        );
        let f = Fixture::new(vim);
        let e = guarded
            .instantiate(&ctx(&f, &t.namespace))
            .await
            .unwrap_err();
        assert!(
            e.detail.contains("outbound.allowed_networks"),
            "{endpoint}: {e:?}"
        );
        let s = h.sim.lock();
        for r in ["/deployments", "/statefulsets", "/pods", "/services"] {
            assert!(s.list(r, Some(&t.namespace)).is_empty(), "{r} created");
        }
    }
}
