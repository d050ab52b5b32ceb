//! Logging.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::FmtSpan;

/// Logs to stderr as text or JSON; `RUST_LOG` overrides `log.filter`. With
/// `log.span_timings`, every span is logged as it closes, with its busy and idle time.
pub fn init(cfg: &tacker_config::LogConfig) -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(&cfg.filter))?;
    let spans = if cfg.span_timings {
        FmtSpan::CLOSE
    } else {
        FmtSpan::NONE
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(spans)
        .with_writer(std::io::stderr);
    let result = if cfg.format == tacker_config::LogFormat::Json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
    result.map_err(|e| anyhow::anyhow!("logging: {e}"))
}
