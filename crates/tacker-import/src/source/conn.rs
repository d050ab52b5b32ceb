//! The connection to Tacker's database, MySQL/MariaDB or PostgreSQL (Tacker runs on
//! either through SQLAlchemy), in a READ ONLY session, and its rows as text. Queries are
//! written once: identifiers in double quotes (ANSI; MySQL's session is switched to
//! `ANSI_QUOTES`), `{TEXT}` where a cast to text is meant.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::{Connection, PgConnection, RunQueryDsl};
use mysql::prelude::Queryable;
use serde_json::Value;

use crate::{Error, Result};

/// A database of one of the two kinds.
pub(super) enum Conn {
    MySql(mysql::Conn),
    Pg(Box<PgConnection>),
}

/// A row, its columns as text (`None`: NULL).
pub(super) struct Row(HashMap<String, Option<String>>);

impl Row {
    /// Column `name` (an error if the query has none).
    pub(super) fn opt(&mut self, name: &str) -> Result<Option<String>> {
        self.0
            .remove(name)
            .ok_or_else(|| Error::Corrupt(format!("no column {name}")))
    }

    /// Column `name`, which must not be NULL.
    pub(super) fn text(&mut self, name: &str) -> Result<String> {
        self.opt(name)?
            .ok_or_else(|| Error::Corrupt(format!("column {name} is NULL")))
    }

    /// A boolean column (MySQL's `1`, PostgreSQL's `true`); NULL is false.
    pub(super) fn flag(&mut self, name: &str) -> Result<bool> {
        Ok(matches!(
            self.opt(name)?.as_deref(),
            Some("1" | "true" | "t")
        ))
    }

    /// A date and time column cast to text (UTC, as Tacker writes it).
    pub(super) fn time(&mut self, name: &str) -> Result<Option<DateTime<Utc>>> {
        Ok(time(self.opt(name)?))
    }
}

/// A date and time as MySQL's and PostgreSQL's casts to text write it.
pub(super) fn time(text: Option<String>) -> Option<DateTime<Utc>> {
    let t = text?;
    NaiveDateTime::parse_from_str(&t, "%Y-%m-%d %H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc())
}

#[derive(diesel::QueryableByName)]
struct JsonRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    j: String,
}

fn pg_error(e: impl std::fmt::Display) -> Error {
    Error::SourcePg(e.to_string())
}

fn mysql_text(v: mysql::Value) -> Option<String> {
    match v {
        mysql::Value::NULL => None,
        mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        mysql::Value::Int(i) => Some(i.to_string()),
        mysql::Value::UInt(u) => Some(u.to_string()),
        other => Some(other.as_sql(true).trim_matches('\'').to_owned()),
    }
}

fn json_text(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        Value::Bool(b) => Some(if b { "1" } else { "0" }.to_owned()),
        other => Some(other.to_string()),
    }
}

