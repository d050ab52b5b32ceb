//! The conductor's own small HTTP listener: `/healthz`, `/readyz`, `/metrics`.

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::{App, HttpResponse, HttpServer, web};
use tokio_util::sync::CancellationToken;

use crate::Ctx;

async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(r#"{"status":"alive"}"#)
}

async fn readyz(ctx: web::Data<Arc<Ctx>>) -> HttpResponse {
    if ctx.is_ready() {
        HttpResponse::Ok()
            .content_type("application/json")
            .body(r#"{"status":"READY"}"#)
    } else {
        HttpResponse::ServiceUnavailable()
            .content_type("application/problem+json")
            .body(
                r#"{"status":503,"title":"Service Unavailable","detail":"conductor is not READY"}"#,
            )
    }
}

async fn metrics(ctx: web::Data<Arc<Ctx>>) -> HttpResponse {
    ctx.metrics.observe_bus(&ctx.bus);
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(ctx.metrics.render())
}

pub async fn run(
    listener: TcpListener,
    ctx: Arc<Ctx>,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let data = web::Data::new(ctx);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/healthz", web::get().to(healthz))
            .route("/readyz", web::get().to(readyz))
            .route("/metrics", web::get().to(metrics))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run();
    let handle = server.handle();
    tokio::spawn(async move {
        stop.cancelled().await;
        handle.stop(true).await;
    });
    server.await
}
