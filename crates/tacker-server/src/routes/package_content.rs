//! Package content: upload (PUT), upload from a URI (POST), download (GET).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde::Deserialize;
use tacker_db::packages;
use tacker_domain::ProblemDetails;
use tacker_domain::package::OnboardingState;
use tacker_rpc::proto::{UploadFromUri, UploadPackage};
use tacker_storage::PackageStore;
use tracing::{Instrument, info_span};
use uuid::Uuid;

use crate::auth::Principal;
use crate::extract::Call;
use crate::http::{json_body, negotiate, require_content_type};
use crate::range::{self, Want};
use crate::{ApiError, ServerState};

/// Why an upload may not start: 404 when gone, 409 when not CREATED.
async fn refuse_upload(st: &ServerState, id: Uuid) -> ApiError {
    match st.db.packages().get(id).await {
        Ok(Some(s)) => ApiError::Conflict(format!(
            "VNF package {id} is {}; content can be uploaded only while it is CREATED",
            s.package.onboarding_state
        )),
        Ok(None) => ApiError::NotFound(format!("VNF package {id} not found")),
        Err(e) => e.into(),
    }
}

/// Records progress while bytes arrive (`received` grows), so a streaming upload is
/// never taken for stalled, and a client that goes silent is.
fn progress_ticker(
    st: &ServerState,
    id: Uuid,
    received: Arc<AtomicU64>,
) -> tokio::task::JoinHandle<()> {
    let db = st.db.clone();
    let every = st.settings.progress_interval;
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.tick().await;
        let mut seen = 0;
        loop {
            tick.tick().await;
            let now = received.load(Ordering::Relaxed);
            if now > seen {
                seen = now;
                let _ = db.packages().touch_progress(id).await;
            }
        }
    })
}

/// Counts the bytes of `body` into `received`.
fn counted<S>(
    body: S,
    received: Arc<AtomicU64>,
) -> impl Stream<Item = Result<Bytes, String>> + Unpin
where
    S: Stream<Item = Result<Bytes, String>> + Unpin,
{
    body.map(move |c| {
        if let Ok(b) = &c {
            received.fetch_add(b.len() as u64, Ordering::Relaxed);
        }
        c
    })
}

/// Ends `body` with an error when it yields nothing for `idle` (and says so in
/// `went_idle`), so a client that stops sending cannot hold an upload open.
fn idle_limited<S>(
    body: S,
    idle: std::time::Duration,
    went_idle: Arc<AtomicBool>,
) -> impl Stream<Item = Result<Bytes, String>> + Unpin
where
    S: Stream<Item = Result<Bytes, String>> + Unpin,
{
    Box::pin(futures::stream::unfold(
        (body, false),
        move |(mut body, done)| {
            let went_idle = went_idle.clone();
            async move {
                if done {
                    return None;
                }
                match tokio::time::timeout(idle, body.next()).await {
                    Ok(Some(item)) => Some((item, (body, false))),
                    Ok(None) => None,
                    Err(_) => {
                        went_idle.store(true, Ordering::Relaxed);
                        Some((
                            Err(format!("no data for {} s", idle.as_secs())),
                            (body, true),
                        ))
                    }
                }
            }
        },
    ))
}

/// Puts the package back to CREATED with `problem` as its failure details.
async fn fail(st: &ServerState, id: Uuid, problem: &ProblemDetails) {
    if let Err(e) = st.db.packages().fail_onboarding(id, problem).await {
        tracing::error!(package_id = %id, error = %e, "could not record the failed upload");
    }
    let _ = st
        .store
        .delete(&PackageStore::package_key(&id.to_string()))
        .await;
}

/// The file part of a multipart/form-data upload (`file`, or the first part with a file
/// name), as a stream that owns the multipart reader while it is consumed.
fn multipart_file(
    payload: web::Payload,
    req: &HttpRequest,
) -> impl Stream<Item = Result<Bytes, String>> + Unpin + use<> {
    type State = (
        actix_multipart::Multipart,
        Option<actix_multipart::Field>,
        bool,
    );
    let mp = actix_multipart::Multipart::new(req.headers(), payload);
    let state: State = (mp, None, false);
    Box::pin(futures::stream::unfold(
        state,
        |(mut mp, mut field, done)| async move {
            if done {
                return None;
            }
            loop {
                if let Some(f) = field.as_mut() {
                    return match f.next().await {
                        Some(Ok(b)) => Some((Ok(b), (mp, field, false))),
                        Some(Err(e)) => Some((
                            Err(format!("malformed multipart body: {e}")),
                            (mp, None, true),
                        )),
                        None => None,
                    };
                }
                match mp.next().await {
                    Some(Ok(f)) => {
                        let is_file = f.name() == Some("file")
                            || f.content_disposition()
                                .and_then(|d| d.get_filename())
                                .is_some();
                        if is_file {
                            field = Some(f);
                        } else {
                            // Other parts are read through and ignored.
                            let mut f = f;
                            while let Some(chunk) = f.next().await {
                                if let Err(e) = chunk {
                                    return Some((
                                        Err(format!("malformed multipart body: {e}")),
                                        (mp, None, true),
                                    ));
                                }
                            }
                        }
                    }
                    Some(Err(e)) => {
                        return Some((
                            Err(format!("malformed multipart body: {e}")),
                            (mp, None, true),
                        ));
                    }
                    None => {
                        return Some((
                            Err("the multipart body has no `file` part".to_owned()),
                            (mp, None, true),
                        ));
                    }
                }
            }
        },
    ))
}

