//! Sealed values inside JSON columns (VIM credentials of instances and occurrences,
//! subscribers' credentials): checked against the keyring at start, re-sealed by
//! `tacker secrets rotate`.

use diesel::prelude::*;
use serde_json::Value;

use crate::secrets::Keyring;
use crate::{DbConnection, Result};

const PREFIX: &str = "enc:v1:";

/// Applies `f` to every sealed string in `v`; whether one changed.
fn walk(v: &mut Value, f: &mut dyn FnMut(&str) -> Result<Option<String>>) -> Result<bool> {
    Ok(match v {
        Value::String(s) if s.starts_with(PREFIX) => match f(s)? {
            Some(n) => {
                *s = n;
                true
            }
            None => false,
        },
        Value::Array(a) => {
            let mut changed = false;
            for x in a {
                changed |= walk(x, f)?;
            }
            changed
        }
        Value::Object(m) => {
            let mut changed = false;
            for x in m.values_mut() {
                changed |= walk(x, f)?;
            }
            changed
        }
        _ => false,
    })
}

/// Rows read at a time: memory stays bounded by a chunk, whatever a table holds.
const CHUNK: i64 = 500;

macro_rules! json_columns {
    ($( $table:ident . $col:ident ),+ $(,)?) => {
        /// Opens every sealed value in the JSON columns (a key missing from `keys` is an
        /// error naming it); how many there are. Only rows holding a sealed value are
        /// read, a chunk at a time in id order.
        pub fn open_all(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
            let mut n = 0;
            $(
                {
                    use crate::schema::$table::dsl;
                    let mut after = String::new();
                    loop {
                        let rows: Vec<(String, Option<String>)> = dsl::$table
                            .select((dsl::id, dsl::$col.nullable()))
                            .filter(dsl::id.gt(&after))
                            .filter(dsl::$col.nullable().like(format!("%{PREFIX}%")))
                            .order(dsl::id)
                            .limit(CHUNK)
                            .load(c)?;
                        let Some((last, _)) = rows.last() else { break };
                        after = last.clone();
                        for text in rows.into_iter().filter_map(|(_, t)| t) {
                            let Ok(mut v) = serde_json::from_str::<Value>(&text) else { continue };
                            walk(&mut v, &mut |s| {
                                keys.open(s)?;
                                n += 1;
                                Ok(None)
                            })?;
                        }
                    }
                }
            )+
            Ok(n)
        }

        /// Re-seals every sealed value in the JSON columns with the keyring's current key;
        /// how many rows changed. Rows are read a chunk at a time in id order.
        pub fn reseal_all(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
            let mut n = 0;
            $(
                {
                    use crate::schema::$table::dsl;
                    let mut after = String::new();
                    loop {
                        let rows: Vec<(String, Option<String>)> = dsl::$table
                            .select((dsl::id, dsl::$col.nullable()))
                            .filter(dsl::id.gt(&after))
                            .filter(dsl::$col.nullable().like(format!("%{PREFIX}%")))
                            .order(dsl::id)
                            .limit(CHUNK)
                            .load(c)?;
                        let Some((last, _)) = rows.last() else { break };
                        after = last.clone();
                        for (id, text) in rows {
                            let Some(text) = text else { continue };
                            let Ok(mut v) = serde_json::from_str::<Value>(&text) else { continue };
                            let changed =
                                walk(&mut v, &mut |s| Ok(Some(keys.seal(&keys.open(s)?)?)))?;
                            if changed {
                                diesel::update(dsl::$table.filter(dsl::id.eq(&id)))
                                    .set(dsl::$col.eq(crate::json_text(&v)))
                                    .execute(c)?;
                                n += 1;
                            }
                        }
                    }
                }
            )+
            Ok(n)
        }
    };
}

json_columns!(
    vnf_instances.vim_connection_info,
    vnf_lcm_op_occs.request,
    lccn_subscriptions.authentication,
    pkgm_subscriptions.authentication,
);
