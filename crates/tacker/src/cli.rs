//! Command line.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Tacker: a VNF manager (ETSI NFV-SOL002/003/004/005).
#[derive(Debug, Parser)]
#[command(name = "tacker", version, about)]
pub struct Cli {
    /// Configuration file, read over the defaults and /etc/tacker/tacker.toml.
    #[arg(long, global = true, env = "TACKER_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the REST API server.
    Server,
    /// Run one conductor.
    Conductor,
    /// Run the server and the conductors in one process (embedded defaults).
    AllInOne,
    /// Database administration.
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// Configuration.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Secrets at rest.
    Secrets {
        #[command(subcommand)]
        command: SecretsCommand,
    },
    /// API authentication.
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// VNF packages (offline, no server needed).
    Csar {
        #[command(subcommand)]
        command: CsarCommand,
    },
    /// Import another VNFM's state into ours (our configuration names the target).
    Import {
        #[command(subcommand)]
        command: ImportCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// From OpenStack Tacker 16: its registered VIMs (credentials decrypted with its
    /// keys, sealed with ours), VNF packages (CSARs read again by our reader), VNF
    /// instances (instantiated v2 CNFs and VM VNFs too) with their ended operations, and
    /// LCM subscriptions.
    /// Tacker's database is only read. Re-running imports what is new and leaves the
    /// rest.
    Tacker {
        /// Tacker's database: `[database] connection` of tacker.conf
        /// (mysql+pymysql://user:password@host:port/tacker, postgresql+psycopg2://...) or
        /// mysql://..., postgresql://...; from TACKER_IMPORT_DB, its password stays out of
        /// the process list.
        #[arg(long, env = "TACKER_IMPORT_DB", hide_env_values = true)]
        db: String,
        /// Tacker's VIM key directory (`[vim_keys] openstack`).
        #[arg(long)]
        vim_keys: PathBuf,
        /// Tacker's package storage (`[glance_store] filesystem_store_datadir`).
        #[arg(long)]
        csar_dir: PathBuf,
        /// Print what would be imported, and every conflict, writing nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Print the settings of ours (TOML) that a Tacker 16 `tacker.conf` amounts to;
    /// secrets are not copied, comments say where they are.
    TackerConf {
        /// Tacker's configuration file.
        file: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum CsarCommand {
    /// Validate a CSAR: print its VNFD summary, or every error found (exit status 1).
    Validate {
        /// The CSAR zip.
        file: PathBuf,
        /// Print JSON for machines instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Zip a package directory into a CSAR (TOSCA-Metadata first), then validate it.
    Pack {
        /// The package directory (holding TOSCA-Metadata/TOSCA.meta).
        dir: PathBuf,
        /// The CSAR to write.
        #[arg(short, long)]
        output: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum SecretsCommand {
    /// Print a new sealing key `<id>:<base64>` for `secrets.keys`.
    GenerateKey {
        /// The key's id.
        #[arg(default_value = "k1")]
        id: String,
    },
    /// Re-seal every stored secret with the first configured key.
    Rotate,
}

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Print the Argon2id hash of a client secret read from stdin, for
    /// `[[auth.clients]] secret_hash`.
    HashSecret,
    /// Print a new Ed25519 signing key (PKCS#8 PEM) for `auth.signing_key_file`.
    GenerateKey {
        /// Write it to this file (mode 0600) instead, unless the file exists already.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Apply pending migrations.
    Migrate,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration (passwords redacted).
    Show,
    /// Print the configuration reference (Markdown): every key, its default, its
    /// environment variable and what it does.
    Reference,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        super::Cli::command().debug_assert();
    }
}
