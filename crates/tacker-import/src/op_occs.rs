//! v2 operation occurrences, the history of imported instances. Only ended ones come
//! over (COMPLETED, FAILED, ROLLED_BACK): one in progress or FAILED_TEMP is Tacker's to
//! finish, and is skipped with that reason. Its request is read by the rules of our API
//! (one we cannot read is skipped with the reason), its secrets are sealed and the body
//! shown masked, and it belongs to its instance's tenant.

use std::sync::Arc;

use chrono::Utc;
use tacker_db::Db;
use tacker_db::op_occs;
use tacker_db::secrets::Keyring;
use tacker_domain::ProblemDetails;
use tacker_domain::lcm::secrets::shown_params;
use tacker_domain::lcm::{LcmOperation, OpOcc, OperationParams, OperationState};
use uuid::Uuid;

use crate::Result;
use crate::json::value;
use crate::source::TackerOpOcc;
use crate::summary::Outcome;

/// Tacker's occurrence `t` as ours (secrets not sealed yet): `Err` says why it cannot
/// come over.
pub fn ours(t: &TackerOpOcc) -> std::result::Result<OpOcc, String> {
    let state: OperationState = t
        .state
        .parse()
        .map_err(|_| format!("operationState {:?} is not one of ours", t.state))?;
    if !matches!(
        state,
        OperationState::Completed | OperationState::Failed | OperationState::RolledBack
    ) {
        return Err(format!(
            "it is {state} in Tacker: an occurrence that has not ended is Tacker's to finish"
        ));
    }
    let operation: LcmOperation = t
        .operation
        .parse()
        .map_err(|_| format!("operation {:?} is not one of ours", t.operation))?;
    let uuid = |s: &str, what: &str| {
        s.parse::<Uuid>()
            .map_err(|e| format!("{what} is not a UUID: {e}"))
    };
    let [params, error, changes, changed_info, changed_ext] = &t.json;
    let params = value(params.as_deref(), "operationParams")?.unwrap_or_default();
    let request = OperationParams::parse(operation, &params).map_err(|f| {
        format!(
            "its request is not one ours reads: {}",
            crate::json::unquoted(&f.detail)
        )
    })?;
    let mut op = OpOcc::new(
        uuid(&t.id, "id")?,
        uuid(&t.vnf_instance_id, "vnfInstanceId")?,
        state,
        request,
        params,
    );
    op.operation = operation;
    op.state_entered_time = t.state_entered_time.unwrap_or_else(Utc::now);
    op.start_time = t.start_time.unwrap_or(op.state_entered_time);
    op.grant_id = t.grant_id.clone();
    op.is_automatic_invocation = t.automatic;
    op.error = value(error.as_deref(), "error")?
        .map(serde_json::from_value::<ProblemDetails>)
        .transpose()
        .map_err(|e| format!("its error is not ProblemDetails: {e}"))?;
    op.resource_changes = value(changes.as_deref(), "resourceChanges")?;
    // Tacker keeps a MODIFY_INFO's new VIM connections with their credentials in the
    // clear: shown masked, as our own occurrences keep them.
    op.changed_info = value(changed_info.as_deref(), "changedInfo")?.map(|v| shown_params(&v));
    op.changed_ext_connectivity =
        value(changed_ext.as_deref(), "changedExtConnectivity")?.map(|v| shown_params(&v));
    Ok(op)
}

/// Imports `op` (or, with `dry_run`, says what importing it would do); `instances`: the
/// instances imported (in a dry run: to be) by this run.
pub async fn import(
    db: &Db,
    keyring: &Arc<Keyring>,
    op: OpOcc,
    instances: &std::collections::HashSet<Uuid>,
    dry_run: bool,
) -> Result<Outcome> {
    let (id, instance) = (op.id, op.vnf_instance_id);
    let (exists, has_instance) = db
        .run(move |c| {
            Ok((
                op_occs::get(c, id)?.is_some(),
                tacker_db::instances::get(c, instance)?.is_some(),
            ))
        })
        .await?;
    if exists {
        return Ok(Outcome::Unchanged);
    }
    let coming = dry_run && instances.contains(&instance);
    if !(has_instance || coming) {
        return Ok(Outcome::Skipped(format!(
            "its instance {instance} is not imported"
        )));
    }
    if dry_run {
        return Ok(Outcome::Imported);
    }
    let keys = keyring.clone();
    let op = op.sealed(&[], &mut |plain| keys.seal(plain))?;
    Ok(
        match db.run(move |c| op_occs::insert_imported(c, &op)).await? {
            true => Outcome::Imported,
            false => Outcome::Skipped("stored meanwhile, or its instance went".into()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tacker(state: &str) -> TackerOpOcc {
        TackerOpOcc {
            id: Uuid::new_v4().to_string(),
            state: state.into(),
            state_entered_time: None,
            start_time: None,
            vnf_instance_id: Uuid::new_v4().to_string(),
            grant_id: None,
            operation: "INSTANTIATE".into(),
            automatic: false,
            json: [
                Some(
                    r#"{"flavourId": "simple", "vimConnectionInfo": {"vim1": {"vimType": "kubernetes",
                    "accessInfo": {"bearer_token": "secret-token"}, "interfaceInfo": {"endpoint": "https://k"}}}}"#
                        .into(),
                ),
                Some(r#""{\"status\": 500, \"detail\": \"the VIM said no\"}""#.into()),
                None,
                None,
                None,
            ],
        }
    }

    #[test]
    fn ended_occurrences_come_over_with_their_error_and_request() {
        let op = ours(&tacker("FAILED")).unwrap();
        assert_eq!(op.state, OperationState::Failed);
        assert_eq!(op.error.unwrap().detail, "the VIM said no");
        assert_eq!(op.operation, LcmOperation::Instantiate);
        let why = ours(&tacker("FAILED_TEMP")).unwrap_err();
        assert!(why.contains("Tacker's to finish"), "{why}");
        let mut modified = tacker("COMPLETED");
        modified.json[3] = Some(
            r#""{\"vimConnectionInfo\": {\"v\": {\"accessInfo\": {\"password\": \"pw-in-clear\"}}}}""#
                .into(),
        );
        let op = ours(&modified).unwrap();
        let shown = op.changed_info.unwrap().to_string();
        assert!(!shown.contains("pw-in-clear"), "{shown}");
        let mut odd = tacker("COMPLETED");
        odd.json[0] = Some(r#"{"flavourId": 7}"#.into());
        assert!(ours(&odd).unwrap_err().contains("request"));
    }
}
