//! Request messages and their wire names.

use crate::proto;

/// A protobuf message that travels on the bus under a fixed name.
pub trait Method: prost::Message + Default + Send + 'static {
    /// The fully qualified message name, e.g. `tacker.rpc.v1.Ping`.
    const NAME: &'static str;
}

macro_rules! methods {
    ($($ty:ident),+ $(,)?) => {
        $(impl Method for proto::$ty {
            const NAME: &'static str = concat!("tacker.rpc.v1.", stringify!($ty));
        })+
    };
}

methods!(
    Ping,
    Pong,
    UploadPackage,
    UploadFromUri,
    DownloadCsar,
    DownloadCsarDone,
    DeletePackage,
    DropCache,
    DropCacheDone,
    PrefetchCsar,
    RunLcmOp,
    SyncInstance,
    SyncInstanceDone,
    DeliverRules,
    RulesDelivered,
    ClosedLoopDue,
    CheckVim,
    VimChecked,
);
