//! Tokens: the built-in endpoint, refused tokens, an external JWKS, mode none, public metrics.

use super::*;

#[tokio::test]
async fn the_builtin_endpoint_issues_tokens_that_open_what_the_role_allows() {
    let key = new_key();
    let app = app(oauth2(&key, None, false).await).await;
    let packages = "/vnfpkgm/v1/vnf_packages";

    // No token: 401 with a Bearer challenge, as ProblemDetails.
    let r = app.http.get(app.url(packages)).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    // Open routes stay open.
    for open in [
        "/healthz",
        "/vnflcm/api_versions",
        "/vnfpkgm/v1/api_versions",
    ] {
        assert_eq!(
            app.http.get(app.url(open)).send().await.unwrap().status(),
            200
        );
    }

    // client_secret_basic; the answer is a Bearer token that is never cached.
    let r = token(&app, "reader", None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["scope"], "reader");
    assert_eq!(body["expires_in"], 600);
    let reader = body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(get_with(&app, packages, &reader).await.status(), 200);
    let r = app
        .http
        .post(app.url(packages))
        .bearer_auth(&reader)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("member role"));

    // client_secret_post; a member writes, through X-Auth-Token as the openstack CLI sends.
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", "member"),
            ("client_secret", SECRET),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let member = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .http
        .post(app.url(packages))
        .header("X-Auth-Token", &member)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(
        get_with(&app, "/admin/v1/conductors", &member)
            .await
            .status(),
        403
    );
    assert_eq!(get_with(&app, "/metrics", &member).await.status(), 403);
    let admin = access_token(&app, "admin").await;
    assert_eq!(
        get_with(&app, "/admin/v1/conductors", &admin)
            .await
            .status(),
        200
    );
    assert_eq!(get_with(&app, "/metrics", &admin).await.status(), 200);

    // Scope narrows: a member asking for reader gets a token that cannot write.
    let r = token(&app, "member", Some("reader")).await;
    let narrowed = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .http
        .post(app.url(packages))
        .bearer_auth(&narrowed)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    // RFC 6749 §5.2 errors.
    let r = token(&app, "member", Some("admin")).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_scope");
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .basic_auth("member", Some("wrong-secret"))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic")
    );
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_client");
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .basic_auth("nobody", Some(SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["error"], "invalid_client");
    let r = app
        .http
        .post(app.url("/oauth2/token"))
        .basic_auth("member", Some(SECRET))
        .form(&[("grant_type", "password")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"],
        "unsupported_grant_type"
    );

    // The published key set holds the signing key.
    let jwks: Value = app
        .http
        .get(app.url("/oauth2/jwks"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let issued = access_token(&app, "reader").await;
    let kid = jsonwebtoken::decode_header(&issued).unwrap().kid.unwrap();
    assert_eq!(jwks["keys"][0]["kid"], kid.as_str());
    assert_eq!(jwks["keys"][0]["crv"], "Ed25519");
}

#[tokio::test]
async fn expired_foreign_unsigned_and_misaddressed_tokens_are_refused() {
    let key = new_key();
    let app = app(oauth2(&key, None, false).await).await;
    let path = "/vnfpkgm/v1/vnf_packages";
    assert_eq!(
        get_with(&app, path, &sign(&key, &good_claims("reader")))
            .await
            .status(),
        200
    );

    let now = chrono::Utc::now().timestamp();
    let mut expired = good_claims("reader");
    expired["exp"] = json!(now - 120);
    let mut not_yet = good_claims("reader");
    not_yet["nbf"] = json!(now + 600);
    let mut wrong_aud = good_claims("reader");
    wrong_aud["aud"] = json!("someone-else");
    let mut wrong_iss = good_claims("reader");
    wrong_iss["iss"] = json!("https://evil.example");
    // Another key claiming the trusted key's id.
    let other = new_key();
    let mut h = Header::new(Algorithm::EdDSA);
    h.kid = Some(key.kid().to_owned());
    let forged = jsonwebtoken::encode(&h, &good_claims("admin"), other.encoding()).unwrap();
    // alg=none: header and claims, no signature.
    use base64::Engine;
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    let unsigned = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "typ": "JWT", "kid": key.kid()})),
        b64(&good_claims("admin"))
    );
    // HS256 with the public key as the secret (algorithm confusion).
    let mut hh = Header::new(Algorithm::HS256);
    hh.kid = Some(key.kid().to_owned());
    let public = key.jwk()["x"].as_str().unwrap().to_owned();
    let confused = jsonwebtoken::encode(
        &hh,
        &good_claims("admin"),
        &EncodingKey::from_secret(public.as_bytes()).unwrap(),
    )
    .unwrap();
    for (what, t) in [
        ("expired", sign(&key, &expired)),
        ("not yet valid", sign(&key, &not_yet)),
        ("wrong audience", sign(&key, &wrong_aud)),
        ("wrong issuer", sign(&key, &wrong_iss)),
        ("wrong key", forged),
        ("alg none", unsigned),
        ("HS256", confused),
        ("garbage", "not.a.token".to_owned()),
    ] {
        let r = get_with(&app, path, &t).await;
        assert_eq!(r.status(), 401, "{what}");
        assert_eq!(
            r.headers()["content-type"],
            "application/problem+json",
            "{what}"
        );
    }
    // A valid token without a known role is authenticated but may do nothing.
    let r = get_with(&app, path, &sign(&key, &good_claims("auditor"))).await;
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn an_external_jwks_is_fetched_and_its_key_rotation_followed() {
    let builtin = new_key();
    let (a, b) = (new_key(), new_key());
    let set = Arc::new(Mutex::new(json!({"keys": [a.jwk()]})));
    let url = jwks_server(set.clone()).await;
    let app = app(oauth2(&builtin, Some(url), false).await).await;
    let path = "/vnfpkgm/v1/vnf_packages";

    let token_a = sign(&a, &good_claims("reader"));
    assert_eq!(get_with(&app, path, &token_a).await.status(), 200);
    // The built-in endpoint's tokens work beside the JWKS.
    let builtin_token = access_token(&app, "reader").await;
    assert_eq!(get_with(&app, path, &builtin_token).await.status(), 200);

    // Rotation: the set now holds b only. A token of b names a key not seen yet, so the
    // set is fetched again (at most once a second); a stops working.
    *set.lock().unwrap() = json!({"keys": [b.jwk()]});
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let token_b = sign(&b, &good_claims("member"));
    let r = app
        .http
        .post(app.url(path))
        .bearer_auth(&token_b)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(get_with(&app, path, &token_a).await.status(), 401);
}

#[tokio::test]
async fn mode_none_answers_loopback_hosts_only() {
    let app = TestApp::start(TestDb::sqlite()).await;
    let path = "/vnfpkgm/v1/vnf_packages";
    assert_eq!(
        app.http.get(app.url(path)).send().await.unwrap().status(),
        200
    );
    for host in ["localhost:9890", "[::1]"] {
        let r = app
            .http
            .get(app.url(path))
            .header("Host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{host}");
    }
    // A page from rebinding.example whose name now resolves to 127.0.0.1.
    let r = app
        .http
        .get(app.url(path))
        .header("Host", "rebinding.example:9890")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("not served"));
}

#[tokio::test]
async fn metrics_can_be_public() {
    let app = app(oauth2(&new_key(), None, true).await).await;
    assert_eq!(
        app.http
            .get(app.url("/metrics"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let r = app
        .http
        .get(app.url("/admin/v1/conductors"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}
