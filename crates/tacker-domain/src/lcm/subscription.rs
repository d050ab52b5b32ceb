//! LCM notification subscriptions and their filters.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::instance::VnfInstance;
use super::notification::NotificationKind;
use super::op::{LcmOperation, OperationState};
use crate::products::{self, ProductOf, ProductsFromProvider};

/// `filter` of a subscription (SOL003 `LifecycleChangeNotificationsFilter`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubscriptionFilter {
    /// Which instances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_instance_subscription_filter: Option<InstanceFilter>,
    /// Which notification types (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notification_types: Vec<NotificationKind>,
    /// Which operations (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operation_types: Vec<LcmOperation>,
    /// Which operation states (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operation_states: Vec<OperationState>,
}

/// `VnfInstanceSubscriptionFilter`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstanceFilter {
    /// By VNFD.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnfd_ids: Vec<String>,
    /// By provider / product / version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnf_products_from_providers: Vec<ProductsFromProvider>,
    /// By instance id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnf_instance_ids: Vec<String>,
    /// By instance name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnf_instance_names: Vec<String>,
}

impl InstanceFilter {
    pub(crate) fn matches(&self, i: &VnfInstance) -> bool {
        let id = i.id.to_string();
        (self.vnfd_ids.is_empty() || self.vnfd_ids.contains(&i.vnfd_id))
            && (self.vnf_instance_ids.is_empty() || self.vnf_instance_ids.contains(&id))
            && (self.vnf_instance_names.is_empty()
                || i.name
                    .as_ref()
                    .is_some_and(|n| self.vnf_instance_names.contains(n)))
            && products::admits(
                &self.vnf_products_from_providers,
                ProductOf {
                    provider: &i.vnf_provider,
                    product_name: &i.vnf_product_name,
                    software_version: &i.vnf_software_version,
                    vnfd_version: &i.vnfd_version,
                },
            )
    }
}

impl SubscriptionFilter {
    /// Whether a notification of `kind` about `instance` (and, for operation
    /// notifications, `op` in `state`) passes the filter.
    pub fn matches(
        &self,
        kind: NotificationKind,
        instance: &VnfInstance,
        op: Option<(LcmOperation, OperationState)>,
    ) -> bool {
        if !self.notification_types.is_empty() && !self.notification_types.contains(&kind) {
            return false;
        }
        if let Some(f) = &self.vnf_instance_subscription_filter
            && !f.matches(instance)
        {
            return false;
        }
        match op {
            Some((operation, state)) => {
                (self.operation_types.is_empty() || self.operation_types.contains(&operation))
                    && (self.operation_states.is_empty() || self.operation_states.contains(&state))
            }
            None => true,
        }
    }
}

/// How the VNFM authenticates to a subscriber (never answered; its passwords are
/// [`Secret`](crate::secret::Secret)s).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SubscriptionAuth {
    /// HTTP basic.
    Basic {
        /// User.
        user_name: String,
        /// Password.
        password: crate::secret::Secret,
    },
    /// OAuth 2.0 client credentials grant against `token_endpoint`.
    OAuth2 {
        /// Client id.
        client_id: String,
        /// Client secret.
        client_password: crate::secret::Secret,
        /// Token endpoint.
        token_endpoint: String,
    },
}

/// A subscription's `callbackUri` checked: an http(s) URL that carries no credentials
/// (they go in `authentication`).
pub fn check_callback_uri(callback_uri: &str) -> Result<(), crate::Failure> {
    let bad = |m: String| crate::Failure::bad_request(m);
    let uri =
        url::Url::parse(callback_uri).map_err(|e| bad(format!("callbackUri is not a URL: {e}")))?;
    if !matches!(uri.scheme(), "http" | "https") {
        return Err(bad("callbackUri must be http:// or https://".into()));
    }
    if !uri.username().is_empty() || uri.password().is_some() {
        return Err(bad(
            "callbackUri must not carry credentials; use authentication".into(),
        ));
    }
    Ok(())
}

/// `SubscriptionAuthentication` as a subscription request (LCM, packages, FM, PM) writes
/// it, before its rules are checked.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Authentication {
    auth_type: Vec<String>,
    #[serde(default)]
    params_basic: Option<Basic>,
    #[serde(default)]
    params_oauth2_client_credentials: Option<OAuth2>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Basic {
    user_name: String,
    password: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OAuth2 {
    client_id: String,
    client_password: String,
    token_endpoint: String,
}

impl Authentication {
    /// The authentication, its rules checked: one `authType`, BASIC or
    /// OAUTH2_CLIENT_CREDENTIALS with its parameters, a token endpoint without
    /// credentials in it.
    pub fn checked(self) -> Result<SubscriptionAuth, crate::Failure> {
        let bad = crate::Failure::bad_request;
        match self.auth_type.as_slice() {
            [t] if t == "BASIC" => {
                let b = self
                    .params_basic
                    .ok_or_else(|| bad("authType BASIC needs paramsBasic"))?;
                Ok(SubscriptionAuth::Basic {
                    user_name: b.user_name,
                    password: b.password.as_str().into(),
                })
            }
            [t] if t == "OAUTH2_CLIENT_CREDENTIALS" => {
                let o = self.params_oauth2_client_credentials.ok_or_else(|| {
                    bad("authType OAUTH2_CLIENT_CREDENTIALS needs paramsOauth2ClientCredentials")
                })?;
                let t = url::Url::parse(&o.token_endpoint)
                    .map_err(|_| bad("tokenEndpoint is not a URL"))?;
                if !t.username().is_empty() || t.password().is_some() {
                    return Err(bad("tokenEndpoint must not carry credentials"));
                }
                Ok(SubscriptionAuth::OAuth2 {
                    client_id: o.client_id,
                    client_password: o.client_password.as_str().into(),
                    token_endpoint: o.token_endpoint,
                })
            }
            [t] if t == "TLS_CERT" => Err(bad("authType TLS_CERT is not supported")),
            _ => Err(bad(
                "authType must name exactly one of BASIC, OAUTH2_CLIENT_CREDENTIALS",
            )),
        }
    }
}

/// A subscription.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    /// Id.
    pub id: Uuid,
    /// Where notifications go.
    pub callback_uri: String,
    /// What goes there.
    pub filter: SubscriptionFilter,
    /// How to authenticate there.
    pub authentication: Option<SubscriptionAuth>,
    /// `FULL` or `SHORT`.
    pub verbosity: String,
    /// The API it was made through: its notifications link into that version.
    pub api_version: super::ApiVersion,
    /// The tenant it belongs to (its creator's): it hears of that tenant's instances
    /// only. `None`: of every instance.
    pub tenant: Option<String>,
    /// Its creator's vendor and area confinement: it hears only of instances the
    /// creator sees.
    pub confinement: crate::scope::Confinement,
}

