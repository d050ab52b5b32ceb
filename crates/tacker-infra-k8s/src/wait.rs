//! Polling until a condition holds, fast at first, within a deadline.

use std::future::Future;
use std::time::Duration;

use crate::error::{Error, Result};

/// Polls `check` until it returns `Ok(Ok(value))`; `Ok(Err(state))` means "not yet"
/// (the last state is reported on timeout).
pub async fn until<T, F, Fut>(
    what: &str,
    timeout: Duration,
    max_pause: Duration,
    mut check: F,
) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<std::result::Result<T, String>>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    let mut pause = Duration::from_millis(10);
    loop {
        let state = match check().await? {
            Ok(v) => return Ok(v),
            Err(state) => state,
        };
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return Err(Error::Timeout {
                what: what.to_owned(),
                after: timeout,
                state,
            });
        }
        tokio::time::sleep(pause.min(deadline - now)).await;
        pause = (pause * 2).min(max_pause);
    }
}
