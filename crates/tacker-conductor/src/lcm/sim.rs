//! A simulated VIM (`TACKER.SIM.V_1`): a deterministic infra driver for tests and demos
//! that keeps VNFC resources in memory-free form (everything is derived from the
//! instance and the request). Faults are injected from `additionalParams.sim`:
//! `{"fail": ["instantiate", ...], "failTimes": n, "delayMs": ms, "holdFile": path}`
//! (`holdFile`: every step waits while that file exists). With a database the
//! `failTimes` count is kept there, so a retry on another conductor continues it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::{DriverError, InfraDriver, MgmtDriver, OpContext, Outcome};
use tacker_domain::lcm::{
    InstantiatedVnfInfo, LcmOperation, OperationParams, ResourceHandle, VnfcInfo, VnfcResourceInfo,
};
use uuid::Uuid;

use tacker_domain::lcm::plan;

/// The simulated VIM type.
pub const SIM_VIM: &str = tacker_domain::lcm::vim_type::SIMULATED;

/// The simulated infra driver (also a management driver that can fail hooks).
#[derive(Default)]
pub struct SimDriver {
    /// Where injected failures are counted for every conductor (else in `failures`).
    db: Option<tacker_db::Db>,
    failures: Mutex<HashMap<(Uuid, String), u32>>,
    runs: Mutex<HashMap<(Uuid, String), u32>>,
}

impl std::fmt::Debug for SimDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimDriver")
            .field("shared_counts", &self.db.is_some())
            .finish_non_exhaustive()
    }
}

fn sim_params(octx: &OpContext) -> Value {
    octx.op
        .request
        .additional_params()
        .get("sim")
        .cloned()
        .or_else(|| octx.instance.extensions.get("sim").cloned())
        .unwrap_or(Value::Null)
}

impl SimDriver {
    /// A simulated VIM that counts injected failures in `db`.
    pub fn with_db(db: tacker_db::Db) -> Self {
        Self {
            db: Some(db),
            ..Self::default()
        }
    }

    /// How often `step` (`instantiate`, `instantiate_end`, ...) ran for occurrence `op`.
    pub fn runs(&self, op: Uuid, step: &str) -> u32 {
        self.runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(op, step.to_owned()))
            .copied()
            .unwrap_or(0)
    }

    /// Applies the injected delay and failure for `step` of this occurrence.
    async fn faults(&self, octx: &OpContext, step: &str) -> Result<(), DriverError> {
        *self
            .runs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry((octx.op.id, step.to_owned()))
            .or_insert(0) += 1;
        let p = sim_params(octx);
        if let Some(ms) = p.get("delayMs").and_then(Value::as_u64) {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        if let Some(hold) = p.get("holdFile").and_then(Value::as_str) {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(600);
            while std::path::Path::new(hold).exists() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        let fails = p
            .get("fail")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|s| s == step));
        if !fails {
            return Ok(());
        }
        let times = p
            .get("failTimes")
            .and_then(Value::as_u64)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        if self.fail_again(octx.op.id, step, times).await? {
            return Err(DriverError::new(
                500,
                format!("simulated failure at {step}"),
            ));
        }
        Ok(())
    }

    /// Counts one more injected failure of `step` unless `times` were counted.
    async fn fail_again(
        &self,
        op: Uuid,
        step: &str,
        times: Option<u32>,
    ) -> Result<bool, DriverError> {
        if let Some(db) = &self.db {
            return db
                .sim_faults()
                .fail_again(op, step, times)
                .await
                .map_err(|e| DriverError::new(503, format!("counting simulated failures: {e}")));
        }
        let mut f = self
            .failures
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = f.entry((op, step.to_owned())).or_insert(0);
        if times.is_none_or(|t| *count < t) {
            *count += 1;
            return Ok(true);
        }
        Ok(false)
    }
}

/// A new VNFC of `vdu` in the VIM connection of the operation.
fn vnfc(octx: &OpContext, vdu: &str) -> (VnfcResourceInfo, VnfcInfo) {
    let name = name_of(octx, vdu);
    let resource = format!("{name}-{}", &Uuid::new_v4().simple().to_string()[..5]);
    let r = VnfcResourceInfo {
        id: Uuid::new_v4().to_string(),
        vdu_id: vdu.to_owned(),
        compute_resource: ResourceHandle {
            vim_connection_id: octx.vim.as_ref().map(|v| v.id.clone()),
            resource_id: resource.clone(),
            vim_level_resource_type: Some("sim.Compute".into()),
        },
        vnfc_cp_info: Vec::new(),
        metadata: Map::new(),
    };
    let c = VnfcInfo {
        id: format!("{vdu}-{resource}"),
        vdu_id: vdu.to_owned(),
        vnfc_resource_info_id: r.id.clone(),
        vnfc_state: "STARTED".into(),
        vnfc_configurable_properties: Default::default(),
    };
    (r, c)
}

