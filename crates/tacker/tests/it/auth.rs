//! `[auth] mode = "oauth2"` in a real `tacker all-in-one`: clients configured with hashes
//! from `tacker auth hash-secret`, tokens for tackerctl and the openstack CLI, the
//! generated signing key kept across restarts, audit lines; start-up refusals.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::openstack_cli::openstack_bin;
use crate::support::{ClusterEnv, Proc, all_in_one, free_port, tacker, wait_status};

const OPERATOR_SECRET: &str = "operator-secret-0123456789";
const VIEWER_SECRET: &str = "viewer-secret-0123456789";

pub fn hash_secret(secret: &str) -> String {
    let mut child = tacker()
        .args(["auth", "hash-secret"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{secret}").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

async fn ctl(url: &str, args: &[&str]) -> (i32, String) {
    let mut all = vec!["tackerctl", "--url", url];
    all.extend_from_slice(args);
    let mut out = Vec::new();
    let code = tackerctl::run(all, &mut out).await;
    (code, String::from_utf8(out).unwrap())
}

/// The tackerctl binary beside this test binary (`make build` builds it), for what it
/// prints on stderr.
fn tackerctl_bin(url: &str, args: &[&str]) -> (i32, String) {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("tackerctl");
    assert!(
        bin.exists(),
        "{} missing: make build builds it",
        bin.display()
    );
    let out = Command::new(bin)
        .arg("--url")
        .arg(url)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn token(url: &str, id: &str, secret: &str) -> String {
    let r = reqwest::Client::new()
        .post(format!("{url}/oauth2/token"))
        .basic_auth(id, Some(secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn openstack(url: &str, token: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(openstack_bin())
        .args(["--os-auth-type", "admin_token", "--os-token", token])
        .args(["--os-endpoint", url])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_in_one_with_oauth2_serves_configured_clients_to_tackerctl_and_openstack() {
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let config = env.dir.path().join("tacker.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[auth]
mode = "oauth2"

[[auth.clients]]
id = "operator"
secret_hash = "{}"
roles = ["member"]
tenant = "t1"

[[auth.clients]]
id = "viewer"
secret_hash = "{}"
roles = ["reader"]
"#,
            hash_secret(OPERATOR_SECRET),
            hash_secret(VIEWER_SECRET)
        ),
    )
    .unwrap();
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let start = || {
        Proc::spawn(
            env.command(&[("TACKER__SERVER__BIND", format!("127.0.0.1:{port}"))])
                .arg("--config")
                .arg(&config)
                .arg("all-in-one"),
            &env.log_path("aio"),
        )
    };
    let mut aio = start();
    let http = reqwest::Client::new();
    wait_status(
        &http,
        &format!("{url}/readyz"),
        200,
        Duration::from_secs(30),
    )
    .await;

    // all-in-one made its signing key, readable by its user only.
    let key = env.dir.path().join("data/auth-signing.pem");
    let mode = std::fs::metadata(&key).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    let packages = format!("{url}/vnfpkgm/v1/vnf_packages");
    assert_eq!(http.get(&packages).send().await.unwrap().status(), 401);

    // tackerctl with client credentials.
    let operator = [
        "--client-id",
        "operator",
        "--client-secret",
        OPERATOR_SECRET,
    ];
    let mut args = operator.to_vec();
    args.extend(["package", "create", "-o", "json"]);
    let (code, out) = ctl(&url, &args).await;
    assert_eq!(code, 0, "{out}");
    let created: Value = serde_json::from_str(&out).unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let viewer = ["--client-id", "viewer", "--client-secret", VIEWER_SECRET];
    let mut args = viewer.to_vec();
    args.extend(["package", "list"]);
    let (code, out) = ctl(&url, &args).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&id), "{out}");
    let mut args = viewer.to_vec();
    args.extend(["package", "create"]);
    let (code, out) = tackerctl_bin(&url, &args);
    assert_eq!(code, 1);
    assert!(out.contains("403") && out.contains("member role"), "{out}");
    let (code, out) = tackerctl_bin(
        &url,
        &[
            "--client-id",
            "viewer",
            "--client-secret",
            "wrong",
            "package",
            "list",
        ],
    );
    assert_eq!(code, 1);
    assert!(out.contains("refused the client credentials"), "{out}");

    // The openstack CLI with a token (X-Auth-Token).
    let t = token(&url, "operator", OPERATOR_SECRET).await;
    let (ok, out, err) = openstack(&url, &t, &["vnf", "package", "list", "-f", "json"]);
    assert!(ok, "{err}");
    assert!(out.contains(&id), "{out}");
    let (ok, _, err) = openstack(&url, "not-a-token", &["vnf", "package", "list"]);
    assert!(!ok);
    assert!(err.contains("malformed token"), "{err}");

    // The state change is audited with its principal and tenant.
    let log = aio.log_text();
    let line = log
        .lines()
        .find(|l| l.contains("tacker::audit") && l.contains(&id))
        .unwrap_or_else(|| panic!("no audit line:\n{log}"));
    for part in [
        "\"operator\"",
        "\"t1\"",
        "\"/vnfpkgm/v1/vnf_packages\"",
        "201",
    ] {
        assert!(line.contains(part), "{part}: {line}");
    }

    // Restarted, all-in-one keeps its key: a token issued before still works.
    aio.signal("TERM");
    aio.wait(Duration::from_secs(30));
    let _aio = start();
    wait_status(
        &http,
        &format!("{url}/readyz"),
        200,
        Duration::from_secs(30),
    )
    .await;
    let r = http.get(&packages).bearer_auth(&t).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

#[test]
fn a_server_refuses_to_start_insecurely() {
    // Mode none beyond loopback: refused by the configuration check.
    let out = tacker()
        .args(["config", "show"])
        .env("TACKER__SERVER__BIND", "0.0.0.0:9890")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("auth.mode \"none\""), "{err}");

    // Mode oauth2 with nothing to check tokens with.
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let status = env.command(&[]).args(["db", "migrate"]).status().unwrap();
    assert!(status.success());
    let mut server = Proc::spawn(
        env.command(&[
            ("TACKER__SERVER__BIND", format!("127.0.0.1:{}", free_port())),
            ("TACKER__AUTH__MODE", "oauth2".into()),
        ])
        .arg("server"),
        &env.log_path("server"),
    );
    assert_ne!(server.wait(Duration::from_secs(30)), Some(0));
    assert!(
        server.log_text().contains("auth.signing_key_file"),
        "{}",
        server.log_text()
    );
}

/// A CA, and (certificate, key) PEMs it signs for `names` (server) or a client.
fn pki() -> (String, (String, String), (String, String)) {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, "ops CA");
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = CertifiedIssuer::self_signed(p, KeyPair::generate().unwrap()).unwrap();
    let issue = |names: Vec<String>, eku: ExtendedKeyUsagePurpose| {
        let mut p = CertificateParams::new(names).unwrap();
        p.extended_key_usages = vec![eku];
        let key = KeyPair::generate().unwrap();
        let cert = p.signed_by(&key, &ca).unwrap();
        (cert.pem(), key.serialize_pem())
    };
    (
        ca.pem(),
        issue(
            vec!["127.0.0.1".into()],
            ExtendedKeyUsagePurpose::ServerAuth,
        ),
        issue(vec![], ExtendedKeyUsagePurpose::ClientAuth),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tackerctl_speaks_https_with_a_private_ca_and_mutual_tls() {
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let (ca, server, client) = pki();
    let d = env.dir.path();
    let write = |name: &str, text: &str| {
        std::fs::write(d.join(name), text).unwrap();
        d.join(name).to_str().unwrap().to_owned()
    };
    let (ca_file, cert_file, key_file) = (
        write("ca.pem", &ca),
        write("server.pem", &server.0),
        write("server.key", &server.1),
    );
    let (client_cert, client_key) = (
        write("client.pem", &client.0),
        write("client.key", &client.1),
    );
    let config = d.join("tacker.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\ntls_cert = \"{cert_file}\"\ntls_key = \"{key_file}\"\ntls_client_ca = \"{ca_file}\"\n\n\
             [auth]\nmode = \"oauth2\"\n\n[[auth.clients]]\nid = \"operator\"\nsecret_hash = \"{}\"\nroles = [\"member\"]\n",
            hash_secret(OPERATOR_SECRET)
        ),
    )
    .unwrap();
    let port = free_port();
    let url = format!("https://127.0.0.1:{port}");
    let _aio = Proc::spawn(
        env.command(&[("TACKER__SERVER__BIND", format!("127.0.0.1:{port}"))])
            .arg("--config")
            .arg(&config)
            .arg("all-in-one"),
        &env.log_path("aio"),
    );
    let http = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca.as_bytes()).unwrap()])
        .build()
        .unwrap();
    wait_status(
        &http,
        &format!("{url}/readyz"),
        200,
        Duration::from_secs(30),
    )
    .await;

    let creds = [
        "--client-id",
        "operator",
        "--client-secret",
        OPERATOR_SECRET,
    ];
    // Without the CA the server's certificate is not trusted: unreachable (3).
    let mut args = creds.to_vec();
    args.extend(["package", "list"]);
    let (code, err) = tackerctl_bin(&url, &args);
    assert_eq!(code, 3, "{err}");
    // With it, and with a client certificate (the token is then bound to it).
    let mut args = vec!["--cacert", ca_file.as_str()];
    args.extend(creds);
    args.extend(["package", "create"]);
    let (code, err) = tackerctl_bin(&url, &args);
    assert_eq!(code, 0, "{err}");
    let mut args = vec![
        "--cacert",
        ca_file.as_str(),
        "--cert",
        client_cert.as_str(),
        "--key",
        client_key.as_str(),
    ];
    args.extend(creds);
    args.extend(["package", "list"]);
    let (code, err) = tackerctl_bin(&url, &args);
    assert_eq!(code, 0, "{err}");
}

/// `tacker all-in-one` of `env` in mode `oauth2`, taking the tokens of `idp`.
pub async fn all_in_one_with_idp(
    env: &ClusterEnv,
    idp: &tacker_testkit::oidc::Oidc,
) -> (Proc, String) {
    all_in_one(
        env,
        &format!(
            "[auth]\nmode = \"oauth2\"\njwks_url = \"{}\"\nissuer = \"{}\"\n\
             audience = \"tacker\"\nroles_claim = \"roles\"\n",
            idp.jwks_url(),
            idp.issuer
        ),
        &[],
    )
    .await
}

/// A token `idp` issues to its client `id` (secret `<id>-secret`), a JWT.
pub async fn idp_token(idp: &tacker_testkit::oidc::Oidc, id: &str) -> String {
    idp_token_for(idp, id, "https://tacker.test").await
}

/// An external authorization server (oidc-provider from npm) issues the tokens: tackerctl
/// fetches them by client credentials from its token endpoint, the openstack CLI sends
/// one as X-Auth-Token, the server checks them against its JWKS, issuer and audience.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_in_one_accepts_the_tokens_of_an_external_oidc_provider() {
    let idp = tacker_testkit::oidc::Oidc::start();
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let (_aio, url) = all_in_one_with_idp(&env, &idp).await;
    let http = reqwest::Client::new();
    let client = |id: &'static str| {
        let secret = format!("{id}-secret");
        ["--client-id", id, "--client-secret"]
            .into_iter()
            .map(str::to_owned)
            .chain([secret, "--token-url".into(), idp.token_url()])
            .collect::<Vec<String>>()
    };
    let run = |id: &'static str, args: &[&str]| {
        let mut all = client(id);
        all.extend(args.iter().map(|a| (*a).to_owned()));
        all
    };

    // tackerctl: a member creates, a reader lists but may not create.
    let args = run("e2e-member", &["package", "create", "-o", "json"]);
    let (code, out) = ctl(&url, &args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{out}");
    let id = serde_json::from_str::<Value>(&out).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let args = run("e2e-reader", &["package", "list"]);
    let (code, out) = ctl(&url, &args.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&id), "{out}");
    let args = run("e2e-reader", &["package", "create"]);
    let (code, out) = tackerctl_bin(&url, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1);
    assert!(out.contains("403") && out.contains("member role"), "{out}");
    // The provider refuses a wrong secret; tackerctl says so.
    let (code, out) = tackerctl_bin(
        &url,
        &[
            "--client-id",
            "e2e-member",
            "--client-secret",
            "wrong",
            "--token-url",
            &idp.token_url(),
            "package",
            "list",
        ],
    );
    assert_eq!(code, 1);
    assert!(out.contains("refused the client credentials"), "{out}");

    // The openstack CLI with the provider's token.
    let t = idp_token(&idp, "e2e-member").await;
    let (ok, out, err) = openstack(&url, &t, &["vnf", "package", "list", "-f", "json"]);
    assert!(ok, "{err}");
    assert!(out.contains(&id), "{out}");
    // The same token altered in its signature is refused.
    let mut forged = t.clone();
    let last = forged.pop().unwrap();
    forged.push(if last == 'A' { 'B' } else { 'A' });
    let packages = format!("{url}/vnfpkgm/v1/vnf_packages");
    let r = http
        .get(&packages)
        .bearer_auth(&forged)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.headers().contains_key("www-authenticate"));
    let r = http.get(&packages).bearer_auth(&t).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

