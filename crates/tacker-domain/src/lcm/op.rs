//! Operation occurrences and their state machine.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use super::occ_info::OccInfo;
use super::request::OperationParams;
use crate::ProblemDetails;

crate::text_enum! {
    /// The LCM operations.
    LcmOperation, "operation" {
        /// instantiate
        Instantiate = "INSTANTIATE",
        /// scale
        Scale = "SCALE",
        /// scale_to_level
        ScaleToLevel = "SCALE_TO_LEVEL",
        /// change_flavour
        ChangeFlavour = "CHANGE_FLAVOUR",
        /// terminate
        Terminate = "TERMINATE",
        /// heal
        Heal = "HEAL",
        /// operate
        Operate = "OPERATE",
        /// change_ext_conn
        ChangeExtConn = "CHANGE_EXT_CONN",
        /// PATCH of an instance
        ModifyInfo = "MODIFY_INFO",
        /// create_snapshot
        CreateSnapshot = "CREATE_SNAPSHOT",
        /// revert_to_snapshot
        RevertToSnapshot = "REVERT_TO_SNAPSHOT",
        /// change_vnfpkg
        ChangeVnfpkg = "CHANGE_VNFPKG",
    }
}

impl LcmOperation {
    /// The `Vnflcm` hook name prefix (e.g. `instantiate` for `instantiate_start`).
    pub fn hook_prefix(self) -> &'static str {
        match self {
            LcmOperation::Instantiate => "instantiate",
            LcmOperation::Scale => "scale",
            LcmOperation::ScaleToLevel => "scale_to_level",
            LcmOperation::ChangeFlavour => "change_flavour",
            LcmOperation::Terminate => "terminate",
            LcmOperation::Heal => "heal",
            LcmOperation::Operate => "operate",
            LcmOperation::ChangeExtConn => "change_external_connectivity",
            LcmOperation::ModifyInfo => "modify_information",
            LcmOperation::CreateSnapshot => "create_snapshot",
            LcmOperation::RevertToSnapshot => "revert_to_snapshot",
            LcmOperation::ChangeVnfpkg => "change_current_package",
        }
    }
}

crate::text_enum! {
    /// How a cancellation stops an occurrence (`cancelMode`).
    CancelMode, "cancelMode" {
        /// After the step running now (the driver call, the hook, the grant) ends.
        Graceful = "GRACEFUL",
        /// At once: the step running now is interrupted.
        Forceful = "FORCEFUL",
    }
}

crate::text_enum! {
    /// Where an operation occurrence is.
    OperationState, "operationState" {
        /// Accepted, not yet granted.
        Starting = "STARTING",
        /// Running.
        Processing = "PROCESSING",
        /// Done.
        Completed = "COMPLETED",
        /// Failed; can be retried, rolled back or failed for good.
        FailedTemp = "FAILED_TEMP",
        /// Failed for good.
        Failed = "FAILED",
        /// Being rolled back.
        RollingBack = "ROLLING_BACK",
        /// Rolled back.
        RolledBack = "ROLLED_BACK",
    }
}

impl OperationState {
    /// Whether nothing more will happen to the occurrence.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            OperationState::Completed | OperationState::Failed | OperationState::RolledBack
        )
    }

    /// Whether a conductor is (or should be) working on it.
    pub fn in_progress(self) -> bool {
        matches!(
            self,
            OperationState::Starting | OperationState::Processing | OperationState::RollingBack
        )
    }
}

