//! A self-signed CA and a server certificate for 127.0.0.1/localhost.

use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

/// Generated TLS material.
#[derive(Debug)]
pub struct Tls {
    /// The CA certificate clients trust (PEM).
    pub ca_pem: String,
    /// The server configuration.
    pub config: Arc<rustls::ServerConfig>,
}

/// Certificate generation or setup failure.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// rcgen failed.
    #[error("generating certificates: {0}")]
    Gen(#[from] rcgen::Error),
    /// rustls refused them.
    #[error("TLS setup: {0}")]
    Rustls(#[from] rustls::Error),
}

/// A CA and a server certificate for `names` (host names or IP addresses).
pub fn generate(names: &[String]) -> Result<Tls, TlsError> {
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "kube-sim CA");
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate()?)?;
    let mut server = CertificateParams::new(names.to_vec())?;
    server
        .distinguished_name
        .push(DnType::CommonName, "kube-apiserver");
    let key = KeyPair::generate()?;
    let cert = server.signed_by(&key, &ca)?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone(), ca.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )?;
    Ok(Tls {
        ca_pem: ca.pem(),
        config: Arc::new(config),
    })
}
