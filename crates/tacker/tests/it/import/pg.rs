//! A Tacker database on PostgreSQL: upstream Tacker's own, copied by
//! `tacker-upstream.sh pg-copy` into a schema Tacker's migrations made there.

use super::made::Made;
use super::session::InTacker;
use super::{counts, printed, start, upstream_script};
use crate::procs::Cluster;

/// The lines of `text`, sorted (the two databases may order ties differently).
fn sorted(text: &str) -> Vec<&str> {
    let mut l: Vec<&str> = text.lines().collect();
    l.sort_unstable();
    l
}

/// Tacker's database read from PostgreSQL plans the same import as read from MariaDB,
/// line for line (what this test makes in Tacker, and whatever other tests made there
/// before it: instantiated CNF and VM VNFs included); once imported from PostgreSQL,
/// nothing of MariaDB's is new.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tacker_database_on_postgresql_reads_as_on_mariadb() {
    let Some((samples, os, up, p, work)) = start().await else {
        return;
    };
    // Of every kind, something of this test's own, whichever import test ran first.
    let t = InTacker::open(&os, &up, &p).await;
    let made = Made::in_tacker(&os, &up, &p, &t, &samples, work.path()).await;
    t.close(&os).await;
    let name = format!(
        "tacker_pg_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    let pg = printed(&upstream_script(&["pg-copy", &name]), "db");
    let c = Cluster::start_with(1, &[], &[]).await;
    let import = |db: &str, dry: bool| {
        let mut cmd = c.env.command(&[]);
        cmd.args(["import", "tacker", "--db", db]).args([
            "--vim-keys",
            &up.vim_keys,
            "--csar-dir",
            &up.csar_dir,
        ]);
        if dry {
            cmd.arg("--dry-run");
        }
        let out = cmd.output().unwrap();
        let summary = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{db}: {summary}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        summary
    };

    let from_mariadb = import(&up.db, true);
    let from_pg = import(&pg, true);
    assert_eq!(sorted(&from_pg), sorted(&from_mariadb));
    for kind in ["vim", "package", "instance", "operation", "subscription"] {
        assert!(counts(&from_pg, kind)[0] > 0, "{kind}: {from_pg}");
    }
    for id in made.ids() {
        assert!(!from_pg.contains(id), "{id} skipped: {from_pg}");
    }
    let run = import(&pg, false);
    for kind in ["vim", "package", "instance", "operation", "subscription"] {
        assert_eq!(
            counts(&run, kind)[0],
            counts(&from_mariadb, kind)[0],
            "{kind}: {run}"
        );
    }
    let again = import(&up.db, true);
    for kind in ["vim", "package", "instance", "operation", "subscription"] {
        assert_eq!(counts(&again, kind)[0], 0, "{kind}: {again}");
    }
    os.remove_project(&p).await;
    let _ = crate::support::psql(
        "postgres://postgres@127.0.0.1:5432/postgres",
        &format!("DROP DATABASE IF EXISTS {name}"),
    );
}
