#![doc = include_str!("../README.md")]

pub mod conf;
mod error;
mod fernet;
pub mod instances;
mod instantiated;
mod json;
pub mod op_occs;
pub mod packages;
mod pyrepr;
pub mod source;
pub mod subscriptions;
mod summary;
pub mod vim_keys;
pub mod vims;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_storage::PackageStore;

pub use error::{Error, Result};
pub use summary::{Outcome, Summary};

/// Where Tacker's state is read from.
pub struct From<'a> {
    /// Tacker's database URL (`mysql://` or Tacker's own `mysql+pymysql://...`).
    pub db_url: &'a str,
    /// Tacker's `[vim_keys] openstack` directory.
    pub vim_keys: &'a Path,
    /// Tacker's glance_store `filesystem_store_datadir` (the packages' CSARs).
    pub csar_dir: &'a Path,
}

/// Where it goes: our database, keyring and storage, with our limits.
pub struct Into<'a> {
    /// Our database (migrated).
    pub db: &'a Db,
    /// The keyring that seals credentials at rest.
    pub keyring: &'a Arc<Keyring>,
    /// Our package storage.
    pub store: &'a PackageStore,
    /// Our CSAR reader's limits.
    pub limits: &'a tacker_csar::Limits,
    /// Our largest package.
    pub max_package_size: u64,
}

/// Imports (or, with `dry_run`, plans the import of) Tacker's VIMs, packages,
/// instances, their (v2) operation occurrences and LCM subscriptions;
/// `progress` hears of each object as it is done, with how many there are in all.
/// Re-running imports what is new, updates what changed and leaves the rest.
pub async fn import_tacker(
    from: &From<'_>,
    into: &Into<'_>,
    dry_run: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Summary> {
    let keys = vim_keys::VimKeys::open(from.vim_keys)?;
    std::fs::read_dir(from.csar_dir)
        .map_err(|e| Error::Directory(format!("--csar-dir {}: {e}", from.csar_dir.display())))?;
    let url = from.db_url.to_owned();
    let (tacker_vims, tacker_packages, tacker_instances, tacker_occs, tacker_subscriptions) =
        tokio::task::spawn_blocking(move || {
            let mut src = source::Source::connect(&url)?;
            Ok::<_, Error>((
                src.vims()?,
                src.packages()?,
                src.instances()?,
                src.op_occs()?,
                src.subscriptions()?,
            ))
        })
        .await
        .map_err(|e| Error::Task(e.to_string()))??;
    let total = tacker_vims.len()
        + tacker_packages.len()
        + tacker_instances.len()
        + tacker_occs.len()
        + tacker_subscriptions.len();
    let mut summary = Summary {
        dry_run,
        ..Summary::default()
    };
    let mut done = 0;
    let mut record = |kind: &'static str, id: &str, outcome: Outcome| {
        summary.record(kind, id, outcome);
        done += 1;
        progress(done, total);
    };
    for t in &tacker_vims {
        let outcome = match vims::ours(t, &keys) {
            Ok(v) => vims::import(into.db, into.keyring, v, dry_run).await?,
            Err(why) => Outcome::Skipped(why),
        };
        record("vim", &t.id, outcome);
    }
    let packages = packages::Packages {
        db: into.db,
        store: into.store,
        csar_dir: from.csar_dir,
        limits: into.limits,
        max_size: into.max_package_size,
        dry_run,
    };
    // What is (or, in a dry run, would be) here after this run: the instances need
    // their package, the occurrences their instance.
    let arrived = |o: &Outcome| matches!(o, Outcome::Imported | Outcome::Unchanged);
    let mut here_packages = HashSet::new();
    for t in &tacker_packages {
        let outcome = packages.import(t).await?;
        if arrived(&outcome) {
            here_packages.extend(t.id.parse::<uuid::Uuid>().ok());
        }
        record("package", &t.id, outcome);
    }
    let ended = |state: &str| matches!(state, "COMPLETED" | "FAILED" | "ROLLED_BACK");
    let busy: HashSet<String> = tacker_occs
        .iter()
        .filter(|o| !ended(&o.state))
        .map(|o| o.vnf_instance_id.clone())
        .collect();
    let cx = instances::Context {
        packages: &here_packages,
        busy: &busy,
        keyring: into.keyring,
        dry_run,
    };
    let mut here_instances = HashSet::new();
    for t in &tacker_instances {
        let outcome = instances::import(into.db, t, &cx).await?;
        if arrived(&outcome) {
            here_instances.extend(t.id.parse::<uuid::Uuid>().ok());
        }
        record("instance", &t.id, outcome);
    }
    for t in &tacker_occs {
        let outcome = match op_occs::ours(t) {
            Ok(op) => op_occs::import(into.db, into.keyring, op, &here_instances, dry_run).await?,
            Err(why) => Outcome::Skipped(why),
        };
        record("operation", &t.id, outcome);
    }
    let owners: std::collections::HashMap<String, String> = tacker_instances
        .iter()
        .filter_map(|t| Some((t.id.clone(), instances::owner(t)?)))
        .collect();
    for t in &tacker_subscriptions {
        let outcome = match subscriptions::ours(t, &owners) {
            Ok(s) => subscriptions::import(into.db, into.keyring, s, dry_run).await?,
            Err(why) => Outcome::Skipped(why),
        };
        record("subscription", &t.id, outcome);
    }
    Ok(summary)
}