/// The package an upload goes to (one the caller may change), once the request accepts
/// a JSON answer and brings one of `content_types`.
async fn upload_target(
    st: &ServerState,
    req: &HttpRequest,
    path: &str,
    who: &Principal,
    content_types: &[&str],
) -> Result<Uuid, ApiError> {
    let id = super::packages::load_to_change(st, path, who)
        .await?
        .package
        .id;
    negotiate(req, &["application/json", "application/problem+json"])?;
    require_content_type(req, content_types)?;
    Ok(id)
}

pub async fn upload(
    Call { req, who, st }: Call,
    path: web::Path<String>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let id = upload_target(
        &st,
        &req,
        &path,
        &who,
        &["application/zip", "multipart/form-data"],
    )
    .await?;
    let max = st.settings.max_package_size;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max) {
        return Err(ApiError::PayloadTooLarge(
            usize::try_from(max).unwrap_or(usize::MAX),
        ));
    }
    let _slot = st.limits.upload().await?;
    let scope = who.confinement();
    if !st
        .db
        .packages()
        .begin_upload(id, &scope)
        .instrument(info_span!("upload.begin"))
        .await?
    {
        return Err(refuse_upload(&st, id).await);
    }
    tracing::info!(package_id = %id, "upload started");
    let idle = st.settings.body_idle_timeout;
    let went_idle = Arc::new(AtomicBool::new(false));
    let key = PackageStore::package_key(&id.to_string());
    let received = Arc::new(AtomicU64::new(0));
    let ticker = progress_ticker(&st, id, received.clone());
    let multipart = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/"));
    let source = if multipart {
        multipart_file(payload, &req).boxed_local()
    } else {
        payload.map(|c| c.map_err(|e| e.to_string())).boxed_local()
    };
    let body = counted(idle_limited(source, idle, went_idle.clone()), received);
    let stored = st
        .store
        .put_stream(&key, body, max)
        .instrument(info_span!("upload.store"))
        .await
        .map_err(ApiError::from);
    ticker.abort();
    let stored = stored.map_err(|e| {
        if went_idle.load(Ordering::Relaxed) {
            ApiError::RequestTimeout(format!(
                "the upload sent nothing for {} s (server.body_idle_timeout); upload again",
                idle.as_secs()
            ))
        } else {
            e
        }
    });
    let stored = match stored {
        Ok(s) => s,
        Err(e) => {
            fail(&st, id, &e.problem()).await;
            tracing::warn!(package_id = %id, error = %e, "upload failed");
            return Err(e);
        }
    };
    let recorded = st
        .db
        .packages()
        .set_content(id, stored.size, &stored.sha512, &stored.blake3)
        .instrument(info_span!("upload.record"))
        .await;
    if !matches!(recorded, Ok(true)) {
        // The package left UPLOADING meanwhile (e.g. failed as stalled): nothing to onboard.
        let _ = st.store.delete(&key).await;
        recorded?;
        return Err(ApiError::Conflict(format!(
            "VNF package {id} changed while uploading; upload again"
        )));
    }
    let id_text = id.to_string();
    if let Err(e) = st
        .bus
        .cast(
            &UploadPackage {
                package_id: id_text.clone(),
            },
            &[("package_id", &id_text)],
        )
        .instrument(info_span!("upload.cast"))
        .await
    {
        let problem = ProblemDetails::new(
            503,
            format!("could not hand the package to a conductor: {e}"),
        );
        fail(&st, id, &problem).await;
        return Err(e.into());
    }
    tracing::info!(package_id = %id, bytes = stored.size, "upload stored; onboarding cast");
    Ok(HttpResponse::Accepted().finish())
}

/// `UploadVnfPkgFromUriRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FromUri {
    address_information: String,
    #[serde(default)]
    auth_type: Option<Vec<String>>,
    #[serde(default)]
    user_name: Option<String>,
    #[serde(default)]
    password: Option<String>,
}

