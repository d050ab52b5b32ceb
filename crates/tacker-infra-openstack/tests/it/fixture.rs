//! The example VM package unpacked, a VNF instance, a heat-sim, and operation contexts.

use std::io::Cursor;
use std::process::Command;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::{OpContext, Outcome, TargetPackage, VimConnection};
use tacker_domain::lcm::{
    InstantiationState, LcmOperation, OpOcc, OperationParams, OperationState, VnfInstance,
    address_of,
};
use tacker_domain::vnfd::PackageModel;
use tacker_testkit::keystone::{OpenStack, Tenant};
use tacker_testkit::vm::vm;
use uuid::Uuid;

/// How long the heat-sim of [`Fixture::on_openstack`] trusts a token Keystone vouched
/// for.
pub const TOKEN_CACHE: std::time::Duration = std::time::Duration::from_secs(2);

/// `csar` unpacked in a directory of its own, and its model as the reader makes it.
fn unpack(csar: &tacker_testkit::csar::Csar) -> (tempfile::TempDir, PackageModel) {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in &csar.files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    let model =
        tacker_csar::validate_reader(Cursor::new(csar.zip()), &tacker_csar::Limits::default())
            .unwrap()
            .model;
    (dir, model)
}

/// Fails with a clear message when the tests cannot make network namespaces.
pub fn need_root() {
    let uid = Command::new("id").arg("-u").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&uid.stdout).trim(),
        "0",
        "the VM tests make SSH test hosts in network namespaces: run them as root"
    );
}

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub model: PackageModel,
    pub instance: VnfInstance,
    pub vim: VimConnection,
    pub sim: heat_sim::Handle,
}

impl Fixture {
    pub fn new() -> Self {
        Self::with_package(vm())
    }

    /// A fixture around another package.
    pub fn with_package(csar: tacker_testkit::csar::Csar) -> Self {
        need_root();
        let sim = heat_sim::spawn(heat_sim::Settings::default()).unwrap();
        let s = heat_sim::Settings::default();
        let vim = json!({"vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            "interfaceInfo": {"endpoint": format!("{}/v3", sim.url)},
            "accessInfo": {"username": s.user, "password": s.password, "project": s.project,
                "projectDomain": "Default", "userDomain": "Default", "region": "RegionOne"}});
        Self::around(csar, sim, &vim)
    }

    /// The example package on the real Keystone (`tests/infra/openstack.sh`): a project,
    /// user and region of its own whose catalog names a heat-sim that asks Keystone about
    /// a token again after [`TOKEN_CACHE`] (a revoked one is refused from then on).
    pub async fn on_keystone() -> (Self, OpenStack, Tenant) {
        Self::on_openstack(vm(), false).await
    }

    /// `csar` on the real Keystone, and its Glance when `glance` (servers then boot only
    /// from images Glance holds).
    pub async fn on_openstack(
        csar: tacker_testkit::csar::Csar,
        glance: bool,
    ) -> (Self, OpenStack, Tenant) {
        need_root();
        let os = OpenStack::up();
        let sim = heat_sim::spawn(heat_sim::Settings {
            keystone_url: Some(os.keystone.clone()),
            glance_url: glance.then(|| os.glance.clone()),
            token_cache: TOKEN_CACHE,
            ..Default::default()
        })
        .unwrap();
        let t = os.tenant(&sim.url).await;
        let vim = json!({"vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3",
            "interfaceInfo": {"endpoint": os.keystone},
            "accessInfo": {"username": t.name, "password": t.password, "project": t.name,
                "projectDomain": "Default", "userDomain": "Default", "region": t.name}});
        (Self::around(csar, sim, &vim), os, t)
    }

