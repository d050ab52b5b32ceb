//! `heat-sim --bind 127.0.0.1:5000 --user U --password P [--project N] [--hosts netns|none]
//! [--image-user USER:PASSWORD] [--shims DIR] [--token-lifetime SECS] [--tls-ca-out FILE]
//! [--keystone-url URL] [--glance-url URL]`

use std::net::TcpListener;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use heat_sim::{HostSettings, HostsMode, Settings};

/// An OpenStack Keystone v3 + Heat simulator whose servers are SSH test hosts.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:5000")]
    bind: String,
    /// The user Keystone knows.
    #[arg(long, default_value = "tacker")]
    user: String,
    /// Its password.
    #[arg(long, env = "HEAT_SIM_PASSWORD", default_value = "tacker-password")]
    password: String,
    /// Its project.
    #[arg(long, default_value = "nfv")]
    project: String,
    /// `netns`: servers are test hosts in network namespaces (needs root); `none`:
    /// addresses only.
    #[arg(long, default_value = "netns")]
    hosts: HostsMode,
    /// The login every image has, `user:password`.
    #[arg(long, default_value = "ubuntu:ubuntu")]
    image_user: String,
    /// Executables put first on every host's PATH.
    #[arg(long)]
    shims: Option<std::path::PathBuf>,
    /// Seconds a token lives.
    #[arg(long, default_value_t = 3600)]
    token_lifetime: u64,
    /// Serve HTTPS with a generated CA and write the CA certificate (PEM) here.
    #[arg(long)]
    tls_ca_out: Option<std::path::PathBuf>,
    /// Also accept the tokens of this real Keystone (`.../v3`).
    #[arg(long)]
    keystone_url: Option<String>,
    /// Servers boot only from images this real Glance holds.
    #[arg(long)]
    glance_url: Option<String>,
    /// Seconds a token the real Keystone vouched for is trusted before it is asked again.
    #[arg(long, default_value_t = 300)]
    token_cache_secs: u64,
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
    let (user, password) = args
        .image_user
        .split_once(':')
        .context("--image-user is user:password")?;
    let settings = Settings {
        user: args.user.clone(),
        password: args.password.clone(),
        project: args.project.clone(),
        token_lifetime: Duration::from_secs(args.token_lifetime),
        hosts: HostSettings {
            mode: args.hosts,
            user: user.to_owned(),
            password: password.to_owned(),
            shims: args.shims.clone(),
        },
        tls: args.tls_ca_out.is_some(),
        keystone_url: args.keystone_url.clone(),
        glance_url: args.glance_url.clone(),
        token_cache: Duration::from_secs(args.token_cache_secs),
    };
    let listener =
        TcpListener::bind(&args.bind).with_context(|| format!("binding {}", args.bind))?;
    let running = heat_sim::serve(listener, &settings)?;
    if let (Some(path), Some(pem)) = (&args.tls_ca_out, &running.ca_pem) {
        std::fs::write(path, pem).with_context(|| format!("writing {}", path.display()))?;
    }
    let sim = running.sim.clone();
    tracing::info!(network = %sim.engine.hosts.cidr(), "heat-sim serving");
    println!("{}/v3", running.url);
    let handle = running.server.handle();
    tokio::spawn(async move {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(t) => t,
                Err(_) => return,
            };
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        handle.stop(true).await;
    });
    running.server.await?;
    tracing::info!("removing every host");
    sim.engine.hosts.shutdown();
    Ok(())
}
