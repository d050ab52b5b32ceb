//! Route table.

mod alerts;
mod conductors;
mod document;
mod fm;
mod health;
mod lcm;
pub mod openapi;
mod package_content;
mod package_files;
mod packages;
mod pkgm;
mod pm;
mod root;
mod scan;
mod server_notification;
mod subscriptions;
mod version;
mod vims;

use actix_web::{HttpResponse, web};

use crate::ApiError;
use crate::auth::{self, Access};
pub use document::{Doc, Document};

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

/// The API prefixes whose routes are registered under one `web::scope`: the router
/// compares a request's path with each prefix, and tries the patterns (regular
/// expressions) of one API only, instead of every pattern registered before the match.
/// Each prefix's routes stand together in the table (a test checks it): a second scope
/// of the same prefix would never be reached.
const SCOPES: &[&str] = &[
    "/vnfpkgm/v1",
    "/vnflcm/v1",
    "/vnflcm/v2",
    "/vnffm/v1",
    "/vnfpm/v2",
];

/// The scope (of [`SCOPES`]) a route's path belongs to.
fn scope_of(path: &str) -> Option<&'static str> {
    SCOPES.iter().copied().find(|s| {
        path.strip_prefix(s)
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// Routes gathered into their API's scope while the table is registered in order.
#[derive(Default)]
struct Scopes {
    open: Option<(&'static str, actix_web::Scope)>,
}

impl Scopes {
    /// Registers the resource `make` builds for `path` (given the path within its scope).
    fn add<F>(
        &mut self,
        cfg: &mut web::ServiceConfig,
        path: &'static str,
        make: impl FnOnce(&str) -> F,
    ) where
        F: actix_web::dev::HttpServiceFactory + 'static,
    {
        let Some(prefix) = scope_of(path) else {
            self.close(cfg);
            cfg.service(make(path));
            return;
        };
        if self.open.as_ref().is_some_and(|(p, _)| *p != prefix) {
            self.close(cfg);
        }
        let (_, scope) = self
            .open
            .take()
            .unwrap_or_else(|| (prefix, web::scope(prefix)));
        self.open = Some((prefix, scope.service(make(&path[prefix.len()..]))));
    }

    /// Registers the scope being filled, if any.
    fn close(&mut self, cfg: &mut web::ServiceConfig) {
        if let Some((_, scope)) = self.open.take() {
            cfg.service(scope);
        }
    }
}

/// A list answer from `(sort key, document)` pairs in order: the SOL013 filter, one
/// page after the marker, selectors applied, `Link: rel="next"` when there is more.
pub fn paged<D: Document>(
    q: &crate::query::ListQuery,
    docs: impl IntoIterator<Item = (tacker_domain::sol013::Marker, D)>,
    page_size: usize,
    collection_url: &str,
    default_excluded: &[&str],
) -> Result<HttpResponse, ApiError> {
    let kept = docs
        .into_iter()
        .filter(|(_, doc)| q.filter.as_ref().is_none_or(|f| doc.matches(f)));
    let page =
        tacker_domain::sol013::paginate(kept, |(m, _)| m.clone(), q.marker.as_ref(), page_size);
    let items: Vec<D> = page
        .items
        .into_iter()
        .map(|(_, mut doc)| {
            doc.select(&q.selector, default_excluded);
            doc
        })
        .collect();
    let mut resp = HttpResponse::Ok();
    if let Some(next) = &page.next {
        let link = format!("<{collection_url}?{}>; rel=\"next\"", q.next_query(next));
        resp.insert_header((actix_web::http::header::LINK, link));
    }
    Ok(resp
        .insert_header(actix_web::http::header::ContentType::json())
        .body(document::page_body(&items)))
}

/// Declares every route once: registered with actix, and described in `/openapi.json`.
/// Each method names what it needs (`public`, `reader`, `member`, `admin`, `metrics`,
/// `alert`; see [`crate::auth::Access`]). `[lcm]` and `[fm]` routes require and answer
/// their API's `Version` header.
macro_rules! api {
    ($( [$($flag:ident)?] $path:literal, $std:expr, { $( $method:ident [$access:ident] $handler:path => $summary:literal ),+ $(,)? } )+) => {
        /// Every route of the API.
        pub const ROUTES: &[openapi::Route] = &[
            $( openapi::Route {
                path: $path,
                standard: $std,
                version: api!(@version $($flag)?),
                ops: &[ $( (stringify!($method), api!(@access $access), $summary) ),+ ],
            } ),+
        ];

        /// Registers every route on an actix `App`, each API's under its scope.
        pub fn configure(cfg: &mut web::ServiceConfig) {
            let mut scopes = Scopes::default();
            $( scopes.add(cfg, $path, |p| api!(@wrap [$($flag)?] resource(p) $( .route(api!(@route $method $access $handler)) )+ )); )+
            scopes.close(cfg);
            cfg.default_service(web::to(not_found));
        }
    };
    (@version lcm) => { Some(lcm::API_VERSION) };
    (@version fm) => { Some(fm::API_VERSION) };
    (@version pm) => { Some(pm::API_VERSION) };
    (@version) => { None };
    (@wrap [lcm] $e:expr) => { $e.wrap(actix_web::middleware::from_fn(lcm::version)) };
    (@wrap [fm] $e:expr) => { $e.wrap(actix_web::middleware::from_fn(fm::version)) };
    (@wrap [pm] $e:expr) => { $e.wrap(actix_web::middleware::from_fn(pm::version)) };
    (@wrap [] $e:expr) => { $e };
    (@access public) => { Access::Public };
    (@access reader) => { Access::Reader };
    (@access member) => { Access::Member };
    (@access admin) => { Access::Admin };
    (@access metrics) => { Access::Metrics };
    (@access alert) => { Access::Alert };
    (@route $method:ident public $handler:path) => { web::$method().to($handler) };
    (@route $method:ident $access:ident $handler:path) => {
        web::$method().to($handler).wrap(actix_web::middleware::from_fn(auth::$access))
    };
}

const SOL003: Option<&str> = Some("SOL003 v3.3.1");
/// `/vnflcm/v1`: checked against the bundled v2.4.1 definitions (the closest to the
/// v2.6.1 bodies Tacker's v1 API takes; where they differ, Tacker's v1 behaviour wins).
const SOL003_V1: Option<&str> = Some("SOL003 v2.4.1");
const SOL005: Option<&str> = Some("SOL005 v2.4.1");
const SOL003_FM: Option<&str> = Some("SOL003 v3.3.1 VNF fault management");
const SOL003_PM: Option<&str> = Some("SOL003 v3.3.1 VNF performance management");
const OURS: Option<&str> = None;
/// Tacker's own APIs (no ETSI definition).
const TACKER: Option<&str> = None;

api! {
    [] "/healthz", OURS, { get [public] health::healthz => "Liveness" }
    [] "/readyz", OURS, { get [public] health::readyz => "Readiness: database and bus reachable" }
    [] "/metrics", OURS, { get [metrics] health::metrics => "Prometheus metrics" }
    [] "/oauth2/token", OURS, {
        post [public] auth::issue => "A token for a built-in client (OAuth 2.0 client credentials)",
    }
    [] "/oauth2/jwks", OURS, { get [public] auth::jwks => "The keys the built-in token endpoint signs with" }
    [] "/openapi.json", OURS, { get [reader] openapi::document => "This OpenAPI document" }
    [] "/admin/v1/conductors", OURS, { get [admin] conductors::list => "Conductors, their states and whether they are live" }
    [] "/alert", TACKER, {
        post [alert] alerts::fm => "Alertmanager webhook: vnffm alerts raise (firing) and clear (resolved) alarms",
    }
    [] "/alert/auto_healing", TACKER, {
        post [alert] alerts::auto_heal => "Alertmanager webhook: auto_heal alerts raise alarms and heal the VNFCs they name (isAutohealEnabled)",
    }
    [] "/alert/auto_scaling", TACKER, {
        post [alert] alerts::auto_scale => "Alertmanager webhook: auto_scale alerts scale the aspect they name one step (isAutoscaleEnabled), within its limits",
    }
    [] "/server_notification/vnf_instances/{id}/servers/{server_id}/notify", TACKER, {
        post [alert] server_notification::notify => "A server monitor reports a VM's fault: an alarm, and a heal of its VNFC (isAutohealEnabled)",
    }
    [] "/pm_event", TACKER, {
        post [alert] pm::events::pm_event => "Alertmanager webhook: values of PM jobs' metrics (function_type vnfpm) become reports",
    }
    [] "/pm_threshold", TACKER, {
        post [alert] pm::events::pm_threshold => "Alertmanager webhook: values of thresholds' metrics (function_type vnfpm_threshold), announced when they cross",
    }
    [pm] "/vnfpm/v2/api_versions", Some("SOL013 v3.4.1"), { get [public] pm::api_versions => "API versions of VNF performance management" }
    [pm] "/vnfpm/v2/pm_jobs", SOL003_PM, {
        post [member] pm::jobs::create => "Create a PM job (its Prometheus rules delivered)",
        get [reader] pm::resource::list::<tacker_domain::pm::job::PmJob> => "List PM jobs",
    }
    [pm] "/vnfpm/v2/pm_jobs/{id}", SOL003_PM, {
        get [reader] pm::resource::show::<tacker_domain::pm::job::PmJob> => "Read a PM job",
        patch [member] pm::resource::modify::<tacker_domain::pm::job::PmJob> => "Modify a PM job's callback",
        delete [member] pm::resource::delete::<tacker_domain::pm::job::PmJob> => "Delete a PM job (its rules removed)",
    }
    [pm] "/vnfpm/v2/pm_jobs/{id}/reports/{reportId}", SOL003_PM, { get [reader] pm::jobs::report => "Read a PM report" }
    [pm] "/vnfpm/v2/thresholds", SOL003_PM, {
        post [member] pm::thresholds::create => "Create a threshold (its Prometheus rules delivered)",
        get [reader] pm::resource::list::<tacker_domain::pm::threshold::Threshold> => "List thresholds",
    }
    [pm] "/vnfpm/v2/thresholds/{id}", SOL003_PM, {
        get [reader] pm::resource::show::<tacker_domain::pm::threshold::Threshold> => "Read a threshold",
        patch [member] pm::resource::modify::<tacker_domain::pm::threshold::Threshold> => "Modify a threshold's callback",
        delete [member] pm::resource::delete::<tacker_domain::pm::threshold::Threshold> => "Delete a threshold (its rules removed)",
    }
    [fm] "/vnffm/v1/api_versions", Some("SOL013 v3.4.1"), { get [public] fm::api_versions => "API versions of VNF fault management" }
    [fm] "/vnffm/v1/alarms", SOL003_FM, { get [reader] fm::alarms::list => "List alarms" }
    [fm] "/vnffm/v1/alarms/{id}", SOL003_FM, {
        get [reader] fm::alarms::show => "Read an alarm",
        patch [member] fm::alarms::modify => "Acknowledge an alarm (ackState)",
    }
    [fm] "/vnffm/v1/subscriptions", SOL003_FM, {
        post [member] subscriptions::create::<tacker_domain::fm::subscription::FmSubscription> => "Subscribe to alarm notifications",
        get [reader] subscriptions::list::<tacker_domain::fm::subscription::FmSubscription> => "List FM subscriptions",
    }
    [fm] "/vnffm/v1/subscriptions/{id}", SOL003_FM, {
        get [reader] subscriptions::show::<tacker_domain::fm::subscription::FmSubscription> => "Read an FM subscription",
        delete [member] subscriptions::delete::<tacker_domain::fm::subscription::FmSubscription> => "Terminate an FM subscription",
    }
    [] "/", TACKER, { get [public] root::versions => "API versions (Tacker's root)" }
    [] "/v1.0/vims", TACKER, {
        get [reader] vims::list => "List registered VIMs (filters id=, name=)",
        post [member] vims::create => "Register a VIM",
    }
    [] "/v1.0/vims.json", TACKER, {
        get [reader] vims::list => "List registered VIMs (the python-tackerclient path)",
        post [member] vims::create => "Register a VIM (the python-tackerclient path)",
    }
    [] "/v1.0/vims/{id}", TACKER, {
        get [reader] vims::show => "Read a VIM (credentials masked)",
        put [member] vims::update => "Update a VIM",
        delete [member] vims::delete => "Delete a VIM not in use",
    }
    [] "/vnfpkgm/api_versions", Some("SOL013 v3.4.1"), { get [public] pkgm::api_versions => "API versions of package management" }
    [] "/vnfpkgm/v1/api_versions", Some("SOL013 v3.4.1"), { get [public] pkgm::api_versions => "API versions of package management v1" }
    [] "/vnfpkgm/v1/subscriptions", SOL005, {
        post [member] subscriptions::create::<tacker_domain::pkgm::PkgmSubscription> => "Subscribe to package notifications",
        get [reader] subscriptions::list::<tacker_domain::pkgm::PkgmSubscription> => "List package subscriptions",
    }
    [] "/vnfpkgm/v1/subscriptions/{id}", SOL005, {
        get [reader] subscriptions::show::<tacker_domain::pkgm::PkgmSubscription> => "Read a package subscription",
        delete [member] subscriptions::delete::<tacker_domain::pkgm::PkgmSubscription> => "Terminate a package subscription",
    }
    [] "/vnfpkgm/v1/vnf_packages", SOL005, {
        get [reader] packages::list => "List VNF packages",
        post [member] packages::create => "Create a VNF package",
    }
    [] "/vnfpkgm/v1/vnf_packages/{id}", SOL005, {
        get [reader] packages::show => "Read a VNF package",
        patch [member] packages::modify => "Enable or disable a VNF package, update its user defined data",
        delete [member] packages::delete => "Delete a VNF package",
    }
    [] "/vnfpkgm/v1/vnf_packages/{id}/package_content", SOL005, {
        put [member] package_content::upload => "Upload the CSAR",
        get [reader] package_content::download => "Download the CSAR",
    }
    [] "/vnfpkgm/v1/vnf_packages/{id}/package_content/upload_from_uri", SOL005, {
        post [member] package_content::upload_from_uri => "Have the CSAR fetched from a URI",
    }
    [] "/vnfpkgm/v1/vnf_packages/{id}/vnfd", SOL005, { get [reader] package_files::vnfd => "Read the VNFD" }
    // In later SOL005 versions, not in the bundled v2.4.1 definitions.
    [] "/vnfpkgm/v1/vnf_packages/{id}/manifest", OURS, { get [reader] package_files::manifest => "Read the manifest" }
    [] "/vnfpkgm/v1/vnf_packages/{id}/artifacts/{path:.+}", SOL005, {
        get [reader] package_files::artifact => "Read an artifact",
    }
    [] "/vnflcm/api_versions", Some("SOL013 v3.4.1"), { get [public] lcm::api_versions => "API versions (v1 and v2)" }
    [] "/vnflcm/v1/api_versions", Some("SOL013 v3.4.1"), { get [public] lcm::api_versions => "API versions of v1" }
    [] "/vnflcm/v1/vnf_instances", SOL003_V1, {
        get [reader] lcm::instances::list => "List VNF instances (v1)",
        post [member] lcm::instances::create => "Create a VNF instance (v1)",
    }
    [] "/vnflcm/v1/vnf_instances/{id}", SOL003_V1, {
        get [reader] lcm::show::<tacker_domain::lcm::VnfInstance> => "Read a VNF instance (v1)",
        patch [member] lcm::instances::modify => "Modify VNF instance information (v1)",
        delete [member] lcm::instances::delete => "Delete a VNF instance (v1)",
    }
    [] "/vnflcm/v1/vnf_instances/{id}/instantiate", SOL003_V1, { post [member] lcm::tasks::handle::<lcm::tasks::Instantiate> => "Instantiate (v1)" }
    [] "/vnflcm/v1/vnf_instances/{id}/terminate", SOL003_V1, { post [member] lcm::tasks::handle::<lcm::tasks::Terminate> => "Terminate (v1)" }
    [] "/vnflcm/v1/vnf_instances/{id}/scale", SOL003_V1, { post [member] lcm::tasks::handle::<lcm::tasks::Scale> => "Scale (v1)" }
    [] "/vnflcm/v1/vnf_instances/{id}/scale_to_level", SOL003_V1, { post [member] lcm::tasks::handle::<lcm::tasks::ScaleToLevel> => "Scale to a level (v1)" }
    [] "/vnflcm/v1/vnf_instances/{id}/operate", SOL003_V1, { post [member] lcm::tasks::handle::<lcm::tasks::Operate> => "Start or stop (v1)" }
    [] "/vnflcm/v1/vnf_instances/{id}/change_flavour", SOL003_V1, { post [member] lcm::tasks::handle::<lcm::tasks::ChangeFlavour> => "Change the deployment flavour (v1)" }
    [] "/vnflcm/v1/vnf_instances/{id}/heal", SOL003_V1, {
        post [member] lcm::tasks::handle::<lcm::tasks::Heal> => "Heal (v1: vnfcInstanceId names vnfcResourceInfo ids, as Tacker's v1)",
    }
    [] "/vnflcm/v1/vnf_instances/{id}/change_ext_conn", SOL003_V1, {
        post [member] lcm::tasks::handle::<lcm::tasks::ChangeExtConn> => "Change external connectivity (v1)",
    }
    [] "/vnflcm/v1/vnf_lcm_op_occs", SOL003_V1, { get [reader] lcm::op_occs::list => "List operation occurrences (v1)" }
    [] "/vnflcm/v1/vnf_lcm_op_occs/{id}", SOL003_V1, { get [reader] lcm::show::<tacker_domain::lcm::OpOcc> => "Read an operation occurrence (v1)" }
    [] "/vnflcm/v1/vnf_lcm_op_occs/{id}/retry", SOL003_V1, { post [member] lcm::op_occs::retry => "Retry (v1)" }
    [] "/vnflcm/v1/vnf_lcm_op_occs/{id}/rollback", SOL003_V1, { post [member] lcm::op_occs::rollback => "Roll back (v1)" }
    [] "/vnflcm/v1/vnf_lcm_op_occs/{id}/fail", SOL003_V1, { post [member] lcm::op_occs::fail => "Mark FAILED (v1)" }
    [] "/vnflcm/v1/vnf_lcm_op_occs/{id}/cancel", SOL003_V1, { post [member] lcm::op_occs::cancel => "Cancel (v1)" }
    [] "/vnflcm/v1/subscriptions", SOL003_V1, {
        get [reader] lcm::subscriptions::list => "List subscriptions (v1)",
        post [member] lcm::subscriptions::create => "Subscribe (v1: notifications link into /vnflcm/v1)",
    }
    [] "/vnflcm/v1/subscriptions/{id}", SOL003_V1, {
        get [reader] lcm::show::<tacker_domain::lcm::Subscription> => "Read a subscription (v1)",
        delete [member] lcm::subscriptions::delete => "Unsubscribe (v1)",
    }
    [lcm] "/vnflcm/v2/api_versions", SOL003, { get [public] lcm::api_versions => "API versions" }
    [lcm] "/vnflcm/v2/vnf_instances", SOL003, {
        get [reader] lcm::instances::list => "List VNF instances",
        post [member] lcm::instances::create => "Create a VNF instance",
    }
    [lcm] "/vnflcm/v2/vnf_instances/{id}", SOL003, {
        get [reader] lcm::show::<tacker_domain::lcm::VnfInstance> => "Read a VNF instance",
        patch [member] lcm::instances::modify => "Modify VNF instance information (MODIFY_INFO)",
        delete [member] lcm::instances::delete => "Delete a VNF instance",
    }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/instantiate", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::Instantiate> => "Instantiate" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/terminate", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::Terminate> => "Terminate" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/scale", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::Scale> => "Scale" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/scale_to_level", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::ScaleToLevel> => "Scale to a level" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/operate", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::Operate> => "Start or stop" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/change_flavour", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::ChangeFlavour> => "Change the deployment flavour" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/heal", SOL003, { post [member] lcm::tasks::handle::<lcm::tasks::Heal> => "Heal (SOL002 VNFCs or SOL003 whole VNF)" }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/change_ext_conn", SOL003, {
        post [member] lcm::tasks::handle::<lcm::tasks::ChangeExtConn> => "Change external connectivity",
    }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/change_vnfpkg", SOL003, {
        post [member] lcm::tasks::handle::<lcm::tasks::ChangeVnfpkg> => "Change the current VNF package (CNF RollingUpdate)",
    }
    [lcm] "/vnflcm/v2/vnf_instances/{id}/sync", OURS, {
        post [admin] lcm::tasks::sync => "Reconcile the stored VNFCs with the VIM now",
    }
    [lcm] "/vnflcm/v2/vnf_lcm_op_occs", SOL003, { get [reader] lcm::op_occs::list => "List operation occurrences" }
    [lcm] "/vnflcm/v2/vnf_lcm_op_occs/{id}", SOL003, { get [reader] lcm::show::<tacker_domain::lcm::OpOcc> => "Read an operation occurrence" }
    [lcm] "/vnflcm/v2/vnf_lcm_op_occs/{id}/retry", SOL003, { post [member] lcm::op_occs::retry => "Retry" }
    [lcm] "/vnflcm/v2/vnf_lcm_op_occs/{id}/rollback", SOL003, { post [member] lcm::op_occs::rollback => "Roll back" }
    [lcm] "/vnflcm/v2/vnf_lcm_op_occs/{id}/fail", SOL003, { post [member] lcm::op_occs::fail => "Mark FAILED" }
    [lcm] "/vnflcm/v2/vnf_lcm_op_occs/{id}/cancel", SOL003, { post [member] lcm::op_occs::cancel => "Cancel" }
    [lcm] "/vnflcm/v2/subscriptions", SOL003, {
        get [reader] lcm::subscriptions::list => "List subscriptions",
        post [member] lcm::subscriptions::create => "Subscribe",
    }
    [lcm] "/vnflcm/v2/subscriptions/{id}", SOL003, {
        get [reader] lcm::show::<tacker_domain::lcm::Subscription> => "Read a subscription",
        delete [member] lcm::subscriptions::delete => "Unsubscribe",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scope_s_routes_stand_together_and_every_scope_has_routes() {
        let runs: Vec<Option<&str>> = ROUTES.iter().map(|r| scope_of(r.path)).collect();
        for prefix in SCOPES {
            let at: Vec<usize> = (0..runs.len())
                .filter(|i| runs[*i] == Some(*prefix))
                .collect();
            assert!(!at.is_empty(), "no route under {prefix}");
            assert_eq!(
                at.len(),
                at[at.len() - 1] - at[0] + 1,
                "routes of {prefix} are split"
            );
        }
        assert_eq!(scope_of("/vnflcm/v2"), None);
        assert_eq!(scope_of("/vnflcm/v2x/a"), None);
        assert_eq!(scope_of("/vnflcm/v2/a"), Some("/vnflcm/v2"));
    }
}
