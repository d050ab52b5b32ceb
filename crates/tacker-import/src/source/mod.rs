//! Tacker's database (MySQL/MariaDB or PostgreSQL), read only: the rows the import
//! takes. The session is READ ONLY, so nothing here can write to it.

use chrono::{DateTime, Utc};

use crate::Result;

mod conn;

use conn::Conn;

/// A connection to Tacker's database.
pub struct Source {
    conn: Conn,
}

/// A registered VIM (`vims` joined with its `vimauths` row), as Tacker stores it.
#[derive(Debug, Clone)]
pub struct TackerVim {
    /// Its id.
    pub id: String,
    /// `openstack` or `kubernetes`.
    pub vim_type: String,
    /// The project that registered it.
    pub tenant_id: String,
    /// Its name (unique per project).
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Whether it is its project's default.
    pub is_default: bool,
    /// `extra` (JSON text).
    pub extra: Option<String>,
    /// When it was registered.
    pub created_at: Option<DateTime<Utc>>,
    /// The Fernet token of its password.
    pub password: Option<String>,
    /// Keystone's or the Kubernetes API's URL.
    pub auth_url: String,
    /// `vim_project` (JSON text).
    pub vim_project: String,
    /// `auth_cred` (JSON text; `key_type`, and for Kubernetes the encrypted token and CA).
    pub auth_cred: String,
}

/// A VNF package as Tacker stores it.
#[derive(Debug, Clone)]
pub struct TackerPackage {
    /// Its id.
    pub id: String,
    /// `CREATED`, `UPLOADING`, `PROCESSING` or `ONBOARDED`.
    pub onboarding_state: String,
    /// `ENABLED` or `DISABLED`.
    pub operational_state: String,
    /// The project that created it.
    pub tenant_id: String,
    /// glance_store's location of its CSAR (`file://<dir>/<id>`).
    pub location: Option<String>,
    /// When it was created.
    pub created_at: Option<DateTime<Utc>>,
    /// `userDefinedData` (Tacker keeps it as key/value text rows).
    pub user_data: Vec<(String, String)>,
}

/// A VNF instance as Tacker stores it (v2's `VnfInstanceV2`, or v1's `vnf_instances`).
#[derive(Debug, Clone)]
pub struct TackerInstance {
    /// Its id.
    pub id: String,
    /// The API that made it: `v1` or `v2`.
    pub api: &'static str,
    /// `vnfInstanceName`.
    pub name: Option<String>,
    /// `vnfInstanceDescription`.
    pub description: Option<String>,
    /// Its VNFD.
    pub vnfd_id: String,
    /// `NOT_INSTANTIATED` or `INSTANTIATED`.
    pub instantiation_state: String,
    /// `metadata` (JSON text).
    pub metadata: Option<String>,
    /// `vnfConfigurableProperties` (JSON text; v2).
    pub configurable_properties: Option<String>,
    /// `extensions` (JSON text; v2).
    pub extensions: Option<String>,
    /// The live package that holds its VNFD, and that package's project.
    pub package: Option<(String, String)>,
    /// Its project (v1 records it; v2 does not).
    pub tenant_id: Option<String>,
    /// `vimConnectionInfo` (JSON text: v2's object, v1's list; possibly encoded twice).
    pub vim_connection_info: Option<String>,
    /// `instantiatedVnfInfo` (JSON text; v2: v1 keeps its resources elsewhere).
    pub instantiated_vnf_info: Option<String>,
    /// When it was created (v1 records it; v2 does not).
    pub created_at: Option<DateTime<Utc>>,
}

/// An LCM subscription as Tacker stores it (v2's `LccnSubscriptionV2`, or v1's
/// `vnf_lcm_subscriptions` with its `vnf_lcm_filters` row).
#[derive(Debug, Clone)]
pub struct TackerSubscription {
    /// Its id.
    pub id: String,
    /// The API that made it: `v1` or `v2`.
    pub api: &'static str,
    /// Where notifications go.
    pub callback_uri: String,
    /// `filter` (JSON text, possibly encoded twice).
    pub filter: Option<String>,
    /// `authentication` (JSON text, possibly encoded twice; its secrets in the clear).
    pub authentication: Option<String>,
    /// `FULL` or `SHORT` (v2).
    pub verbosity: Option<String>,
    /// The project that made it (v1; v2 subscriptions have none and hear of every
    /// instance).
    pub tenant_id: Option<String>,
}

