#![doc = include_str!("../README.md")]

mod duration;
mod error;
mod redact;
mod reference;
mod values;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use error::{Error, Result};
pub use ipnet::IpNet;
pub use values::{Entry, HttpUrl};

/// The configuration reference in Markdown (every key, default, variable, meaning).
pub fn reference() -> String {
    reference::markdown(DEFAULTS_TOML)
}

/// The embedded defaults file, documenting every key.
pub const DEFAULTS_TOML: &str = include_str!("../defaults.toml");

/// The system-wide configuration file, read when present.
pub const SYSTEM_FILE: &str = "/etc/tacker/tacker.toml";

/// The whole configuration (its `Debug` is the redacted TOML: no password or key).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// REST API server.
    pub server: ServerConfig,
    /// Database.
    pub database: DatabaseConfig,
    /// Message bus.
    pub bus: BusConfig,
    /// Package storage.
    pub storage: StorageConfig,
    /// Onboarding.
    pub onboarding: OnboardingConfig,
    /// Lifecycle management.
    pub lcm: LcmConfig,
    /// Fault management and the closed loop (alerts, auto-heal).
    pub fm: FmConfig,
    /// Performance management (PM jobs, thresholds, their Prometheus rules).
    pub pm: PmConfig,
    /// The Kubernetes infra driver.
    pub kubernetes: KubernetesConfig,
    /// The Helm infra driver.
    pub helm: HelmConfig,
    /// The OpenStack infra driver.
    pub openstack: OpenStackConfig,
    /// Management drivers (`Vnflcm` hooks).
    pub mgmt: MgmtConfig,
    /// SSH from management drivers to VNF VMs.
    pub ssh: SshConfig,
    /// Conductor.
    pub conductor: ConductorConfig,
    /// `tacker all-in-one`.
    pub all_in_one: AllInOneConfig,
    /// Secrets at rest.
    pub secrets: SecretsConfig,
    /// Authentication of API clients.
    pub auth: AuthConfig,
    /// Where outbound requests may go.
    pub outbound: OutboundConfig,
    /// Logging.
    pub log: LogConfig,
}

/// `[secrets]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretsConfig {
    /// Sealing keys `<id>:<base64 of 32 bytes>`; the first seals, all open.
    pub keys: Vec<String>,
    /// A file with more keys, one per line.
    pub key_file: String,
    /// Store secrets in plaintext when no key is configured (not for production).
    pub allow_plaintext: bool,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_redacted_toml() {
            Ok(t) => f.write_str(&t),
            Err(_) => f.write_str("Config { .. }"),
        }
    }
}

/// `[outbound]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutboundConfig {
    /// Internal networks outbound requests may reach.
    #[serde(with = "values::networks")]
    pub allowed_networks: Vec<IpNet>,
}

/// `auth.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthMode {
    /// Anyone who reaches the port is an administrator (loopback only).
    None,
    /// A JWT on every call (and opaque tokens through `auth.introspection_url`).
    Oauth2,
    /// A Keystone token (`X-Auth-Token`) on every call; the built-in endpoint's JWTs too.
    Keystone,
}

/// `bus.queue_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueType {
    /// Replicated over the cluster's nodes (RabbitMQ quorum queues).
    Quorum,
    /// On one node (a single broker without quorum queues).
    Classic,
}

/// `log.format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// `server.duplicate_subscriptions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DuplicateSubscriptions {
    /// 303 See Other with the existing subscription.
    SeeOther,
    /// Another subscription.
    Create,
}

/// `kubernetes.cluster_scoped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClusterScoped {
    /// CNFs may create cluster-scoped objects.
    Allow,
    /// They may not.
    Deny,
}

