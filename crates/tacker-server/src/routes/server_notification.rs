//! `POST /server_notification/vnf_instances/{id}/servers/{server_id}/notify`: a server
//! monitor reports a fault of one VM of a VNF (Tacker's FaultNotification). The fault
//! raises an alarm about the server's VNFC; for an instance with `isAutohealEnabled`
//! the VNFC is healed by the closed loop's rules (gathered with others within
//! `fm.auto_heal_window`, one heal at a time, the cool-down). 204 as Tacker answers.

use actix_web::HttpResponse;
use tacker_db::alarms::Raised;
use tacker_domain::fm::alert::{AUTOHEAL, opted_in};
use tacker_domain::fm::server::{self, ServerNotification};
use tacker_domain::lcm::InstantiationState;

use crate::ApiError;
use crate::extract::{Call, JsonBody};

pub async fn notify(
    Call { req, who, st }: Call,
    JsonBody(b): JsonBody<ServerNotification>,
) -> Result<HttpResponse, ApiError> {
    b.notification.check().map_err(ApiError::BadRequest)?;
    let raw = req.match_info().get("id").unwrap_or_default().to_owned();
    let server_id = req
        .match_info()
        .get("server_id")
        .unwrap_or_default()
        .to_owned();
    let i = super::lcm::instances::load(&st, &raw, &who).await?;
    if i.instantiation_state != InstantiationState::Instantiated {
        return Err(ApiError::Conflict(format!(
            "VNF instance {} is {}",
            i.id, i.instantiation_state
        )));
    }
    let vnfc = server::vnfc_of(&i, &server_id).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "server {server_id} is not a VNFC of VNF instance {}",
            i.id
        ))
    })?;
    let alarm = server::alarm(&i, &server_id, &vnfc, &b.notification, chrono::Utc::now());
    if let Raised::New(a) = st.db.alarms().raise(&alarm).await? {
        tracing::info!(alarm_id = %a.id, vnf_instance_id = %i.id, server_id = %server_id, "server fault: alarm raised");
    }
    st.metrics.alert("server_notification", "raised");
    if opted_in(&i, AUTOHEAL) {
        let (id, window) = (i.id, st.settings.auto_heal_window);
        let added = st.db.auto_heals().request(id, &[vnfc], window).await?;
        if added > 0 {
            super::alerts::due(&st, id).await;
        }
        st.metrics.alert("server_notification", "heal_requested");
    }
    Ok(HttpResponse::NoContent().finish())
}