fn affected(r: &VnfcResourceInfo, change: &str) -> Value {
    json!({"id": r.id, "vduId": r.vdu_id, "changeType": change, "computeResource": r.compute_resource})
}

fn name_of(octx: &OpContext, vdu: &str) -> String {
    octx.vnfd
        .flavour(&octx.flavour_id)
        .and_then(|f| f.vdu(vdu))
        .map(|v| {
            if v.name.is_empty() {
                vdu.to_lowercase()
            } else {
                v.name.clone()
            }
        })
        .unwrap_or_else(|| vdu.to_lowercase())
}

fn changes(list: Vec<Value>) -> Map<String, Value> {
    Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(list))])
}

#[async_trait::async_trait]
impl InfraDriver for SimDriver {
    async fn instantiate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "instantiate").await?;
        let mut info = InstantiatedVnfInfo {
            flavour_id: octx.flavour_id.clone(),
            vnf_state: "STARTED".into(),
            scale_status: Vec::new(),
            max_scale_levels: Vec::new(),
            vnfc_resource_info: Vec::new(),
            vnfc_info: Vec::new(),
            other: Map::new(),
        };
        if let (Some(f), OperationParams::Instantiate(req)) =
            (octx.vnfd.flavour(&octx.flavour_id), &octx.op.request)
        {
            let level = plan::level(f, req);
            let (status, max) = plan::initial_scale(&octx.vnfd.vnfd_id, f, level.as_deref());
            info.scale_status = status;
            info.max_scale_levels = max;
        }
        let mut added = Vec::new();
        for (vdu, n) in plan::initial_counts_of(octx) {
            for _ in 0..n {
                let (r, c) = vnfc(octx, &vdu);
                added.push(affected(&r, "ADDED"));
                info.vnfc_resource_info.push(r);
                info.vnfc_info.push(c);
            }
        }
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: changes(added),
        })
    }

    async fn terminate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "terminate").await?;
        let removed = octx
            .instance
            .instantiated_vnf_info
            .iter()
            .flat_map(|i| i.vnfc_resource_info.iter().map(|r| affected(r, "REMOVED")))
            .collect();
        Ok(Outcome {
            instantiated_vnf_info: None,
            resource_changes: changes(removed),
        })
    }

    async fn scale(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "scale").await?;
        let mut info = octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| DriverError::new(409, "not instantiated"))?;
        let flavour = octx
            .vnfd
            .flavour(&octx.flavour_id)
            .ok_or_else(|| DriverError::new(422, "flavour gone"))?;
        let OperationParams::Scale(req) = &octx.op.request else {
            return Err(DriverError::new(400, "not a scale request"));
        };
        let step =
            plan::checked_scale_step(flavour, &info, req).map_err(|e| DriverError::new(400, e))?;
        let mut list = Vec::new();
        for (vdu, delta) in &step.deltas {
            if *delta > 0 {
                for _ in 0..*delta {
                    let (r, c) = vnfc(octx, vdu);
                    list.push(affected(&r, "ADDED"));
                    info.vnfc_resource_info.push(r);
                    info.vnfc_info.push(c);
                }
            } else {
                for _ in 0..delta.unsigned_abs() {
                    let Some(pos) = info
                        .vnfc_resource_info
                        .iter()
                        .rposition(|r| r.vdu_id == *vdu)
                    else {
                        break;
                    };
                    let r = info.vnfc_resource_info.remove(pos);
                    info.vnfc_info.retain(|c| c.vnfc_resource_info_id != r.id);
                    list.push(affected(&r, "REMOVED"));
                }
            }
        }
        let new_level = step.to_level;
        let aspect = step.aspect.as_str();
        for s in &mut info.scale_status {
            if s.aspect_id == aspect {
                s.scale_level = new_level;
            }
        }
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: changes(list),
        })
    }

    async fn heal(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "heal").await?;
        let mut info = octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| DriverError::new(409, "not instantiated"))?;
        let OperationParams::Heal(req) = &octx.op.request else {
            return Err(DriverError::new(400, "not a heal request"));
        };
        let mut list = Vec::new();
        let healed: Vec<VnfcInfo> = info
            .vnfc_info
            .iter()
            .filter(|c| req.is_whole_vnf() || req.vnfc_instance_id.contains(&c.id))
            .cloned()
            .collect();
        for c in healed {
            let Some(pos) = info
                .vnfc_resource_info
                .iter()
                .position(|r| r.id == c.vnfc_resource_info_id)
            else {
                continue;
            };
            let old = info.vnfc_resource_info.remove(pos);
            let (r, nc) = vnfc(octx, &c.vdu_id);
            list.push(affected(&old, "REMOVED"));
            list.push(affected(&r, "ADDED"));
            info.vnfc_info.retain(|x| x.id != c.id);
            info.vnfc_resource_info.insert(pos, r);
            info.vnfc_info.push(nc);
        }
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: changes(list),
        })
    }

    async fn change_ext_conn(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "change_ext_conn").await?;
        let mut info = octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| DriverError::new(409, "not instantiated"))?;
        if let OperationParams::ChangeExtConn(req) = &octx.op.request {
            info.other.insert(
                "extVirtualLinkInfo".into(),
                Value::Array(req.ext_virtual_links.clone()),
            );
        }
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: Map::new(),
        })
    }

    async fn change_flavour(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "change_flavour").await?;
        let OperationParams::ChangeFlavour(req) = &octx.op.request else {
            return Err(DriverError::new(400, "not a change_flavour request"));
        };
        let old = octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| DriverError::new(409, "not instantiated"))?;
        let f = octx
            .vnfd
            .flavour(&req.new_flavour_id)
            .ok_or_else(|| DriverError::new(422, "the new flavour is not in the VNFD"))?;
        let level = req.level(f);
        let (status, max) = plan::initial_scale(&octx.vnfd.vnfd_id, f, level.as_deref());
        let mut list: Vec<Value> = old
            .vnfc_resource_info
            .iter()
            .map(|r| affected(r, "REMOVED"))
            .collect();
        let mut info = InstantiatedVnfInfo {
            flavour_id: f.id.clone(),
            scale_status: status,
            max_scale_levels: max,
            vnfc_resource_info: Vec::new(),
            vnfc_info: Vec::new(),
            ..old
        };
        for (vdu, n) in plan::initial_counts(f, level.as_deref()) {
            for _ in 0..n {
                let (r, c) = vnfc(octx, &vdu);
                list.push(affected(&r, "ADDED"));
                info.vnfc_resource_info.push(r);
                info.vnfc_info.push(c);
            }
        }
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: changes(list),
        })
    }

    async fn operate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "operate").await?;
        let mut info = octx
            .instance
            .instantiated_vnf_info
            .clone()
            .ok_or_else(|| DriverError::new(409, "not instantiated"))?;
        let OperationParams::Operate(req) = &octx.op.request else {
            return Err(DriverError::new(400, "not an operate request"));
        };
        let to = req.change_state_to.as_str();
        let mut list = Vec::new();
        for c in info.vnfc_info.iter_mut().filter(|c| req.covers(&c.id)) {
            if c.vnfc_state != to {
                c.vnfc_state = to.to_owned();
                if let Some(r) = info
                    .vnfc_resource_info
                    .iter()
                    .find(|r| r.id == c.vnfc_resource_info_id)
                {
                    list.push(affected(r, "MODIFIED"));
                }
            }
        }
        if req.vnfc_instance_id.is_empty() {
            info.vnf_state = to.to_owned();
        }
        Ok(Outcome {
            instantiated_vnf_info: Some(info),
            resource_changes: changes(list),
        })
    }

    async fn rollback(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        self.faults(octx, "rollback").await?;
        let before = match octx.op.operation {
            LcmOperation::Instantiate => None,
            _ => octx.instance.instantiated_vnf_info.clone(),
        };
        Ok(Outcome {
            instantiated_vnf_info: before,
            resource_changes: Map::new(),
        })
    }

    async fn sync(&self, octx: &OpContext) -> Result<Option<InstantiatedVnfInfo>, DriverError> {
        Ok(octx.instance.instantiated_vnf_info.clone())
    }
}

#[async_trait::async_trait]
impl MgmtDriver for SimDriver {
    async fn run_hook(&self, hook: &str, octx: &OpContext) -> Result<(), DriverError> {
        self.faults(octx, hook).await
    }
}