/// An operation occurrence as Tacker stores it (v2's `VnfLcmOpOccV2`, v1's
/// `vnf_lcm_op_occs`).
#[derive(Debug, Clone)]
pub struct TackerOpOcc {
    /// Its id.
    pub id: String,
    /// The API that made it: `v1` (its request a Python repr, its other columns JSON with
    /// snake_case keys) or `v2`.
    pub api: &'static str,
    /// `operationState`.
    pub state: String,
    /// `stateEnteredTime`.
    pub state_entered_time: Option<DateTime<Utc>>,
    /// `startTime`.
    pub start_time: Option<DateTime<Utc>>,
    /// Its instance.
    pub vnf_instance_id: String,
    /// `grantId`.
    pub grant_id: Option<String>,
    /// `operation`.
    pub operation: String,
    /// `isAutomaticInvocation`.
    pub automatic: bool,
    /// `operationParams`, `error`, `resourceChanges`, `changedInfo`,
    /// `changedExtConnectivity` (JSON text, some encoded twice).
    pub json: [Option<String>; 5],
}

impl Source {
    /// Connects to Tacker's database at `url` (MySQL/MariaDB or PostgreSQL), read only.
    pub fn connect(url: &str) -> Result<Self> {
        Ok(Self {
            conn: Conn::connect(url)?,
        })
    }

    /// The live registered VIMs (`deleted_at` is `datetime.min` for those).
    pub fn vims(&mut self) -> Result<Vec<TackerVim>> {
        let rows = self.conn.rows(
            "SELECT v.id, v.type, v.tenant_id, v.name, v.description, v.is_default, \
             CAST(v.extra AS {TEXT}) AS extra, CAST(v.created_at AS {TEXT}) AS created_at, \
             a.password, a.auth_url, CAST(a.vim_project AS {TEXT}) AS vim_project, \
             CAST(a.auth_cred AS {TEXT}) AS auth_cred \
             FROM vims v JOIN vimauths a ON a.vim_id = v.id \
             WHERE v.deleted_at IS NULL OR v.deleted_at = '0001-01-01 00:00:00' \
             ORDER BY v.created_at, v.id",
        )?;
        rows.into_iter()
            .map(|mut r| {
                Ok(TackerVim {
                    id: r.text("id")?,
                    vim_type: r.opt("type")?.unwrap_or_else(|| "openstack".into()),
                    tenant_id: r.text("tenant_id")?,
                    name: r.text("name")?,
                    description: r.opt("description")?,
                    is_default: r.flag("is_default")?,
                    extra: r.opt("extra")?,
                    created_at: r.time("created_at")?,
                    password: r.opt("password")?,
                    auth_url: r.text("auth_url")?,
                    vim_project: r.opt("vim_project")?.unwrap_or_else(|| "{}".into()),
                    auth_cred: r.opt("auth_cred")?.unwrap_or_else(|| "{}".into()),
                })
            })
            .collect()
    }