    fn around(csar: tacker_testkit::csar::Csar, sim: heat_sim::Handle, vim: &Value) -> Self {
        let (dir, model) = unpack(&csar);
        let instance = VnfInstance {
            id: Uuid::new_v4(),
            name: Some("vm".into()),
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
        let vim = VimConnection::from_json("vim1", vim).unwrap();
        Self {
            dir,
            model,
            instance,
            vim,
            sim,
        }
    }

    pub fn ctx(&self, operation: LcmOperation, params: Value) -> OpContext {
        let flavour_id = match &params["flavourId"] {
            Value::String(f) => f.clone(),
            _ => "simple".into(),
        };
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
            flavour_id,
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

    /// `(vduId, server id, address of its CP)` of every VNFC, in stored order.
    pub fn vnfcs(&self) -> Vec<(String, String, String)> {
        let Some(info) = &self.instance.instantiated_vnf_info else {
            return Vec::new();
        };
        info.vnfc_resource_info
            .iter()
            .map(|r| {
                let cp = format!("{}_CP1", r.vdu_id);
                (
                    r.vdu_id.clone(),
                    r.id.clone(),
                    address_of(&self.instance, &r.id, &cp).unwrap_or_default(),
                )
            })
            .collect()
    }

    /// `csar` unpacked as the package a CHANGE_VNFPKG moves to (keep the directory).
    pub fn target(csar: &tacker_testkit::csar::Csar) -> (TargetPackage, tempfile::TempDir) {
        let (dir, model) = unpack(csar);
        let t = TargetPackage {
            id: Uuid::new_v4(),
            vnfd: model.vnfd,
            package_dir: dir.path().to_owned(),
        };
        (t, dir)
    }

    /// The image each running server (a VM: one whose build failed is none) was made
    /// with, by server id.
    /// Asserts every server boots `image`.
    pub fn assert_all_on(&self, image: &str) {
        let images = self.server_images();
        assert!(images.iter().all(|(_, i)| i == image), "{images:?}");
    }

    pub fn server_images(&self) -> Vec<(String, Value)> {
        let st = self.sim.sim.engine.lock();
        let mut out: Vec<(String, Value)> = st
            .stacks
            .values()
            .filter(|s| !s.deleted)
            .flat_map(|s| s.resources.iter())
            .filter(|r| r.kind == "OS::Nova::Server" && r.host.is_some())
            .map(|r| (r.physical_id.clone(), r.properties["image"].clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The `vnfcInfo` id of the first VNFC of `vdu`.
    pub fn vnfc_info_id(&self, vdu: &str) -> String {
        let info = self.instance.instantiated_vnf_info.as_ref().unwrap();
        let c = info.vnfc_info.iter().find(|c| c.vdu_id == vdu);
        c.unwrap_or_else(|| panic!("no VNFC of {vdu}")).id.clone()
    }

    /// The simulator's servers: (id, host name in this machine).
    pub fn servers(&self) -> Vec<(String, Option<String>)> {
        let st = self.sim.sim.engine.lock();
        let mut out: Vec<(String, Option<String>)> = st
            .stacks
            .values()
            .filter(|s| !s.deleted)
            .flat_map(|s| s.resources.iter())
            .filter(|r| r.kind == "OS::Nova::Server")
            .map(|r| (r.physical_id.clone(), r.host.clone()))
            .collect();
        out.sort();
        out
    }
}

/// What `hostname` prints over SSH at `ip` (the image's login, real client).
pub fn ssh_hostname(ip: &str) -> Result<String, String> {
    let out = Command::new("sshpass")
        .args([
            "-p",
            "ubuntu",
            "ssh",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
        ])
        .args([
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ConnectTimeout=5",
        ])
        .arg(format!("ubuntu@{ip}"))
        .arg("hostname")
        .output()
        .map_err(|e| format!("sshpass: {e} (install sshpass)"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
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

pub fn instantiate_params() -> Value {
    json!({"flavourId": "simple", "extVirtualLinks": [
        tacker_testkit::vm::ext_virtual_link("net0", "sim-net", &["VDU1_CP1", "VDU2_CP1"])]})
}
