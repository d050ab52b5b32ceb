//! `fm_subscriptions`: SOL003 FM subscriptions, and queueing FM notifications with the
//! alarm change they report.

use diesel::prelude::*;
use tacker_domain::fm::notification::FmFacts;
use tacker_domain::fm::subscription::{FmFilter, FmSubscription};
use tacker_domain::lcm::VnfInstance;

use crate::{DbConnection, Result, json_text};

crate::subscription_table::subscription_table!(
    fm_subscriptions,
    FmSubscription,
    FmFilter,
    "FM subscriptions",
    /// FM subscriptions.
    FmSubscriptions
);

/// Queues `facts` (under a notification id of its own) for every FM subscription that
/// may hear of `instance` and whose filter passes; in the caller's transaction.
/// Queues one `AlarmListRebuiltNotification` for each subscription that hears of any of
/// `instances` (none: nothing).
pub(crate) fn enqueue_rebuilt(c: &mut DbConnection, instances: &[VnfInstance]) -> Result<()> {
    if instances.is_empty() {
        return Ok(());
    }
    let subs = list(c)?;
    let areas = if subs.iter().any(|(s, _)| !s.confinement.areas.is_empty()) {
        crate::vims::areas(c)?
    } else {
        tacker_domain::scope::VimAreas::default()
    };
    let facts = FmFacts::rebuilt();
    for (s, _) in subs {
        if instances
            .iter()
            .any(|i| s.may_hear_of(i, &areas) && s.filter.matches(facts.fm_kind, None, i))
        {
            let mine = facts.renewed();
            crate::outbox::push(c, s.id, mine.id, &json_text(&mine))?;
        }
    }
    Ok(())
}

pub(crate) fn enqueue(c: &mut DbConnection, facts: &FmFacts, instance: &VnfInstance) -> Result<()> {
    let subs = list(c)?;
    if subs.is_empty() {
        return Ok(());
    }
    let areas = if subs.iter().any(|(s, _)| !s.confinement.areas.is_empty()) {
        crate::vims::areas(c)?
    } else {
        tacker_domain::scope::VimAreas::default()
    };
    for (s, _) in subs {
        if s.may_hear_of(instance, &areas)
            && s.filter
                .matches(facts.fm_kind, facts.alarm.as_ref(), instance)
        {
            let mine = facts.renewed();
            crate::outbox::push(c, s.id, mine.id, &json_text(&mine))?;
        }
    }
    Ok(())
}
