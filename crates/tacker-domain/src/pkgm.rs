//! SOL005 package notifications (v2.6.1 9.5.2.x): subscriptions and their filters, the
//! facts the outbox keeps, and the bodies delivered.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::package::{OperationalState, UsageState, VnfPackage};
use crate::products::{self, ProductOf, ProductsFromProvider};

/// The package notification types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PkgmNotificationKind {
    /// A package became ONBOARDED.
    #[serde(rename = "VnfPackageOnboardingNotification")]
    Onboarding,
    /// Its operational state changed, or it was deleted.
    #[serde(rename = "VnfPackageChangeNotification")]
    Change,
}

impl PkgmNotificationKind {
    /// The `notificationType` text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Onboarding => "VnfPackageOnboardingNotification",
            Self::Change => "VnfPackageChangeNotification",
        }
    }
}

/// `PackageChangeType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ChangeType {
    /// The operational state changed.
    OpStateChange,
    /// The package was deleted.
    PkgDelete,
}

/// `PkgmNotificationsFilter`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PkgmFilter {
    /// Which notification types (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notification_types: Vec<PkgmNotificationKind>,
    /// By provider / product / version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnf_products_from_providers: Vec<ProductsFromProvider>,
    /// By VNFD id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnfd_id: Vec<String>,
    /// By package id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnf_pkg_id: Vec<String>,
    /// By operational state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operational_state: Vec<OperationalState>,
    /// By usage state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage_state: Vec<UsageState>,
}

impl PkgmFilter {
    /// Whether a notification of `kind` about `pkg` passes.
    pub fn matches(&self, kind: PkgmNotificationKind, pkg: &VnfPackage) -> bool {
        let d = pkg.descriptor.as_ref();
        let any = |list: &[String], v: Option<&str>| {
            list.is_empty() || v.is_some_and(|v| list.iter().any(|x| x == v))
        };
        (self.notification_types.is_empty() || self.notification_types.contains(&kind))
            && any(&self.vnfd_id, d.map(|d| d.vnfd_id.as_str()))
            && any(&self.vnf_pkg_id, Some(pkg.id.to_string().as_str()))
            && (self.operational_state.is_empty()
                || self.operational_state.contains(&pkg.operational_state))
            && (self.usage_state.is_empty() || self.usage_state.contains(&pkg.usage_state))
            && (self.vnf_products_from_providers.is_empty()
                || d.is_some_and(|d| {
                    products::admits(
                        &self.vnf_products_from_providers,
                        ProductOf {
                            provider: &d.provider,
                            product_name: &d.product_name,
                            software_version: &d.software_version,
                            vnfd_version: &d.vnfd_version,
                        },
                    )
                }))
    }
}

/// A package subscription.
pub type PkgmSubscription = crate::subscribed::Subscribed<PkgmFilter>;

impl PkgmSubscription {
    /// Whether it hears of `pkg`: its tenant's or a shared one, a provider its creator
    /// sees.
    pub fn hears_of(&self, pkg: &VnfPackage) -> bool {
        (self.tenant.is_none() || pkg.tenant.is_none() || self.tenant == pkg.tenant)
            && self.confinement.sees_vendor(pkg.provider())
    }
}

/// What a package notification reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PkgFacts {
    /// The notification's id (the same on every delivery attempt).
    pub id: Uuid,
    /// Its type.
    pub kind: PkgmNotificationKind,
    /// When it happened.
    pub time_stamp: DateTime<Utc>,
    /// The package.
    pub vnf_pkg_id: Uuid,
    /// Its VNFD, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnfd_id: Option<String>,
    /// For change notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_type: Option<ChangeType>,
    /// The new operational state (OP_STATE_CHANGE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operational_state: Option<OperationalState>,
}

impl PkgFacts {
    fn new(
        kind: PkgmNotificationKind,
        pkg: &VnfPackage,
        change_type: Option<ChangeType>,
        operational_state: Option<OperationalState>,
    ) -> Self {
        Self {
            id: Uuid::new_v4(),
            kind,
            time_stamp: Utc::now(),
            vnf_pkg_id: pkg.id,
            vnfd_id: pkg.descriptor.as_ref().map(|d| d.vnfd_id.clone()),
            change_type,
            operational_state,
        }
    }

