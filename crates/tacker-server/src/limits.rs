//! Limits that need state: uploads streamed at once (`server.max_concurrent_uploads`),
//! and requests per second per caller (`server.rate_limit`, `server.rate_burst`): the
//! token subject, or the client address under `auth.mode = none`. Probes and metrics are
//! never limited.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::auth::Principal;
use crate::{ApiError, ServerState};

/// Buckets kept before idle ones are dropped.
const MAX_BUCKETS: usize = 100_000;

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Token buckets by key: `rate` requests per second per key (0: unlimited), `burst` at
/// once.
pub struct Buckets {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

crate::debug_shows!(Buckets, "Buckets", rate, burst);

impl Buckets {
    /// `rate` requests per second per key (0: unlimited) with `burst` at once.
    pub fn new(rate: u32, burst: u32) -> Self {
        Self {
            rate: f64::from(rate),
            burst: f64::from(burst.max(1)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket; the seconds to wait when it is empty.
    pub fn take(&self, key: &str) -> Result<(), u64> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let Ok(mut buckets) = self.buckets.lock() else {
            return Ok(());
        };
        if buckets.len() >= MAX_BUCKETS {
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, b| now.duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let b = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * self.rate).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            // Whole seconds, at least one.
            let wait = ((1.0 - b.tokens) / self.rate).ceil();
            Err(if wait >= 1.0 { wait as u64 } else { 1 })
        }
    }
}

/// The state of the limits.
pub struct Limits {
    uploads: std::sync::Arc<Semaphore>,
    upload_wait: Duration,
    callers: Buckets,
}

impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("uploads_free", &self.uploads.available_permits())
            .field("upload_wait", &self.upload_wait)
            .field("callers", &self.callers)
            .finish()
    }
}

impl Limits {
    /// `uploads` at once, one more waiting up to `upload_wait` for a place; `rate`
    /// requests per second per caller (0: unlimited) with `burst` more.
    pub fn new(uploads: usize, upload_wait: Duration, rate: u32, burst: u32) -> Self {
        Self {
            uploads: std::sync::Arc::new(Semaphore::new(uploads.max(1))),
            upload_wait,
            callers: Buckets::new(rate, burst),
        }
    }

    /// A place for one more upload: at once, or the first to free up within
    /// `upload_wait` (waiters are served in order); else 503.
    pub async fn upload(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        let busy = || {
            ApiError::Busy(format!(
                "as many uploads as server.max_concurrent_uploads are in progress and none \
                 ended within {:?} (server.upload_slot_wait); retry later",
                self.upload_wait
            ))
        };
        if let Ok(p) = self.uploads.clone().try_acquire_owned() {
            return Ok(p);
        }
        match tokio::time::timeout(self.upload_wait, self.uploads.clone().acquire_owned()).await {
            Ok(Ok(p)) => Ok(p),
            _ => Err(busy()),
        }
    }

    /// Takes one request from caller `key`'s bucket; the seconds to wait when it is
    /// empty.
    fn take(&self, key: &str) -> Result<(), u64> {
        self.callers.take(key)
    }
}

/// The middleware (inside `auth::authenticate`, so the caller is known).
pub async fn rate<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    // The token endpoint has limits of its own (per address and client id).
    let exempt = matches!(
        req.path(),
        "/healthz" | "/readyz" | "/metrics" | "/oauth2/token"
    );
    if !exempt && let Some(st) = req.app_data::<web::Data<ServerState>>() {
        let key = match req.extensions().get::<Principal>() {
            Some(p) if p.subject != "local" => format!("sub:{}", p.subject),
            _ => format!(
                "ip:{}",
                req.peer_addr()
                    .map(|a| a.ip().to_string())
                    .unwrap_or_default()
            ),
        };
        if let Err(after) = st.limits.take(&key) {
            let e = ApiError::TooManyRequests(after);
            return Ok(req.error_response(e).map_into_right_body());
        }
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::Limits;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let l = Limits::new(1, Duration::ZERO, 2, 3);
        for _ in 0..3 {
            assert!(l.take("a").is_ok());
        }
        assert_eq!(l.take("a"), Err(1));
        assert!(l.take("b").is_ok(), "buckets are per caller");
        assert!(Limits::new(1, Duration::ZERO, 0, 1).take("a").is_ok());
    }

    #[tokio::test]
    async fn uploads_beyond_the_limit_wait_for_a_place_then_are_refused() {
        let l = std::sync::Arc::new(Limits::new(1, Duration::from_millis(300), 0, 1));
        let held = l.upload().await.unwrap();
        // Nothing ends within the wait: refused, naming the settings.
        let t0 = Instant::now();
        let refused = l.upload().await.unwrap_err().to_string();
        assert!(t0.elapsed() >= Duration::from_millis(300));
        assert!(refused.contains("server.upload_slot_wait"), "{refused}");
        // The place frees up while one waits: it gets it.
        let waiter = tokio::spawn({
            let l = l.clone();
            async move { l.upload().await.map(drop) }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(held);
        assert!(waiter.await.unwrap().is_ok());
        assert!(l.upload().await.is_ok());
    }
}
