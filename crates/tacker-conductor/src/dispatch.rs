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

#[async_trait::async_trait]
impl Handler for Dispatcher {
    async fn handle(&self, req: Request) -> Result<Vec<u8>, HandlerError> {
        let method = req.method.clone();
        let outcome = match method.as_str() {
            proto::Ping::NAME => {
                handlers::ping::handle(&self.ctx, req.decode().map_err(HandlerError::new)?).await
            }
            other => Err(HandlerError::new(format!("unknown method {other:?}"))),
        };
        self.ctx.metrics.handled(&method, outcome.is_ok());
        outcome
    }
}