    /// The packages that are not deleted, with their user-defined data.
    pub fn packages(&mut self) -> Result<Vec<TackerPackage>> {
        let rows = self.conn.rows(
            "SELECT id, onboarding_state, operational_state, tenant_id, location_glance_store, \
             CAST(created_at AS {TEXT}) AS created_at \
             FROM vnf_packages WHERE deleted = 0 ORDER BY created_at, id",
        )?;
        let data = self.conn.rows(
            "SELECT d.package_uuid, d.\"key\", d.\"value\" FROM vnf_packages_user_data d \
             JOIN vnf_packages p ON p.id = d.package_uuid \
             WHERE d.deleted = 0 AND p.deleted = 0 ORDER BY d.id",
        )?;
        let mut packages = rows
            .into_iter()
            .map(|mut r| {
                Ok(TackerPackage {
                    id: r.text("id")?,
                    onboarding_state: r.text("onboarding_state")?,
                    operational_state: r.text("operational_state")?,
                    tenant_id: r.text("tenant_id")?,
                    location: r.opt("location_glance_store")?,
                    created_at: r.time("created_at")?,
                    user_data: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let by_id: std::collections::HashMap<String, usize> = packages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.clone(), i))
            .collect();
        for mut d in data {
            if let Some(i) = by_id.get(&d.text("package_uuid")?) {
                packages[*i]
                    .user_data
                    .push((d.text("key")?, d.opt("value")?.unwrap_or_default()));
            }
        }
        Ok(packages)
    }

    /// The operation occurrences of both APIs (v1's that are not deleted), v1's first,
    /// each API's oldest first.
    pub fn op_occs(&mut self) -> Result<Vec<TackerOpOcc>> {
        let v1 = self.conn.rows(
            "SELECT id, CAST(operation_state AS {TEXT}) AS state, \
             CAST(state_entered_time AS {TEXT}) AS entered, \
             CAST(start_time AS {TEXT}) AS started, vnf_instance_id AS \"vnfInstanceId\", \
             grant_id AS \"grantId\", CAST(operation AS {TEXT}) AS operation, \
             is_automatic_invocation AS \"isAutomaticInvocation\", \
             CAST(operation_params AS {TEXT}) AS params, CAST(error AS {TEXT}) AS error, \
             CAST(resource_changes AS {TEXT}) AS changes, \
             CAST(changed_info AS {TEXT}) AS changed_info, \
             CAST(changed_ext_connectivity AS {TEXT}) AS changed_ext \
             FROM vnf_lcm_op_occs WHERE deleted = 0 ORDER BY start_time, id",
        )?;
        let v2 = self.conn.rows(
            "SELECT id, CAST(\"operationState\" AS {TEXT}) AS state, \
             CAST(\"stateEnteredTime\" AS {TEXT}) AS entered, \
             CAST(\"startTime\" AS {TEXT}) AS started, \
             \"vnfInstanceId\", \"grantId\", CAST(operation AS {TEXT}) AS operation, \
             \"isAutomaticInvocation\", CAST(\"operationParams\" AS {TEXT}) AS params, \
             CAST(error AS {TEXT}) AS error, CAST(\"resourceChanges\" AS {TEXT}) AS changes, \
             CAST(\"changedInfo\" AS {TEXT}) AS changed_info, \
             CAST(\"changedExtConnectivity\" AS {TEXT}) AS changed_ext \
             FROM \"VnfLcmOpOccV2\" ORDER BY \"startTime\", id",
        )?;
        let v1 = v1.into_iter().map(|r| (r, "v1"));
        v1.chain(v2.into_iter().map(|r| (r, "v2")))
            .map(|(mut r, api)| {
                Ok(TackerOpOcc {
                    id: r.text("id")?,
                    api,
                    // A v1 row may have none: skipped by the import with the reason.
                    state: r.opt("state")?.unwrap_or_default(),
                    state_entered_time: r.time("entered")?,
                    start_time: r.time("started")?,
                    vnf_instance_id: r.text("vnfInstanceId")?,
                    grant_id: r.opt("grantId")?,
                    operation: r.opt("operation")?.unwrap_or_default(),
                    automatic: r.flag("isAutomaticInvocation")?,
                    json: [
                        r.opt("params")?,
                        r.opt("error")?,
                        r.opt("changes")?,
                        r.opt("changed_info")?,
                        r.opt("changed_ext")?,
                    ],
                })
            })
            .collect()
    }

    /// The LCM subscriptions of both APIs (v1's that are not deleted).
    pub fn subscriptions(&mut self) -> Result<Vec<TackerSubscription>> {
        let v1 = self.conn.rows(
            "SELECT s.id, s.callback_uri, CAST(s.authentication AS {TEXT}) AS authentication, \
             s.tenant_id, (SELECT CAST(f.filter AS {TEXT}) FROM vnf_lcm_filters f \
              WHERE f.subscription_uuid = s.id LIMIT 1) AS filter \
             FROM vnf_lcm_subscriptions s WHERE s.deleted = 0 ORDER BY s.created_at, s.id",
        )?;
        let v2 = self.conn.rows(
            "SELECT id, \"callbackUri\", CAST(filter AS {TEXT}) AS filter, \
             CAST(authentication AS {TEXT}) AS authentication, \
             CAST(verbosity AS {TEXT}) AS verbosity FROM \"LccnSubscriptionV2\" ORDER BY id",
        )?;
        let mut out = Vec::with_capacity(v1.len() + v2.len());
        for mut r in v1 {
            out.push(TackerSubscription {
                id: r.text("id")?,
                api: "v1",
                callback_uri: r.text("callback_uri")?,
                filter: r.opt("filter")?,
                authentication: r.opt("authentication")?,
                verbosity: None,
                tenant_id: r.opt("tenant_id")?,
            });
        }
        for mut r in v2 {
            out.push(TackerSubscription {
                id: r.text("id")?,
                api: "v2",
                callback_uri: r.text("callbackUri")?,
                filter: r.opt("filter")?,
                authentication: r.opt("authentication")?,
                verbosity: r.opt("verbosity")?,
                tenant_id: None,
            });
        }
        Ok(out)
    }

    /// The instances of both APIs (v1's that are not deleted), each with the package of
    /// its VNFD.
    pub fn instances(&mut self) -> Result<Vec<TackerInstance>> {
        let mut by_vnfd = std::collections::HashMap::new();
        for mut r in self.conn.rows(
            "SELECT v.vnfd_id, p.id, p.tenant_id FROM vnf_package_vnfd v \
             JOIN vnf_packages p ON p.id = v.package_uuid \
             WHERE v.deleted = '0' AND p.deleted = 0",
        )? {
            by_vnfd.insert(r.text("vnfd_id")?, (r.text("id")?, r.text("tenant_id")?));
        }
        let v2 = self.conn.rows(
            "SELECT id, \"vnfInstanceName\", \"vnfInstanceDescription\", \"vnfdId\", \
             CAST(\"instantiationState\" AS {TEXT}) AS \"instantiationState\", \
             CAST(metadata AS {TEXT}) AS metadata, \
             CAST(\"vnfConfigurableProperties\" AS {TEXT}) AS \"vnfConfigurableProperties\", \
             CAST(extensions AS {TEXT}) AS extensions, \
             CAST(\"vimConnectionInfo\" AS {TEXT}) AS \"vimConnectionInfo\", \
             CAST(\"instantiatedVnfInfo\" AS {TEXT}) AS \"instantiatedVnfInfo\" \
             FROM \"VnfInstanceV2\" ORDER BY id",
        )?;
        let v1 = self.conn.rows(
            "SELECT id, vnf_instance_name, vnf_instance_description, vnfd_id, tenant_id, \
             instantiation_state, CAST(vnf_metadata AS {TEXT}) AS vnf_metadata, \
             CAST(vim_connection_info AS {TEXT}) AS vim_connection_info, \
             CAST(created_at AS {TEXT}) AS created_at \
             FROM vnf_instances WHERE deleted = 0 ORDER BY created_at, id",
        )?;
        let mut out = Vec::with_capacity(v1.len() + v2.len());
        for mut r in v1 {
            let vnfd_id = r.text("vnfd_id")?;
            out.push(TackerInstance {
                id: r.text("id")?,
                api: "v1",
                name: r.opt("vnf_instance_name")?,
                description: r.opt("vnf_instance_description")?,
                package: by_vnfd.get(&vnfd_id).cloned(),
                tenant_id: r.opt("tenant_id")?,
                vim_connection_info: r.opt("vim_connection_info")?,
                vnfd_id,
                instantiation_state: r.text("instantiation_state")?,
                metadata: r.opt("vnf_metadata")?,
                configurable_properties: None,
                extensions: None,
                instantiated_vnf_info: None,
                created_at: r.time("created_at")?,
            });
        }
        for mut r in v2 {
            let vnfd_id = r.text("vnfdId")?;
            out.push(TackerInstance {
                id: r.text("id")?,
                api: "v2",
                name: r.opt("vnfInstanceName")?,
                description: r.opt("vnfInstanceDescription")?,
                package: by_vnfd.get(&vnfd_id).cloned(),
                tenant_id: None,
                vim_connection_info: r.opt("vimConnectionInfo")?,
                vnfd_id,
                instantiation_state: r.text("instantiationState")?,
                metadata: r.opt("metadata")?,
                configurable_properties: r.opt("vnfConfigurableProperties")?,
                extensions: r.opt("extensions")?,
                instantiated_vnf_info: r.opt("instantiatedVnfInfo")?,
                created_at: None,
            });
        }
        Ok(out)
    }
}
