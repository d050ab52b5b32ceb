//! HTTPS on the API port (`server.tls_cert`, `server.tls_key`), optionally asking clients
//! for certificates signed by `server.tls_client_ca` (mutual TLS). A verified client
//! certificate's SHA-256 thumbprint is kept with the connection: the built-in token
//! endpoint binds the tokens it issues over it to it, and a bound token (`cnf.x5t#S256`,
//! RFC 8705) is accepted only over a connection presenting the same certificate.

use std::any::Any;
use std::sync::Arc;

use actix_web::dev::Extensions;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use sha2::Digest;

use crate::auth::AuthError;

/// The verified client certificate of a connection, as its `x5t#S256` thumbprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCert(pub String);

/// The `x5t#S256` of a DER certificate.
pub fn thumbprint(der: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(der))
}

fn certs(pem: &str, what: &str) -> Result<Vec<CertificateDer<'static>>, AuthError> {
    let certs = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| AuthError::Key(format!("{what}: not PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(AuthError::Key(format!("{what}: no certificate")));
    }
    Ok(certs)
}

/// The TLS configuration from PEM texts: the server's chain and key, and the CA client
/// certificates are verified against (client certificates are then optional: bearer
/// tokens still authenticate callers without one).
pub fn server_config(
    cert_pem: &str,
    key_pem: &str,
    client_ca_pem: Option<&str>,
) -> Result<Arc<rustls::ServerConfig>, AuthError> {
    let chain = certs(cert_pem, "server.tls_cert")?;
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
        .map_err(|e| AuthError::Key(format!("server.tls_key: not a PEM private key: {e}")))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| AuthError::Key(format!("TLS: {e}")))?;
    let builder = match client_ca_pem {
        None => builder.with_no_client_auth(),
        Some(pem) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in certs(pem, "server.tls_client_ca")? {
                roots
                    .add(c)
                    .map_err(|e| AuthError::Key(format!("server.tls_client_ca: {e}")))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .allow_unauthenticated()
                .build()
                .map_err(|e| AuthError::Key(format!("server.tls_client_ca: {e}")))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(chain, key)
        .map_err(|e| AuthError::Key(format!("server.tls_cert/tls_key: {e}")))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Keeps the verified client certificate of a TLS connection in its extensions.
pub fn on_connect(conn: &dyn Any, ext: &mut Extensions) {
    type Tls = actix_tls::accept::rustls_0_23::TlsStream<actix_web::rt::net::TcpStream>;
    if let Some(tls) = conn.downcast_ref::<Tls>()
        && let Some(first) = tls.get_ref().1.peer_certificates().and_then(|c| c.first())
    {
        ext.insert(ClientCert(thumbprint(first)));
    }
}
