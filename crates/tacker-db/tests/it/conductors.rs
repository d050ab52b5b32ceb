use std::time::Duration;

use tacker_db::conductors;
use tacker_domain::conductor::ConductorState;
use tacker_testkit::TestDb;

use crate::open;

#[tokio::test]
async fn heartbeat_expiry_removes_a_conductor_from_the_live_set() {
    for t in TestDb::each() {
        let db = open(&t);
        for id in ["c1", "c2"] {
            db.conductors().register(id, "host", "inc-1").await.unwrap();
        }
        // SYNCING conductors are not in the live READY set.
        let live = db
            .conductors()
            .live_ready(Duration::from_secs(5))
            .await
            .unwrap();
        assert!(live.is_empty());
        for id in ["c1", "c2"] {
            db.conductors()
                .set_state(id, ConductorState::Ready)
                .await
                .unwrap();
        }
        let dead_after = Duration::from_millis(1500);
        let ids = |v: Vec<tacker_domain::conductor::Conductor>| {
            v.into_iter().map(|c| c.id).collect::<Vec<_>>()
        };
        let live = db.conductors().live_ready(dead_after).await.unwrap();
        assert_eq!(ids(live), vec!["c1", "c2"]);
        // Only c2 keeps beating.
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert!(db.conductors().heartbeat("c2").await.unwrap());
        }
        let live = db.conductors().live_ready(dead_after).await.unwrap();
        assert_eq!(ids(live), vec!["c2"], "{}", t.url);
        // A restart with the same id re-uses the row, back in SYNCING.
        db.conductors()
            .register("c1", "host2", "inc-2")
            .await
            .unwrap();
        let all = db.conductors().list().await.unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].state, ConductorState::Syncing);
        assert_eq!(all[0].host, "host2");
        assert_eq!(all[0].incarnation, "inc-2", "a new incarnation");
        // Stopping conductors leave the live set at once.
        db.conductors()
            .set_state("c2", ConductorState::Stopping)
            .await
            .unwrap();
        assert!(
            db.conductors()
                .live_ready(dead_after)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(!db.conductors().heartbeat("nobody").await.unwrap());
    }
}

/// Callers waiting for a connection are served in the order they came (none is overtaken
/// again and again), and one that waits longer than the pool's timeout gets a clear error.
#[tokio::test]
async fn callers_get_connections_first_come_first_served() {
    let t = TestDb::sqlite();
    let db = tacker_db::Db::connect(&t.url, 1, std::time::Duration::from_secs(5)).unwrap();
    db.migrate().await.unwrap();
    let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let holder = {
        let db = db.clone();
        tokio::spawn(async move {
            db.run(|_| {
                std::thread::sleep(std::time::Duration::from_millis(300));
                Ok(())
            })
            .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let mut waiters = Vec::new();
    for i in 0..8 {
        let (db, order) = (db.clone(), order.clone());
        waiters.push(tokio::spawn(async move {
            db.run(move |_| {
                order.lock().unwrap().push(i);
                Ok(())
            })
            .await
        }));
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    holder.await.unwrap().unwrap();
    for w in waiters {
        w.await.unwrap().unwrap();
    }
    assert_eq!(*order.lock().unwrap(), (0..8).collect::<Vec<_>>());

    let quick = tacker_db::Db::connect(&t.url, 1, std::time::Duration::from_millis(100)).unwrap();
    let busy = {
        let quick = quick.clone();
        tokio::spawn(async move {
            quick
                .run(|_| {
                    std::thread::sleep(std::time::Duration::from_millis(400));
                    Ok(())
                })
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let e = quick.run(|_| Ok(())).await.unwrap_err();
    assert!(e.to_string().contains("no database connection free"), "{e}");
    busy.await.unwrap().unwrap();
}

/// This process's threads, now.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// However many callers there are, calls run on no more threads than the pool has
/// connections (tokio's blocking pool grew to dozens under load), every one of them runs,
/// and a call that panics fails alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_run_on_no_more_threads_than_connections() {
    let t = TestDb::postgres();
    let db = tacker_db::Db::connect(&t.url, 3, Duration::from_secs(30)).unwrap();
    let before = threads();
    db.migrate().await.unwrap();
    let most = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut calls = Vec::new();
    for _ in 0..300 {
        let (db, most) = (db.clone(), most.clone());
        calls.push(tokio::spawn(async move {
            db.run(move |conn| {
                most.fetch_max(threads(), std::sync::atomic::Ordering::SeqCst);
                conductors::list(conn).map(|_| ())
            })
            .await
        }));
    }
    for c in calls {
        c.await.unwrap().unwrap();
    }
    let more = most.load(std::sync::atomic::Ordering::SeqCst) - before;
    assert!(
        (1..=3).contains(&more),
        "{more} threads more for 3 connections"
    );

    let e = db
        .run(|_| -> tacker_db::Result<()> { panic!("a bug in a query") })
        .await
        .unwrap_err();
    assert!(e.to_string().contains("panicked"), "{e}");
    db.run(|conn| conductors::list(conn).map(|_| ()))
        .await
        .unwrap();
}