/// `[auth]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Who may call the API.
    pub mode: AuthMode,
    /// Let mode `none` listen beyond loopback.
    pub allow_insecure_none: bool,
    /// An external authorization server's JWKS (`None`: the built-in endpoint's key only).
    #[serde(with = "values::optional")]
    pub jwks_url: Option<HttpUrl>,
    /// The `iss` of every token.
    pub issuer: String,
    /// The `aud` of every token.
    pub audience: String,
    /// The claim (dotted path) holding the roles.
    pub roles_claim: String,
    /// The claim (dotted path) holding the tenant.
    pub tenant_claim: String,
    /// Serve `/metrics` without a token.
    pub public_metrics: bool,
    /// The built-in token endpoint's Ed25519 key (PKCS#8 PEM).
    pub signing_key_file: String,
    /// Lifetime of the built-in endpoint's tokens.
    #[serde(with = "duration")]
    pub token_lifetime: Duration,
    /// Client secrets the built-in endpoint checks at once.
    pub token_concurrency: usize,
    /// Token requests per second per address and per client id (0: unlimited).
    pub token_rate_limit: u32,
    /// Token requests at once above `token_rate_limit`.
    pub token_rate_burst: u32,
    /// Clients of the built-in endpoint.
    pub clients: Vec<AuthClient>,
    /// Keystone's `/v3` URL (mode `keystone`).
    #[serde(with = "values::optional")]
    pub keystone_url: Option<HttpUrl>,
    /// The service user that validates callers' tokens.
    pub keystone_username: String,
    /// Its password.
    pub keystone_password: String,
    /// The project its token is scoped to.
    pub keystone_project: String,
    /// The service user's domain (name).
    pub keystone_user_domain: String,
    /// The service project's domain (name).
    pub keystone_project_domain: String,
    /// How long a Keystone answer about a token is kept (never beyond the token's expiry).
    #[serde(with = "duration")]
    pub keystone_cache: Duration,
    /// An RFC 7662 introspection endpoint for opaque tokens (mode `oauth2`).
    #[serde(with = "values::optional")]
    pub introspection_url: Option<HttpUrl>,
    /// The client id Tacker authenticates to it with (HTTP Basic).
    pub introspection_client_id: String,
    /// Its secret.
    pub introspection_client_secret: String,
    /// How long an introspection answer is kept (never beyond the token's `exp`).
    #[serde(with = "duration")]
    pub introspection_cache: Duration,
}

/// The prefixes of the roles that confine a caller (Tacker's enhanced policy): to a tenant,
/// to the packages of a provider, to the VIMs of an area.
pub const ATTRIBUTE_ROLES: [&str; 3] = ["TENANT_", "VENDOR_", "AREA_"];

/// One `[[auth.clients]]` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthClient {
    /// The client id.
    pub id: String,
    /// Argon2id PHC string of the client secret.
    pub secret_hash: String,
    /// Roles the client may be granted.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The client's tenant (empty: none).
    #[serde(default)]
    pub tenant: String,
}

/// `[server]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Listen address.
    #[serde(with = "values::text")]
    pub bind: SocketAddr,
    /// Base URL for links; `None` derives it from the request.
    #[serde(with = "values::optional")]
    pub public_url: Option<HttpUrl>,
    /// Server certificate chain (PEM file); empty: plain http.
    pub tls_cert: String,
    /// Server private key (PEM file).
    pub tls_key: String,
    /// CA of client certificates (PEM file); empty: no client certificates.
    pub tls_client_ca: String,
    /// Most comparisons of a list filter.
    pub max_filter_terms: usize,
    /// Uploads streamed at once.
    pub max_concurrent_uploads: usize,
    /// How long an upload over `max_concurrent_uploads` waits for a place before 503.
    #[serde(with = "duration")]
    pub upload_slot_wait: Duration,
    /// Upload silence before 408.
    #[serde(with = "duration")]
    pub body_idle_timeout: Duration,
    /// Time to send a request head.
    #[serde(with = "duration")]
    pub client_request_timeout: Duration,
    /// Idle keep-alive time.
    #[serde(with = "duration")]
    pub keep_alive: Duration,
    /// Requests per second per caller (0: unlimited).
    pub rate_limit: u32,
    /// Burst above `rate_limit`.
    pub rate_burst: u32,
    /// VNF instances per tenant (0: unlimited).
    pub max_instances_per_tenant: u64,
    /// LCM subscriptions per tenant (0: unlimited).
    pub max_subscriptions_per_tenant: u64,
    /// Items per page of list answers.
    pub page_size: usize,
    /// Largest JSON request body in bytes.
    pub max_json_body: usize,
    /// What a duplicate subscription gets.
    pub duplicate_subscriptions: DuplicateSubscriptions,
}

