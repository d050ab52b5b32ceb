//! Roles: every route's table entry, reader and member, vendor and area scopes.

use super::*;

fn concrete(path: &str) -> String {
    path.replace("{id}", "0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f50")
        .replace("{reportId}", "0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f51")
        .replace("{path:.+}", "Definitions/x.yaml")
}

#[tokio::test]
async fn every_route_answers_each_role_as_its_table_entry_says() {
    let key = new_key();
    let app = app(oauth2(&key, None, false).await).await;
    let tokens: Vec<(Option<Role>, Option<String>)> = vec![
        (None, None),
        (Some(Role::Reader), Some(access_token(&app, "reader").await)),
        (Some(Role::Member), Some(access_token(&app, "member").await)),
        (Some(Role::Admin), Some(access_token(&app, "admin").await)),
    ];
    every_route_as(&app, &tokens, "authorization").await;
}

/// Every route of the table, as each holder of `tokens` (sent in `header`:
/// `authorization` as a bearer token, or `x-auth-token`): 401 without a token, 403
/// below the route's role, neither at or above it; public routes answer all alike.
pub async fn every_route_as(
    app: &TestApp,
    tokens: &[(Option<Role>, Option<String>)],
    header: &str,
) {
    let mut checked = 0;
    for route in tacker_server::ROUTES {
        for (method, access, _) in route.ops {
            let url = app.url(&concrete(route.path));
            let mut seen = Vec::new();
            for (role, token) in tokens {
                let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                let mut r = app
                    .http
                    .request(m, &url)
                    .header("Version", route.version.unwrap_or("2.0.0"));
                if let Some(t) = token {
                    r = if header == "authorization" {
                        r.bearer_auth(t)
                    } else {
                        r.header(header, t)
                    };
                }
                if *method != "get" {
                    r = r.json(&json!({}));
                }
                let status = r.send().await.unwrap().status().as_u16();
                let expected = match (access.role(), role) {
                    (None, _) => None,
                    (Some(_), None) => Some(401),
                    (Some(need), Some(have)) if *have < need => Some(403),
                    _ => Some(0),
                };
                match expected {
                    Some(0) => assert!(
                        status != 401 && status != 403,
                        "{method} {} as {role:?}: {status}",
                        route.path
                    ),
                    Some(s) => assert_eq!(status, s, "{method} {} as {role:?}", route.path),
                    None => seen.push(status),
                }
            }
            if access.role().is_none() {
                assert!(
                    seen.windows(2).all(|w| w[0] == w[1]),
                    "public {method} {} answers by role: {seen:?}",
                    route.path
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "{checked}");
}

#[test]
fn writes_need_member_and_reads_reader_at_least() {
    for route in tacker_server::ROUTES {
        for (method, access, _) in route.ops {
            let public_ok = route.path.ends_with("api_versions")
                || route.path.starts_with("/oauth2/")
                || matches!(route.path, "/" | "/healthz" | "/readyz");
            if *access == Access::Public {
                assert!(public_ok, "{method} {} is public", route.path);
            } else if *method != "get" {
                assert!(
                    access.role() >= Some(Role::Member),
                    "{method} {} needs only {access:?}",
                    route.path
                );
            }
        }
    }
}

#[tokio::test]
async fn vendor_and_area_roles_scope_packages_instances_operations_and_vims() {
    use crate::lcm::sim_vim;
    use reqwest::Method;
    const OTHER_VNFD: &str = "22222222-2222-3333-4444-555555555555";
    let key = new_key();
    let (app, admin) = admin_app(&key).await;
    let ours = app.onboarded_package().await;
    let theirs = upload_other_vendor(&app, OTHER_VNFD).await;
    let p = app.settled(&theirs, Duration::from_secs(20)).await;
    assert_eq!(p["vnfProvider"], "Other Vendor", "{p}");
    let tokyo = with_roles(&key, &["member", "VENDOR_test provider", "AREA_tokyo"]);
    let osaka = with_roles(&key, &["member", "VENDOR_Other Vendor", "AREA_osaka"]);
    let everyone = with_roles(&key, &["member", "VENDOR_all", "AREA_all"]);

    // Packages: each vendor sees its own (and ones not onboarded yet), not the other's.
    let fresh = app.create(json!({})).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let pkgs = |t: String| {
        let app = &app;
        async move { sorted_ids(app, "/vnfpkgm/v1/vnf_packages", &t).await }
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        pkgs(tokyo.clone()).await,
        sorted(vec![ours.clone(), fresh.clone()])
    );
    assert_eq!(
        pkgs(osaka.clone()).await,
        sorted(vec![theirs.clone(), fresh.clone()])
    );
    assert_eq!(pkgs(everyone.clone()).await.len(), 3);
    // A built-in client configured with the attribute roles gets them in its tokens.
    let builtin = access_token(&app, "vendor-member").await;
    assert_eq!(
        pkgs(builtin).await,
        sorted(vec![ours.clone(), fresh.clone()])
    );
    for path in [
        format!("/vnfpkgm/v1/vnf_packages/{theirs}"),
        format!("/vnfpkgm/v1/vnf_packages/{theirs}/vnfd"),
        format!("/vnfpkgm/v1/vnf_packages/{theirs}/package_content"),
        format!("/vnfpkgm/v1/vnf_packages/{theirs}/manifest"),
    ] {
        assert_eq!(
            status_at(&app, &tokyo, Method::GET, &path).await,
            404,
            "{path}"
        );
    }
    assert_eq!(
        status_at(
            &app,
            &tokyo,
            Method::DELETE,
            &format!("/vnfpkgm/v1/vnf_packages/{theirs}")
        )
        .await,
        404
    );
    assert_eq!(
        status_at(
            &app,
            &tokyo,
            Method::GET,
            &format!("/vnfpkgm/v1/vnf_packages/{ours}/vnfd")
        )
        .await,
        200
    );

    // Instances: only of a package the caller's vendor sees.
    let r = lcm_as(&app, &tokyo, Method::POST, "/vnf_instances")
        .json(&json!({"vnfdId": OTHER_VNFD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    let inst = create_as(&app, &tokyo).await;
    // ... placed in the caller's areas only.
    let placed = |area: &str| {
        let mut v = sim_vim();
        v["vim1"]["extra"] = json!({"area": area});
        json!({"flavourId": "simple", "vimConnectionInfo": v})
    };
    let instantiate = format!("/vnf_instances/{inst}/instantiate");
    let r = lcm_as(&app, &tokyo, Method::POST, &instantiate)
        .json(&placed("osaka"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("osaka"));
    let r = lcm_as(&app, &tokyo, Method::POST, &instantiate)
        .json(&placed("tokyo"))
        .send()
        .await
        .unwrap();
    let op = completed_op(&app, r).await;

    // The instance and its occurrences: seen by its vendor and area, and by `all`;
    // invisible (404, not listed) to the other vendor.
    for who in [&tokyo, &everyone, &admin] {
        assert_eq!(
            ids_as(&app, who, "/vnf_instances").await,
            vec![inst.clone()]
        );
        assert_eq!(
            ids_as(&app, who, "/vnf_lcm_op_occs").await,
            vec![op.clone()]
        );
    }
    assert!(ids_as(&app, &osaka, "/vnf_instances").await.is_empty());
    assert!(ids_as(&app, &osaka, "/vnf_lcm_op_occs").await.is_empty());
    for (m, path) in [
        (Method::GET, format!("/vnf_instances/{inst}")),
        (Method::POST, format!("/vnf_instances/{inst}/terminate")),
        (Method::GET, format!("/vnf_lcm_op_occs/{op}")),
    ] {
        assert_eq!(
            status_as(&app, &osaka, m.clone(), &path).await,
            404,
            "{m} {path}"
        );
    }
    // The same vendor in another area does not see it either.
    let tokyo_vendor_osaka = with_roles(&key, &["member", "VENDOR_Test Provider", "AREA_osaka"]);
    assert!(
        ids_as(&app, &tokyo_vendor_osaka, "/vnf_instances")
            .await
            .is_empty()
    );
    assert_eq!(
        status_as(
            &app,
            &tokyo_vendor_osaka,
            Method::GET,
            &format!("/vnf_lcm_op_occs/{op}")
        )
        .await,
        404
    );

    // VIMs: registered in the caller's areas only, listed and shown by area.
    let cluster = crate::support::kube_sim("t");
    let vim = |name: &str, area: &str| {
        json!({"vim": {"name": name, "type": "kubernetes", "auth_url": cluster.url,
            "auth_cred": {"bearer_token": "t"}, "vim_project": {"name": "default"},
            "extra": {"area": area}}})
    };
    let register = |t: String, body: Value| {
        let app = &app;
        async move {
            app.http
                .post(app.url("/v1.0/vims"))
                .bearer_auth(t)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    assert_eq!(
        register(tokyo.clone(), vim("k-osaka", "osaka"))
            .await
            .status(),
        403
    );
    let r = register(tokyo.clone(), vim("k-tokyo", "tokyo")).await;
    assert_eq!(r.status(), 201);
    let tokyo_vim = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = register(admin.clone(), vim("k-osaka", "osaka")).await;
    assert_eq!(r.status(), 201);
    let osaka_vim = r.json::<Value>().await.unwrap()["vim"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let vims = |t: String| {
        let app = &app;
        async move {
            let r = get_with(app, "/v1.0/vims", &t).await;
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()["vims"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["name"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(vims(tokyo.clone()).await, vec!["k-tokyo".to_owned()]);
    assert_eq!(vims(osaka.clone()).await, vec!["k-osaka".to_owned()]);
    assert_eq!(vims(admin.clone()).await.len(), 2);
    for (m, who, id, want) in [
        (Method::GET, &tokyo, &osaka_vim, 404),
        (Method::DELETE, &tokyo, &osaka_vim, 404),
        (Method::GET, &osaka, &tokyo_vim, 404),
        (Method::GET, &tokyo, &tokyo_vim, 200),
    ] {
        assert_eq!(
            status_at(&app, who, m.clone(), &format!("/v1.0/vims/{id}")).await,
            want,
            "{m} {id}"
        );
    }
    // A vimId of another area is as unknown as a missing one.
    let second = create_as(&app, &tokyo).await;
    let r = lcm_as(
        &app,
        &tokyo,
        Method::POST,
        &format!("/vnf_instances/{second}/instantiate"),
    )
    .json(&json!({"flavourId": "simple",
        "vimConnectionInfo": {"v": {"vimId": osaka_vim, "vimType": "kubernetes"}}}))
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 422);
    assert!(r.text().await.unwrap().contains("is not a registered VIM"));
}
