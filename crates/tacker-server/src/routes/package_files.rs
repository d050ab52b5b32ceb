//! Files of an onboarded package, read from package storage: the VNFD, artifacts, the manifest.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use futures::StreamExt;
use tacker_domain::vnfd::PackageModel;
use tacker_storage::PackageStore;
use uuid::Uuid;

use super::package_content::{onboarded, ranged};
use crate::extract::Call;
use crate::{ApiError, ServerState, entry_stream};

async fn model(st: &ServerState, id: Uuid) -> Result<PackageModel, ApiError> {
    let found = super::packages::stored_model(st, id).await?;
    found.ok_or_else(|| {
        ApiError::Internal(format!(
            "VNF package {id} is ONBOARDED without a stored model"
        ))
    })
}

/// Which of `text/plain` and `application/zip` the client accepts (none: both).
fn accepts(req: &HttpRequest) -> (bool, bool) {
    let Some(a) = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
    else {
        return (true, true);
    };
    let types: Vec<String> = a
        .split(',')
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    let any = types.iter().any(|t| t == "*/*");
    let text = any || types.iter().any(|t| t == "text/plain" || t == "text/*");
    let zip = any
        || types
            .iter()
            .any(|t| t == "application/zip" || t == "application/*");
    (text, zip)
}

/// `GET .../vnfd`: the VNFD as YAML when it is one file and text/plain is accepted,
/// else a zip of its files (and TOSCA.meta); 406 when neither is acceptable.
pub async fn vnfd(
    Call { req, who, st }: Call,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (text_ok, zip_ok) = accepts(&req);
    let (id, _) = onboarded(&st, &path, &who).await?;
    let m = model(&st, id).await?;
    let key = PackageStore::package_key(&id.to_string());
    let single = m.vnfd.definitions.len() == 1;
    if text_ok && single {
        let loc = m
            .entries
            .get(&m.vnfd.entry_definitions)
            .copied()
            .ok_or_else(|| ApiError::Internal("VNFD location unknown".into()))?;
        let body = entry_stream::open(&st.store, &key, loc, 0..loc.size).await?;
        let mut resp = HttpResponse::Ok();
        resp.content_type("text/plain");
        resp.no_chunking(loc.size);
        downloaded(&mut resp, &m.vnfd.entry_definitions);
        return Ok(resp.streaming(
            body.map(|c| c.map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))),
        ));
    }
    if !zip_ok {
        return Err(ApiError::NotAcceptable(if single {
            "the VNFD is offered as text/plain or application/zip".into()
        } else {
            "the VNFD has several files: it is offered only as application/zip".into()
        }));
    }
    let mut names: Vec<String> = m.vnfd.definitions.clone();
    if m.entries.contains_key("TOSCA-Metadata/TOSCA.meta") {
        names.push("TOSCA-Metadata/TOSCA.meta".into());
    }
    let mut files = Vec::with_capacity(names.len());
    for f in names {
        let loc = m
            .entries
            .get(&f)
            .copied()
            .ok_or_else(|| ApiError::Internal(format!("location of {f} unknown")))?;
        files.push((f, loc));
    }
    // Zipped while it is sent: memory per request stays a few chunks.
    let body = crate::zip_stream::zipped(st.store.clone(), key, files);
    let mut resp = HttpResponse::Ok();
    resp.content_type("application/zip");
    downloaded(&mut resp, "vnfd.zip");
    Ok(resp.streaming(body))
}

/// Marks an answer carrying a file of a package (the package author's content) as a
/// download a browser never runs in the API's origin: `Content-Disposition: attachment`
/// (named `name`), `X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox`.
pub fn downloaded(resp: &mut actix_web::HttpResponseBuilder, name: &str) {
    let base = name.rsplit('/').next().unwrap_or(name).to_owned();
    resp.insert_header(header::ContentDisposition {
        disposition: header::DispositionType::Attachment,
        parameters: vec![header::DispositionParam::Filename(base)],
    });
    resp.insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
    resp.insert_header((header::CONTENT_SECURITY_POLICY, "sandbox"));
}

/// `GET .../artifacts/{artifactPath}`: one file of the package, Range supported.
pub async fn artifact(
    Call { req, who, st }: Call,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (raw_id, artifact_path) = path.into_inner();
    let (id, _) = onboarded(&st, &raw_id, &who).await?;
    let m = model(&st, id).await?;
    let known = m.has_artifact(&artifact_path);
    let loc = m
        .entries
        .get(&artifact_path)
        .copied()
        .filter(|_| known)
        .ok_or_else(|| {
            ApiError::NotFound(format!(
                "VNF package {id} has no artifact {artifact_path:?}"
            ))
        })?;
    let key = PackageStore::package_key(&id.to_string());
    let store = st.store.clone();
    ranged(
        &req,
        loc.size,
        media_type(&artifact_path),
        &artifact_path,
        |r| async move { entry_stream::open(&store, &key, loc, r).await },
    )
    .await
}

/// An artifact's media type, by its extension (SOL005 9.4.7.3.2: "the" media type, else
/// `application/octet-stream`).
pub fn media_type(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "yaml" | "yml" => "application/yaml",
        "json" => "application/json",
        "xml" => "application/xml",
        "txt" | "log" | "mf" | "meta" => "text/plain",
        "sh" => "application/x-sh",
        "py" => "text/x-python",
        "html" | "htm" => "text/html",
        "pem" | "crt" | "cert" => "application/x-pem-file",
        "zip" | "csar" => "application/zip",
        "tar" => "application/x-tar",
        "gz" | "tgz" => "application/gzip",
        _ => "application/octet-stream",
    }
}

/// `GET .../manifest`: the package's manifest as text.
pub async fn manifest(
    Call { req, who, st }: Call,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (text_ok, _) = accepts(&req);
    if !text_ok {
        return Err(ApiError::NotAcceptable(
            "the manifest is offered as text/plain".into(),
        ));
    }
    let (id, _) = onboarded(&st, &path, &who).await?;
    let m = model(&st, id).await?;
    let mf = m
        .manifest
        .clone()
        .ok_or_else(|| ApiError::NotFound(format!("VNF package {id} has no manifest")))?;
    let loc = m
        .entries
        .get(&mf)
        .copied()
        .ok_or_else(|| ApiError::Internal("manifest location unknown".into()))?;
    let key = PackageStore::package_key(&id.to_string());
    let body = entry_stream::open(&st.store, &key, loc, 0..loc.size).await?;
    let mut resp = HttpResponse::Ok();
    resp.content_type("text/plain");
    resp.no_chunking(loc.size);
    downloaded(&mut resp, &mf);
    Ok(resp.streaming(
        body.map(|c| c.map_err(|e| actix_web::error::ErrorInternalServerError(e.to_string()))),
    ))
}