/// `[database]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `sqlite://<path>` or `postgres://...`.
    pub url: String,
    /// Pool size; 0 picks one from the cores (see [`DatabaseConfig::pool_size`]).
    pub pool_size: u32,
    /// Pool checkout timeout.
    #[serde(with = "duration")]
    pub connect_timeout: Duration,
}

impl DatabaseConfig {
    /// Connections per process: `pool_size`, or when it is 0 two per core this process
    /// may use (its cgroup's CPU quota counts), at least 4.
    pub fn pool_size(&self) -> u32 {
        if self.pool_size > 0 {
            return self.pool_size;
        }
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        u32::try_from(cores.saturating_mul(2))
            .unwrap_or(u32::MAX)
            .max(4)
    }
}

/// `[bus]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BusConfig {
    /// `memory://`, or `amqp://...` (several, comma-separated: the nodes of a cluster).
    pub url: String,
    /// The type of the durable queues.
    pub queue_type: QueueType,
    /// Exchange and queue name prefix.
    pub prefix: String,
    /// Unacknowledged messages per consumer.
    pub prefetch: u16,
    /// Publisher confirm timeout.
    #[serde(with = "duration")]
    pub publish_timeout: Duration,
    /// Upper bound of the reconnect backoff.
    #[serde(with = "duration")]
    pub reconnect_max_backoff: Duration,
}

/// `[storage]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    /// `file://<dir>` or `s3://bucket/prefix`.
    pub url: String,
    /// S3 endpoint (empty: AWS).
    pub s3_endpoint: String,
    /// S3 region.
    pub s3_region: String,
    /// S3 access key id.
    pub s3_access_key_id: String,
    /// S3 secret access key (redacted by `config show`).
    pub s3_secret_access_key: String,
    /// Allow plain-http S3 endpoints.
    pub s3_allow_http: bool,
}

/// `[onboarding]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnboardingConfig {
    /// Largest package in bytes.
    pub max_package_size: u64,
    /// Most bytes a package's files may expand to, together.
    pub max_expanded_size: u64,
    /// Largest expansion ratio of a whole package (beyond 64 MiB expanded).
    pub max_expansion_ratio: u64,
    /// Deadline for every conductor to cache a package.
    #[serde(with = "duration")]
    pub download_timeout: Duration,
    /// upload_from_uri connect timeout.
    #[serde(with = "duration")]
    pub uri_connect_timeout: Duration,
    /// upload_from_uri whole-transfer timeout.
    #[serde(with = "duration")]
    pub uri_timeout: Duration,
    /// Networks upload_from_uri may reach despite being internal.
    #[serde(with = "values::networks")]
    pub allowed_uri_networks: Vec<IpNet>,
    /// No-progress time after which an UPLOADING package fails.
    #[serde(with = "duration")]
    pub stall_timeout: Duration,
    /// Period of the lost-coordinator check.
    #[serde(with = "duration")]
    pub recovery_interval: Duration,
}

/// `[conductor]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConductorConfig {
    /// Stable id; empty means hostname + random suffix.
    pub id: String,
    /// CSAR cache directory; empty means `./data/cache/<id>`.
    pub cache_dir: String,
    /// Heartbeat period.
    #[serde(with = "duration")]
    pub heartbeat_interval: Duration,
    /// Heartbeat age after which a conductor is not live.
    #[serde(with = "duration")]
    pub dead_after: Duration,
    /// Health listener address.
    #[serde(with = "values::text")]
    pub health_bind: SocketAddr,
    /// Grace period for in-flight work on SIGTERM.
    #[serde(with = "duration")]
    pub shutdown_timeout: Duration,
}

/// `[lcm]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LcmConfig {
    /// External NFVO Grant API base; `None`: built-in.
    #[serde(with = "values::optional")]
    pub nfvo_grant_url: Option<HttpUrl>,
    /// NFVO user.
    pub nfvo_user: String,
    /// NFVO password (redacted by `config show`).
    pub nfvo_password: String,
    /// Longest a grant may take.
    #[serde(with = "duration")]
    pub grant_timeout: Duration,
    /// Default VIM (JSON of one vimConnectionInfo entry; redacted by `config show`).
    #[serde(with = "values::json")]
    pub default_vim: Option<tacker_domain::vim::VimConnectionInfo>,
    /// Offer the simulated VIM type.
    pub simulated_vim: bool,
    /// Outbound HTTP timeout.
    #[serde(with = "duration")]
    pub http_timeout: Duration,
    /// Longest wait between notification delivery attempts.
    #[serde(with = "duration")]
    pub notification_max_backoff: Duration,
    /// How long delivered notifications are kept (0: forever).
    #[serde(with = "duration")]
    pub notification_retention: Duration,
    /// How long ended operation occurrences are kept (zero: forever).
    #[serde(with = "duration")]
    pub op_retention: Duration,
    /// How long a notification may stay undelivered (zero: until delivered).
    #[serde(with = "duration")]
    pub notification_max_age: Duration,
    /// How often instantiated VNFs' stored VNFCs are reconciled with their VIM (0: never).
    #[serde(with = "duration")]
    pub sync_interval: Duration,
}

