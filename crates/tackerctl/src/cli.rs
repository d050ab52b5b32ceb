//! Command-line syntax.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::output::Format;

/// Operate Tacker: VNF packages, VNF instances and their operations, subscriptions,
/// conductors.
///
/// Exit status: 0 done; 1 the API refused, or the awaited operation or onboarding
/// ended unsuccessfully; 2 wrong usage; 3 the API cannot be reached; 4 waiting timed
/// out; 5 a local file or the configuration could not be used.
#[derive(Debug, Parser)]
#[command(name = "tackerctl", version)]
pub struct Cli {
    /// API base URL (else $TACKER_URL, the config file, http://127.0.0.1:9890).
    #[arg(long, global = true, env = "TACKER_URL")]
    pub url: Option<String>,
    /// Bearer token (else $TACKER_TOKEN or the config file).
    #[arg(long, global = true, env = "TACKER_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// OAuth 2.0 client id: a token is fetched with the client credentials grant (else
    /// $TACKER_CLIENT_ID or the config file).
    #[arg(long, global = true, env = "TACKER_CLIENT_ID")]
    pub client_id: Option<String>,
    /// OAuth 2.0 client secret (else $TACKER_CLIENT_SECRET or the config file).
    #[arg(
        long,
        global = true,
        env = "TACKER_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub client_secret: Option<String>,
    /// Token endpoint for --client-id (else $TACKER_TOKEN_URL, the config file,
    /// `<url>/oauth2/token`).
    #[arg(long, global = true, env = "TACKER_TOKEN_URL")]
    pub token_url: Option<String>,
    /// CA certificates (PEM) to trust for an https API besides the system's (else
    /// $TACKER_CACERT or the config file's `cacert`).
    #[arg(long, global = true, env = "TACKER_CACERT")]
    pub cacert: Option<PathBuf>,
    /// Client certificate (PEM) for mutual TLS, with --key (else $TACKER_CERT, `cert`).
    #[arg(long, global = true, env = "TACKER_CERT")]
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM) (else $TACKER_KEY, `key`).
    #[arg(long, global = true, env = "TACKER_KEY")]
    pub key: Option<PathBuf>,
    /// Config file (else $TACKERCTL_CONFIG or ~/.config/tackerctl/config.toml).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    /// Output format.
    #[arg(short, long, global = true, value_enum, default_value_t = Format::Table)]
    pub output: Format,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// VNF packages (`/vnfpkgm/v1`).
    #[command(subcommand)]
    Package(PackageCmd),
    /// VNF instances (`/vnflcm/v2`).
    #[command(subcommand)]
    Vnf(VnfCmd),
    /// Lifecycle operation occurrences.
    #[command(subcommand)]
    Op(OpCmd),
    /// LCM notification subscriptions.
    #[command(subcommand)]
    Subscription(SubscriptionCmd),
    /// Conductors.
    #[command(subcommand)]
    Conductor(ConductorCmd),
    /// Reconcile a VNF instance's stored VNFCs with what runs in its VIM now.
    Sync {
        /// VNF instance id.
        id: String,
    },
    /// Print a shell completion script.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

/// Waiting for an operation.
#[derive(Debug, Clone, Args)]
pub struct Wait {
    /// Follow the operation to its end (exit 1 unless COMPLETED).
    #[arg(long)]
    pub wait: bool,
    /// Longest wait, in seconds.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
}

