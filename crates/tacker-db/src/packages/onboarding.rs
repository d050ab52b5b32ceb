//! The onboarding transitions of a package: an upload (CREATED -> UPLOADING), the
//! coordinator's claim, the model stored, the conductors' confirmations, completion
//! (-> ONBOARDED) or failure (back to CREATED), and what recovery finds in flight.

use super::*;

/// CREATED -> UPLOADING (a new upload starts): clears the last failure and keeps the
/// vendors the uploader is confined to (`scope`, checked against the VNFD's provider);
/// false when the package is not CREATED (or gone).
pub fn begin_upload(c: &mut DbConnection, id: Uuid, scope: &Confinement) -> Result<bool> {
    let n = diesel::update(
        by_id(id)
            .filter(dsl::deleted_at.is_null())
            .filter(dsl::onboarding_state.eq(OnboardingState::Created.as_str())),
    )
    .set((
        dsl::onboarding_state.eq(OnboardingState::Uploading.as_str()),
        dsl::onboarding_failure_details.eq(None::<String>),
        dsl::downloading.eq(0),
        dsl::coordinator_id.eq(None::<String>),
        dsl::coordinator_incarnation.eq(None::<String>),
        dsl::progress_at.eq(Some(now())),
        dsl::upload_scope.eq(crate::scope_column::write(scope)),
        dsl::revision.eq(dsl::revision + 1),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// Records progress of an upload in flight (so it is not taken for stalled).
pub fn touch_progress(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    let n = diesel::update(by_id(id).filter(dsl::onboarding_state.eq_any([
        OnboardingState::Uploading.as_str(),
        OnboardingState::Processing.as_str(),
    ])))
    .set(dsl::progress_at.eq(Some(now())))
    .execute(c)?;
    Ok(n == 1)
}

/// Records the stored content's size, SHA-512 and BLAKE3 while UPLOADING.
pub fn set_content(
    c: &mut DbConnection,
    id: Uuid,
    size: u64,
    sha512: &str,
    blake3: &str,
) -> Result<bool> {
    let n = diesel::update(
        by_id(id).filter(dsl::onboarding_state.eq(OnboardingState::Uploading.as_str())),
    )
    .set((
        dsl::checksum_algorithm.eq(Some("SHA-512")),
        dsl::checksum_hash.eq(Some(sha512)),
        dsl::content_digest.eq(Some(blake3)),
        dsl::package_size.eq(Some(i64::try_from(size).unwrap_or(i64::MAX))),
        dsl::progress_at.eq(Some(now())),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// Takes the package as its coordinator: `from` -> `to`, recording `conductor`. Fails
/// (false) when the state moved on or another conductor coordinates it.
pub fn claim(
    c: &mut DbConnection,
    id: Uuid,
    conductor: &str,
    incarnation: &str,
    from: OnboardingState,
    to: OnboardingState,
) -> Result<bool> {
    let n = diesel::update(
        by_id(id)
            .filter(dsl::deleted_at.is_null())
            .filter(dsl::onboarding_state.eq(from.as_str()))
            .filter(
                dsl::coordinator_id
                    .is_null()
                    .or(dsl::coordinator_id.eq(conductor)),
            ),
    )
    .set((
        dsl::onboarding_state.eq(to.as_str()),
        dsl::coordinator_id.eq(Some(conductor)),
        dsl::coordinator_incarnation.eq(Some(incarnation)),
        dsl::progress_at.eq(Some(now())),
        dsl::revision.eq(dsl::revision + 1),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// Why storing a package model failed.
#[derive(Debug)]
pub enum StoreModel {
    /// Stored.
    Stored,
    /// Another live package of the same tenant has this vnfdId.
    DuplicateVnfdId(String),
    /// The uploader is confined to these vendors, and the VNFD's provider is none of them.
    ForeignVendor(Vec<String>),
    /// The package is no longer PROCESSING under this coordinator.
    Lost,
}

/// Stores what the CSAR says (descriptor facts, images, artifacts, the model) while
/// PROCESSING under `conductor`.
pub fn store_model(
    c: &mut DbConnection,
    id: Uuid,
    conductor: &str,
    model: &PackageModel,
) -> Result<StoreModel> {
    let v = &model.vnfd;
    let owner: Option<(Option<String>, Option<String>)> = by_id(id)
        .select((dsl::tenant, dsl::upload_scope))
        .first(c)
        .optional()?;
    let (tenant, scope) = owner.unwrap_or_default();
    let scope =
        crate::scope_column::read(scope.as_deref()).map_err(|e| corrupt("upload_scope", e))?;
    if !scope.sees_vendor(Some(&v.provider)) {
        return Ok(StoreModel::ForeignVendor(scope.vendors));
    }
    let software_images = tacker_domain::package::software_images_info(model);
    let additional = tacker_domain::package::additional_artifacts_info(model);
    let target = by_id(id)
        .filter(dsl::onboarding_state.eq(OnboardingState::Processing.as_str()))
        .filter(dsl::coordinator_id.eq(conductor));
    let res = diesel::update(target)
        .set((
            dsl::vnfd_id.eq(Some(&v.vnfd_id)),
            dsl::vnf_provider.eq(Some(&v.provider)),
            dsl::vnf_product_name.eq(Some(&v.product_name)),
            dsl::vnf_software_version.eq(Some(&v.software_version)),
            dsl::vnfd_version.eq(Some(&v.descriptor_version)),
            dsl::software_images.eq(json_text(&software_images)),
            dsl::additional_artifacts.eq(json_text(&additional)),
            dsl::package_model.eq(Some(json_text(model))),
            dsl::progress_at.eq(Some(now())),
            dsl::updated_at.eq(now()),
        ))
        .execute(c);
    match res {
        Ok(1) => Ok(StoreModel::Stored),
        Ok(_) => Ok(StoreModel::Lost),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => {
            let same = dsl::vnf_packages
                .filter(dsl::vnfd_id.eq(&v.vnfd_id))
                .filter(dsl::deleted_at.is_null())
                .filter(dsl::id.ne(id.to_string()))
                .into_boxed::<crate::scan::Backend>();
            let same = match &tenant {
                Some(t) => same.filter(dsl::tenant.eq(t)),
                None => same.filter(dsl::tenant.is_null()),
            };
            let other: Option<String> = same.select(dsl::id).first(c).optional()?;
            Ok(StoreModel::DuplicateVnfdId(other.unwrap_or_default()))
        }
        Err(e) => Err(e.into()),
    }
}

/// Records that incarnation `incarnation` of `conductor` holds the package (while
/// PROCESSING; a later confirmation of the same conductor replaces it), and counts the
/// confirming conductors in `downloading`. False when the package is not PROCESSING.
pub fn confirm_download(
    c: &mut DbConnection,
    id: Uuid,
    conductor: &str,
    incarnation: &str,
) -> Result<bool> {
    c.transaction(|c| {
        let n = diesel::update(
            by_id(id).filter(dsl::onboarding_state.eq(OnboardingState::Processing.as_str())),
        )
        .set(dsl::progress_at.eq(Some(now())))
        .execute(c)?;
        if n == 0 {
            return Ok(false);
        }
        let pkg = id.to_string();
        diesel::delete(
            dl::package_downloads
                .filter(dl::package_id.eq(&pkg))
                .filter(dl::conductor_id.eq(conductor)),
        )
        .execute(c)?;
        diesel::insert_into(dl::package_downloads)
            .values((
                dl::package_id.eq(&pkg),
                dl::conductor_id.eq(conductor),
                dl::incarnation.eq(incarnation),
                dl::confirmed_at.eq(now()),
            ))
            .execute(c)?;
        let count: i64 = dl::package_downloads
            .filter(dl::package_id.eq(&pkg))
            .count()
            .get_result(c)?;
        diesel::update(by_id(id))
            .set(dsl::downloading.eq(i32::try_from(count).unwrap_or(i32::MAX)))
            .execute(c)?;
        Ok(true)
    })
}

/// Who confirmed holding the package: `(conductor, incarnation)`.
pub fn download_confirmations(c: &mut DbConnection, id: Uuid) -> Result<Vec<(String, String)>> {
    Ok(dl::package_downloads
        .filter(dl::package_id.eq(id.to_string()))
        .select((dl::conductor_id, dl::incarnation))
        .load(c)?)
}

/// Whether completing the onboarding is possible, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// ONBOARDED.
    Done,
    /// Conductors that must still confirm holding the package (as their current
    /// incarnations): `pending` are alive, `dead` stopped heartbeating.
    Missing {
        /// Alive, not confirmed yet (or confirmed by an earlier incarnation).
        pending: Vec<String>,
        /// Gone.
        dead: Vec<String>,
    },
    /// It is not PROCESSING (any more).
    Lost,
}

/// PROCESSING -> ONBOARDED + ENABLED when every conductor of `required` (the live READY
/// set when the gathering began) and of the live READY set now, read in the same
/// transaction, has confirmed holding the package as its current incarnation.
pub fn complete_onboarding(
    c: &mut DbConnection,
    id: Uuid,
    required: &[String],
    dead_after: std::time::Duration,
) -> Result<Completion> {
    c.transaction(|c| {
        // Locked: a member restarting now either registers after this commits (its
        // start-up sync then sees ONBOARDED) or before (its new incarnation must confirm).
        let members = crate::conductors::list_locked(c)?;
        let confirmed = download_confirmations(c, id)?;
        let now = chrono::Utc::now();
        let mut needed: Vec<&tacker_domain::conductor::Conductor> = members
            .iter()
            .filter(|m| required.contains(&m.id) || m.is_live_ready(now, dead_after))
            .collect();
        needed.sort_by(|a, b| a.id.cmp(&b.id));
        let (mut pending, mut dead) = (Vec::new(), Vec::new());
        for r in required {
            if !members.iter().any(|m| &m.id == r) {
                dead.push(r.clone());
            }
        }
        for m in &needed {
            if confirmed
                .iter()
                .any(|(who, inc)| *who == m.id && *inc == m.incarnation)
            {
                continue;
            }
            if m.is_alive(now, dead_after) {
                pending.push(m.id.clone());
            } else {
                dead.push(m.id.clone());
            }
        }
        if !pending.is_empty() || !dead.is_empty() {
            return Ok(Completion::Missing { pending, dead });
        }
        let n = diesel::update(
            by_id(id)
                .filter(dsl::onboarding_state.eq(OnboardingState::Processing.as_str()))
                // A failure being recorded (see `begin_failing`) wins.
                .filter(dsl::onboarding_failure_details.is_null())
                .filter(dsl::deleted_at.is_null()),
        )
        .set((
            dsl::onboarding_state.eq(OnboardingState::Onboarded.as_str()),
            dsl::operational_state.eq(OperationalState::Enabled.as_str()),
            dsl::coordinator_id.eq(None::<String>),
            dsl::coordinator_incarnation.eq(None::<String>),
            dsl::downloading.eq(i32::try_from(needed.len()).unwrap_or(i32::MAX)),
            dsl::revision.eq(dsl::revision + 1),
            dsl::updated_at.eq(now.naive_utc()),
        ))
        .execute(c)?;
        if n == 0 {
            return Ok(Completion::Lost);
        }
        diesel::delete(dl::package_downloads.filter(dl::package_id.eq(id.to_string())))
            .execute(c)?;
        if let Some(st) = get(c, id)? {
            let pkg = st.package;
            crate::pkgm_subscriptions::enqueue(c, &PkgFacts::onboarded(&pkg), &pkg)?;
        }
        Ok(Completion::Done)
    })
}

/// Marks an onboarding in flight as failing with `details` (it stays UPLOADING or
/// PROCESSING, but can no longer complete): the content can then be removed before
/// [`fail_onboarding`] returns it to CREATED. False when it is not in onboarding.
pub fn begin_failing(c: &mut DbConnection, id: Uuid, details: &ProblemDetails) -> Result<bool> {
    let n = diesel::update(by_id(id).filter(dsl::onboarding_state.eq_any([
        OnboardingState::Uploading.as_str(),
        OnboardingState::Processing.as_str(),
    ])))
    .set((
        dsl::onboarding_failure_details.eq(Some(json_text(details))),
        dsl::revision.eq(dsl::revision + 1),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// UPLOADING/PROCESSING -> CREATED with `details` visible until the next upload; forgets
/// everything the failed attempt recorded. Returns false when it was not in onboarding.
pub fn fail_onboarding(c: &mut DbConnection, id: Uuid, details: &ProblemDetails) -> Result<bool> {
    let n = diesel::update(by_id(id).filter(dsl::onboarding_state.eq_any([
        OnboardingState::Uploading.as_str(),
        OnboardingState::Processing.as_str(),
    ])))
    .set((
        dsl::onboarding_state.eq(OnboardingState::Created.as_str()),
        dsl::onboarding_failure_details.eq(Some(json_text(details))),
        dsl::vnfd_id.eq(None::<String>),
        dsl::vnf_provider.eq(None::<String>),
        dsl::vnf_product_name.eq(None::<String>),
        dsl::vnf_software_version.eq(None::<String>),
        dsl::vnfd_version.eq(None::<String>),
        dsl::checksum_algorithm.eq(None::<String>),
        dsl::checksum_hash.eq(None::<String>),
        dsl::content_digest.eq(None::<String>),
        dsl::package_size.eq(None::<i64>),
        dsl::software_images.eq("[]"),
        dsl::additional_artifacts.eq("[]"),
        dsl::package_model.eq(None::<String>),
        dsl::downloading.eq(0),
        dsl::coordinator_id.eq(None::<String>),
        dsl::coordinator_incarnation.eq(None::<String>),
        dsl::progress_at.eq(None::<NaiveDateTime>),
        dsl::revision.eq(dsl::revision + 1),
        dsl::updated_at.eq(now()),
    ))
    .execute(c)?;
    diesel::delete(dl::package_downloads.filter(dl::package_id.eq(id.to_string()))).execute(c)?;
    Ok(n == 1)
}

/// A package caught mid-onboarding: who coordinates it and when it last progressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlight {
    /// The package.
    pub id: Uuid,
    /// UPLOADING or PROCESSING.
    pub state: OnboardingState,
    /// The conductor coordinating it, if one took it.
    pub coordinator: Option<String>,
    /// Its incarnation that took it.
    pub coordinator_incarnation: Option<String>,
    /// Its last progress.
    pub progress_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// Every package in UPLOADING or PROCESSING.
pub fn in_flight(c: &mut DbConnection) -> Result<Vec<InFlight>> {
    type InFlightRow = (
        String,
        String,
        Option<String>,
        Option<String>,
        Option<NaiveDateTime>,
    );
    let rows: Vec<InFlightRow> = dsl::vnf_packages
        .filter(dsl::deleted_at.is_null())
        .filter(dsl::onboarding_state.eq_any([
            OnboardingState::Uploading.as_str(),
            OnboardingState::Processing.as_str(),
        ]))
        .select((
            dsl::id,
            dsl::onboarding_state,
            dsl::coordinator_id,
            dsl::coordinator_incarnation,
            dsl::progress_at,
        ))
        .load(c)?;
    rows.into_iter()
        .map(
            |(id, state, coordinator, coordinator_incarnation, progress)| {
                Ok(InFlight {
                    id: id.parse().map_err(|e| corrupt("id", e))?,
                    state: state.parse().map_err(|e| corrupt("onboarding_state", e))?,
                    coordinator,
                    coordinator_incarnation,
                    progress_at: progress.map(|p| p.and_utc()),
                })
            },
        )
        .collect()
}