pub async fn upload_from_uri(
    Call { req, who, st }: Call,
    path: web::Path<String>,
    body: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let id = upload_target(&st, &req, &path, &who, &["application/json"]).await?;
    let b: FromUri = json_body(body, st.settings.max_json_body).await?;
    let uri = url::Url::parse(&b.address_information)
        .map_err(|e| ApiError::BadRequest(format!("addressInformation is not a URL: {e}")))?;
    if !matches!(uri.scheme(), "http" | "https") || uri.host_str().is_none_or(str::is_empty) {
        return Err(ApiError::BadRequest(
            "addressInformation must be an http:// or https:// URL with a host".into(),
        ));
    }
    if !uri.username().is_empty() || uri.password().is_some() {
        return Err(ApiError::BadRequest(
            "addressInformation must not carry credentials; give userName and password".into(),
        ));
    }
    if let Some(types) = &b.auth_type
        && types.iter().any(|t| t != "BASIC")
    {
        return Err(ApiError::BadRequest(
            "only authType BASIC is supported for package URIs".into(),
        ));
    }
    if b.password.is_some() && b.user_name.is_none() {
        return Err(ApiError::BadRequest(
            "password given without userName".into(),
        ));
    }
    let scope = who.confinement();
    if !st.db.packages().begin_upload(id, &scope).await? {
        return Err(refuse_upload(&st, id).await);
    }
    let msg = UploadFromUri {
        package_id: id.to_string(),
        address: uri.to_string(),
        user_name: b.user_name.unwrap_or_default(),
        // Sealed on the bus (durable and dead-letter queues keep messages).
        password: match b.password {
            Some(p) => crate::http::seal(&st, &p)?,
            None => String::new(),
        },
    };
    let id_text = id.to_string();
    if let Err(e) = st.bus.cast(&msg, &[("package_id", &id_text)]).await {
        fail(
            &st,
            id,
            &ProblemDetails::new(
                503,
                format!("could not hand the upload to a conductor: {e}"),
            ),
        )
        .await;
        return Err(e.into());
    }
    tracing::info!(package_id = %id, "upload from URI cast");
    Ok(HttpResponse::Accepted().finish())
}

/// The package, which must be ONBOARDED to be read (and of a vendor the caller sees).
pub async fn onboarded(
    st: &ServerState,
    raw_id: &str,
    who: &Principal,
) -> Result<(Uuid, packages::Stored), ApiError> {
    let stored = super::packages::load(st, raw_id, who).await?;
    let id = stored.package.id;
    if stored.package.onboarding_state != OnboardingState::Onboarded {
        return Err(ApiError::Conflict(format!(
            "VNF package {id} is {}; its content can be read once ONBOARDED",
            stored.package.onboarding_state
        )));
    }
    Ok((id, stored))
}

/// Answers a stream of `size` bytes honouring `Range`, as a download of file `name`
/// (see [`super::package_files::downloaded`]).
pub async fn ranged<F, Fut>(
    req: &HttpRequest,
    size: u64,
    content_type: &str,
    name: &str,
    open: F,
) -> Result<HttpResponse, ApiError>
where
    F: FnOnce(std::ops::Range<u64>) -> Fut,
    Fut: std::future::Future<Output = Result<tacker_storage::ByteStream, ApiError>>,
{
    let want = range::parse(req, size)?;
    let (mut resp, r) = match want {
        Want::All => (HttpResponse::Ok(), 0..size),
        Want::Part(r) => {
            let mut resp = HttpResponse::PartialContent();
            resp.insert_header((
                header::CONTENT_RANGE,
                format!("bytes {}-{}/{size}", r.start, r.end - 1),
            ));
            (resp, r)
        }
    };
    let len = r.end - r.start;
    let body = open(r).await?;
    resp.insert_header((header::ACCEPT_RANGES, "bytes"));
    resp.content_type(content_type.to_owned());
    super::package_files::downloaded(&mut resp, name);
    resp.no_chunking(len);
    Ok(resp.streaming(
        body.map(|c| c.map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))),
    ))
}

pub async fn download(
    Call { req, who, st }: Call,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &["application/zip", "application/octet-stream"])?;
    let (id, _) = onboarded(&st, &path, &who).await?;
    let key = PackageStore::package_key(&id.to_string());
    let size = st.store.size(&key).await?;
    let store = st.store.clone();
    ranged(
        &req,
        size,
        "application/zip",
        "package.zip",
        |r| async move {
            store
                .get_stream(&key, Some(r))
                .await
                .map_err(ApiError::from)
        },
    )
    .await
}