/// `[fm]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FmConfig {
    /// How long auto-heal alerts of one instance are gathered into one heal.
    #[serde(with = "duration")]
    pub auto_heal_window: Duration,
    /// How long auto-scale alerts of one instance and aspect are gathered into one step.
    #[serde(with = "duration")]
    pub auto_scale_window: Duration,
    /// Least time between the end of an automatic operation on an instance and the start
    /// of the next one.
    #[serde(with = "duration")]
    pub cooldown: Duration,
    /// How often conductors look for automatic work that is due.
    #[serde(with = "duration")]
    pub loop_interval: Duration,
    /// How long cleared alarms are kept (zero: forever).
    #[serde(with = "duration")]
    pub alarm_retention: Duration,
    /// Alerts one webhook call may carry.
    pub max_alerts_per_call: usize,
    /// Alertmanager, whose active alerts open alarms are reconciled with (`None`: none).
    #[serde(with = "values::optional")]
    pub alertmanager_url: Option<HttpUrl>,
    /// How often alarms are reconciled with Alertmanager.
    #[serde(with = "duration")]
    pub reconcile_interval: Duration,
}

/// `[pm]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmConfig {
    /// Where rule files are written (empty: none).
    pub rules_dir: String,
    /// Prometheus' reload endpoint, called after a rule file changed (`None`: none).
    #[serde(with = "values::optional")]
    pub prometheus_reload_url: Option<HttpUrl>,
    /// Deliver rules as PrometheusRule objects on the VNF's cluster.
    pub prometheus_rule: bool,
    /// Labels of those objects (`key=value`).
    pub prometheus_rule_labels: Vec<Entry>,
    /// Collection period of thresholds' rules.
    #[serde(with = "duration")]
    pub threshold_collection_period: Duration,
    /// Reporting period (PromQL window) of thresholds' rules.
    #[serde(with = "duration")]
    pub threshold_reporting_period: Duration,
    /// How long reports are kept (zero: forever).
    #[serde(with = "duration")]
    pub report_retention: Duration,
    /// PromQL templates by metric, over upstream Tacker's.
    pub promql: std::collections::BTreeMap<String, String>,
}

/// `[kubernetes]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubernetesConfig {
    /// Longest wait for resources to become ready.
    #[serde(with = "duration")]
    pub ready_timeout: Duration,
    /// Longest wait for resources to be deleted.
    #[serde(with = "duration")]
    pub delete_timeout: Duration,
    /// Longest pause between two polls of the cluster.
    #[serde(with = "duration")]
    pub poll_interval: Duration,
    /// Timeout of one Kubernetes API request.
    #[serde(with = "duration")]
    pub request_timeout: Duration,
    /// Credentials over plain http to non-loopback endpoints.
    pub allow_http: bool,
    /// Whether CNFs may have cluster-scoped objects.
    pub cluster_scoped: ClusterScoped,
    /// Namespaces refused to CNFs.
    pub denied_namespaces: Vec<String>,
}

/// `[helm]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HelmConfig {
    /// The helm v3 binary (empty: `helm` from `PATH`, optional).
    pub binary: String,
}

/// `[openstack]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenStackConfig {
    /// Timeout of one Keystone or Heat request.
    #[serde(with = "duration")]
    pub request_timeout: Duration,
    /// Longest a stack create, update or delete may take.
    #[serde(with = "duration")]
    pub stack_timeout: Duration,
    /// Longest pause between two polls of a stack.
    #[serde(with = "duration")]
    pub poll_interval: Duration,
}

