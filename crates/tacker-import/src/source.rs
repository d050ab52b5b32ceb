//! Tacker's database (MySQL/MariaDB), read only: the rows the import takes. The session
//! is READ ONLY, so nothing here can write to it.

use chrono::{DateTime, NaiveDateTime, Utc};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, Row};

use crate::{Error, Result};

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

/// A v2 operation occurrence as Tacker stores it (`VnfLcmOpOccV2`).
#[derive(Debug, Clone)]
pub struct TackerOpOcc {
    /// Its id.
    pub id: String,
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

/// A subscription row: id, callback and three JSON or text columns.
type SubscriptionRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// The URL the mysql client takes for `url`: Tacker's own `[database] connection`
/// (`mysql+pymysql://...?charset=utf8`) is accepted as it is written there.
fn client_url(url: &str) -> Result<String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| Error::Url("not a URL (mysql://user:password@host:port/tacker)".into()))?;
    let scheme = scheme.split('+').next().unwrap_or(scheme);
    match scheme {
        "mysql" | "mariadb" => {}
        "postgres" | "postgresql" => {
            return Err(Error::Url(
                "Tacker databases on PostgreSQL are not read yet: only MySQL/MariaDB \
                 (mysql://user:password@host:port/tacker)"
                    .into(),
            ));
        }
        other => {
            return Err(Error::Url(format!(
                "scheme {other:?}: expected mysql://user:password@host:port/tacker"
            )));
        }
    }
    // pymysql's options (charset=...) mean nothing to this client; TLS ones would be
    // dropped, and the connection made in the clear: refused instead.
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    if query.split('&').any(|kv| kv.starts_with("ssl")) {
        return Err(Error::Url(
            "TLS options (ssl*): the import reads Tacker's database without TLS; run it where \
             the database is reachable so (e.g. on its host, or through a tunnel)"
                .into(),
        ));
    }
    Ok(format!("mysql://{rest}"))
}

/// `DATETIME` as `CAST(.. AS CHAR)` gives it (UTC, as Tacker writes it).
fn time(text: Option<String>) -> Option<DateTime<Utc>> {
    let t = text?;
    NaiveDateTime::parse_from_str(&t, "%Y-%m-%d %H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc())
}

/// Column `name` of `row`, converted; a column of another type is an error.
fn col<T: mysql::prelude::FromValue>(row: &mut Row, name: &str) -> Result<T> {
    match row.take_opt::<T, _>(name) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(Error::Corrupt(format!("column {name}: {e}"))),
        None => Err(Error::Corrupt(format!("no column {name}"))),
    }
}

impl Source {
    /// Connects to Tacker's database at `url` (MySQL/MariaDB), read only.
    pub fn connect(url: &str) -> Result<Self> {
        // The client's URL errors quote the URL, password and all: not repeated.
        let opts = Opts::from_url(&client_url(url)?).map_err(|_| {
            Error::Url("not a MySQL URL (mysql://user:password@host:port/tacker)".into())
        })?;
        let opts = OptsBuilder::from_opts(opts)
            .init(vec!["SET SESSION TRANSACTION READ ONLY"])
            .tcp_connect_timeout(Some(std::time::Duration::from_secs(10)));
        Ok(Self {
            conn: Conn::new(opts)?,
        })
    }

    /// The live registered VIMs (`deleted_at` is `datetime.min` for those).
    pub fn vims(&mut self) -> Result<Vec<TackerVim>> {
        let c = &mut self.conn;
        let rows: Vec<Row> = c.query(
            "SELECT v.id, v.type, v.tenant_id, v.name, v.description, v.is_default, \
             CAST(v.extra AS CHAR) AS extra, CAST(v.created_at AS CHAR) AS created_at, \
             a.password, a.auth_url, CAST(a.vim_project AS CHAR) AS vim_project, \
             CAST(a.auth_cred AS CHAR) AS auth_cred \
             FROM vims v JOIN vimauths a ON a.vim_id = v.id \
             WHERE v.deleted_at IS NULL OR v.deleted_at = '0001-01-01 00:00:00' \
             ORDER BY v.created_at, v.id",
        )?;
        rows.into_iter()
            .map(|mut r| {
                Ok(TackerVim {
                    id: col(&mut r, "id")?,
                    vim_type: col::<Option<String>>(&mut r, "type")?
                        .unwrap_or_else(|| "openstack".into()),
                    tenant_id: col(&mut r, "tenant_id")?,
                    name: col(&mut r, "name")?,
                    description: col(&mut r, "description")?,
                    is_default: col::<i64>(&mut r, "is_default")? != 0,
                    extra: col(&mut r, "extra")?,
                    created_at: time(col(&mut r, "created_at")?),
                    password: col(&mut r, "password")?,
                    auth_url: col(&mut r, "auth_url")?,
                    vim_project: col::<Option<String>>(&mut r, "vim_project")?
                        .unwrap_or_else(|| "{}".into()),
                    auth_cred: col::<Option<String>>(&mut r, "auth_cred")?
                        .unwrap_or_else(|| "{}".into()),
                })
            })
            .collect()
    }

