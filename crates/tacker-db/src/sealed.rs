//! Sealed values inside JSON columns (VIM credentials of instances and occurrences, the
//! secrets of registered VIMs' `extra` and of requests' `additionalParams`, subscribers'
//! credentials): checked against the keyring at start, re-sealed by
//! `tacker secrets rotate`.

use diesel::prelude::*;
use serde_json::Value;

use crate::secrets::Keyring;
use crate::{DbConnection, Error, Result};

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
pub(crate) const CHUNK: i64 = 500;

/// Tries at a row that keeps changing under a rotation before the rotation gives up.
const ATTEMPTS: usize = 5;

/// Re-seals a chunk of rows (id, stored text) in one transaction, so a crash leaves each
/// chunk wholly done or not done (and every value opens with the old and the new key
/// either way). What `change` makes of a row's text is written only where the row still
/// holds the text that was read (`swap` compares and sets, answering the rows it
/// changed): a value written meanwhile is read again (`read`) and re-sealed, never
/// overwritten. How many rows changed.
pub(crate) fn reseal_chunk<C, R, S>(
    c: &mut DbConnection,
    rows: Vec<(String, Option<String>)>,
    change: C,
    read: R,
    swap: S,
) -> Result<usize>
where
    C: Fn(&str) -> Result<Option<String>>,
    R: Fn(&mut DbConnection, &str) -> Result<Option<String>>,
    S: Fn(&mut DbConnection, &str, &str, &str) -> Result<usize>,
{
    c.transaction(|c| {
        let mut n = 0;
        for (id, mut text) in rows {
            let mut tries = 0;
            while let Some(old) = text {
                let Some(new) = change(&old)? else { break };
                if swap(c, &id, &old, &new)? == 1 {
                    n += 1;
                    break;
                }
                tries += 1;
                if tries == ATTEMPTS {
                    return Err(Error::Secrets(format!(
                        "row {id} kept changing while it was re-sealed; run the rotation again"
                    )));
                }
                text = read(c, &id)?;
            }
        }
        Ok(n)
    })
}

/// Runs `$body` on each chunk (`$rows`: id and text, in id order) of the rows of
/// `$table` whose `$col` holds a sealed value; `dsl` is the table's inside `$body`.
macro_rules! sealed_chunks {
    ($c:expr, $table:ident, $col:ident, |$rows:ident| $body:block) => {{
        use crate::schema::$table::dsl;
        let mut after = String::new();
        loop {
            let $rows: Vec<(String, Option<String>)> = dsl::$table
                .select((dsl::id, dsl::$col.nullable()))
                .filter(dsl::id.gt(&after))
                .filter(dsl::$col.nullable().like(format!("%{PREFIX}%")))
                .order(dsl::id)
                .limit(CHUNK)
                .load($c)?;
            let Some((last, _)) = $rows.last() else { break };
            after = last.clone();
            $body
        }
    }};
}

macro_rules! json_columns {
    ($( $table:ident . $col:ident ),+ $(,)?) => {
        /// Opens every sealed value in the JSON columns (a key missing from `keys` is an
        /// error naming it); how many there are. Only rows holding a sealed value are
        /// read, a chunk at a time in id order.
        pub fn open_all(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
            let mut n = 0;
            $(
                sealed_chunks!(c, $table, $col, |rows| {
                    for text in rows.into_iter().filter_map(|(_, t)| t) {
                        let Ok(mut v) = serde_json::from_str::<Value>(&text) else { continue };
                        walk(&mut v, &mut |s| {
                            keys.open(s)?;
                            n += 1;
                            Ok(None)
                        })?;
                    }
                });
            )+
            Ok(n)
        }

        /// Re-seals every value in the JSON columns not sealed with the keyring's current
        /// key; how many rows changed. Rows are read a chunk at a time in id order and
        /// each chunk is written in one transaction by `reseal_chunk`.
        pub fn reseal_all(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
            let change = |text: &str| -> Result<Option<String>> {
                let Ok(mut v) = serde_json::from_str::<Value>(text) else { return Ok(None) };
                Ok(walk(&mut v, &mut |s| keys.reseal(s))?.then(|| crate::json_text(&v)))
            };
            let mut n = 0;
            $(
                sealed_chunks!(c, $table, $col, |rows| {
                    n += reseal_chunk(
                        c,
                        rows,
                        change,
                        |c, id| {
                            Ok(dsl::$table
                                .filter(dsl::id.eq(id))
                                .select(dsl::$col.nullable())
                                .first::<Option<String>>(c)
                                .optional()?
                                .flatten())
                        },
                        |c, id, old, new| {
                            Ok(diesel::update(
                                dsl::$table.filter(dsl::id.eq(id)).filter(dsl::$col.eq(old)),
                            )
                            .set(dsl::$col.eq(new))
                            .execute(c)?)
                        },
                    )?;
                });
            )+
            Ok(n)
        }
    };
}

json_columns!(
    vims.extra,
    vnf_instances.vim_connection_info,
    vnf_lcm_op_occs.request,
    lccn_subscriptions.authentication,
    pkgm_subscriptions.authentication,
);