/// A token `idp` issues to its client `id` (secret `<id>-secret`) for `resource` (a
/// JWT for `https://tacker.test`, an opaque token for `https://opaque.tacker.test`).
async fn idp_token_for(idp: &tacker_testkit::oidc::Oidc, id: &str, resource: &str) -> String {
    let r = reqwest::Client::new()
        .post(idp.token_url())
        .basic_auth(id, Some(format!("{id}-secret")))
        .form(&[("grant_type", "client_credentials"), ("resource", resource)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Opaque tokens of an external OAuth 2.0 server (oidc-provider), checked by RFC 7662
/// introspection beside its JWTs: roles from the answer, a token unknown or revoked (once
/// the cache time passed) refused, the server gone answered 503 and never let through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_in_one_takes_opaque_tokens_by_introspection() {
    let idp = tacker_testkit::oidc::Oidc::start();
    let env = ClusterEnv::new(
        "sqlite://./tacker.db",
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let (_aio, url) = all_in_one(
        &env,
        &format!(
            "[auth]\nmode = \"oauth2\"\njwks_url = \"{}\"\nissuer = \"{}\"\n\
             audience = \"tacker\"\nroles_claim = \"roles\"\nintrospection_url = \"{}\"\n\
             introspection_client_id = \"tacker\"\nintrospection_client_secret = \"tacker-secret\"\n\
             introspection_cache = \"1s\"\n",
            idp.jwks_url(),
            idp.issuer,
            idp.introspection_url(),
        ),
        &[],
    )
    .await;
    let http = reqwest::Client::new();
    let packages = format!("{url}/vnfpkgm/v1/vnf_packages");
    const OPAQUE: &str = "https://opaque.tacker.test";
    let member = idp_token_for(&idp, "e2e-member", OPAQUE).await;
    let reader = idp_token_for(&idp, "e2e-reader", OPAQUE).await;
    assert_eq!(member.split('.').count(), 1, "an opaque token: {member}");

    // The member creates, the reader lists but may not create.
    let r = http
        .post(&packages)
        .bearer_auth(&member)
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (ok, out, err) = openstack(&url, &reader, &["vnf", "package", "list", "-f", "json"]);
    assert!(
        ok,
        "{err}\n{}",
        std::fs::read_to_string(env.log_path("aio")).unwrap_or_default()
    );
    assert!(out.contains(&id), "{out}");
    let r = http
        .post(&packages)
        .bearer_auth(&reader)
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // A token the server never issued: 401.
    let r = http
        .get(&packages)
        .bearer_auth("not-a-token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // Its JWTs still work beside.
    let jwt = idp_token(&idp, "e2e-member").await;
    let r = http.get(&packages).bearer_auth(&jwt).send().await.unwrap();
    assert_eq!(r.status(), 200);

    // Revoked at the server: refused once the cache time has passed.
    let r = http
        .post(format!("{}/token/revocation", idp.issuer))
        .basic_auth("e2e-member", Some("e2e-member-secret"))
        .form(&[("token", member.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let r = http
        .get(&packages)
        .bearer_auth(&member)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);

    // The server gone: 503 with Retry-After for an opaque token, never let through.
    drop(idp);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let r = http
        .get(&packages)
        .bearer_auth(&reader)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    assert!(r.headers().contains_key("retry-after"));
}