/// `package ...`
#[derive(Debug, Subcommand)]
pub enum PackageCmd {
    /// Create an empty package.
    Create {
        /// userDefinedData entries.
        #[arg(long = "user-data", value_name = "KEY=VALUE")]
        user_data: Vec<String>,
    },
    /// Upload a CSAR (with a progress bar), then wait until it is ONBOARDED.
    Upload {
        /// Package id.
        id: String,
        /// The CSAR zip.
        file: PathBuf,
        /// Return once uploaded, without waiting for onboarding.
        #[arg(long)]
        no_wait: bool,
        /// Longest wait for onboarding, in seconds.
        #[arg(long, default_value_t = 1800)]
        timeout: u64,
    },
    /// Have a conductor fetch the CSAR from a URI, then wait until it is ONBOARDED.
    UploadUri {
        /// Package id.
        id: String,
        /// Where the CSAR is.
        uri: String,
        /// Basic auth user for the URI.
        #[arg(long)]
        username: Option<String>,
        /// Basic auth password for the URI.
        #[arg(long)]
        password: Option<String>,
        /// Return at once, without waiting for onboarding.
        #[arg(long)]
        no_wait: bool,
        /// Longest wait for onboarding, in seconds.
        #[arg(long, default_value_t = 1800)]
        timeout: u64,
    },
    /// List packages.
    List,
    /// Show one package.
    Show {
        /// Package id.
        id: String,
    },
    /// Enable a package.
    Enable {
        /// Package id.
        id: String,
    },
    /// Disable a package.
    Disable {
        /// Package id.
        id: String,
    },
    /// Delete a package (it must be disabled and not in use).
    Delete {
        /// Package id.
        id: String,
    },
    /// Download the CSAR.
    Download {
        /// Package id.
        id: String,
        /// Where to write it.
        #[arg(short = 'f', long)]
        file: PathBuf,
    },
    /// Print (or save) the VNFD.
    Vnfd {
        /// Package id.
        id: String,
        /// Save it here (a zip when it has several files).
        #[arg(short = 'f', long)]
        file: Option<PathBuf>,
    },
    /// Validate a CSAR offline.
    Validate {
        /// The CSAR zip.
        file: PathBuf,
    },
}

