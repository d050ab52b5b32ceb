//! The `InfraDriver` for OpenStack VIMs (`ETSINFV.OPENSTACK_KEYSTONE.V_3`): a session
//! per VIM connection, each operation in `ops/`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::driver::{DriverError, InfraDriver, OpContext, Outcome, VimConnection};

use crate::error::{Error, Result};
use crate::heat::Heat;
use crate::ops::{self, Work};
use crate::session::{Credentials, Session};
use crate::settings::OpenStackSettings;

/// The OpenStack VIM type of SOL003.
pub const OPENSTACK: &str = "ETSINFV.OPENSTACK_KEYSTONE.V_3";

/// The OpenStack infra driver.
#[derive(Debug)]
pub struct OpenStackDriver {
    settings: OpenStackSettings,
    guard: tacker_outbound::Guard,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl OpenStackDriver {
    /// A driver with these timeouts, reaching public and private addresses only.
    pub fn new(settings: OpenStackSettings) -> Self {
        Self {
            settings,
            guard: tacker_outbound::Guard::for_vims(Vec::new()),
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// The same, also reaching `allowed` (`outbound.allowed_networks`: a Keystone on
    /// loopback, say).
    pub fn with_allowed_networks(mut self, allowed: Vec<ipnet::IpNet>) -> Self {
        self.guard = tacker_outbound::Guard::for_vims(allowed);
        self
    }

    /// The session for the operation's VIM (one per distinct connection, tokens reused).
    fn session(&self, octx: &OpContext) -> Result<Arc<Session>> {
        let vim = octx
            .vim
            .as_ref()
            .ok_or_else(|| Error::Vim("the operation names no VIM".into()))?;
        let creds = Credentials::from_vim(vim)?;
        let key = format!(
            "{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{:?}\u{0}{:?}",
            creds.auth_url,
            creds.user,
            creds.password.expose_text(),
            creds.project,
            creds.user_domain,
            creds.project_domain,
            creds.region,
            creds.ca_pem
        );
        let mut sessions = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(s) = sessions.get(&key) {
            return Ok(s.clone());
        }
        let s = Arc::new(Session::new(
            creds,
            self.settings.request_timeout,
            &self.guard,
        )?);
        sessions.insert(key, s.clone());
        Ok(s)
    }

    async fn with<T, F>(&self, octx: &OpContext, f: F) -> std::result::Result<T, DriverError>
    where
        F: for<'a> FnOnce(&'a Work<'a>) -> futures::future::BoxFuture<'a, Result<T>>,
    {
        let session = self.session(octx)?;
        let w = Work {
            octx,
            heat: Heat::new(&session, self.settings),
            session: &session,
        };
        Ok(f(&w).await?)
    }
}

#[async_trait::async_trait]
impl InfraDriver for OpenStackDriver {
    async fn check_vim(&self, vim: &VimConnection) -> std::result::Result<(), DriverError> {
        let s = Session::new(
            Credentials::from_vim(vim)?,
            self.settings.request_timeout,
            &self.guard,
        )?;
        Ok(s.verify().await?)
    }

    async fn instantiate(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::instantiate::run(w))).await
    }

    async fn terminate(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::terminate::run(w))).await
    }

    async fn scale(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::scale::run(w))).await
    }

    async fn heal(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::heal::run(w))).await
    }

    async fn change_ext_conn(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::change_ext_conn::run(w)))
            .await
    }

    async fn change_vnfpkg(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::change_vnfpkg::run(w)))
            .await
    }

    async fn change_flavour(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::change_flavour::run(w)))
            .await
    }

    async fn operate(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::operate::run(w))).await
    }

    async fn rollback(&self, ctx: &OpContext) -> std::result::Result<Outcome, DriverError> {
        self.with(ctx, |w| Box::pin(ops::rollback::run(w))).await
    }

    async fn sync(
        &self,
        ctx: &OpContext,
    ) -> std::result::Result<Option<InstantiatedVnfInfo>, DriverError> {
        self.with(ctx, |w| Box::pin(ops::sync::run(w))).await
    }
}
