//! VNF lifecycle management (SOL003 v3.3.1, our `/vnflcm/v2`): instances, operation
//! occurrences and their state machine, subscriptions and notifications, and the driver
//! traits the engine calls.

pub mod change_flavour;
pub mod cnf;
pub mod driver;
mod instance;
mod instance_info;
mod notification;
mod occ_info;
mod op;
pub mod operate;
pub mod plan;
pub mod request;
pub mod scale_to_level;
pub mod secrets;
pub(crate) mod subscription;
pub mod vim_type;

pub use instance::{
    CpProtocolInfo, InstantiatedVnfInfo, InstantiationState, IpAddresses, IpOverEthernet,
    ResourceHandle, ScaleInfo, VNF_INSTANCE_ATTRIBUTES, VNF_INSTANCE_DEFAULT_EXCLUDED, VnfInstance,
    VnfcCpInfo, VnfcInfo, VnfcResourceInfo, address_of,
};
pub use instance_info::InstanceInfo;
pub use notification::{Notification, NotificationKind, OpFacts};
pub use occ_info::OccInfo;
pub use op::{
    CancelMode, LcmOperation, OP_OCC_ATTRIBUTES, OP_OCC_DEFAULT_EXCLUDED, OpOcc, OperationState,
};
pub use request::OperationParams;
pub use secrets::redact_vim_connection_info;
pub use subscription::{
    Authentication, InstanceFilter, Subscription, SubscriptionAuth, SubscriptionFilter,
    check_callback_uri,
};

crate::text_enum! {
    /// The LCM API version a resource was made through (links and bodies follow it).
    ApiVersion, "API version" {
        /// `/vnflcm/v1` (SOL003 v2.6.1 bodies, Tacker's v1).
        V1 = "v1",
        /// `/vnflcm/v2` (SOL003 v3.3.1).
        V2 = "v2",
    }
}

impl ApiVersion {
    /// `<root>/vnflcm/<version>`, under which its links are written.
    pub fn base(self, root: &str) -> String {
        format!("{}/vnflcm/{}", root.trim_end_matches('/'), self.as_str())
    }
}