/// `vnf ...`
#[derive(Debug, Subcommand)]
pub enum VnfCmd {
    /// Create a VNF instance of a VNFD.
    Create {
        /// The vnfdId.
        vnfd_id: String,
        /// vnfInstanceName.
        #[arg(long)]
        name: Option<String>,
        /// vnfInstanceDescription.
        #[arg(long)]
        description: Option<String>,
    },
    /// Instantiate: the request body from a JSON or YAML file.
    Instantiate {
        /// VNF instance id.
        id: String,
        /// InstantiateVnfRequest (JSON or YAML).
        #[arg(short = 'f', long)]
        file: PathBuf,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Move an instantiated VNF to another package (CNFs: a rolling update): the
    /// ChangeCurrentVnfPkgRequest from a JSON or YAML file.
    ChangeVnfpkg {
        /// VNF instance id.
        id: String,
        /// ChangeCurrentVnfPkgRequest (JSON or YAML).
        #[arg(short = 'f', long)]
        file: PathBuf,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Scale an aspect out or in.
    Scale {
        /// VNF instance id.
        id: String,
        /// out or in.
        #[arg(long = "type", value_parser = ["out", "in"])]
        kind: String,
        /// aspectId.
        #[arg(long)]
        aspect: String,
        /// numberOfSteps.
        #[arg(long, default_value_t = 1)]
        steps: u32,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Scale to an instantiation level (`--level`) or to levels per aspect
    /// (`--aspect <aspectId>=<level>`, repeat for several).
    ScaleToLevel {
        /// VNF instance id.
        id: String,
        /// instantiationLevelId.
        #[arg(long, conflicts_with = "aspect", required_unless_present = "aspect")]
        level: Option<String>,
        /// scaleInfo entries, `<aspectId>=<level>`.
        #[arg(long)]
        aspect: Vec<String>,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Move the VNF to another deployment flavour of its VNFD (`--flavour`), at one of
    /// its instantiation levels (`--level`; else its default); a CNF's manifests for it
    /// with `--manifest` (repeat, in order; else the ones in use).
    ChangeFlavour {
        /// VNF instance id.
        id: String,
        /// newFlavourId.
        #[arg(long)]
        flavour: String,
        /// instantiationLevelId.
        #[arg(long)]
        level: Option<String>,
        /// additionalParams.lcm-kubernetes-def-files entries.
        #[arg(long)]
        manifest: Vec<String>,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Start or stop the VNF, or named VNFCs (`--vnfc`).
    Operate {
        /// VNF instance id.
        id: String,
        /// started or stopped.
        #[arg(long, value_parser = ["started", "stopped"])]
        state: String,
        /// Stop at once (stopped only).
        #[arg(long, conflicts_with = "graceful_timeout")]
        forceful: bool,
        /// Stop gracefully within this many seconds (stopped only).
        #[arg(long)]
        graceful_timeout: Option<u32>,
        /// vnfcInstanceId (repeat for several; none: the whole VNF).
        #[arg(long)]
        vnfc: Vec<String>,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Heal VNFCs (SOL002, --vnfc) or the whole VNF (SOL003, none).
    Heal {
        /// VNF instance id.
        id: String,
        /// vnfcInstanceId (repeat for several).
        #[arg(long)]
        vnfc: Vec<String>,
        /// cause.
        #[arg(long)]
        cause: Option<String>,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Terminate (GRACEFUL unless --forceful).
    Terminate {
        /// VNF instance id.
        id: String,
        /// FORCEFUL termination.
        #[arg(long, conflicts_with = "graceful_timeout")]
        forceful: bool,
        /// gracefulTerminationTimeout in seconds.
        #[arg(long)]
        graceful_timeout: Option<u64>,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Delete a NOT_INSTANTIATED instance.
    Delete {
        /// VNF instance id.
        id: String,
    },
    /// List instances.
    List,
    /// Show one instance.
    Show {
        /// VNF instance id.
        id: String,
    },
}

/// `op ...`
#[derive(Debug, Subcommand)]
pub enum OpCmd {
    /// List operation occurrences (optionally a SOL013 filter).
    List {
        /// e.g. `(eq,operationState,FAILED_TEMP)`.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Show one occurrence.
    Show {
        /// Occurrence id.
        id: String,
    },
    /// Follow an occurrence to its end, printing its state changes.
    Wait {
        /// Occurrence id.
        id: String,
        /// Longest wait, in seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
    },
    /// Retry a FAILED_TEMP occurrence.
    Retry {
        /// Occurrence id.
        id: String,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Roll back a FAILED_TEMP occurrence.
    Rollback {
        /// Occurrence id.
        id: String,
        /// Waiting.
        #[command(flatten)]
        wait: Wait,
    },
    /// Mark a FAILED_TEMP occurrence FAILED.
    Fail {
        /// Occurrence id.
        id: String,
    },
    /// Cancel a STARTING, PROCESSING or ROLLING_BACK occurrence: it ends FAILED_TEMP
    /// (ROLLED_BACK from STARTING).
    Cancel {
        /// Occurrence id.
        id: String,
        /// GRACEFUL waits for the step running now, FORCEFUL interrupts it.
        #[arg(long, value_enum, default_value_t = CancelMode::Graceful)]
        mode: CancelMode,
    },
}

/// `cancelMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CancelMode {
    /// After the step running now.
    Graceful,
    /// At once.
    Forceful,
}

/// Which API a subscription belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SubscriptionApi {
    /// LCM notifications (`/vnflcm/v2/subscriptions`).
    Vnflcm,
    /// Package notifications (`/vnfpkgm/v1/subscriptions`).
    Vnfpkgm,
}

impl SubscriptionApi {
    /// The collection path.
    pub fn path(self) -> &'static str {
        match self {
            Self::Vnflcm => "/vnflcm/v2/subscriptions",
            Self::Vnfpkgm => "/vnfpkgm/v1/subscriptions",
        }
    }
}

/// `subscription ...`
#[derive(Debug, Subcommand)]
pub enum SubscriptionCmd {
    /// Subscribe a callback URI.
    Create {
        /// callbackUri (must answer GET with 204).
        #[arg(long)]
        callback: String,
        /// The subscription request's `filter` (JSON or YAML file).
        #[arg(long)]
        filter_file: Option<PathBuf>,
        /// BASIC authentication for the callback, `user:password`.
        #[arg(long)]
        basic: Option<String>,
        /// LCM or package notifications.
        #[arg(long, value_enum, default_value = "vnflcm")]
        api: SubscriptionApi,
    },
    /// List subscriptions.
    List {
        /// LCM or package subscriptions.
        #[arg(long, value_enum, default_value = "vnflcm")]
        api: SubscriptionApi,
    },
    /// Show one subscription.
    Show {
        /// Subscription id.
        id: String,
        /// LCM or package subscription.
        #[arg(long, value_enum, default_value = "vnflcm")]
        api: SubscriptionApi,
    },
    /// Delete a subscription.
    Delete {
        /// Subscription id.
        id: String,
        /// LCM or package subscription.
        #[arg(long, value_enum, default_value = "vnflcm")]
        api: SubscriptionApi,
    },
}

/// `conductor ...`
#[derive(Debug, Subcommand)]
pub enum ConductorCmd {
    /// The conductors, their states and whether they are live.
    List,
}
