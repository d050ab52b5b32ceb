//! LCM subscriptions of both of Tacker's APIs: the NFVO keeps hearing of its instances
//! after the cut-over. Their filter and authentication follow the rules of a subscription
//! made through our API (one that breaks them is skipped with the reason); credentials,
//! in the clear in Tacker's tables, are sealed with our keyring. A v1 subscription keeps
//! its project; a v2 one has none in Tacker and hears of every instance, here too. The
//! callback is not tested again (Tacker tested it when the subscription was made; the
//! NFVO may be between homes during the cut-over).

use std::sync::Arc;

use serde_json::Value;
use tacker_db::Db;
use tacker_db::secrets::Keyring;
use tacker_db::subscriptions;
use tacker_domain::lcm::{ApiVersion, Authentication, Subscription, SubscriptionFilter};
use uuid::Uuid;

use crate::Result;
use crate::json::object;
use crate::source::TackerSubscription;
use crate::summary::Outcome;

/// Tacker's subscription `t` as ours (credentials not sealed yet): `Err` says why it
/// cannot come over.
pub fn ours(t: &TackerSubscription) -> std::result::Result<Subscription, String> {
    let id =
        t.id.parse::<Uuid>()
            .map_err(|e| format!("id is not a UUID: {e}"))?;
    let filter = object(t.filter.as_deref(), "filter")?;
    let filter: SubscriptionFilter = serde_json::from_value(Value::Object(filter))
        .map_err(|e| format!("its filter is not one ours takes: {e}"))?;
    let authentication = match object(t.authentication.as_deref(), "authentication")? {
        m if m.is_empty() => None,
        m => Some(
            serde_json::from_value::<Authentication>(Value::Object(m))
                .map_err(|e| format!("its authentication: {e}"))?
                .checked()
                .map_err(|f| format!("its authentication: {}", f.detail))?,
        ),
    };
    let url =
        url::Url::parse(&t.callback_uri).map_err(|e| format!("callbackUri is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("callbackUri is not http(s)".into());
    }
    let verbosity = t.verbosity.clone().unwrap_or_else(|| "FULL".into());
    if !matches!(verbosity.as_str(), "FULL" | "SHORT") {
        return Err(format!("verbosity {verbosity:?} is not FULL or SHORT"));
    }
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
        tenant: t.tenant_id.clone(),
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
    if db.run(move |c| subscriptions::get(c, id)).await?.is_some() {
        return Ok(Outcome::Unchanged);
    }
    if dry_run {
        return Ok(Outcome::Imported);
    }
    if let Some(a) = s.authentication.as_mut() {
        a.seal(&mut |plain| keyring.seal(plain))?;
    }
    // No quota and no duplicate check: these exist already, only not here.
    let done = db
        .run(move |c| subscriptions::insert(c, &s, false, u64::MAX))
        .await?;
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
        let s = ours(&tacker("v1", Some(basic))).unwrap();
        assert_eq!(
            (s.api_version, s.tenant.as_deref()),
            (ApiVersion::V1, Some("p1"))
        );
        assert_eq!(s.filter.notification_types.len(), 1);
        assert!(matches!(
            s.authentication,
            Some(tacker_domain::lcm::SubscriptionAuth::Basic { .. })
        ));
        let s = ours(&tacker("v2", None)).unwrap();
        assert_eq!((s.api_version, s.tenant), (ApiVersion::V2, None));
        let why = ours(&tacker("v2", Some(r#"{"authType": ["TLS_CERT"]}"#))).unwrap_err();
        assert!(why.contains("TLS_CERT"), "{why}");
        let mut odd = tacker("v2", None);
        odd.filter = Some(r#"{"somethingElse": 1}"#.into());
        assert!(ours(&odd).unwrap_err().contains("filter"));
    }
}
