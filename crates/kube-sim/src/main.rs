//! `kube-sim --bind 127.0.0.1:6443 [--token T] [--ready-delay MS] [--tls-ca-out FILE]`

use std::net::TcpListener;

use anyhow::Context;
use clap::Parser;
use kube_sim::{Settings, Timing};

/// A Kubernetes API simulator for tests and demos.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:6443")]
    bind: String,
    /// Require this bearer token.
    #[arg(long, env = "KUBE_SIM_TOKEN")]
    token: Option<String>,
    /// Require basic authentication `user:password`.
    #[arg(long)]
    basic_auth: Option<String>,
    /// Milliseconds before a new Pod is Running and Ready.
    #[arg(long, default_value_t = 200)]
    ready_delay: u64,
    /// Milliseconds a Pod deleted with a grace period stays terminating.
    #[arg(long, default_value_t = 0)]
    terminate_delay: u64,
    /// Nodes in the cluster.
    #[arg(long, default_value_t = 2)]
    nodes: usize,
    /// Serve HTTPS with a generated CA and write the CA certificate (PEM) here.
    #[arg(long)]
    tls_ca_out: Option<std::path::PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let basic = match &args.basic_auth {
        Some(s) => Some(
            s.split_once(':')
                .map(|(u, p)| (u.to_owned(), p.to_owned()))
                .context("--basic-auth is user:password")?,
        ),
        None => None,
    };
    let settings = Settings {
        token: args.token.clone(),
        basic,
        tls: args.tls_ca_out.is_some(),
        timing: Timing {
            ready_delay_ms: args.ready_delay,
            terminate_delay_ms: args.terminate_delay,
            nodes: args.nodes,
        },
    };
    let listener =
        TcpListener::bind(&args.bind).with_context(|| format!("binding {}", args.bind))?;
    let running = kube_sim::serve(listener, &settings)?;
    if let (Some(path), Some(pem)) = (&args.tls_ca_out, &running.ca_pem) {
        std::fs::write(path, pem).with_context(|| format!("writing {}", path.display()))?;
    }
    tracing::info!(url = %running.url, nodes = args.nodes, ready_delay_ms = args.ready_delay, "kube-sim serving");
    let handle = running.server.handle();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        handle.stop(true).await;
    });
    running.server.await?;
    Ok(())
}
