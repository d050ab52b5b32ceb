//! `pkgm_subscriptions`: SOL005 package notification subscriptions, and queueing package
//! notifications with the change they report.

use diesel::prelude::*;
use tacker_domain::package::VnfPackage;
use tacker_domain::pkgm::{PkgFacts, PkgmFilter, PkgmSubscription};

use crate::{DbConnection, Result, json_text};

crate::subscription_table::subscription_table!(
    pkgm_subscriptions,
    PkgmSubscription,
    PkgmFilter,
    "package subscriptions",
    /// Package notification subscriptions.
    PkgmSubscriptions
);

/// Queues `facts` about `pkg` (under a notification id of its own) for every package
/// subscription whose filter passes and whose creator sees the package (its tenant, its
/// provider); in the caller's transaction.
pub(crate) fn enqueue(c: &mut DbConnection, facts: &PkgFacts, pkg: &VnfPackage) -> Result<()> {
    for (s, _) in list(c)? {
        if s.hears_of(pkg) && s.filter.matches(facts.kind, pkg) {
            let mine = facts.renewed();
            crate::outbox::push(c, s.id, mine.id, &json_text(&mine))?;
        }
    }
    Ok(())
}