impl Subscription {
    /// Whether `other` asks for the same notifications the same way (callback, filter,
    /// verbosity, API version, what its creator sees): a duplicate.
    pub fn same_as(&self, other: &Subscription) -> bool {
        self.callback_uri == other.callback_uri
            && self.filter == other.filter
            && self.verbosity == other.verbosity
            && self.api_version == other.api_version
            && self.confinement == other.confinement
    }

    /// Whether notifications about `instance` (living in the VIM `areas`) may reach
    /// this subscription: its tenant's, and what its creator sees.
    pub fn may_hear_of(&self, instance: &VnfInstance, areas: &crate::scope::VimAreas) -> bool {
        (self.tenant.is_none() || self.tenant == instance.tenant)
            && self.confinement.sees_instance(instance, areas)
    }

    /// The `LccnSubscription` body (no authentication: it holds secrets).
    pub fn to_json(&self, base: &str) -> Value {
        json!({
            "id": self.id,
            "filter": self.filter,
            "callbackUri": self.callback_uri,
            "verbosity": self.verbosity,
            "_links": {"self": {"href": format!("{base}/subscriptions/{}", self.id)}},
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn debug_output_masks_the_secret() {
        let b = SubscriptionAuth::Basic {
            user_name: "u".into(),
            password: "planted-basic".into(),
        };
        let o = SubscriptionAuth::OAuth2 {
            client_id: "c".into(),
            client_password: "planted-oauth".into(),
            token_endpoint: "https://idp/token".into(),
        };
        let text = format!("{b:?} {o:?}");
        assert!(!text.contains("planted"), "{text}");
        assert!(text.contains("idp/token"));
    }
    use crate::lcm::InstantiationState;

    pub(crate) fn instance() -> VnfInstance {
        VnfInstance {
            id: Uuid::nil(),
            name: Some("web".into()),
            description: None,
            vnfd_id: "vnfd-1".into(),
            vnf_pkg_id: Uuid::nil(),
            vnf_provider: "Acme".into(),
            vnf_product_name: "Router".into(),
            vnf_software_version: "2.0".into(),
            vnfd_version: "1.1".into(),
            instantiation_state: InstantiationState::NotInstantiated,
            instantiated_vnf_info: None,
            vim_connection_info: Default::default(),
            metadata: Default::default(),
            extensions: Default::default(),
            vnf_configurable_properties: Default::default(),
            current_op: None,
            created_at: chrono::Utc::now(),
            tenant: None,
        }
    }

    fn f(v: Value) -> SubscriptionFilter {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn filters_by_type_operation_state_and_instance() {
        let i = instance();
        let op = Some((LcmOperation::Heal, OperationState::Completed));
        let kind = NotificationKind::VnfLcmOperationOccurrence;
        assert!(f(json!({})).matches(kind, &i, op));
        assert!(
            f(json!({"operationTypes": ["HEAL"], "operationStates": ["COMPLETED"]}))
                .matches(kind, &i, op)
        );
        assert!(!f(json!({"operationTypes": ["SCALE"]})).matches(kind, &i, op));
        assert!(
            !f(json!({"notificationTypes": ["VnfIdentifierCreationNotification"]}))
                .matches(kind, &i, op)
        );
        assert!(
            f(json!({"vnfInstanceSubscriptionFilter": {"vnfdIds": ["vnfd-1"]}}))
                .matches(kind, &i, op)
        );
        assert!(
            !f(json!({"vnfInstanceSubscriptionFilter": {"vnfInstanceNames": ["db"]}}))
                .matches(kind, &i, op)
        );
        let prov = json!({"vnfInstanceSubscriptionFilter": {"vnfProductsFromProviders": [{"vnfProvider": "Acme",
            "vnfProducts": [{"vnfProductName": "Router", "versions": [{"vnfSoftwareVersion": "2.0", "vnfdVersions": ["1.1"]}]}]}]}});
        assert!(f(prov).matches(kind, &i, op));
        assert!(
            serde_json::from_value::<SubscriptionFilter>(json!({"operationTypes": ["NOPE"]}))
                .is_err()
        );
        assert!(serde_json::from_value::<SubscriptionFilter>(json!({"bogus": 1})).is_err());
    }
}
