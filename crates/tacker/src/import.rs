//! `tacker import tacker`: Tacker's state into the database, keyring and storage this
//! configuration names.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use tacker_conductor::OnboardingSettings;
use tacker_config::Config;

use crate::roles::{ensure_schema, open_db, open_store};

pub async fn tacker(
    cfg: &Config,
    db_url: &str,
    vim_keys: &Path,
    csar_dir: &Path,
    dry_run: bool,
) -> anyhow::Result<()> {
    let db = open_db(cfg)?;
    ensure_schema(&db).await?;
    let keyring = Arc::new(crate::secrets::keyring(cfg, false)?);
    let store = open_store(cfg)?;
    let onboarding = OnboardingSettings::try_from(&cfg.onboarding)?;
    let from = tacker_import::From {
        db_url,
        vim_keys,
        csar_dir,
    };
    let into = tacker_import::Into {
        db: &db,
        keyring: &keyring,
        store: &store,
        limits: &onboarding.limits,
        max_package_size: onboarding.max_package_size,
    };
    // Progress on stderr, one line redrawn: the summary alone goes to stdout.
    let mut progress = |done: usize, total: usize| {
        let mut err = std::io::stderr();
        let _ = write!(err, "\rimporting: {done}/{total}");
        if done == total {
            let _ = writeln!(err);
        }
    };
    let summary = tacker_import::import_tacker(&from, &into, dry_run, &mut progress)
        .await
        .context("importing from Tacker")?;
    if dry_run {
        println!("dry run: nothing was written");
    }
    print!("{summary}");
    Ok(())
}
