//! One `match` from method name to handler.

use std::sync::Arc;

use tacker_rpc::{Handler, HandlerError, Method, Request, proto};

use crate::{Ctx, handlers};

pub struct Dispatcher {
    ctx: Arc<Ctx>,
}

impl Dispatcher {
    pub fn new(ctx: Arc<Ctx>) -> Self {
        Self { ctx }
    }
}

fn decode<M: Method>(req: &Request) -> Result<M, HandlerError> {
    req.decode().map_err(HandlerError::new)
}

#[async_trait::async_trait]
impl Handler for Dispatcher {
    async fn handle(&self, req: Request) -> Result<Vec<u8>, HandlerError> {
        let ctx = &self.ctx;
        let method = req.method.clone();
        let req_redelivered = req.redelivered;
        let outcome = match method.as_str() {
            proto::Ping::NAME => handlers::ping::handle(ctx, decode(&req)?).await,
            proto::UploadPackage::NAME => {
                handlers::upload_package::handle(ctx, decode(&req)?).await
            }
            proto::UploadFromUri::NAME => {
                handlers::upload_from_uri::handle(ctx, decode(&req)?).await
            }
            proto::DownloadCsar::NAME => handlers::download_csar::handle(ctx, decode(&req)?).await,
            proto::PrefetchCsar::NAME => handlers::prefetch_csar::handle(ctx, decode(&req)?).await,
            proto::RunLcmOp::NAME => handlers::run_lcm_op::handle(ctx, decode(&req)?).await,
            proto::SyncInstance::NAME => handlers::sync_instance::handle(ctx, decode(&req)?).await,
            proto::DeliverRules::NAME => handlers::deliver_rules::handle(ctx, decode(&req)?).await,
            proto::CheckVim::NAME => handlers::check_vim::handle(ctx, decode(&req)?).await,
            proto::ClosedLoopDue::NAME => {
                handlers::closed_loop_due::handle(ctx, decode(&req)?).await
            }
            proto::DropCache::NAME => handlers::drop_cache::handle(ctx, decode(&req)?).await,
            proto::DeletePackage::NAME => {
                handlers::delete_package::handle(ctx, decode(&req)?).await
            }
            other => Err(HandlerError::new(format!("unknown method {other:?}"))),
        };
        self.ctx.metrics.handled(&method, outcome.is_ok());
        if req_redelivered {
            self.ctx.metrics.redelivered(&method);
        }
        outcome
    }
}
