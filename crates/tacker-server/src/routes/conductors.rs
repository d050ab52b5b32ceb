//! `/admin/v1/conductors`: who is in the cluster, and who is live.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde_json::json;
use tacker_db::conductors;

use crate::http::negotiate;
use crate::{ApiError, ServerState};

pub async fn list(req: HttpRequest, st: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &["application/json"])?;
    let all = st.db.run(conductors::list).await?;
    let dead_after = chrono::Duration::from_std(st.settings.dead_after)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let now = Utc::now();
    let body: Vec<_> = all
        .into_iter()
        .map(|c| {
            let live = c.is_live(now, dead_after);
            let mut v = json!(c);
            v["live"] = json!(live);
            v
        })
        .collect();
    Ok(HttpResponse::Ok().json(body))
}
