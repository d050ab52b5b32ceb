//! HTTPS on the API port with client certificates: tokens the built-in endpoint issues
//! over mutual TLS are bound to the client's certificate (RFC 8705) and refused with any
//! other; certificates from another CA do not get through the handshake.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};
use tacker_server::auth::{
    Auth, BuiltinClient, Claims, Issuer, Mode, Role, SigningKey, Verifier, hash_secret,
};
use tacker_testkit::TestDb;

use crate::support::{Options, TestApp};

struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Self {
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.distinguished_name.push(DnType::CommonName, name);
        p.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        Self {
            issuer: CertifiedIssuer::self_signed(p, KeyPair::generate().unwrap()).unwrap(),
        }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// (certificate PEM, key PEM) for `names`, for a server or a client.
    fn issue(&self, cn: &str, names: &[&str], client: bool) -> (String, String) {
        let mut p = CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap();
        p.distinguished_name.push(DnType::CommonName, cn);
        p.extended_key_usages = vec![if client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        let key = KeyPair::generate().unwrap();
        let cert = p.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

fn client(ca: &Ca, identity: Option<&(String, String)>) -> reqwest::Client {
    let mut b = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(ca.pem().as_bytes()).unwrap()]);
    if let Some((cert, key)) = identity {
        b = b.identity(reqwest::Identity::from_pem(format!("{cert}{key}").as_bytes()).unwrap());
    }
    b.build().unwrap()
}

const SECRET: &str = "mtls-client-secret-0123";

#[tokio::test]
async fn tokens_issued_over_mutual_tls_work_only_with_their_certificate() {
    let ca = Ca::new("test CA");
    let (server_cert, server_key) = ca.issue("tacker", &["127.0.0.1", "localhost"], false);
    let tls =
        tacker_server::tls::server_config(&server_cert, &server_key, Some(&ca.pem())).unwrap();
    let key = SigningKey::from_pem(&SigningKey::generate_pem().unwrap()).unwrap();
    let claims = Claims {
        issuer: "tacker".into(),
        audience: "tacker".into(),
        roles: "roles".into(),
        tenant: "tenant".into(),
    };
    let hash = hash_secret(SECRET).unwrap();
    let clients: Arc<HashMap<String, BuiltinClient>> = Arc::new(
        [(
            "robot".to_owned(),
            BuiltinClient {
                secret_hash: hash.clone(),
                role: Some(Role::Reader),
                tenant: None,
                attributes: Vec::new(),
            },
        )]
        .into(),
    );
    let verifier = Verifier::new(
        claims,
        vec![(key.kid().to_owned(), key.decoding())],
        None,
        clients.clone(),
    )
    .unwrap();
    let auth = Auth {
        mode: Mode::OAuth2(Box::new(verifier)),
        issuer: Some(Issuer {
            key: key.clone(),
            clients,
            lifetime: std::time::Duration::from_secs(600),
            issuer: "tacker".into(),
            audience: "tacker".into(),
            decoy_hash: hash,
            limits: crate::support::token_limits(),
        }),
        public_metrics: false,
    };
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            auth: Some(Arc::new(auth)),
            tls: Some(tls),
            ..Options::default()
        },
    )
    .await;
    assert!(app.base.starts_with("https://"));
    let (a, b) = (
        ca.issue("robot-a", &[], true),
        ca.issue("robot-b", &[], true),
    );
    let (with_a, with_b, without) = (
        client(&ca, Some(&a)),
        client(&ca, Some(&b)),
        client(&ca, None),
    );

    // Issued over mutual TLS with certificate A: bound to it.
    let r = with_a
        .post(app.url("/oauth2/token"))
        .basic_auth("robot", Some(SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let token = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let payload = token.split('.').nth(1).unwrap();
    let claims: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap();
    let der = rustls::pki_types::CertificateDer::from_pem_slice(a.0.as_bytes()).unwrap();
    assert_eq!(
        claims["cnf"]["x5t#S256"],
        json!(tacker_server::tls::thumbprint(&der))
    );
    let packages = app.url("/vnfpkgm/v1/vnf_packages");
    let status = |c: &reqwest::Client| {
        let (c, url, t) = (c.clone(), packages.clone(), token.clone());
        async move { c.get(url).bearer_auth(t).send().await.unwrap().status() }
    };
    assert_eq!(status(&with_a).await, 200);
    // The same token with another certificate, or none: 401.
    assert_eq!(status(&with_b).await, 401);
    assert_eq!(status(&without).await, 401);
    let r = with_b
        .get(&packages)
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("bound to a client certificate")
    );

    // Client certificates are optional: an unbound token works without one.
    let r = without
        .post(app.url("/oauth2/token"))
        .basic_auth("robot", Some(SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    let unbound = r.json::<Value>().await.unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = without
        .get(&packages)
        .bearer_auth(&unbound)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    // A certificate of another CA fails the handshake; plain http gets no answer.
    let other = Ca::new("other CA");
    let foreign = client(&ca, Some(&other.issue("intruder", &[], true)));
    assert!(foreign.get(&packages).send().await.is_err());
    let plain = packages.replacen("https://", "http://", 1);
    assert!(
        reqwest::Client::new()
            .get(&plain)
            .send()
            .await
            .is_err_and(|e| !e.is_status())
    );
}
