//! Out-of-process management drivers: a hook is one gRPC call
//! (`tacker.mgmt.v1.MgmtDriver`) to the endpoint `[mgmt] drivers` names
//! (`grpc://host:port`, or `grpcs://` verified with `mgmt.plugin_ca_file` or the
//! system's roots).

use std::time::Duration;

use serde_json::{Value, json};
use tacker_domain::lcm::driver::{DriverError, MgmtDriver, OpContext};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

use crate::error::{Error, Result};
use crate::proto::mgmt_driver_client::MgmtDriverClient;
use crate::proto::{HookReply, HookRequest, PackageFile, hook_reply};

/// Inline files up to this size each.
const INLINE_FILE: u64 = 64 * 1024;
/// And this much in all.
const INLINE_TOTAL: u64 = 1024 * 1024;

/// How plugins are called.
#[derive(Debug, Clone)]
pub struct PluginSettings {
    /// Longest one hook may take.
    pub timeout: Duration,
    /// CA (PEM) for `grpcs://` endpoints; `None`: the system's roots.
    pub ca_pem: Option<String>,
    /// The API's public base URL (package files are fetched under it).
    pub public_url: String,
}

/// A client of one out-of-process driver.
#[derive(Debug, Clone)]
pub struct Plugin {
    endpoint: String,
    channel: Channel,
    public_url: String,
}

impl Plugin {
    /// A client of `endpoint` (connected on first use).
    pub fn new(endpoint: &str, s: &PluginSettings) -> Result<Self> {
        let fail = |cause: String| Error::Plugin {
            endpoint: endpoint.to_owned(),
            cause,
        };
        let (uri, tls) = if let Some(rest) = endpoint.strip_prefix("grpcs://") {
            (format!("https://{rest}"), true)
        } else if let Some(rest) = endpoint.strip_prefix("grpc://") {
            (format!("http://{rest}"), false)
        } else {
            return Err(fail("not grpc:// or grpcs://".into()));
        };
        let mut ep = Endpoint::from_shared(uri)
            .map_err(|e| fail(e.to_string()))?
            .timeout(s.timeout)
            .connect_timeout(Duration::from_secs(10));
        if tls {
            let cfg = match &s.ca_pem {
                Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
                None => ClientTlsConfig::new().with_native_roots(),
            };
            ep = ep.tls_config(cfg).map_err(|e| fail(e.to_string()))?;
        }
        Ok(Self {
            endpoint: endpoint.to_owned(),
            channel: ep.connect_lazy(),
            public_url: s.public_url.trim_end_matches('/').to_owned(),
        })
    }

    fn request(&self, hook: &str, ctx: &OpContext) -> HookRequest {
        let pkg = ctx.instance.vnf_pkg_id;
        let base = format!("{}/vnflcm/v2", self.public_url);
        HookRequest {
            hook: hook.to_owned(),
            operation: ctx.op.operation.as_str().to_owned(),
            vnf_lcm_op_occ_id: ctx.op.id.to_string(),
            vnf_instance_json: ctx.instance.to_json(&base).to_string(),
            operation_params_json: ctx.op.operation_params.to_string(),
            instantiate_params_json: Value::Object(ctx.instantiate_params.clone()).to_string(),
            resource_changes_json: Value::Object(ctx.resource_changes.clone()).to_string(),
            vnf_package_id: pkg.to_string(),
            package_base_url: format!("{}/vnfpkgm/v1/vnf_packages/{pkg}", self.public_url),
            files: inline_files(ctx),
            vim_json: ctx
                .vim
                .as_ref()
                .map(|v| {
                    json!({"id": v.id, "vimId": v.vim_id, "vimType": v.vim_type,
                           "interfaceInfo": v.info.interface_info.as_ref().map(|i| i.shown())})
                    .to_string()
                })
                .unwrap_or_default(),
        }
    }

    async fn call(&self, hook: &str, ctx: &OpContext, check: bool) -> Result<()> {
        let mut client = MgmtDriverClient::new(self.channel.clone());
        let req = tonic::Request::new(self.request(hook, ctx));
        let reply = if check {
            client.check(req).await
        } else {
            match hook {
                "instantiate_start" => client.instantiate_start(req).await,
                "instantiate_end" => client.instantiate_end(req).await,
                "terminate_start" => client.terminate_start(req).await,
                "terminate_end" => client.terminate_end(req).await,
                "scale_start" => client.scale_start(req).await,
                "scale_end" => client.scale_end(req).await,
                "heal_start" => client.heal_start(req).await,
                "heal_end" => client.heal_end(req).await,
                "change_external_connectivity_start" => {
                    client.change_external_connectivity_start(req).await
                }
                "change_external_connectivity_end" => {
                    client.change_external_connectivity_end(req).await
                }
                "modify_information_start" => client.modify_information_start(req).await,
                "modify_information_end" => client.modify_information_end(req).await,
                other => {
                    return Err(Error::Invalid(format!(
                        "hook {other} has no RPC in tacker.mgmt.v1.MgmtDriver"
                    )));
                }
            }
        };
        match reply {
            Ok(r) => self.answer(hook, r.into_inner()),
            Err(s) if check && s.code() == tonic::Code::Unimplemented => Ok(()),
            Err(s) => Err(Error::Plugin {
                endpoint: self.endpoint.clone(),
                cause: format!("{hook}: {:?}: {}", s.code(), s.message()),
            }),
        }
    }

    fn answer(&self, hook: &str, r: HookReply) -> Result<()> {
        match r.result {
            Some(hook_reply::Result::Ok(ok)) => {
                tracing::info!(endpoint = %self.endpoint, hook, message = %ok.message, "plugin hook done");
                Ok(())
            }
            Some(hook_reply::Result::Problem(p)) => Err(Error::Refused {
                status: u16::try_from(p.status)
                    .ok()
                    .filter(|s| (400..600).contains(s))
                    .unwrap_or(500),
                title: p.title,
                detail: p.detail,
            }),
            None => Err(Error::Plugin {
                endpoint: self.endpoint.clone(),
                cause: format!("{hook}: the reply is neither ok nor a problem"),
            }),
        }
    }
}

/// Small package files named by string values of the instantiate parameters.
fn inline_files(ctx: &OpContext) -> Vec<PackageFile> {
    fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    for v in ctx.instantiate_params.values() {
        strings(v, &mut names);
    }
    names.sort_unstable();
    names.dedup();
    let mut total = 0;
    let mut out = Vec::new();
    for n in names {
        let Ok(p) = crate::package_path(ctx, n) else {
            continue;
        };
        let size = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(u64::MAX);
        if size > INLINE_FILE || total + size > INLINE_TOTAL {
            continue;
        }
        if let Ok(content) = std::fs::read(&p) {
            total += size;
            out.push(PackageFile {
                path: n.trim_start_matches("./").to_owned(),
                content,
            });
        }
    }
    out
}

#[async_trait::async_trait]
impl MgmtDriver for Plugin {
    async fn check(&self, hook: &str, ctx: &OpContext) -> std::result::Result<(), DriverError> {
        Ok(self.call(hook, ctx, true).await?)
    }

    async fn run_hook(&self, hook: &str, ctx: &OpContext) -> std::result::Result<(), DriverError> {
        Ok(self.call(hook, ctx, false).await?)
    }
}
