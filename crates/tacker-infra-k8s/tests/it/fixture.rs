//! The CNF package unpacked, a VNF instance, and operation contexts for the driver.

use std::io::Cursor;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::{OpContext, Outcome, VimConnection};
use tacker_domain::lcm::{
    InstantiationState, LcmOperation, OpOcc, OperationParams, OperationState, VnfInstance,
};
use tacker_domain::vnfd::PackageModel;
use tacker_testkit::cnf::cnf;
use uuid::Uuid;

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub model: PackageModel,
    pub instance: VnfInstance,
    pub vim: VimConnection,
}

impl Fixture {
    pub fn new(vim: VimConnection) -> Self {
        Self::of(cnf(), vim)
    }

    /// The package `csar` unpacked, an instance of it.
    pub fn of(csar: tacker_testkit::csar::Csar, vim: VimConnection) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in &csar.files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        let v =
            tacker_csar::validate_reader(Cursor::new(csar.zip()), &tacker_csar::Limits::default())
                .unwrap();
        let model = v.model;
        let instance = VnfInstance {
            id: Uuid::new_v4(),
            name: Some("cnf".into()),
            description: None,
            vnfd_id: model.vnfd.vnfd_id.clone(),
            vnf_pkg_id: Uuid::new_v4(),
            vnf_provider: model.vnfd.provider.clone(),
            vnf_product_name: model.vnfd.product_name.clone(),
            vnf_software_version: model.vnfd.software_version.clone(),
            vnfd_version: model.vnfd.descriptor_version.clone(),
            instantiation_state: InstantiationState::NotInstantiated,
            instantiated_vnf_info: None,
            vim_connection_info: Default::default(),
            metadata: Map::new(),
            extensions: Map::new(),
            vnf_configurable_properties: Map::new(),
            current_op: None,
            created_at: chrono::Utc::now(),
            tenant: None,
        };
        Self {
            dir,
            model,
            instance,
            vim,
        }
    }

    pub fn ctx(&self, operation: LcmOperation, params: Value) -> OpContext {
        OpContext {
            op: OpOcc::new(
                Uuid::new_v4(),
                self.instance.id,
                OperationState::Processing,
                OperationParams::parse(operation, &params).unwrap(),
                params,
            ),
            instance: self.instance.clone(),
            vnfd: self.model.vnfd.clone(),
            flavour_id: "simple".into(),
            package_dir: self.dir.path().to_owned(),
            package_zip: self.dir.path().join("package.zip"),
            vim: Some(self.vim.clone()),
            grant: Value::Null,
            resource_changes: Default::default(),
            instantiate_params: Default::default(),
            services: None,
            target: None,
        }
    }

    /// Records what an operation did, as the engine would.
    pub fn apply(&mut self, o: &Outcome) {
        self.instance.instantiated_vnf_info = o.instantiated_vnf_info.clone();
        self.instance.instantiation_state = if o.instantiated_vnf_info.is_some() {
            InstantiationState::Instantiated
        } else {
            InstantiationState::NotInstantiated
        };
    }

    /// `(vduId, Pod name)` of every VNFC, sorted.
    pub fn vnfcs(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .instance
            .instantiated_vnf_info
            .iter()
            .flat_map(|i| i.vnfc_resource_info.iter())
            .map(|r| (r.vdu_id.clone(), r.compute_resource.resource_id.clone()))
            .collect();
        v.sort();
        v
    }

    pub fn vnfc_id(&self, vdu: &str) -> String {
        let i = self.instance.instantiated_vnf_info.as_ref().unwrap();
        i.vnfc_info
            .iter()
            .find(|c| c.vdu_id == vdu)
            .unwrap()
            .id
            .clone()
    }
}

pub fn changes(o: &Outcome) -> Vec<(String, String)> {
    o.resource_changes["affectedVnfcs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["changeType"].as_str().unwrap().to_owned(),
                a["id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub fn params(namespace: &str) -> Value {
    json!({"flavourId": "simple", "additionalParams": tacker_testkit::cnf::cnf_params(Some(namespace))})
}
