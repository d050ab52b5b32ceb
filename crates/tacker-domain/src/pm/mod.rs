//! VNF performance management (SOL003 v3.3.1 `/vnfpm/v2`, as Tacker's Prometheus plugin
//! does it): PM jobs and thresholds over the metrics of Tacker's PromQL table, the
//! Prometheus rules they become ([`rules`]), the reports and crossings the alerts of
//! those rules feed ([`report`], [`threshold`]).

pub mod job;
pub mod metadata;
pub mod report;
pub mod rules;
pub mod threshold;

use serde::{Deserialize, Serialize};

crate::text_enum! {
    /// What a PM job or threshold measures.
    ObjectType, "objectType" {
        /// A whole VNF.
        Vnf = "Vnf",
        /// VNFCs.
        Vnfc = "Vnfc",
        /// Internal connection points.
        VnfIntCp = "VnfIntCp",
        /// External connection points.
        VnfExtCp = "VnfExtCp",
    }
}

/// The virtualised compute metrics (`<name>.<objectInstanceId>` in requests).
pub const COMPUTE_METRICS: &[&str] = &[
    "VCpuUsageMeanVnf",
    "VCpuUsagePeakVnf",
    "VMemoryUsageMeanVnf",
    "VMemoryUsagePeakVnf",
    "VDiskUsageMeanVnf",
    "VDiskUsagePeakVnf",
];

/// The connection point metrics of internal (`Int`) or external (`Ext`) CPs.
fn cp_metrics(kind: &str) -> Vec<String> {
    [
        "ByteIncoming",
        "ByteOutgoing",
        "PacketIncoming",
        "PacketOutgoing",
    ]
    .iter()
    .map(|m| format!("{m}Vnf{kind}Cp"))
    .collect()
}

impl ObjectType {
    /// The metric group of this object type (`performanceMetricGroup`).
    pub fn group(self) -> &'static str {
        match self {
            ObjectType::Vnf | ObjectType::Vnfc => "VirtualisedComputeResource",
            ObjectType::VnfIntCp => "VnfInternalCp",
            ObjectType::VnfExtCp => "VnfExternalCp",
        }
    }

    /// The metric names (without their `.<object>` suffix) of this object type.
    pub fn metrics(self) -> Vec<String> {
        match self {
            ObjectType::Vnf | ObjectType::Vnfc => {
                COMPUTE_METRICS.iter().map(|m| (*m).to_owned()).collect()
            }
            ObjectType::VnfIntCp => cp_metrics("Int"),
            ObjectType::VnfExtCp => cp_metrics("Ext"),
        }
    }

    /// Whether its metrics are written `<name>.<objectInstanceId>`.
    pub fn suffixed(self) -> bool {
        matches!(self, ObjectType::Vnf | ObjectType::Vnfc)
    }
}

/// A metric as requested, checked against the object type: its name in the PromQL
/// table and the object it names (suffixed metrics).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metric {
    /// As requested (`VCpuUsageMeanVnf.<id>`, `ByteIncomingVnfIntCp`).
    pub full: String,
    /// The PromQL table's key.
    pub name: String,
    /// The object a suffixed metric names.
    pub object: Option<String>,
}

/// Reads `raw` as a metric of `t`; why not.
pub fn metric(t: ObjectType, raw: &str) -> Result<Metric, String> {
    let (name, object) = match raw.split_once('.') {
        Some((n, o)) => (n, Some(o)),
        None => (raw, None),
    };
    if !t.metrics().iter().any(|m| m == name) {
        return Err(format!(
            "performanceMetric {raw:?} is not a metric of objectType {t} (those are {})",
            t.metrics().join(", ")
        ));
    }
    match (t.suffixed(), object) {
        (true, None | Some("")) => Err(format!(
            "performanceMetric {raw:?}: metrics of objectType {t} name their object: {name}.<objectInstanceId>"
        )),
        (false, Some(_)) => Err(format!(
            "performanceMetric {raw:?}: metrics of objectType {t} take no .<objectInstanceId>"
        )),
        _ => Ok(Metric {
            full: raw.to_owned(),
            name: name.to_owned(),
            object: object.map(str::to_owned),
        }),
    }
}
