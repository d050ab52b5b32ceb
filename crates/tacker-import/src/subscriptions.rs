//! LCM subscriptions of both of Tacker's APIs: the NFVO keeps hearing of its instances
//! after the cut-over. Their filter and authentication follow the rules of a subscription
//! made through our API (one that breaks them is skipped with the reason); credentials,
//! in the clear in Tacker's tables, are sealed with our keyring. A v1 subscription keeps
//! its project; a v2 one has none in Tacker and hears of every instance, here too. The
//! callback is not tested again (Tacker tested it when the subscription was made; the
//! NFVO may be between homes during the cut-over).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_db::subscriptions;
use tacker_domain::lcm::{
    ApiVersion, Authentication, Subscription, SubscriptionFilter, check_callback_uri,
};
use uuid::Uuid;

use crate::Result;
use crate::json::{object, unquoted};
use crate::source::TackerSubscription;
use crate::summary::Outcome;

/// Whether a password of `auth` is a Fernet token (`gAAAAA…`): Tacker encrypted it.
fn encrypted(auth: &serde_json::Map<String, Value>) -> bool {
    [
        ("paramsBasic", "password"),
        ("paramsOauth2ClientCredentials", "clientPassword"),
    ]
    .iter()
    .any(|(params, key)| {
        auth.get(*params)
            .and_then(|p| p.get(*key))
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with("gAAAAA"))
    })
}

/// Tacker's subscription `t` as ours (credentials not sealed yet): `Err` says why it
/// cannot come over. `owners`: the project of each of Tacker's instances here; a v2
/// subscription (no project in Tacker) whose filter names instances of one project
/// belongs to that project, any other hears of every instance (an administrator's).
pub fn ours(
    t: &TackerSubscription,
    owners: &HashMap<String, String>,
) -> std::result::Result<Subscription, String> {
    let id =
        t.id.parse::<Uuid>()
            .map_err(|e| format!("id is not a UUID: {e}"))?;
    let filter = object(t.filter.as_deref(), "filter")?;
    let filter: SubscriptionFilter =
        serde_json::from_value(Value::Object(filter)).map_err(|e| {
            format!(
                "its filter is not one ours takes: {}",
                unquoted(&e.to_string())
            )
        })?;
    let authentication = match object(t.authentication.as_deref(), "authentication")? {
        m if m.is_empty() => None,
        m => {
            if encrypted(&m) {
                return Err(
                    "its credentials are encrypted by Tacker's credential encryption \
                            (use_credential_encryption), which this import does not open: \
                            subscribe again here"
                        .into(),
                );
            }
            Some(
                serde_json::from_value::<Authentication>(Value::Object(m))
                    .map_err(|e| format!("its authentication: {}", unquoted(&e.to_string())))?
                    .checked()
                    .map_err(|f| format!("its authentication: {}", f.detail))?,
            )
        }
    };
    check_callback_uri(&t.callback_uri).map_err(|f| f.detail)?;
    let verbosity = t.verbosity.clone().unwrap_or_else(|| "FULL".into());
    if !matches!(verbosity.as_str(), "FULL" | "SHORT") {
        return Err(format!("verbosity {verbosity:?} is not FULL or SHORT"));
    }
    let named: Option<HashSet<&String>> = filter
        .vnf_instance_subscription_filter
        .as_ref()
        .filter(|f| !f.vnf_instance_ids.is_empty())
        .map(|f| {
            f.vnf_instance_ids
                .iter()
                .filter_map(|i| owners.get(i))
                .collect()
        });
    let tenant = t.tenant_id.clone().or_else(|| match named {
        Some(projects) if projects.len() == 1 => projects.into_iter().next().cloned(),
        _ => None,
    });
    Ok(Subscription {
        id,
        callback_uri: t.callback_uri.clone(),
        filter,
        authentication,
        verbosity,
        api_version: if t.api == "v1" {
            ApiVersion::V1
        } else {
            ApiVersion::V2
        },
        tenant,
        confinement: Default::default(),
    })
}

/// Imports `s` (or, with `dry_run`, says what importing it would do).
pub async fn import(
    db: &Db,
    keyring: &Arc<Keyring>,
    mut s: Subscription,
    dry_run: bool,
) -> Result<Outcome> {
    let id = s.id;
    if db.subscriptions().get(id).await?.is_some() {
        return Ok(Outcome::Unchanged);
    }
    if dry_run {
        return Ok(Outcome::Imported);
    }
    if let Some(a) = s.authentication.as_mut() {
        a.seal(&mut |plain| keyring.seal(plain))?;
    }
    // No quota and no duplicate check: these exist already, only not here.
    let done = db.subscriptions().insert(&s, false, u64::MAX).await?;
    Ok(match done {
        subscriptions::Insert::Created => Outcome::Imported,
        other => Outcome::Skipped(format!("not stored: {other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tacker(api: &'static str, auth: Option<&str>) -> TackerSubscription {
        TackerSubscription {
            id: Uuid::new_v4().to_string(),
            api,
            callback_uri: "http://127.0.0.1:9/nfvo".into(),
            filter: Some(
                r#""{\"notificationTypes\": [\"VnfLcmOperationOccurrenceNotification\"]}""#.into(),
            ),
            authentication: auth.map(str::to_owned),
            verbosity: None,
            tenant_id: (api == "v1").then(|| "p1".into()),
        }
    }

    #[test]
    fn filters_and_credentials_come_over_by_our_rules() {
        let basic =
            r#"{"authType": ["BASIC"], "paramsBasic": {"userName": "u", "password": "pw"}}"#;
        let none = HashMap::new();
        let s = ours(&tacker("v1", Some(basic)), &none).unwrap();
        assert_eq!(
            (s.api_version, s.tenant.as_deref()),
            (ApiVersion::V1, Some("p1"))
        );
        assert_eq!(s.filter.notification_types.len(), 1);
        assert!(matches!(
            s.authentication,
            Some(tacker_domain::lcm::SubscriptionAuth::Basic { .. })
        ));
        let s = ours(&tacker("v2", None), &none).unwrap();
        assert_eq!((s.api_version, s.tenant), (ApiVersion::V2, None));
        let mut named = tacker("v2", None);
        named.filter =
            Some(r#"{"vnfInstanceSubscriptionFilter": {"vnfInstanceIds": ["i1"]}}"#.into());
        let owners = HashMap::from([("i1".to_owned(), "p9".to_owned())]);
        assert_eq!(ours(&named, &owners).unwrap().tenant.as_deref(), Some("p9"));
        let why = ours(&tacker("v2", Some(r#"{"authType": ["TLS_CERT"]}"#)), &none).unwrap_err();
        assert!(why.contains("TLS_CERT"), "{why}");
        let sealed =
            r#"{"authType": ["BASIC"], "paramsBasic": {"userName": "u", "password": "gAAAAABx"}}"#;
        let why = ours(&tacker("v2", Some(sealed)), &none).unwrap_err();
        assert!(why.contains("use_credential_encryption"), "{why}");
        let mut odd = tacker("v2", None);
        odd.filter = Some(r#"{"somethingElse": 1}"#.into());
        assert!(ours(&odd, &none).unwrap_err().contains("filter"));
    }
}