/// `[mgmt]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MgmtConfig {
    /// Which management driver runs the hooks of an artifact (`"<artifact>=<driver>"`).
    pub drivers: tacker_domain::mgmt::Mapping,
    /// Longest one hook of a gRPC driver may take.
    #[serde(with = "duration")]
    pub plugin_timeout: Duration,
    /// CA file for `grpcs://` endpoints (empty: system roots).
    pub plugin_ca_file: String,
    /// `"<os-release ID>=<command>"` installing Docker.
    pub docker_install: Vec<Entry>,
    /// The registry's data directory on the private-registry VM.
    pub registry_data_dir: String,
}

/// `[ssh]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SshConfig {
    /// One connection attempt.
    #[serde(with = "duration")]
    pub connect_timeout: Duration,
    /// How long an unreachable VM is retried.
    #[serde(with = "duration")]
    pub boot_timeout: Duration,
    /// One remote command.
    #[serde(with = "duration")]
    pub command_timeout: Duration,
    /// Nodes configured at once.
    pub max_parallel: usize,
    /// Accept a changed host key of a VNFC that was not just created or healed.
    pub accept_changed_host_keys: bool,
}

/// `[all_in_one]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllInOneConfig {
    /// Conductors started in-process.
    pub conductors: usize,
}

/// `[log]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// Text or JSON lines.
    pub format: LogFormat,
    /// tracing filter directives.
    pub filter: String,
    /// Log each span as it closes, with the time it was busy and idle.
    pub span_timings: bool,
}

/// Where configuration comes from, in order; later layers win.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Optional files, read when they exist (the system file).
    pub optional_files: Vec<PathBuf>,
    /// Files that must exist (`--config`).
    pub files: Vec<PathBuf>,
    /// Environment variables (normally `std::env::vars()`); only `TACKER__*` are read.
    pub env: Vec<(String, String)>,
}

impl Sources {
    /// The standard layers: system file, `explicit` (from `--config`), process environment.
    pub fn standard(explicit: Option<&Path>) -> Self {
        Self {
            optional_files: vec![PathBuf::from(SYSTEM_FILE)],
            files: explicit.into_iter().map(Path::to_path_buf).collect(),
            env: std::env::vars().collect(),
        }
    }
}

impl Config {
    /// The embedded defaults alone (`defaults.toml`, the one place defaults live).
    pub fn defaults() -> Result<Self> {
        Self::load(&Sources::default())
    }

    /// The base URL links are written under: `server.public_url`, else
    /// `http://<server.bind>`.
    pub fn public_base_url(&self) -> String {
        match &self.server.public_url {
            Some(u) => u.base().to_owned(),
            None => {
                let scheme = if self.server.tls_cert.is_empty() {
                    "http"
                } else {
                    "https"
                };
                format!("{scheme}://{}", self.server.bind)
            }
        }
    }

