//! What a consumer implements.

use std::collections::HashMap;

use crate::{Method, Result};

/// One request delivered to a handler.
#[derive(Debug, Clone)]
pub struct Request {
    /// The request message name.
    pub method: String,
    /// The encoded request message.
    pub payload: Vec<u8>,
    /// Who sent it.
    pub sender: String,
    /// Log context (request id, package id, ...).
    pub context: HashMap<String, String>,
    /// Whether the broker delivered it before (a handler must be idempotent).
    pub redelivered: bool,
}

impl Request {
    /// Decodes the payload as `M`.
    pub fn decode<M: Method>(&self) -> Result<M> {
        Ok(M::decode(self.payload.as_slice())?)
    }
}

/// A handler's failure: sent back as an error reply, or (for casts) the message is
/// redelivered once and then dead-lettered.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HandlerError(pub String);

impl HandlerError {
    /// A failure with this text.
    pub fn new(msg: impl std::fmt::Display) -> Self {
        Self(msg.to_string())
    }
}

/// Handles requests; the returned bytes (an encoded message) are the reply, if the
/// request asked for one.
#[async_trait::async_trait]
pub trait Handler: Send + Sync + 'static {
    /// Handles one request.
    async fn handle(&self, req: Request) -> std::result::Result<Vec<u8>, HandlerError>;
}
