#![doc = include_str!("../README.md")]

pub mod cli;
pub mod client;
mod commands;
pub mod config;
pub mod error;
pub mod output;

use std::io::Write;

use clap::{CommandFactory, Parser};

pub use error::{Error, Result};

/// Runs tackerctl with `args` (the program name first), writing results to `stdout`;
/// returns the exit status.
pub async fn run<I, T>(args: I, stdout: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return code;
        }
    };
    match execute(cli, stdout).await {
        Ok(()) => 0,
        Err(Error::OutputClosed) => 0,
        Err(e) => {
            eprintln!("tackerctl: {e}");
            e.exit_code()
        }
    }
}

async fn execute(cli: cli::Cli, stdout: &mut dyn Write) -> Result<()> {
    let mut out = output::Out {
        format: cli.output,
        w: stdout,
    };
    if let cli::Command::Completions { shell } = cli.command {
        let mut cmd = cli::Cli::command();
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut cmd, "tackerctl", &mut script);
        out.w.write_all(&script)?;
        return Ok(out.w.flush()?);
    }
    if let cli::Command::Package(cli::PackageCmd::Validate { file }) = &cli.command {
        let file = file.clone();
        return commands::package::run(
            &client::Client::new(config::DEFAULT_URL, None)?,
            cli::PackageCmd::Validate { file },
            &mut out,
        )
        .await;
    }
    let file = config::load(cli.config.as_ref())?;
    let url = cli
        .url
        .or(file.url)
        .unwrap_or_else(|| config::DEFAULT_URL.to_owned());
    let tls = client::Tls {
        cacert: cli.cacert.or(file.cacert),
        cert: cli.cert.or(file.cert),
        key: cli.key.or(file.key),
    };
    let http = client::http_client(&tls)?;
    let mut token = cli.token.or(file.token);
    if token.is_none()
        && let Some(id) = cli.client_id.or(file.client_id)
    {
        let secret = cli.client_secret.or(file.client_secret).unwrap_or_default();
        let endpoint = cli
            .token_url
            .or(file.token_url)
            .unwrap_or_else(|| format!("{}/oauth2/token", url.trim_end_matches('/')));
        token = Some(client::fetch_token(&http, &endpoint, &id, &secret).await?);
    }
    let c = client::Client::with(http, &url, token)?;
    match cli.command {
        cli::Command::Package(cmd) => commands::package::run(&c, cmd, &mut out).await,
        cli::Command::Vnf(cmd) => commands::vnf::run(&c, cmd, &mut out).await,
        cli::Command::Op(cmd) => commands::op::run(&c, cmd, &mut out).await,
        cli::Command::Subscription(cmd) => commands::subscription::run(&c, cmd, &mut out).await,
        cli::Command::Conductor(cmd) => commands::conductor::run(&c, cmd, &mut out).await,
        cli::Command::Sync { id } => commands::vnf::sync(&c, &id, &mut out).await,
        cli::Command::Completions { .. } => Ok(()),
    }
}
