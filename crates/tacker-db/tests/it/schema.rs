//! `src/schema.rs` (kept by hand) against the tables the migrations make, on both
//! backends: every table and column it declares exists with the same nullability and a
//! matching type, and the migrations make no column it lacks.

use std::collections::BTreeMap;

use diesel::sql_types::{Bool, Text};
use diesel::{QueryableByName, RunQueryDsl};
use tacker_db::DbConnection;
use tacker_testkit::TestDb;

use crate::open;

#[derive(Debug, QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    table_name: String,
    #[diesel(sql_type = Text)]
    column_name: String,
    #[diesel(sql_type = Bool)]
    not_null: bool,
    #[diesel(sql_type = Text)]
    data_type: String,
}

/// Column name -> (Diesel type without `Nullable`, nullable).
type Columns = BTreeMap<String, (String, bool)>;

/// The columns of each table, from schema.rs.
fn declared() -> BTreeMap<String, Columns> {
    let text = include_str!("../../src/schema.rs");
    let mut tables = BTreeMap::new();
    let mut current: Option<(String, Columns)> = None;
    let mut expect_name = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("diesel::table!") {
            expect_name = true;
        } else if expect_name {
            let name = line.split_whitespace().next().unwrap().to_owned();
            current = Some((name, BTreeMap::new()));
            expect_name = false;
        } else if let Some((col, ty)) = line.split_once(" -> ") {
            let ty = ty.trim_end_matches(',');
            let (ty, nullable) = match ty.strip_prefix("Nullable<") {
                Some(inner) => (inner.trim_end_matches('>'), true),
                None => (ty, false),
            };
            if let Some((_, cols)) = current.as_mut() {
                cols.insert(col.to_owned(), (ty.to_owned(), nullable));
            }
        } else if line == "}"
            && let Some((name, cols)) = current.take()
        {
            tables.insert(name, cols);
        }
    }
    tables
}

/// Whether a live column type stores what the Diesel type says.
fn matches(diesel: &str, live: &str) -> bool {
    let live = live.to_ascii_lowercase();
    let allowed: &[&str] = match diesel {
        "Text" => &["text", "character varying"],
        "BigInt" => &["bigint", "integer"],
        "Integer" => &["integer", "int"],
        "Timestamp" => &["timestamp without time zone", "timestamp", "datetime"],
        "Bool" => &["boolean", "bool"],
        "Double" => &["double precision", "double", "real"],
        "Binary" => &["bytea", "blob"],
        _ => &[],
    };
    allowed.contains(&live.as_str())
}

#[tokio::test]
async fn schema_rs_matches_what_the_migrations_make() {
    let declared = declared();
    assert!(declared.len() > 10, "parsed {declared:?}");
    // What the parse and the comparison see.
    assert_eq!(
        declared["vnf_packages"]["vnfd_id"],
        ("Text".to_owned(), true)
    );
    assert_eq!(
        declared["vnf_packages"]["revision"],
        ("BigInt".to_owned(), false)
    );
    assert!(matches("Text", "TEXT") && !matches("Text", "jsonb") && !matches("BigInt", "text"));
    for t in TestDb::each() {
        let db = open(&t);
        let live: Vec<Column> = db
            .run(|c| {
                Ok(match c {
                    DbConnection::Pg(pg) => diesel::sql_query(
                        "SELECT table_name::text AS table_name, column_name::text AS column_name, \
                         is_nullable = 'NO' AS not_null, data_type::text AS data_type \
                         FROM information_schema.columns WHERE table_schema = current_schema()",
                    )
                    .load(pg)?,
                    DbConnection::Sqlite(lite) => diesel::sql_query(
                        "SELECT m.name AS table_name, p.name AS column_name, \
                         p.\"notnull\" <> 0 OR p.pk > 0 AS not_null, p.type AS data_type \
                         FROM sqlite_master m JOIN pragma_table_info(m.name) p \
                         WHERE m.type = 'table'",
                    )
                    .load(lite)?,
                })
            })
            .await
            .unwrap();
        let mut found: BTreeMap<&str, BTreeMap<&str, &Column>> = BTreeMap::new();
        for c in &live {
            found
                .entry(c.table_name.as_str())
                .or_default()
                .insert(c.column_name.as_str(), c);
        }
        let mut problems = Vec::new();
        for (table, cols) in &declared {
            let Some(have) = found.get(table.as_str()) else {
                problems.push(format!("{table}: no such table"));
                continue;
            };
            for (col, (ty, nullable)) in cols {
                match have.get(col.as_str()) {
                    None => problems.push(format!("{table}.{col}: no such column")),
                    Some(c) => {
                        if c.not_null == *nullable {
                            problems.push(format!(
                                "{table}.{col}: schema.rs says nullable {nullable}, the table {}",
                                if c.not_null { "NOT NULL" } else { "NULL" }
                            ));
                        }
                        if !matches(ty, &c.data_type) {
                            problems.push(format!(
                                "{table}.{col}: schema.rs says {ty}, the table {}",
                                c.data_type
                            ));
                        }
                    }
                }
            }
            for col in have.keys() {
                if !cols.contains_key(*col) {
                    problems.push(format!(
                        "{table}.{col}: made by the migrations, not in schema.rs"
                    ));
                }
            }
        }
        assert!(problems.is_empty(), "{t:?}:\n{}", problems.join("\n"));
    }
}