/// An operation occurrence (`{:?}` shows its request as answered, without secrets).
#[derive(Clone, PartialEq)]
pub struct OpOcc {
    /// Id.
    pub id: Uuid,
    /// The instance.
    pub vnf_instance_id: Uuid,
    /// The operation.
    pub operation: LcmOperation,
    /// State.
    pub state: OperationState,
    /// When the state was entered.
    pub state_entered_time: DateTime<Utc>,
    /// When it started.
    pub start_time: DateTime<Utc>,
    /// The request body as received (answered as `operationParams`).
    pub operation_params: Value,
    /// The request, typed (what the engine and the drivers read).
    pub request: OperationParams,
    /// Why it failed.
    pub error: Option<ProblemDetails>,
    /// `resourceChanges`.
    pub resource_changes: Option<Value>,
    /// `changedInfo`.
    pub changed_info: Option<Value>,
    /// `changedExtConnectivity`.
    pub changed_ext_connectivity: Option<Value>,
    /// The grant.
    pub grant_id: Option<String>,
    /// The conductor running it.
    pub conductor_id: Option<String>,
    /// The tenant of its instance (recorded when it starts).
    pub tenant: Option<String>,
    /// Started by the VNFM itself (auto-heal, auto-scale), not by a request.
    pub is_automatic_invocation: bool,
    /// A cancellation asked for and not yet carried out (`isCancelPending`).
    pub cancel_pending: Option<CancelMode>,
}

impl std::fmt::Debug for OpOcc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpOcc")
            .field("id", &self.id)
            .field("vnf_instance_id", &self.vnf_instance_id)
            .field("operation", &self.operation)
            .field("state", &self.state)
            .field("state_entered_time", &self.state_entered_time)
            .field("start_time", &self.start_time)
            .field(
                "operation_params",
                &super::secrets::shown_params(&self.operation_params),
            )
            .field("request", &self.request)
            .field("error", &self.error)
            .field("resource_changes", &self.resource_changes)
            .field("changed_info", &self.changed_info)
            .field("changed_ext_connectivity", &self.changed_ext_connectivity)
            .field("grant_id", &self.grant_id)
            .field("conductor_id", &self.conductor_id)
            .field("tenant", &self.tenant)
            .field("is_automatic_invocation", &self.is_automatic_invocation)
            .field("cancel_pending", &self.cancel_pending)
            .finish()
    }
}

impl OpOcc {
    /// An occurrence of `request` (received as `operation_params`) entering `state`
    /// now, with nothing recorded yet.
    pub fn new(
        id: Uuid,
        vnf_instance_id: Uuid,
        state: OperationState,
        request: OperationParams,
        operation_params: Value,
    ) -> Self {
        let now = Utc::now();
        Self {
            id,
            vnf_instance_id,
            operation: request.operation(),
            state,
            state_entered_time: now,
            start_time: now,
            operation_params,
            request,
            error: None,
            resource_changes: None,
            changed_info: None,
            changed_ext_connectivity: None,
            grant_id: None,
            conductor_id: None,
            tenant: None,
            is_automatic_invocation: false,
            cancel_pending: None,
        }
    }

    /// Whether a cancellation may stop it (STARTING, PROCESSING, ROLLING_BACK).
    pub fn cancellable(&self) -> bool {
        matches!(
            self.state,
            OperationState::Starting | OperationState::Processing | OperationState::RollingBack
        )
    }

    /// The `VnfLcmOpOcc` body, links under `base` (e.g. `http://h/vnflcm/v2`).
    pub fn to_json(&self, base: &str) -> Value {
        self.info(base, |_| false).to_value()
    }

    /// Its representation without the complex attributes `left_out` names, to be
    /// written as it is or made a value.
    pub fn info<'a, F: Fn(&str) -> bool>(&'a self, base: &'a str, left_out: F) -> OccInfo<'a, F> {
        OccInfo {
            occ: self,
            base,
            left_out,
        }
    }
}

/// Top-level attributes of `VnfLcmOpOcc` that filters may name.
pub const OP_OCC_ATTRIBUTES: &[&str] = &[
    "id",
    "operationState",
    "stateEnteredTime",
    "startTime",
    "vnfInstanceId",
    "grantId",
    "operation",
    "isAutomaticInvocation",
    "operationParams",
    "isCancelPending",
    "cancelMode",
    "error",
    "resourceChanges",
    "changedInfo",
    "changedExtConnectivity",
    "_links",
];

/// Complex attributes left out of lists by default.
pub const OP_OCC_DEFAULT_EXCLUDED: &[&str] = &[
    "operationParams",
    "error",
    "resourceChanges",
    "changedInfo",
    "changedExtConnectivity",
];
