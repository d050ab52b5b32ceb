//! Operation occurrences of both of Tacker's APIs, the history of imported instances.
//! Only ended ones come over (COMPLETED, FAILED, ROLLED_BACK): one in progress or
//! FAILED_TEMP is Tacker's to finish, and is skipped with that reason. Its request is read
//! by the rules of our API for its version (one we cannot read is skipped with the
//! reason), its secrets are sealed and the body shown masked, and it belongs to its
//! instance's tenant. Tacker's v1 keeps the request as a Python repr and the rest with
//! snake_case keys: read as the JSON and the camelCase keys its API answers.

use std::sync::Arc;

use chrono::Utc;
use serde_json::{Map, Value};
use tacker_db::Db;
use tacker_db::op_occs;
use tacker_db::secrets::Keyring;
use tacker_domain::ProblemDetails;
use tacker_domain::lcm::secrets::shown_params;
use tacker_domain::lcm::{ApiVersion, LcmOperation, OpOcc, OperationParams, OperationState};
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
    let v1 = t.api == "v1";
    let (params, api) = if v1 {
        (v1_request(params.as_deref())?, ApiVersion::V1)
    } else {
        let p = value(params.as_deref(), "operationParams")?.unwrap_or_default();
        (p, ApiVersion::V2)
    };
    // v1's columns with snake_case keys, as its API answers them.
    let json = |text: &Option<String>, what: &str| {
        Ok::<_, String>(value(text.as_deref(), what)?.map(|v| if v1 { camel(v) } else { v }))
    };
    let request = OperationParams::parse_in(operation, api, &params).map_err(|f| {
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
    op.error = json(error, "error")?
        .map(serde_json::from_value::<ProblemDetails>)
        .transpose()
        .map_err(|e| format!("its error is not ProblemDetails: {e}"))?;
    op.resource_changes = json(changes, "resourceChanges")?;
    // Tacker keeps a MODIFY_INFO's new VIM connections with their credentials in the
    // clear: shown masked, as our own occurrences keep them.
    op.changed_info = json(changed_info, "changedInfo")?.map(|v| shown_params(&v));
    op.changed_ext_connectivity =
        json(changed_ext, "changedExtConnectivity")?.map(|v| shown_params(&v));
    Ok(op)
}

/// A v1 request as Tacker keeps it: `str(body)`, a Python repr (as a JSON string, or
/// bare), or JSON.
fn v1_request(text: Option<&str>) -> std::result::Result<Value, String> {
    let unreadable = |e: String| {
        format!("its request (a Python literal, as Tacker's v1 keeps it) does not read: {e}")
    };
    let Some(text) = text else {
        return Ok(Value::Object(Map::new()));
    };
    match value(Some(text), "operationParams") {
        Ok(Some(Value::String(repr))) => crate::pyrepr::parse(&repr).map_err(unreadable),
        Ok(Some(v)) => Ok(v),
        Ok(None) => Ok(Value::Object(Map::new())),
        Err(_) => crate::pyrepr::parse(text).map_err(unreadable),
    }
}

/// Maps whose keys are the user's, not Tacker's: kept as they are.
const FREE_FORM: [&str; 4] = [
    "metadata",
    "extensions",
    "vnf_configurable_properties",
    "additional_params",
];

/// `v` with its keys in camelCase as Tacker's v1 API answers them (`_x` -> `X` for a
/// lowercase letter `x`), the values of free-form maps left as they are.
fn camel(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| {
                    let v = if FREE_FORM.contains(&k.as_str()) {
                        v
                    } else {
                        camel(v)
                    };
                    (camel_key(&k), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(camel).collect()),
        other => other,
    }
}

fn camel_key(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut chars = k.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(n) if c == '_' && n.is_ascii_lowercase() => {
                out.push(n.to_ascii_uppercase());
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
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
    let op = op.sealed(&[], &mut |plain| keyring.seal(plain))?;
    Ok(match db.op_occs().insert_imported(&op).await? {
        true => Outcome::Imported,
        false => Outcome::Skipped("stored meanwhile, or its instance went".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tacker(state: &str) -> TackerOpOcc {
        TackerOpOcc {
            id: Uuid::new_v4().to_string(),
            api: "v2",
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

    #[test]
    fn v1_occurrences_read_their_python_request_and_snake_case_columns() {
        let mut t = tacker("COMPLETED");
        t.api = "v1";
        t.operation = "MODIFY_INFO".into();
        // As Tacker 16 stores a v1 PATCH.
        t.json = [
            Some(r#""{'vnfInstanceDescription': 'set in v1', 'metadata': {'a_b': 1}}""#.into()),
            Some("null".into()),
            Some("null".into()),
            Some(
                r#""{\"vnf_instance_description\": \"set in v1\", \"metadata\": {\"a_b\": 1}}""#
                    .into(),
            ),
            Some("[]".into()),
        ];
        let op = ours(&t).unwrap();
        assert_eq!(op.operation, LcmOperation::ModifyInfo);
        assert_eq!(
            op.changed_info,
            Some(
                serde_json::json!({"vnfInstanceDescription": "set in v1", "metadata": {"a_b": 1}})
            )
        );
        assert!(op.error.is_none());
        t.json[0] = Some(r#""{'vnfInstanceDescription': os.system('x')}""#.into());
        assert!(ours(&t).unwrap_err().contains("Python literal"));
        assert_eq!(camel_key("vnfc_cp_info"), "vnfcCpInfo");
        assert_eq!(camel_key("vdu_1_x"), "vdu_1X");
    }
}