    /// Reads every layer of `sources` over the embedded defaults, then validates.
    pub fn load(sources: &Sources) -> Result<Self> {
        use config::{Environment, File, FileFormat};
        let mut b =
            config::Config::builder().add_source(File::from_str(DEFAULTS_TOML, FileFormat::Toml));
        for f in &sources.optional_files {
            b = b.add_source(
                File::from(f.as_path())
                    .format(FileFormat::Toml)
                    .required(false),
            );
        }
        for f in &sources.files {
            if !f.exists() {
                return Err(Error::Load(format!(
                    "configuration file {} not found",
                    f.display()
                )));
            }
            b = b.add_source(
                File::from(f.as_path())
                    .format(FileFormat::Toml)
                    .required(true),
            );
        }
        let env: config::Map<String, String> = sources
            .env
            .iter()
            .filter(|(k, _)| k.starts_with("TACKER__"))
            .cloned()
            .collect();
        b = b.add_source(
            Environment::with_prefix("TACKER")
                .prefix_separator("__")
                .separator("__")
                .try_parsing(true)
                .list_separator(",")
                .with_list_parse_key("onboarding.allowed_uri_networks")
                .with_list_parse_key("outbound.allowed_networks")
                .with_list_parse_key("kubernetes.denied_namespaces")
                .with_list_parse_key("secrets.keys")
                .with_list_parse_key("mgmt.drivers")
                .with_list_parse_key("mgmt.docker_install")
                .with_list_parse_key("pm.prometheus_rule_labels")
                .source(Some(env)),
        );
        let cfg: Config = b
            .build()
            .and_then(config::Config::try_deserialize)
            .map_err(|e| Error::Load(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks what the types cannot: lower bounds, URL schemes of the stores, and rules
    /// between settings (addresses, URLs, networks and entries are refused as they are
    /// read).
    pub fn validate(&self) -> Result<()> {
        let mut problems = Vec::new();
        let mut check = |ok: bool, msg: String| {
            if !ok {
                problems.push(msg);
            }
        };
        let s = &self.server;
        check(
            s.page_size >= 1 && s.max_filter_terms >= 1 && s.max_concurrent_uploads >= 1,
            "server.page_size, max_filter_terms and max_concurrent_uploads must be at least 1"
                .into(),
        );
        check(
            s.rate_burst >= 1 && self.bus.prefetch >= 1 && self.all_in_one.conductors >= 1,
            "server.rate_burst, bus.prefetch and all_in_one.conductors must be at least 1".into(),
        );
        check(
            s.tls_cert.is_empty() == s.tls_key.is_empty()
                && (s.tls_client_ca.is_empty() || !s.tls_cert.is_empty()),
            "server.tls_cert and server.tls_key go together, and tls_client_ca needs them".into(),
        );
        check(
            !s.body_idle_timeout.is_zero() && !s.client_request_timeout.is_zero(),
            "server.body_idle_timeout and client_request_timeout must be positive".into(),
        );
        self.validate_stores(&mut check);
        check(
            !self.conductor.heartbeat_interval.is_zero()
                && self.conductor.dead_after > self.conductor.heartbeat_interval * 2,
            "conductor.dead_after must exceed twice conductor.heartbeat_interval (above 0s)".into(),
        );
        check(
            self.conductor
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
            format!(
                "conductor.id {:?} may hold only [A-Za-z0-9._-]",
                self.conductor.id
            ),
        );
        check(
            self.pm.threshold_collection_period.as_secs() >= 1
                && self.pm.threshold_reporting_period >= self.pm.threshold_collection_period,
            "pm.threshold_collection_period must be at least 1s and threshold_reporting_period at least that".into(),
        );
        check(
            !self.fm.loop_interval.is_zero() && self.fm.max_alerts_per_call >= 1,
            "fm.loop_interval must be above 0s and fm.max_alerts_per_call at least 1".into(),
        );
        check(
            self.fm.alertmanager_url.is_none() || !self.fm.reconcile_interval.is_zero(),
            "fm.alertmanager_url needs fm.reconcile_interval above 0s".into(),
        );
        check(
            self.lcm
                .default_vim
                .as_ref()
                .is_none_or(|v| v.vim_type.as_deref().is_some_and(|t| !t.is_empty())),
            "lcm.default_vim must be a JSON object with a vimType".into(),
        );
        check(
            self.onboarding.max_package_size > 0 && self.ssh.max_parallel >= 1,
            "onboarding.max_package_size and ssh.max_parallel must be positive".into(),
        );
        self.validate_auth(&mut check);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Invalid(problems))
        }
    }

    /// The database, bus and storage URLs name kinds of store we have.
    fn validate_stores(&self, check: &mut impl FnMut(bool, String)) {
        let db = &self.database.url;
        check(
            db.starts_with("sqlite://") && db.len() > "sqlite://".len()
                || db.starts_with("postgres://")
                || db.starts_with("postgresql://"),
            "database.url must be sqlite://<path> or postgres://...".into(),
        );
        let bus = &self.bus.url;
        check(
            bus == "memory://"
                || bus.split(',').all(|u| {
                    let u = u.trim();
                    (u.starts_with("amqp://") || u.starts_with("amqps://"))
                        && url::Url::parse(u).is_ok()
                }),
            "bus.url must be memory:// or amqp://user:password@host:port/vhost (several \
             separated by commas)"
                .into(),
        );
        check(
            !self.bus.prefix.is_empty()
                && self
                    .bus
                    .prefix
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
            format!(
                "bus.prefix {:?} must be non-empty [A-Za-z0-9._-]",
                self.bus.prefix
            ),
        );
        let st = &self.storage.url;
        check(
            st.starts_with("file://") && st.len() > "file://".len()
                || st.starts_with("s3://") && st.len() > "s3://".len(),
            "storage.url must be file://<dir> or s3://<bucket>/<prefix>".into(),
        );
    }

    fn validate_auth(&self, check: &mut impl FnMut(bool, String)) {
        let a = &self.auth;
        check(
            a.mode != AuthMode::None
                || self.server.bind.ip().is_loopback()
                || a.allow_insecure_none,
            format!(
                "auth.mode \"none\" makes anyone who reaches server.bind {} an administrator: \
                 bind a loopback address, set auth.mode = \"oauth2\", or (not for production) \
                 auth.allow_insecure_none = true",
                self.server.bind
            ),
        );
        check(
            a.mode != AuthMode::Keystone
                || a.keystone_url.is_some()
                    && !a.keystone_username.is_empty()
                    && !a.keystone_password.is_empty()
                    && !a.keystone_project.is_empty(),
            "auth.mode \"keystone\" needs auth.keystone_url, keystone_username, \
             keystone_password and keystone_project (the service user validating tokens)"
                .into(),
        );
        check(
            !a.keystone_user_domain.is_empty() && !a.keystone_project_domain.is_empty(),
            "auth.keystone_user_domain and keystone_project_domain must not be empty".into(),
        );
        check(
            a.introspection_url.is_none()
                || a.mode == AuthMode::Oauth2 && !a.introspection_client_id.is_empty(),
            "auth.introspection_url is for mode \"oauth2\" and needs \
             auth.introspection_client_id (and its secret)"
                .into(),
        );
        check(
            !a.issuer.is_empty() && !a.audience.is_empty(),
            "auth.issuer and auth.audience must not be empty".into(),
        );
        check(
            !a.roles_claim.is_empty() && !a.tenant_claim.is_empty(),
            "auth.roles_claim and auth.tenant_claim must not be empty".into(),
        );
        check(
            !a.token_lifetime.is_zero(),
            "auth.token_lifetime must be positive".into(),
        );
        check(
            (1..=64).contains(&a.token_concurrency),
            "auth.token_concurrency must be 1 to 64 (each check takes 19 MiB)".into(),
        );
        let mut seen = std::collections::HashSet::new();
        for c in &a.clients {
            check(
                !c.id.is_empty() && seen.insert(c.id.as_str()),
                format!("auth.clients: id {:?} is empty or given twice", c.id),
            );
            check(
                c.secret_hash.starts_with("$argon2"),
                format!(
                    "auth.clients {:?}: secret_hash must be an Argon2 PHC string \
                     (`tacker auth hash-secret` prints one)",
                    c.id
                ),
            );
            for r in &c.roles {
                let attribute = ATTRIBUTE_ROLES
                    .iter()
                    .any(|p| r.strip_prefix(p).is_some_and(|n| !n.is_empty()));
                check(
                    attribute || matches!(r.as_str(), "reader" | "member" | "admin" | "alert"),
                    format!(
                        "auth.clients {:?}: role {r:?} is not reader, member, admin, alert or one \
                         of TENANT_<name>, VENDOR_<provider>, AREA_<area>",
                        c.id
                    ),
                );
            }
        }
    }

    /// This conductor's id: `conductor.id`, or hostname + a random suffix.
    pub fn conductor_id(&self) -> String {
        if !self.conductor.id.is_empty() {
            return self.conductor.id.clone();
        }
        let host = hostname();
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        format!("{host}-{}", &suffix[..6])
    }

    /// The cache directory of conductor `id`.
    pub fn cache_dir(&self, id: &str) -> PathBuf {
        if self.conductor.cache_dir.is_empty() {
            PathBuf::from("./data/cache").join(id)
        } else {
            PathBuf::from(&self.conductor.cache_dir)
        }
    }

    /// The configuration as TOML with every password and secret replaced by `***`.
    pub fn to_redacted_toml(&self) -> Result<String> {
        let mut t = toml::Table::try_from(self).map_err(|e| Error::Load(e.to_string()))?;
        redact::table(&mut t);
        toml::to_string(&t).map_err(|e| Error::Load(e.to_string()))
    }
}

/// The machine's host name, sanitised for use in ids.
pub fn hostname() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into());
    let clean: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "localhost".into()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests;