impl Conn {
    /// Connects to Tacker's database at `url` (its own `[database] connection` string),
    /// read only.
    pub(super) fn connect(url: &str) -> Result<Self> {
        match client_url(url)? {
            Client::MySql(url) => {
                // The client's URL errors quote the URL, password and all: not repeated.
                let opts = mysql::Opts::from_url(&url).map_err(|_| {
                    Error::Url("not a MySQL URL (mysql://user:password@host:port/tacker)".into())
                })?;
                let opts = mysql::OptsBuilder::from_opts(opts)
                    .init(vec![
                        "SET SESSION TRANSACTION READ ONLY",
                        "SET SESSION sql_mode = \
                         CONCAT_WS(',', NULLIF(@@SESSION.sql_mode, ''), 'ANSI_QUOTES')",
                    ])
                    .tcp_connect_timeout(Some(std::time::Duration::from_secs(10)));
                Ok(Self::MySql(mysql::Conn::new(opts)?))
            }
            Client::Pg(url) => {
                let mut c = PgConnection::establish(&url).map_err(pg_error)?;
                diesel::sql_query("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                    .execute(&mut c)
                    .map_err(pg_error)?;
                Ok(Self::Pg(Box::new(c)))
            }
        }
    }

    /// The rows of `sql` (see the module's note on how it is written).
    pub(super) fn rows(&mut self, sql: &str) -> Result<Vec<Row>> {
        match self {
            Self::MySql(c) => {
                let rows: Vec<mysql::Row> = c.query(sql.replace("{TEXT}", "CHAR"))?;
                Ok(rows
                    .into_iter()
                    .map(|r| {
                        let names: Vec<String> = r
                            .columns_ref()
                            .iter()
                            .map(|c| c.name_str().into_owned())
                            .collect();
                        Row(names
                            .into_iter()
                            .zip(r.unwrap().into_iter().map(mysql_text))
                            .collect())
                    })
                    .collect())
            }
            Self::Pg(c) => {
                let q = format!(
                    "SELECT row_to_json(q)::text AS j FROM ({}) q",
                    sql.replace("{TEXT}", "TEXT")
                );
                let rows: Vec<JsonRow> = diesel::sql_query(q).load(c.as_mut()).map_err(pg_error)?;
                rows.into_iter()
                    .map(|r| match serde_json::from_str::<Value>(&r.j) {
                        Ok(Value::Object(m)) => {
                            Ok(Row(m.into_iter().map(|(k, v)| (k, json_text(v))).collect()))
                        }
                        _ => Err(Error::Corrupt(
                            "a row PostgreSQL gave is not an object".into(),
                        )),
                    })
                    .collect()
            }
        }
    }
}

/// The client a URL names.
#[derive(Debug, PartialEq, Eq)]
enum Client {
    MySql(String),
    Pg(String),
}

/// The client and URL for `url`: Tacker's own `[database] connection`
/// (`mysql+pymysql://...?charset=utf8`, `postgresql+psycopg2://...`) is accepted as it is
/// written there.
fn client_url(url: &str) -> Result<Client> {
    let (scheme, rest) = url.split_once("://").ok_or_else(|| {
        Error::Url("not a URL (mysql://user:password@host:port/tacker or postgresql://...)".into())
    })?;
    let scheme = scheme.split('+').next().unwrap_or(scheme);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    match scheme {
        "mysql" | "mariadb" => {
            // pymysql's options (charset=...) mean nothing to this client; TLS ones would
            // be dropped, and the connection made in the clear: refused instead.
            if query.split('&').any(|kv| kv.starts_with("ssl")) {
                return Err(Error::Url(
                    "TLS options (ssl*): the import reads a MySQL database of Tacker's without \
                     TLS; run it where the database is reachable so (e.g. on its host, or \
                     through a tunnel)"
                        .into(),
                ));
            }
            Ok(Client::MySql(format!("mysql://{path}")))
        }
        // psycopg2's options are libpq's (sslmode, ...): kept; a connect timeout added.
        "postgres" | "postgresql" => {
            let timeout = if query
                .split('&')
                .any(|kv| kv.starts_with("connect_timeout="))
            {
                ""
            } else {
                "connect_timeout=10"
            };
            let query: Vec<&str> = [query, timeout]
                .into_iter()
                .filter(|q| !q.is_empty())
                .collect();
            Ok(Client::Pg(format!(
                "postgresql://{path}?{}",
                query.join("&")
            )))
        }
        other => Err(Error::Url(format!(
            "scheme {other:?}: expected mysql://user:password@host:port/tacker or \
             postgresql://user:password@host:port/tacker"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tackers_own_connection_strings_are_taken_and_other_schemes_refused() {
        assert_eq!(
            client_url("mysql+pymysql://tacker:pw@127.0.0.1:3306/tacker?charset=utf8").unwrap(),
            Client::MySql("mysql://tacker:pw@127.0.0.1:3306/tacker".into())
        );
        assert_eq!(
            client_url("mariadb://u@h/t").unwrap(),
            Client::MySql("mysql://u@h/t".into())
        );
        assert!(client_url("mysql://u@h/t?ssl_ca=/ca.pem").is_err());
        assert_eq!(
            client_url("postgresql+psycopg2://u:p@h/t?sslmode=require").unwrap(),
            Client::Pg("postgresql://u:p@h/t?sslmode=require&connect_timeout=10".into())
        );
        assert_eq!(
            client_url("postgres://u@h/t").unwrap(),
            Client::Pg("postgresql://u@h/t?connect_timeout=10".into())
        );
        for bad in ["sqlite:///x", "127.0.0.1:3306"] {
            assert!(client_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn datetimes_read_as_utc() {
        let t = time(Some("2026-12-04 21:19:31".into())).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-12-04T21:19:31+00:00");
        let t = time(Some("2026-12-04 21:19:31.250".into())).unwrap();
        assert_eq!(t.timestamp_subsec_millis(), 250);
        assert!(time(Some("0001-13-01".into())).is_none());
    }

    #[test]
    fn columns_read_as_text_whatever_the_client_gave() {
        assert_eq!(json_text(Value::Bool(true)).as_deref(), Some("1"));
        assert_eq!(json_text(serde_json::json!(3)).as_deref(), Some("3"));
        assert_eq!(json_text(Value::Null), None);
        assert_eq!(mysql_text(mysql::Value::Int(0)).as_deref(), Some("0"));
        let mut r = Row(HashMap::from([
            ("a".to_owned(), Some("true".to_owned())),
            ("b".to_owned(), None),
        ]));
        assert!(r.flag("a").unwrap());
        assert!(r.text("b").is_err());
        assert!(r.opt("c").is_err());
    }
}
