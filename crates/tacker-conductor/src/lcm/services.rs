//! What the conductor offers management drivers for one instance: the VIM registry
//! (a Kubernetes cluster VNF registers itself) and SSH host keys pinned per VNFC.

use std::sync::Arc;

use serde_json::json;
use tacker_db::secrets::Keyring;
use tacker_db::{Db, vims};
use tacker_domain::lcm::driver::{DriverError, Services};
use tacker_domain::vim::Vim;
use uuid::Uuid;

/// The key in a VIM's `extra` naming the instance that registered it.
const OWNER: &str = "registered_by_vnf_instance";

/// [`Services`] over the database, for instance `instance` of `tenant`: the VIMs it
/// registers belong to its tenant.
#[derive(Debug, Clone)]
pub struct InstanceServices {
    db: Db,
    keys: Arc<Keyring>,
    instance: Uuid,
    tenant: String,
    package: Option<PackageFiles>,
}

/// The instance's package as cached here: its CSAR, where its files are extracted, and
/// the limits a file extracted on demand is read under.
#[derive(Debug, Clone)]
pub struct PackageFiles {
    /// The cached CSAR.
    pub zip: std::path::PathBuf,
    /// Its extracted files.
    pub dir: std::path::PathBuf,
    /// The onboarding limits.
    pub limits: tacker_csar::Limits,
}

impl InstanceServices {
    /// The services for `instance` of `tenant` (none: '').
    pub fn new(db: Db, keys: Arc<Keyring>, instance: Uuid, tenant: Option<String>) -> Self {
        Self {
            db,
            keys,
            instance,
            tenant: tenant.unwrap_or_default(),
            package: None,
        }
    }

    /// The same, offering the files of `package`.
    pub fn with_package(self, package: PackageFiles) -> Self {
        Self {
            package: Some(package),
            ..self
        }
    }
}

fn db_error(e: tacker_db::Error) -> DriverError {
    DriverError::new(500, format!("database: {e}"))
}

#[async_trait::async_trait]
impl Services for InstanceServices {
    async fn register_vim(&self, mut vim: Vim) -> Result<String, DriverError> {
        let owner = self.instance.to_string();
        vim.extra.insert(OWNER.into(), json!(owner));
        vim.tenant_id = self.tenant.clone();
        let keys = self.keys.clone();
        self.db
            .run(move |c| {
                let existing = vims::by_name(c, &vim.tenant_id, &vim.name, &keys)?;
                match existing {
                    Some(old)
                        if old.extra.get(OWNER).and_then(|v| v.as_str())
                            == Some(owner.as_str()) =>
                    {
                        vim.id = old.id;
                        vim.created_at = old.created_at;
                        vim.is_default = old.is_default;
                        vim.updated_at = Some(chrono::Utc::now());
                        vims::update(c, &vim, &keys)?;
                        Ok(Ok(vim.id.to_string()))
                    }
                    Some(_) => Ok(Err(DriverError::new(
                        409,
                        format!(
                            "a VIM named {} is registered already, not by this VNF instance",
                            vim.name
                        ),
                    ))),
                    None => match vims::create(c, &vim, &keys)? {
                        None => Ok(Ok(vim.id.to_string())),
                        Some(conflict) => Ok(Err(DriverError::new(
                            409,
                            format!("registering VIM {}: {conflict:?}", vim.name),
                        ))),
                    },
                }
            })
            .await
            .map_err(db_error)?
    }

    async fn remove_vim(&self, name: &str) -> Result<bool, DriverError> {
        let owner = self.instance.to_string();
        let keys = self.keys.clone();
        let (tenant, name) = (self.tenant.clone(), name.to_owned());
        self.db
            .run(move |c| {
                let Some(v) = vims::by_name(c, &tenant, &name, &keys)? else {
                    return Ok(false);
                };
                if v.extra.get(OWNER).and_then(|o| o.as_str()) != Some(owner.as_str()) {
                    tracing::warn!(vim = %name, "not removing a VIM this VNF instance did not register");
                    return Ok(false);
                }
                if tacker_db::instances::using_vim(c, &v.id.to_string())? {
                    tracing::warn!(vim = %name, "removing a VIM that VNF instances still use");
                }
                vims::delete(c, v.id)
            })
            .await
            .map_err(db_error)
    }

    async fn host_key(&self, vnfc: &str) -> Result<Option<String>, DriverError> {
        let pinned = self
            .db
            .host_keys()
            .get(self.instance, vnfc)
            .await
            .map_err(db_error)?;
        Ok(pinned.map(|p| p.public_key))
    }

    async fn pin_host_key(&self, vnfc: &str, address: &str, key: &str) -> Result<(), DriverError> {
        self.db
            .host_keys()
            .pin(self.instance, vnfc, address, key)
            .await
            .map_err(db_error)
    }

    async fn package_file(&self, path: &str) -> Result<Option<std::path::PathBuf>, DriverError> {
        let p = self
            .package
            .clone()
            .ok_or_else(|| DriverError::new(500, format!("{path}: no package files here")))?;
        let path = path.to_owned();
        tokio::task::spawn_blocking(move || crate::cache::extract_file(&p, &path))
            .await
            .map_err(|e| DriverError::new(500, format!("extracting {e}")))?
    }
}
