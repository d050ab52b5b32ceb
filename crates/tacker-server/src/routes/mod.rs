//! Route table.

mod conductors;
mod health;
mod lcm;
mod package_content;
mod package_files;
mod packages;

use actix_web::{HttpResponse, web};

use crate::ApiError;

async fn not_found(req: actix_web::HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound(format!("no resource at {}", req.path())))
}

async fn method_not_allowed() -> Result<HttpResponse, ApiError> {
    Err(ApiError::MethodNotAllowed)
}

/// A resource whose other methods answer 405 as ProblemDetails.
fn resource(path: &str) -> actix_web::Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

/// A list answer: selectors applied, `Link: rel="next"` when there is more.
pub fn paged(
    q: &crate::query::ListQuery,
    page: tacker_domain::sol013::Page<(tacker_domain::sol013::Marker, serde_json::Value)>,
    collection_url: &str,
    default_excluded: &[&str],
) -> Result<HttpResponse, ApiError> {
    let items: Vec<serde_json::Value> = page
        .items
        .into_iter()
        .map(|(_, mut doc)| {
            q.selector.apply(&mut doc, default_excluded);
            doc
        })
        .collect();
    let mut resp = HttpResponse::Ok();
    if let Some(next) = &page.next {
        let link = format!("<{collection_url}?{}>; rel=\"next\"", q.next_query(next));
        resp.insert_header((actix_web::http::header::LINK, link));
    }
    Ok(resp.json(items))
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    lcm::configure(cfg);
    cfg.service(resource("/healthz").route(web::get().to(health::healthz)))
        .service(resource("/readyz").route(web::get().to(health::readyz)))
        .service(resource("/metrics").route(web::get().to(health::metrics)))
        .service(resource("/admin/v1/conductors").route(web::get().to(conductors::list)))
        .service(
            resource("/vnfpkgm/v1/vnf_packages")
                .route(web::get().to(packages::list))
                .route(web::post().to(packages::create)),
        )
        .service(
            resource("/vnfpkgm/v1/vnf_packages/{id}")
                .route(web::get().to(packages::show))
                .route(web::patch().to(packages::modify))
                .route(web::delete().to(packages::delete)),
        )
        .service(
            resource("/vnfpkgm/v1/vnf_packages/{id}/package_content")
                .route(web::put().to(package_content::upload))
                .route(web::get().to(package_content::download)),
        )
        .service(
            resource("/vnfpkgm/v1/vnf_packages/{id}/package_content/upload_from_uri")
                .route(web::post().to(package_content::upload_from_uri)),
        )
        .service(
            resource("/vnfpkgm/v1/vnf_packages/{id}/vnfd")
                .route(web::get().to(package_files::vnfd)),
        )
        .service(
            resource("/vnfpkgm/v1/vnf_packages/{id}/manifest")
                .route(web::get().to(package_files::manifest)),
        )
        .service(
            resource("/vnfpkgm/v1/vnf_packages/{id}/artifacts/{path:.+}")
                .route(web::get().to(package_files::artifact)),
        )
        .default_service(web::to(not_found));
}
