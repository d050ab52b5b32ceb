//! Opening SSH sessions to nodes, and running work on many nodes at once.

use std::future::Future;
use std::sync::Arc;

use tacker_domain::lcm::driver::OpContext;
use tokio::sync::Semaphore;

use crate::error::{Error, Result};
use crate::nodes::{Node, changed};
use crate::settings::SshSettings;
use crate::ssh::{Login, Session, Target};

/// Logs into `node` with `user`/`password`; `secrets` are masked in what it captures.
pub async fn open(
    ctx: &OpContext,
    node: &Node,
    user: &str,
    password: &str,
    settings: &SshSettings,
    secrets: Vec<String>,
) -> Result<Session> {
    let target = Target {
        vnfc: node.vnfc.clone(),
        name: node.name(),
        address: node.address.clone(),
        port: 22,
        login: Login::Password(user.to_owned(), password.to_owned()),
        fresh: changed(ctx, "ADDED").contains(&node.vnfc),
    };
    Session::open(target, ctx.services.as_deref(), settings, secrets).await
}

/// Runs `work` on every node, at most `parallel` at once; every node's work runs to its
/// end (what succeeded stays done for a retry). The failures, if any, are one error
/// naming each failed node.
pub async fn on_all<F, Fut>(nodes: &[Node], parallel: usize, work: F) -> Result<()>
where
    F: Fn(Node) -> Fut,
    Fut: Future<Output = Result<()>>,
{
    let gate = Arc::new(Semaphore::new(parallel.max(1)));
    let runs = nodes.iter().cloned().map(|n| {
        let gate = gate.clone();
        let fut = work(n);
        async move {
            let _permit = gate.acquire().await;
            fut.await
        }
    });
    let results = futures::future::join_all(runs).await;
    let failed: Vec<Error> = results.into_iter().filter_map(|r| r.err()).collect();
    match failed.len() {
        0 => Ok(()),
        1 => Err(failed
            .into_iter()
            .next()
            .unwrap_or(Error::Invalid(String::new()))),
        _ => Err(Error::Nodes {
            of: nodes.len(),
            failed,
        }),
    }
}