    /// The packages that are not deleted, with their user-defined data.
    pub fn packages(&mut self) -> Result<Vec<TackerPackage>> {
        let c = &mut self.conn;
        let rows: Vec<Row> = c.query(
            "SELECT id, onboarding_state, operational_state, tenant_id, location_glance_store, \
             CAST(created_at AS CHAR) AS created_at \
             FROM vnf_packages WHERE deleted = 0 ORDER BY created_at, id",
        )?;
        let data: Vec<(String, String, String)> = c.query(
            "SELECT d.package_uuid, d.`key`, d.`value` FROM vnf_packages_user_data d \
             JOIN vnf_packages p ON p.id = d.package_uuid \
             WHERE d.deleted = 0 AND p.deleted = 0 ORDER BY d.id",
        )?;
        let mut packages = rows
            .into_iter()
            .map(|mut r| {
                Ok(TackerPackage {
                    id: col(&mut r, "id")?,
                    onboarding_state: col(&mut r, "onboarding_state")?,
                    operational_state: col(&mut r, "operational_state")?,
                    tenant_id: col(&mut r, "tenant_id")?,
                    location: col(&mut r, "location_glance_store")?,
                    created_at: time(col(&mut r, "created_at")?),
                    user_data: Vec::new(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let by_id: std::collections::HashMap<String, usize> = packages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.clone(), i))
            .collect();
        for (id, k, v) in data {
            if let Some(i) = by_id.get(&id) {
                packages[*i].user_data.push((k, v));
            }
        }
        Ok(packages)
    }
}

impl Source {
    /// The v1 operation occurrences that are not deleted: (id, instance, state).
    pub fn op_occs_v1(&mut self) -> Result<Vec<(String, String, String)>> {
        Ok(self.conn.query(
            "SELECT id, vnf_instance_id, COALESCE(operation_state, '') FROM vnf_lcm_op_occs \
             WHERE deleted = 0 ORDER BY start_time, id",
        )?)
    }

    /// The v2 operation occurrences, oldest first.
    pub fn op_occs(&mut self) -> Result<Vec<TackerOpOcc>> {
        let rows: Vec<Row> = self.conn.query(
            "SELECT id, CAST(operationState AS CHAR) AS state, \
             CAST(stateEnteredTime AS CHAR) AS entered, CAST(startTime AS CHAR) AS started, \
             vnfInstanceId, grantId, CAST(operation AS CHAR) AS operation, \
             isAutomaticInvocation, CAST(operationParams AS CHAR) AS params, \
             CAST(error AS CHAR) AS error, CAST(resourceChanges AS CHAR) AS changes, \
             CAST(changedInfo AS CHAR) AS changed_info, \
             CAST(changedExtConnectivity AS CHAR) AS changed_ext \
             FROM VnfLcmOpOccV2 ORDER BY startTime, id",
        )?;
        rows.into_iter()
            .map(|mut r| {
                Ok(TackerOpOcc {
                    id: col(&mut r, "id")?,
                    state: col(&mut r, "state")?,
                    state_entered_time: time(col(&mut r, "entered")?),
                    start_time: time(col(&mut r, "started")?),
                    vnf_instance_id: col(&mut r, "vnfInstanceId")?,
                    grant_id: col(&mut r, "grantId")?,
                    operation: col(&mut r, "operation")?,
                    automatic: col::<Option<i64>>(&mut r, "isAutomaticInvocation")?
                        .is_some_and(|a| a != 0),
                    json: [
                        col(&mut r, "params")?,
                        col(&mut r, "error")?,
                        col(&mut r, "changes")?,
                        col(&mut r, "changed_info")?,
                        col(&mut r, "changed_ext")?,
                    ],
                })
            })
            .collect()
    }

    /// The LCM subscriptions of both APIs (v1's that are not deleted).
    pub fn subscriptions(&mut self) -> Result<Vec<TackerSubscription>> {
        let c = &mut self.conn;
        let v2: Vec<SubscriptionRow> = c.query(
            "SELECT id, callbackUri, CAST(filter AS CHAR), CAST(authentication AS CHAR), \
             CAST(verbosity AS CHAR) FROM LccnSubscriptionV2 ORDER BY id",
        )?;
        let v1: Vec<SubscriptionRow> = c.query(
            "SELECT s.id, s.callback_uri, CAST(s.authentication AS CHAR), s.tenant_id, \
             (SELECT CAST(f.filter AS CHAR) FROM vnf_lcm_filters f \
              WHERE f.subscription_uuid = s.id LIMIT 1) \
             FROM vnf_lcm_subscriptions s WHERE s.deleted = 0 ORDER BY s.created_at, s.id",
        )?;
        let mut out: Vec<TackerSubscription> = v1
            .into_iter()
            .map(
                |(id, callback_uri, authentication, tenant_id, filter)| TackerSubscription {
                    id,
                    api: "v1",
                    callback_uri,
                    filter,
                    authentication,
                    verbosity: None,
                    tenant_id,
                },
            )
            .collect();
        out.extend(
            v2.into_iter()
                .map(
                    |(id, callback_uri, filter, authentication, verbosity)| TackerSubscription {
                        id,
                        api: "v2",
                        callback_uri,
                        filter,
                        authentication,
                        verbosity,
                        tenant_id: None,
                    },
                ),
        );
        Ok(out)
    }

    /// The instances of both APIs (v1's that are not deleted), each with the package of
    /// its VNFD.
    pub fn instances(&mut self) -> Result<Vec<TackerInstance>> {
        let c = &mut self.conn;
        let packages: Vec<(String, String, String)> = c.query(
            "SELECT v.vnfd_id, p.id, p.tenant_id FROM vnf_package_vnfd v \
             JOIN vnf_packages p ON p.id = v.package_uuid \
             WHERE v.deleted = '0' AND p.deleted = 0",
        )?;
        let by_vnfd: std::collections::HashMap<String, (String, String)> = packages
            .into_iter()
            .map(|(vnfd, id, tenant)| (vnfd, (id, tenant)))
            .collect();
        let v2: Vec<Row> = c.query(
            "SELECT id, vnfInstanceName, vnfInstanceDescription, vnfdId, instantiationState, \
             CAST(metadata AS CHAR) AS metadata, \
             CAST(vnfConfigurableProperties AS CHAR) AS vnfConfigurableProperties, \
             CAST(extensions AS CHAR) AS extensions, \
             CAST(vimConnectionInfo AS CHAR) AS vimConnectionInfo, \
             CAST(instantiatedVnfInfo AS CHAR) AS instantiatedVnfInfo \
             FROM VnfInstanceV2 ORDER BY id",
        )?;
        let v1: Vec<Row> = c.query(
            "SELECT id, vnf_instance_name, vnf_instance_description, vnfd_id, tenant_id, \
             instantiation_state, CAST(vnf_metadata AS CHAR) AS vnf_metadata, \
             CAST(vim_connection_info AS CHAR) AS vim_connection_info, \
             CAST(created_at AS CHAR) AS created_at \
             FROM vnf_instances WHERE deleted = 0 ORDER BY created_at, id",
        )?;
        let mut out = Vec::with_capacity(v1.len() + v2.len());
        for mut r in v1 {
            let vnfd_id: String = col(&mut r, "vnfd_id")?;
            out.push(TackerInstance {
                id: col(&mut r, "id")?,
                api: "v1",
                name: col(&mut r, "vnf_instance_name")?,
                description: col(&mut r, "vnf_instance_description")?,
                package: by_vnfd.get(&vnfd_id).cloned(),
                tenant_id: col(&mut r, "tenant_id")?,
                vim_connection_info: col(&mut r, "vim_connection_info")?,
                vnfd_id,
                instantiation_state: col(&mut r, "instantiation_state")?,
                metadata: col(&mut r, "vnf_metadata")?,
                configurable_properties: None,
                extensions: None,
                instantiated_vnf_info: None,
                created_at: time(col(&mut r, "created_at")?),
            });
        }
        for mut r in v2 {
            let vnfd_id: String = col(&mut r, "vnfdId")?;
            out.push(TackerInstance {
                id: col(&mut r, "id")?,
                api: "v2",
                name: col(&mut r, "vnfInstanceName")?,
                description: col(&mut r, "vnfInstanceDescription")?,
                package: by_vnfd.get(&vnfd_id).cloned(),
                tenant_id: None,
                vim_connection_info: col(&mut r, "vimConnectionInfo")?,
                vnfd_id,
                instantiation_state: col(&mut r, "instantiationState")?,
                metadata: col(&mut r, "metadata")?,
                configurable_properties: col(&mut r, "vnfConfigurableProperties")?,
                extensions: col(&mut r, "extensions")?,
                instantiated_vnf_info: col(&mut r, "instantiatedVnfInfo")?,
                created_at: None,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tackers_own_connection_strings_are_taken_and_other_schemes_refused() {
        assert_eq!(
            client_url("mysql+pymysql://tacker:pw@127.0.0.1:3306/tacker?charset=utf8").unwrap(),
            "mysql://tacker:pw@127.0.0.1:3306/tacker"
        );
        assert_eq!(client_url("mariadb://u@h/t").unwrap(), "mysql://u@h/t");
        assert!(client_url("mysql://u@h/t?ssl_ca=/ca.pem").is_err());
        for bad in ["postgresql://u@h/t", "sqlite:///x", "127.0.0.1:3306"] {
            assert!(client_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn datetimes_read_as_utc() {
        let t = time(Some("2026-12-04 21:19:31".into())).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-12-04T21:19:31+00:00");
        assert!(time(Some("0001-13-01".into())).is_none());
    }
}