    /// `pkg` became ONBOARDED.
    pub fn onboarded(pkg: &VnfPackage) -> Self {
        Self::new(PkgmNotificationKind::Onboarding, pkg, None, None)
    }

    /// `pkg`'s operational state changed to what it holds now.
    pub fn op_state_changed(pkg: &VnfPackage) -> Self {
        Self::new(
            PkgmNotificationKind::Change,
            pkg,
            Some(ChangeType::OpStateChange),
            Some(pkg.operational_state),
        )
    }

    /// `pkg` was deleted.
    pub fn deleted(pkg: &VnfPackage) -> Self {
        Self::new(
            PkgmNotificationKind::Change,
            pkg,
            Some(ChangeType::PkgDelete),
            None,
        )
    }

    /// The same facts under a new notification id (one per subscription).
    pub fn renewed(&self) -> Self {
        Self {
            id: Uuid::new_v4(),
            ..self.clone()
        }
    }

    /// The body delivered to `subscription`, links under `base` (`.../vnfpkgm/v1`).
    pub fn render(&self, base: &str, subscription: Uuid) -> Value {
        let mut b = json!({
            "id": self.id,
            "notificationType": self.kind.as_str(),
            "subscriptionId": subscription,
            "timeStamp": self.time_stamp.to_rfc3339(),
            "vnfPkgId": self.vnf_pkg_id,
            "_links": {
                "subscription": {"href": format!("{base}/subscriptions/{subscription}")},
                "vnfPackage": {"href": format!("{base}/vnf_packages/{}", self.vnf_pkg_id)},
            },
        });
        if let Some(v) = &self.vnfd_id {
            b["vnfdId"] = json!(v);
        }
        if let Some(c) = self.change_type {
            b["changeType"] = json!(c);
        }
        if let Some(s) = self.operational_state {
            b["operationalState"] = json!(s);
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::DescriptorFacts;

    fn pkg() -> VnfPackage {
        let mut p = VnfPackage::new(Uuid::nil(), Default::default(), Utc::now());
        p.descriptor = Some(DescriptorFacts {
            vnfd_id: "vnfd-1".into(),
            provider: "Acme".into(),
            product_name: "Router".into(),
            software_version: "1.0".into(),
            vnfd_version: "2".into(),
        });
        p
    }

    #[test]
    fn filters_select_by_type_product_and_state() {
        let p = pkg();
        let f: PkgmFilter = serde_json::from_value(json!({
            "notificationTypes": ["VnfPackageOnboardingNotification"],
            "vnfProductsFromProviders": [{"vnfProvider": "Acme", "vnfProducts": [{"vnfProductName": "Router",
                "versions": [{"vnfSoftwareVersion": "1.0"}]}]}]}))
        .unwrap();
        assert!(f.matches(PkgmNotificationKind::Onboarding, &p));
        assert!(!f.matches(PkgmNotificationKind::Change, &p));
        let other: PkgmFilter = serde_json::from_value(json!({
            "vnfProductsFromProviders": [{"vnfProvider": "Other"}]}))
        .unwrap();
        assert!(!other.matches(PkgmNotificationKind::Onboarding, &p));
        let by_state: PkgmFilter =
            serde_json::from_value(json!({"operationalState": ["ENABLED"]})).unwrap();
        assert!(
            !by_state.matches(PkgmNotificationKind::Change, &p),
            "a new package is DISABLED"
        );
        assert!(serde_json::from_value::<PkgmFilter>(json!({"bogus": 1})).is_err());
    }

    #[test]
    fn bodies_carry_links_and_the_change() {
        let p = pkg();
        let b = PkgFacts::deleted(&p).render("http://h/vnfpkgm/v1", Uuid::nil());
        assert_eq!(b["notificationType"], "VnfPackageChangeNotification");
        assert_eq!(b["changeType"], "PKG_DELETE");
        assert_eq!(b["vnfdId"], "vnfd-1");
        assert_eq!(
            b["_links"]["vnfPackage"]["href"],
            format!("http://h/vnfpkgm/v1/vnf_packages/{}", Uuid::nil())
        );
    }
}
