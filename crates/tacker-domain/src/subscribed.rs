//! What an FM and a package subscription share: where their notifications go, what
//! reaches it (a filter of type `F`), and whose it is.

use serde::Serialize;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::lcm::SubscriptionAuth;

/// A subscription whose notifications pass a filter of type `F`.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscribed<F> {
    /// Id.
    pub id: Uuid,
    /// Where notifications go.
    pub callback_uri: String,
    /// What goes there.
    pub filter: F,
    /// How to authenticate there (a secret: never answered).
    pub authentication: Option<SubscriptionAuth>,
    /// Its creator's tenant: it hears of that tenant's resources (and, for packages, the
    /// shared ones); `None`: of all.
    pub tenant: Option<String>,
    /// Its creator's vendor and area confinement: it hears only of what its creator
    /// sees.
    pub confinement: crate::scope::Confinement,
}

impl<F: PartialEq + Serialize> Subscribed<F> {
    /// The subscription body (no authentication: it holds secrets), links under `base`
    /// (`.../vnffm/v1`, `.../vnfpkgm/v1`).
    pub fn to_json(&self, base: &str) -> Value {
        json!({
            "id": self.id,
            "filter": self.filter,
            "callbackUri": self.callback_uri,
            "_links": {"self": {"href": format!("{base}/subscriptions/{}", self.id)}},
        })
    }

    /// Whether `other` asks for the same notifications at the same place (a duplicate).
    pub fn same_as(&self, other: &Self) -> bool {
        self.callback_uri == other.callback_uri
            && self.filter == other.filter
            && self.confinement == other.confinement
    }
}
