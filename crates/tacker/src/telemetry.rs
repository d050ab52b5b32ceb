//! Logging.

use tracing_subscriber::EnvFilter;

/// Logs to stderr as text or JSON; `RUST_LOG` overrides `log.filter`.
pub fn init(cfg: &tacker_config::LogConfig) -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(&cfg.filter))?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let result = if cfg.format == "json" {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
    result.map_err(|e| anyhow::anyhow!("logging: {e}"))
}
