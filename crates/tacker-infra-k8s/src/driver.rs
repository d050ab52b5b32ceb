//! The infra driver the LCM engine calls for `ETSINFV.KUBERNETES.V_1` VIMs.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::driver::{DriverError, InfraDriver, OpContext, Outcome};

use crate::client;
use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::ops::{self, Work};
use crate::record::Maker;
use crate::settings::K8sSettings;

/// Clients kept per VIM connection (endpoint, CA and credentials).
#[derive(Default)]
pub(crate) struct Connections {
    clusters: Mutex<HashMap<tacker_domain::vim::connection::ConnectionKey, Arc<Cluster>>>,
}

impl Connections {
    /// The operation's view of its VIM's cluster; Pods found by `selector`.
    pub(crate) fn work<'a>(
        &self,
        settings: &K8sSettings,
        octx: &'a OpContext,
        selector: String,
        made_by: Maker,
    ) -> Result<Work<'a>> {
        let vim = octx
            .vim
            .as_ref()
            .ok_or_else(|| Error::Vim("the operation names no VIM".into()))?;
        let key = vim.key();
        let mut clusters = self
            .clusters
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let cluster = match clusters.get(&key) {
            Some(c) => c.clone(),
            None => {
                let c = Arc::new(Cluster::new(client::connect(vim, settings)?));
                clusters.insert(key, c.clone());
                c
            }
        };
        Ok(Work {
            cluster,
            settings: settings.clone(),
            octx,
            instance: octx.instance.id.to_string(),
            selector,
            made_by,
        })
    }
}

/// The Kubernetes infra driver (one per conductor; clients are reused per VIM).
pub struct KubernetesDriver {
    settings: K8sSettings,
    connections: Connections,
}

impl std::fmt::Debug for KubernetesDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubernetesDriver")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl KubernetesDriver {
    /// A driver with these timeouts.
    pub fn new(settings: K8sSettings) -> Self {
        Self {
            settings,
            connections: Connections::default(),
        }
    }

    fn work<'a>(&self, octx: &'a OpContext) -> Result<Work<'a>> {
        let made_by = Maker::of(octx.instance.instantiated_vnf_info.as_ref());
        let selector = made_by.selector(&octx.instance.id.to_string());
        self.connections
            .work(&self.settings, octx, selector, made_by)
    }
}

#[async_trait::async_trait]
impl InfraDriver for KubernetesDriver {
    async fn check_vim(
        &self,
        vim: &tacker_domain::lcm::driver::VimConnection,
    ) -> Result<(), DriverError> {
        Ok(client::verify(vim, &self.settings).await?)
    }

    async fn instantiate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::instantiate::run(&self.work(octx)?).await?)
    }

    async fn terminate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::terminate::run(&self.work(octx)?).await?)
    }

    async fn scale(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::scale::run(&self.work(octx)?).await?)
    }

    async fn heal(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::heal::run(&self.work(octx)?).await?)
    }

    async fn change_ext_conn(&self, _octx: &OpContext) -> Result<Outcome, DriverError> {
        Err(Error::Invalid(
            "change external connectivity is not supported for Kubernetes VIMs".into(),
        )
        .into())
    }

    async fn change_vnfpkg(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::change_vnfpkg::run(&self.work(octx)?).await?)
    }

    async fn change_flavour(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::change_flavour::run(&self.work(octx)?).await?)
    }

    async fn operate(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::operate::run(&self.work(octx)?).await?)
    }

    async fn rollback(&self, octx: &OpContext) -> Result<Outcome, DriverError> {
        Ok(ops::rollback::run(&self.work(octx)?).await?)
    }

    async fn sync(&self, octx: &OpContext) -> Result<Option<InstantiatedVnfInfo>, DriverError> {
        Ok(ops::sync::run(&self.work(octx)?).await?)
    }

    async fn monitoring_rules(
        &self,
        octx: &OpContext,
        name: &str,
        labels: &serde_json::Map<String, serde_json::Value>,
        group: Option<&serde_json::Value>,
    ) -> Result<(), DriverError> {
        Ok(ops::rules::run(&self.work(octx)?, name, labels, group).await?)
    }
}
