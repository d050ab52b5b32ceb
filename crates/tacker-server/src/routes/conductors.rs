//! `/admin/v1/conductors`: who is in the cluster, and who is live.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use serde_json::json;

use crate::extract::AcceptsJson;
use crate::{ApiError, ServerState};

pub async fn list(_: AcceptsJson, st: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    let all = st.db.conductors().list().await?;
    let dead_after = st.settings.dead_after;
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
