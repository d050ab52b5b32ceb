//! Packages brought over from another VNFM (`tacker import tacker`): inserted in their
//! final state in one transaction, never over a package that exists.

use super::*;

/// What inserting an imported package did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    /// Inserted.
    Inserted,
    /// A package of this id exists here (in this state, or deleted): left as it is.
    Exists(Option<OnboardingState>),
    /// Another live package of the same tenant has this vnfdId.
    DuplicateVnfdId(String),
}

/// Inserts `p` as it is: an ONBOARDED one with its `model` and the BLAKE3 digest of its
/// stored CSAR (`onboarded`), so conductors fetch it into their caches as any other.
pub fn insert_imported(
    c: &mut DbConnection,
    p: &VnfPackage,
    onboarded: Option<(&PackageModel, &str)>,
) -> Result<Imported> {
    c.transaction(|c| {
        if let Some((state, deleted)) = state_including_deleted(c, p.id)? {
            return Ok(Imported::Exists((!deleted).then_some(state)));
        }
        if let Some(d) = &p.descriptor {
            let same = dsl::vnf_packages
                .filter(dsl::vnfd_id.eq(&d.vnfd_id))
                .filter(dsl::deleted_at.is_null())
                .into_boxed::<crate::scan::Backend>();
            let same = match &p.tenant {
                Some(t) => same.filter(dsl::tenant.eq(t)),
                None => same.filter(dsl::tenant.is_null()),
            };
            if let Some(other) = same.select(dsl::id).first::<String>(c).optional()? {
                return Ok(Imported::DuplicateVnfdId(other));
            }
        }
        diesel::insert_into(vnf_packages::table)
            .values(Row::from_domain(p))
            .execute(c)?;
        if let Some((model, digest)) = onboarded {
            diesel::update(by_id(p.id))
                .set((
                    dsl::package_model.eq(Some(json_text(model))),
                    dsl::content_digest.eq(Some(digest)),
                ))
                .execute(c)?;
        }
        Ok(Imported::Inserted)
    })
}

impl super::Packages<'_> {
    /// [`insert_imported`] on a pooled connection.
    pub async fn insert_imported(
        self,
        p: &VnfPackage,
        onboarded: Option<(&PackageModel, &str)>,
    ) -> Result<Imported> {
        let p = p.clone();
        let onboarded = onboarded.map(|(m, d)| (m.clone(), d.to_owned()));
        self.0
            .run(move |c| insert_imported(c, &p, onboarded.as_ref().map(|(m, d)| (m, d.as_str()))))
            .await
    }
}
