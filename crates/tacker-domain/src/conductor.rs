//! Conductor membership: who is live and ready to take work.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

crate::text_enum! {
    /// The life of a conductor process as recorded in the `conductors` table.
    ConductorState, "conductor state" {
        /// Started; catching up (e.g. syncing its CSAR cache); takes no casts yet.
        Syncing = "SYNCING",
        /// Takes casts and fanouts; part of the live set.
        Ready = "READY",
        /// Shutting down; finishes in-flight work, takes nothing new.
        Stopping = "STOPPING",
    }
}

/// One row of the membership table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Conductor {
    /// `conductor.id`, stable for a StatefulSet replica.
    pub id: String,
    /// The host it runs on.
    pub host: String,
    /// Its state.
    pub state: ConductorState,
    /// When this incarnation started.
    pub started_at: DateTime<Utc>,
    /// Its last heartbeat.
    pub last_heartbeat: DateTime<Utc>,
    /// This incarnation (a fresh id at every start): work records the incarnation that
    /// owns it.
    pub incarnation: String,
}

impl Conductor {
    /// Whether it still heartbeats at `now` (a heartbeat younger than `dead_after`): it
    /// still owns the work it took, even while STOPPING.
    pub fn is_alive(&self, now: DateTime<Utc>, dead_after: std::time::Duration) -> bool {
        let dead_after = Duration::from_std(dead_after).unwrap_or(Duration::MAX);
        now - self.last_heartbeat < dead_after
    }

    /// Whether it is alive and not STOPPING: it counts as a member of the cluster.
    pub fn is_live(&self, now: DateTime<Utc>, dead_after: std::time::Duration) -> bool {
        self.state != ConductorState::Stopping && self.is_alive(now, dead_after)
    }

    /// Whether work recorded as owned by incarnation `owner` of this conductor is still
    /// owned: the conductor heartbeats and is that incarnation. Work that recorded no
    /// incarnation (from before incarnations existed) is owned when it started after
    /// this incarnation did.
    pub fn still_owns(
        &self,
        owner: Option<&str>,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
        dead_after: std::time::Duration,
    ) -> bool {
        self.is_alive(now, dead_after)
            && match owner {
                Some(i) => i == self.incarnation,
                None => self.started_at <= since,
            }
    }

    /// Whether it is in the live READY set: alive and READY, the set a fanout must reach
    /// and a package's onboarding must be confirmed by.
    pub fn is_live_ready(&self, now: DateTime<Utc>, dead_after: std::time::Duration) -> bool {
        self.state == ConductorState::Ready && self.is_alive(now, dead_after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, 0).unwrap()
    }

    #[test]
    fn liveness_follows_heartbeat_age_and_state() {
        let mut c = Conductor {
            id: "c1".into(),
            host: "h".into(),
            state: ConductorState::Ready,
            started_at: at(0),
            last_heartbeat: at(100),
            incarnation: "i1".into(),
        };
        let dead_after = std::time::Duration::from_secs(10);
        assert!(c.is_live(at(105), dead_after) && c.is_live_ready(at(105), dead_after));
        assert!(!c.is_live(at(110), dead_after) && !c.is_alive(at(110), dead_after));
        c.state = ConductorState::Stopping;
        assert!(!c.is_live(at(105), dead_after) && !c.is_live_ready(at(105), dead_after));
        assert!(
            c.is_alive(at(105), dead_after),
            "a STOPPING conductor owns its work"
        );
        assert!(c.still_owns(Some("i1"), at(50), at(105), dead_after));
        assert!(
            !c.still_owns(Some("i0"), at(50), at(105), dead_after),
            "work of an earlier incarnation under the same id is lost"
        );
        assert!(!c.still_owns(Some("i1"), at(50), at(110), dead_after));
        assert!(c.still_owns(None, at(50), at(105), dead_after));
        c.started_at = at(60);
        assert!(!c.still_owns(None, at(50), at(105), dead_after));
        c.state = ConductorState::Syncing;
        assert!(c.is_live(at(105), dead_after) && !c.is_live_ready(at(105), dead_after));
    }

    #[test]
    fn states_round_trip_as_text() {
        for s in ConductorState::ALL {
            assert_eq!(s.as_str().parse::<ConductorState>().unwrap(), *s);
        }
        assert!("ready".parse::<ConductorState>().is_err());
    }
}
