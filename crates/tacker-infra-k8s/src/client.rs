//! A Kubernetes client from a `vimConnectionInfo` entry: `interfaceInfo.endpoint`,
//! optional `interfaceInfo.ssl_ca_cert` (PEM, verified when given), and
//! `accessInfo.bearer_token` or `username`/`password`. No kubeconfig file.

use kube::config::AuthInfo;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use secrecy::SecretString;
use tacker_domain::lcm::driver::{Auth, VimConnection};

use crate::error::{Error, Result};
use crate::guard::GuardedResolver;
use crate::settings::K8sSettings;

/// The client configuration for `vim`.
pub fn config(vim: &VimConnection, s: &K8sSettings) -> Result<kube::Config> {
    let endpoint = vim.interface(&["endpoint"]).ok_or_else(|| {
        Error::Vim(format!(
            "vimConnectionInfo.{}.interfaceInfo.endpoint is required",
            vim.id
        ))
    })?;
    let uri: http::Uri = endpoint
        .parse()
        .map_err(|e| Error::Vim(format!("invalid endpoint {endpoint:?}: {e}")))?;
    if !matches!(uri.scheme_str(), Some("https" | "http")) {
        return Err(Error::Vim(format!(
            "endpoint {endpoint:?} must be an http(s) URL"
        )));
    }
    // Credentials in clear only over loopback, unless the operator says otherwise.
    let loopback = uri.host().is_some_and(|h| {
        h.eq_ignore_ascii_case("localhost")
            || h.trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    });
    if uri.scheme_str() == Some("http") && !loopback && !s.allow_http {
        return Err(Error::Vim(format!(
            "endpoint {endpoint:?} is plain http: its credentials would cross the network in \
             clear; use https (kubernetes.allow_http = true permits http)"
        )));
    }
    let mut cfg = kube::Config::new(uri);
    cfg.default_namespace = "default".into();
    cfg.connect_timeout = Some(s.request_timeout);
    cfg.read_timeout = Some(s.request_timeout);
    cfg.write_timeout = Some(s.request_timeout);
    cfg.reset_reader_on_write = true;
    if let Some(pem) = vim.interface(&["ssl_ca_cert"]) {
        let certs: Vec<Vec<u8>> = CertificateDer::pem_slice_iter(pem.as_bytes())
            .map(|c| c.map(|c| c.to_vec()))
            .collect::<Result<_, _>>()
            .map_err(|e| {
                Error::Vim(format!(
                    "interfaceInfo.ssl_ca_cert is not a PEM certificate: {e}"
                ))
            })?;
        if certs.is_empty() {
            return Err(Error::Vim(
                "interfaceInfo.ssl_ca_cert holds no certificate".into(),
            ));
        }
        cfg.root_cert = Some(certs);
    }
    let mut auth = AuthInfo::default();
    match vim.auth() {
        Auth::Token(t) => {
            auth.token = t.expose_str().map(|t| SecretString::from(t.to_owned()));
        }
        Auth::Password { user, password } => {
            auth.username = Some(user.to_owned());
            auth.password = password
                .and_then(|p| p.expose_str())
                .filter(|p| !p.is_empty())
                .map(|p| SecretString::from(p.to_owned()));
        }
        Auth::None => {}
    }
    cfg.auth_info = auth;
    Ok(cfg)
}

/// Checks that the API server of `vim` takes its credentials, as an operation would
/// use them: API discovery (`GET /api`), which Kubernetes serves to authenticated
/// callers only. A refusal or no answer is [`Error::Vim`] saying which.
pub async fn verify(vim: &VimConnection, s: &K8sSettings) -> Result<()> {
    let client = connect(vim, s)?;
    let endpoint = vim.info.endpoint().unwrap_or_default().to_owned();
    match tokio::time::timeout(s.request_timeout, client.list_core_api_versions()).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(kube::Error::Api(st))) => Err(Error::Vim(format!(
            "the API server at {endpoint} refused the credentials: HTTP {} {}",
            st.code, st.reason
        ))),
        Ok(Err(e)) => Err(Error::Vim(format!(
            "the API server at {endpoint} could not be used: {}",
            Error::from(e)
        ))),
        Err(_) => Err(Error::Vim(format!(
            "the API server at {endpoint} did not answer within {:?}",
            s.request_timeout
        ))),
    }
}

/// A client for `vim`: kube's own stack (TLS, timeouts, base URI, authorization) over a
/// connector whose resolver checks every address of the API server's name against
/// `allowed_networks`; an IP literal is checked here.
pub fn connect(vim: &VimConnection, s: &K8sSettings) -> Result<kube::Client> {
    use kube::client::ConfigExt;
    let cfg = config(vim, s)?;
    let endpoint = cfg.cluster_url.to_string();
    tacker_domain::uri_guard::check_vim_url(&endpoint, &s.allowed_networks)
        .map_err(|why| Error::Vim(format!("endpoint {endpoint} refused: {why}")))?;
    let built = |e: kube::Error| Error::Vim(format!("cannot build a client: {e}"));
    let mut http = hyper_util::client::legacy::connect::HttpConnector::new_with_resolver(
        GuardedResolver::new(s.allowed_networks.clone()),
    );
    http.enforce_http(false);
    let https = cfg
        .rustls_https_connector_with_connector(http)
        .map_err(built)?;
    let mut timed = hyper_timeout::TimeoutConnector::new(https);
    timed.set_connect_timeout(cfg.connect_timeout);
    timed.set_read_timeout(cfg.read_timeout);
    timed.set_write_timeout(cfg.write_timeout);
    timed.set_reset_reader_on_write(cfg.reset_reader_on_write);
    let client =
        hyper_util::client::legacy::Builder::new(hyper_util::rt::TokioExecutor::new()).build(timed);
    // kube's authorization layer works with boxed errors.
    let client = tower::ServiceExt::map_err(client, |e| {
        Box::new(e) as Box<dyn std::error::Error + Send + Sync>
    });
    let service = tower::ServiceBuilder::new()
        .layer(cfg.base_uri_layer())
        .option_layer(cfg.auth_layer().map_err(built)?)
        .service(client);
    Ok(kube::Client::new(service, cfg.default_namespace))
}
