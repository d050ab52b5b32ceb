//! The request id of the work in progress: set by the API server per HTTP request and
//! by the bus per handled message, sent along with every message published meanwhile,
//! so one id follows a request from the API through every conductor it reaches.

use std::future::Future;

tokio::task_local! {
    static REQUEST_ID: String;
}

/// Runs `f` with `id` as the current request id.
pub async fn scope<F: Future>(id: String, f: F) -> F::Output {
    REQUEST_ID.scope(id, f).await
}

/// The current request id, if any.
pub fn current() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_id_is_seen_inside_its_scope_only() {
        assert_eq!(current(), None);
        let seen = scope("req-1".into(), async { current() }).await;
        assert_eq!(seen.as_deref(), Some("req-1"));
    }
}
