//! Tenancy: another tenant's resources, quotas, notifications and alarms.

use super::*;

#[tokio::test]
async fn another_tenants_instances_operations_and_notifications_are_invisible() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    let key = new_key();
    let (app, admin) = admin_app(&key).await;
    app.onboarded_package().await;
    let (t1, t2) = (
        token_of(&key, "member", Some("t1")),
        token_of(&key, "member", Some("t2")),
    );
    // A TENANT_ role names the tenant too.
    let t2_by_role = sign(&key, &{
        let mut c = good_claims("member");
        c["roles"] = json!(["member", "TENANT_t2"]);
        c
    });

    // Each tenant subscribes to everything.
    let (sub1, sub2) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    for (t, s) in [(&t1, &sub1), (&t2, &sub2)] {
        let r = lcm_as(&app, t, Method::POST, "/subscriptions")
            .json(&json!({"callbackUri": s.url}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }

    // t1 creates and instantiates.
    let inst = create_as(&app, &t1).await;
    let r = lcm_as(
        &app,
        &t1,
        Method::POST,
        &format!("/vnf_instances/{inst}/instantiate"),
    )
    .json(&json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}))
    .send()
    .await
    .unwrap();
    let op = completed_op(&app, r).await;

    // t1 and the administrator see it all; t2 (by claim or by role) sees nothing of it.
    for who in [&t1, &admin] {
        assert_eq!(
            ids_as(&app, who, "/vnf_instances").await,
            vec![inst.clone()]
        );
        assert_eq!(
            ids_as(&app, who, "/vnf_lcm_op_occs").await,
            vec![op.clone()]
        );
        assert_eq!(
            status_as(&app, who, Method::GET, &format!("/vnf_instances/{inst}")).await,
            200
        );
    }
    for who in [&t2, &t2_by_role] {
        assert!(ids_as(&app, who, "/vnf_instances").await.is_empty());
        assert!(
            ids_as(&app, who, &format!("/vnf_instances?filter=(eq,id,{inst})"))
                .await
                .is_empty()
        );
        assert!(ids_as(&app, who, "/vnf_lcm_op_occs").await.is_empty());
        for (m, path) in [
            (Method::GET, format!("/vnf_instances/{inst}")),
            (Method::PATCH, format!("/vnf_instances/{inst}")),
            (Method::DELETE, format!("/vnf_instances/{inst}")),
            (Method::POST, format!("/vnf_instances/{inst}/terminate")),
            (Method::POST, format!("/vnf_instances/{inst}/scale")),
            (
                Method::POST,
                format!("/vnf_instances/{inst}/scale_to_level"),
            ),
            (Method::POST, format!("/vnf_instances/{inst}/operate")),
            (
                Method::POST,
                format!("/vnf_instances/{inst}/change_flavour"),
            ),
            (Method::GET, format!("/vnf_lcm_op_occs/{op}")),
            (Method::POST, format!("/vnf_lcm_op_occs/{op}/retry")),
            (Method::POST, format!("/vnf_lcm_op_occs/{op}/cancel")),
        ] {
            assert_eq!(
                status_as(&app, who, m.clone(), &path).await,
                404,
                "{m} {path}"
            );
        }
    }
    // Subscriptions are tenant-scoped too.
    assert_eq!(ids_as(&app, &t1, "/subscriptions").await.len(), 1);
    assert_eq!(ids_as(&app, &admin, "/subscriptions").await.len(), 2);

    // t1's subscriber heard the whole lifecycle; t2's nothing of it.
    sub1.wait("t1's COMPLETED", |got| {
        got.iter().any(|n| n["operationState"] == "COMPLETED")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(sub2.received().is_empty(), "{:#?}", sub2.received());

    // A CNF goes into the namespace named after the caller's tenant only.
    let cnf = create_as(&app, &t1).await;
    let r = lcm_as(&app, &t1, Method::POST, &format!("/vnf_instances/{cnf}/instantiate"))
        .json(&json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
            "additionalParams": {"lcm-kubernetes-def-files": ["Files/kubernetes/d.yaml"], "namespace": "kube-system"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("namespace t1 only"));
}

/// `server.max_instances_per_tenant` and `max_subscriptions_per_tenant` hold per tenant,
/// also when a tenant's creations race (on both backends).
#[tokio::test]
async fn tenant_quotas_hold_under_concurrent_creations() {
    use crate::lcm::VNFD;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    for db in [TestDb::postgres(), TestDb::sqlite()] {
        let key = new_key();
        let admin = token_of(&key, "admin", None);
        let app = TestApp::with(
            db,
            Options {
                conductors: 1,
                auth: Some(oauth2(&key, None, false).await),
                token: Some(admin.clone()),
                quotas: (3, 1),
                ..Options::default()
            },
        )
        .await;
        app.onboarded_package().await;
        // Two packages: creations from different packages do not queue on one package
        // row, so only the quota's own lock keeps them from passing it together.
        const OTHER_VNFD: &str = "33333333-2222-3333-4444-555555555555";
        let (other, _) = app
            .upload(tacker_testkit::csar::valid_with_vnfd_id(OTHER_VNFD).zip())
            .await;
        assert_eq!(
            app.settled(&other, Duration::from_secs(20)).await["onboardingState"],
            "ONBOARDED"
        );
        let (t1, t2) = (
            token_of(&key, "member", Some("t1")),
            token_of(&key, "member", Some("t2")),
        );
        let create_of = |t: String, vnfd: &'static str| {
            let app = &app;
            async move {
                let r = lcm_as(app, &t, Method::POST, "/vnf_instances")
                    .json(&json!({"vnfdId": vnfd}))
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let body: Value = r.json().await.unwrap();
                (status, body)
            }
        };
        let create = |t: String| create_of(t, VNFD);
        // Ten at once for t1: exactly three are created, the others 403 with a reason.
        let results = futures::future::join_all(
            (0..10).map(|n| create_of(t1.clone(), if n % 2 == 0 { VNFD } else { OTHER_VNFD })),
        )
        .await;
        let made: Vec<&Value> = results
            .iter()
            .filter(|(s, _)| *s == 201)
            .map(|(_, b)| b)
            .collect();
        assert_eq!(made.len(), 3, "{results:?}");
        for (s, b) in results.iter().filter(|(s, _)| *s != 201) {
            assert_eq!(*s, 403, "{b}");
            assert!(
                b["detail"]
                    .as_str()
                    .unwrap()
                    .contains("tenant t1 has 3 VNF instances"),
                "{b}"
            );
        }
        assert_eq!(ids_as(&app, &t1, "/vnf_instances").await.len(), 3);
        // Another tenant has its own count.
        assert_eq!(create(t2.clone()).await.0, 201);
        // A deleted instance frees its place.
        let gone = made[0]["id"].as_str().unwrap().to_owned();
        assert_eq!(
            status_as(&app, &t1, Method::DELETE, &format!("/vnf_instances/{gone}")).await,
            204
        );
        assert_eq!(create(t1.clone()).await.0, 201);
        assert_eq!(create(t1.clone()).await.0, 403);

        // Subscriptions: one per tenant (each asking for other notifications: the same
        // one again would be a duplicate, 303).
        let sub = Subscriber::start(Expect::Nothing);
        let ops = std::sync::atomic::AtomicUsize::new(0);
        let subscribe = |t: String| {
            let (app, url) = (&app, sub.url.clone());
            let op = ["SCALE", "HEAL", "TERMINATE"]
                [ops.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 3];
            async move {
                lcm_as(app, &t, Method::POST, "/subscriptions")
                    .json(&json!({"callbackUri": url, "filter": {"operationTypes": [op]}}))
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16()
            }
        };
        assert_eq!(subscribe(t1.clone()).await, 201);
        assert_eq!(subscribe(t1.clone()).await, 403);
        assert_eq!(subscribe(t2.clone()).await, 201);
        assert_eq!(ids_as(&app, &t1, "/subscriptions").await.len(), 1);
        // FM and package subscriptions: as many of each kind.
        for (path, version, kinds) in [
            (
                "/vnffm/v1/subscriptions",
                "1.3.0",
                ["AlarmNotification", "AlarmClearedNotification"],
            ),
            (
                "/vnfpkgm/v1/subscriptions",
                "2.0.0",
                [
                    "VnfPackageOnboardingNotification",
                    "VnfPackageChangeNotification",
                ],
            ),
        ] {
            let other = |t: &str, kind: &str| {
                app.http
                    .post(app.url(path))
                    .header("Version", version)
                    .bearer_auth(t)
                    .json(&json!({"callbackUri": sub.url,
                        "filter": {"notificationTypes": [kind]}}))
                    .send()
            };
            assert_eq!(other(&t1, kinds[0]).await.unwrap().status(), 201, "{path}");
            let r = other(&t1, kinds[1]).await.unwrap();
            assert_eq!(r.status(), 403, "{path}");
            let b: Value = r.json().await.unwrap();
            assert!(
                b["detail"].as_str().unwrap().contains("tenant t1 has 1"),
                "{b}"
            );
            assert_eq!(other(&t2, kinds[1]).await.unwrap().status(), 201, "{path}");
        }
    }
}

/// Subscriptions keep their creator's vendor and area confinement: a subscription made
/// by a caller confined to one vendor and area hears nothing of another vendor's
/// packages or of instances placed in another area (an unconfined one hears all), and
/// confined callers see only subscriptions as narrow as themselves.
#[tokio::test]
async fn notifications_reach_only_subscriptions_whose_creator_sees_the_resource() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    const OTHER_VNFD: &str = "33333333-2222-3333-4444-555555555555";
    let key = new_key();
    let (app, admin) = admin_app(&key).await;
    let tokyo = with_roles(&key, &["member", "VENDOR_test provider", "AREA_tokyo"]);
    let subscribe = |token: String, path: &'static str, sub: String| {
        let app = &app;
        async move {
            let r = app
                .http
                .post(app.url(path))
                .header("Version", "2.0.0")
                .bearer_auth(token)
                .json(&json!({"callbackUri": sub}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
            r.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        }
    };
    let (pkgm_all, pkgm_tokyo) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    let (lcm_all, lcm_tokyo) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    let admins = subscribe(
        admin.clone(),
        "/vnfpkgm/v1/subscriptions",
        pkgm_all.url.clone(),
    )
    .await;
    let tokyos = subscribe(
        tokyo.clone(),
        "/vnfpkgm/v1/subscriptions",
        pkgm_tokyo.url.clone(),
    )
    .await;
    subscribe(
        admin.clone(),
        "/vnflcm/v2/subscriptions",
        lcm_all.url.clone(),
    )
    .await;
    subscribe(
        tokyo.clone(),
        "/vnflcm/v2/subscriptions",
        lcm_tokyo.url.clone(),
    )
    .await;

    // Packages: the other vendor's onboarding reaches the unconfined subscription only.
    let theirs = upload_other_vendor(&app, OTHER_VNFD).await;
    app.settled(&theirs, Duration::from_secs(20)).await;
    let ours = app.onboarded_package().await;
    let onboarded = |pkg: &str| {
        let pkg = pkg.to_owned();
        move |g: &[Value]| {
            g.iter().any(|n| {
                n["vnfPkgId"] == pkg.as_str()
                    && n["notificationType"] == "VnfPackageOnboardingNotification"
            })
        }
    };
    pkgm_all
        .wait("both onboardings", |g| {
            onboarded(&theirs)(g) && onboarded(&ours)(g)
        })
        .await;
    pkgm_tokyo.wait("our onboarding", onboarded(&ours)).await;
    let about =
        |s: &Subscriber, id: &str| s.received().iter().filter(|n| n["vnfPkgId"] == id).count();
    assert_eq!(
        about(&pkgm_tokyo, &theirs),
        0,
        "the other vendor's package was told"
    );

    // Instances: one placed in osaka (by the administrator) is not told to tokyo's.
    let placed = |area: &str| {
        let mut v = sim_vim();
        v["vim1"]["extra"] = json!({"area": area});
        json!({"flavourId": "simple", "vimConnectionInfo": v})
    };
    let mut ops = Vec::new();
    for area in ["osaka", "tokyo"] {
        let inst = create_as(&app, &admin).await;
        let r = lcm_as(
            &app,
            &admin,
            Method::POST,
            &format!("/vnf_instances/{inst}/instantiate"),
        )
        .json(&placed(area))
        .send()
        .await
        .unwrap();
        ops.push(completed_op(&app, r).await);
    }
    let completed = |op: &str| {
        let op = op.to_owned();
        move |g: &[Value]| {
            g.iter()
                .any(|n| n["vnfLcmOpOccId"] == op.as_str() && n["operationState"] == "COMPLETED")
        }
    };
    lcm_all
        .wait("both instantiations", |g| {
            completed(&ops[0])(g) && completed(&ops[1])(g)
        })
        .await;
    lcm_tokyo
        .wait("tokyo's instantiation", completed(&ops[1]))
        .await;
    // Until it is placed, an instance is in no area and seen by all (as when read); once
    // in osaka, nothing of it reaches tokyo's subscription.
    let told: Vec<Value> = lcm_tokyo
        .received()
        .into_iter()
        .filter(|n| n["vnfLcmOpOccId"] == ops[0].as_str())
        .collect();
    assert!(
        told.iter().all(|n| n["operationState"] != "COMPLETED"),
        "the end of an instantiation in osaka was told to tokyo's subscription: {told:?}"
    );

    // Subscriptions: tokyo sees its own only; the administrator sees both.
    let listed = |token: String| {
        let app = &app;
        async move { sorted_ids(app, "/vnfpkgm/v1/subscriptions", &token).await }
    };
    assert_eq!(listed(tokyo.clone()).await, vec![tokyos.clone()]);
    let mut both = vec![admins.clone(), tokyos.clone()];
    both.sort();
    assert_eq!(listed(admin.clone()).await, both);
    let r = get_with(&app, &format!("/vnfpkgm/v1/subscriptions/{admins}"), &tokyo).await;
    assert_eq!(r.status(), 404);
}

/// The alert webhooks need the `alert` role (a built-in client for Alertmanager, or an
/// IdP token), which reads and changes nothing else; an alert names only instances of
/// its sender's tenant; alarms, like what they are about, are the tenant's.
#[tokio::test]
async fn alerts_need_the_alert_role_and_alarms_stay_within_their_tenant() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    use tacker_testkit::peers::{Expect, Subscriber};
    let key = new_key();
    let (app, _admin) = admin_app(&key).await;
    app.onboarded_package().await;
    let (t1, t2) = (
        token_of(&key, "member", Some("t1")),
        token_of(&key, "member", Some("t2")),
    );
    let alerter_of = |tenant: &str| {
        let mut c = good_claims("alert");
        c["tenant"] = json!(tenant);
        sign(&key, &c)
    };
    let inst = create_as(&app, &t1).await;
    let r = lcm_as(
        &app,
        &t1,
        Method::POST,
        &format!("/vnf_instances/{inst}/instantiate"),
    )
    .json(&json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}))
    .send()
    .await
    .unwrap();
    completed_op(&app, r).await;
    let v: Value = lcm_as(&app, &t1, Method::GET, &format!("/vnf_instances/{inst}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let vnfc = v["instantiatedVnfInfo"]["vnfcInfo"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let plain = reqwest::Client::new();
    let fm_as = |token: &str, method: Method, path: &str| {
        plain
            .request(method, app.url(&format!("/vnffm/v1{path}")))
            .header("Version", "1.3.0")
            .bearer_auth(token)
    };
    let (sub1, sub2) = (
        Subscriber::start(Expect::Nothing),
        Subscriber::start(Expect::Nothing),
    );
    for (t, s) in [(&t1, &sub1), (&t2, &sub2)] {
        let r = fm_as(t, Method::POST, "/subscriptions")
            .json(&json!({"callbackUri": s.url}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }
    let body = json!({"alerts": [{"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "t-1",
        "labels": {"receiver_type": "tacker", "function_type": "vnffm", "vnf_instance_id": inst,
            "vnfc_info_id": vnfc, "perceived_severity": "MAJOR", "event_type": "QOS_ALARM"}}]});
    // A client of its own: the app's carries the administrator's token.
    let bare = reqwest::Client::new();
    let post = |token: Option<&str>| {
        let mut r = bare.post(app.url("/alert")).json(&body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send()
    };
    // Nobody anonymous, no member: the alert role (or admin).
    assert_eq!(post(None).await.unwrap().status(), 401);
    crate::support::assert_problem(post(Some(&t1)).await.unwrap(), 403, "alert").await;
    // Another tenant's alerter does not reach t1's instance.
    let r = post(Some(&alerter_of("t2"))).await.unwrap();
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert!(
        out["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not found"),
        "{out}"
    );
    // t1's built-in alerter client (what Alertmanager's http_config oauth2 uses).
    let builtin = access_token(&app, "alerter").await;
    let r = post(Some(&builtin)).await.unwrap();
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["outcomes"]["raised"], 1, "{out}");
    // The alert role reads and changes nothing else.
    for path in ["/vnflcm/v2/vnf_instances", "/vnfpkgm/v1/vnf_packages"] {
        let r = bare
            .get(app.url(path))
            .header("Version", "2.0.0")
            .bearer_auth(&builtin)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path}");
    }
    assert_eq!(
        fm_as(&builtin, Method::GET, "/alarms")
            .send()
            .await
            .unwrap()
            .status(),
        403
    );

    // t1 sees the alarm and hears of it; t2 does neither, nor can it acknowledge it.
    let listed: Vec<Value> = fm_as(&t1, Method::GET, "/alarms")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    let alarm = listed[0]["id"].as_str().unwrap().to_owned();
    let listed: Vec<Value> = fm_as(&t2, Method::GET, "/alarms")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(listed.is_empty(), "{listed:?}");
    assert_eq!(
        fm_as(&t2, Method::GET, &format!("/alarms/{alarm}"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let r = fm_as(&t2, Method::PATCH, &format!("/alarms/{alarm}"))
        .json(&json!({"ackState": "ACKNOWLEDGED"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    sub1.wait("t1's alarm", |g| {
        g.iter()
            .any(|n| n["notificationType"] == "AlarmNotification")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(sub2.received().is_empty(), "{:?}", sub2.received());
}
