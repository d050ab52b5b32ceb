#![doc = include_str!("../README.md")]

mod auth;
mod cli;
mod csar;
mod import;
mod private_file;
mod roles;
mod secrets;
mod signals;
mod telemetry;

use clap::Parser;

/// The configured management drivers, which `csar validate` checks hooks against (the
/// defaults when the configuration cannot be read here).
fn hook_mapping(args: &cli::Cli) -> anyhow::Result<tacker_domain::mgmt::Mapping> {
    let cfg =
        tacker_config::Config::load(&tacker_config::Sources::standard(args.config.as_deref()))
            .or_else(|_| tacker_config::Config::defaults())?;
    Ok(cfg.mgmt.drivers)
}

fn main() -> anyhow::Result<()> {
    let args = cli::Cli::parse();
    match &args.command {
        cli::Command::Csar {
            command: cli::CsarCommand::Validate { file, json },
        } => std::process::exit(csar::validate(file, *json, &hook_mapping(&args)?)),
        cli::Command::Csar {
            command: cli::CsarCommand::Pack { dir, output },
        } => std::process::exit(csar::pack(dir, output, &hook_mapping(&args)?)),
        cli::Command::Secrets {
            command: cli::SecretsCommand::GenerateKey { id },
        } => {
            println!("{}", tacker_db::secrets::Keyring::generate(id)?);
            return Ok(());
        }
        cli::Command::Auth {
            command: cli::AuthCommand::HashSecret,
        } => return auth::hash_secret_from_stdin(),
        cli::Command::Auth {
            command: cli::AuthCommand::GenerateKey { out },
        } => return auth::generate_key(out.as_deref()),
        cli::Command::Import {
            command: cli::ImportCommand::TackerConf { file },
        } => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let ini = tacker_import::conf::parse(&text);
            print!(
                "{}",
                tacker_import::conf::to_toml(&ini, &file.display().to_string())
            );
            return Ok(());
        }
        cli::Command::Config {
            command: cli::ConfigCommand::Reference,
        } => {
            print!("{}", tacker_config::reference());
            return Ok(());
        }
        _ => {}
    }
    // rustls needs one process-wide crypto provider (lapin/amqps, and later S3, kube).
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let cfg =
        tacker_config::Config::load(&tacker_config::Sources::standard(args.config.as_deref()))?;
    if let cli::Command::Config {
        command: cli::ConfigCommand::Show,
    } = args.command
    {
        print!("{}", cfg.to_redacted_toml()?);
        return Ok(());
    }
    telemetry::init(&cfg.log)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(roles::run(args.command, cfg))
}
