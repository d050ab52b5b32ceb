//! `vims`: registered VIMs, their credentials sealed.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::{Map, Value};
use tacker_domain::vim::Vim;
use uuid::Uuid;

use crate::schema::vims::{self, dsl};
use crate::secrets::Keyring;
use crate::{DbConnection, Result, json_text, now};

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = vims)]
#[diesel(treat_none_as_null = true)]
struct Row {
    id: String,
    name: String,
    description: String,
    vim_type: String,
    auth_url: String,
    vim_project: String,
    auth_cred: String,
    extra: String,
    is_default: bool,
    tenant_id: String,
    created_at: NaiveDateTime,
    updated_at: Option<NaiveDateTime>,
}

crate::rows::corrupt_in!("vims");

fn map(what: &str, s: &str) -> Result<Map<String, Value>> {
    serde_json::from_str(s).map_err(|e| corrupt(what, e))
}

impl Row {
    fn from_domain(v: &Vim, keys: &Keyring) -> Result<Self> {
        Ok(Self {
            id: v.id.to_string(),
            name: v.name.clone(),
            description: v.description.clone(),
            vim_type: v.vim_type.as_str().into(),
            auth_url: v.auth_url.clone(),
            vim_project: json_text(&v.vim_project),
            auth_cred: keys.seal(&json_text(&v.auth_cred))?,
            extra: {
                // Its secrets sealed in place: the area stays readable for scoping.
                let mut extra = v.extra.clone();
                tacker_domain::vim::seal_extra(&mut extra, &mut |s| keys.seal(s))?;
                json_text(&extra)
            },
            is_default: v.is_default,
            tenant_id: v.tenant_id.clone(),
            created_at: v.created_at.naive_utc(),
            updated_at: v.updated_at.map(|t| t.naive_utc()),
        })
    }

    fn into_domain(self, keys: &Keyring) -> Result<Vim> {
        Ok(Vim {
            id: self.id.parse().map_err(|e| corrupt("id", e))?,
            name: self.name,
            description: self.description,
            vim_type: self.vim_type.parse().map_err(|e| corrupt("vim_type", e))?,
            auth_url: self.auth_url,
            auth_cred: map("auth_cred", &keys.open(&self.auth_cred)?)?,
            vim_project: map("vim_project", &self.vim_project)?,
            is_default: self.is_default,
            extra: {
                let mut extra = Value::Object(map("extra", &self.extra)?);
                tacker_domain::secret::open_value(&mut extra, &mut |s| keys.open(s))?;
                match extra {
                    Value::Object(m) => m,
                    _ => Map::new(),
                }
            },
            tenant_id: self.tenant_id,
            created_at: self.created_at.and_utc(),
            updated_at: self.updated_at.map(|t| t.and_utc()),
        })
    }
}

/// Why a VIM could not be stored.
#[derive(Debug, PartialEq, Eq)]
pub enum Conflict {
    /// Another VIM of the tenant has this name.
    Name,
    /// Another VIM of the tenant is the default.
    Default(String),
}

fn conflicts(c: &mut DbConnection, v: &Vim) -> Result<Option<Conflict>> {
    let me = v.id.to_string();
    let named: i64 = dsl::vims
        .filter(dsl::tenant_id.eq(&v.tenant_id))
        .filter(dsl::name.eq(&v.name))
        .filter(dsl::id.ne(&me))
        .count()
        .get_result(c)?;
    if named > 0 {
        return Ok(Some(Conflict::Name));
    }
    if v.is_default {
        let other: Option<String> = dsl::vims
            .filter(dsl::tenant_id.eq(&v.tenant_id))
            .filter(dsl::is_default.eq(true))
            .filter(dsl::id.ne(&me))
            .select(dsl::id)
            .first(c)
            .optional()?;
        if let Some(o) = other {
            return Ok(Some(Conflict::Default(o)));
        }
    }
    Ok(None)
}

fn unique_violation(e: &diesel::result::Error) -> bool {
    matches!(
        e,
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)
    )
}

/// Registers `v` (credentials sealed with `keys`).
pub fn create(c: &mut DbConnection, v: &Vim, keys: &Keyring) -> Result<Option<Conflict>> {
    let row = Row::from_domain(v, keys)?;
    c.transaction(|c| {
        if let Some(x) = conflicts(c, v)? {
            return Ok(Some(x));
        }
        match diesel::insert_into(vims::table).values(&row).execute(c) {
            Ok(_) => Ok(None),
            Err(e) if unique_violation(&e) => Ok(Some(Conflict::Name)),
            Err(e) => Err(e.into()),
        }
    })
}

/// Stores the changed `v`.
pub fn update(c: &mut DbConnection, v: &Vim, keys: &Keyring) -> Result<Option<Conflict>> {
    let mut row = Row::from_domain(v, keys)?;
    row.updated_at = Some(now());
    c.transaction(|c| {
        if let Some(x) = conflicts(c, v)? {
            return Ok(Some(x));
        }
        match diesel::update(dsl::vims.filter(dsl::id.eq(&row.id)))
            .set(&row)
            .execute(c)
        {
            Ok(_) => Ok(None),
            Err(e) if unique_violation(&e) => Ok(Some(Conflict::Name)),
            Err(e) => Err(e.into()),
        }
    })
}

/// VIM `id`.
pub fn get(c: &mut DbConnection, id: Uuid, keys: &Keyring) -> Result<Option<Vim>> {
    crate::rows::one!(c, dsl::vims.filter(dsl::id.eq(id.to_string())), |r: Row| {
        r.into_domain(keys)
    })
}

/// The VIM of tenant `tenant` ('' : none) called `name`.
pub fn by_name(
    c: &mut DbConnection,
    tenant: &str,
    name: &str,
    keys: &Keyring,
) -> Result<Option<Vim>> {
    let q = dsl::vims
        .filter(dsl::tenant_id.eq(tenant))
        .filter(dsl::name.eq(name));
    crate::rows::one!(c, q, |r| r.into_domain(keys))
}

/// The default VIM of tenant `tenant` ('': none), if it has one.
pub fn default_vim(c: &mut DbConnection, tenant: &str, keys: &Keyring) -> Result<Option<Vim>> {
    let q = dsl::vims
        .filter(dsl::tenant_id.eq(tenant))
        .filter(dsl::is_default.eq(true));
    crate::rows::one!(c, q, |r| r.into_domain(keys))
}

/// Every VIM, or those of tenant `tenant` ('': none), oldest first.
pub fn list(c: &mut DbConnection, tenant: Option<&str>, keys: &Keyring) -> Result<Vec<Vim>> {
    let q = crate::rows::of_tenant!(dsl::vims, dsl::tenant_id, tenant);
    crate::rows::oldest_first!(c, q, dsl, |r: Row| r.into_domain(keys))
}

/// Removes VIM `id`; false when there was none.
pub fn delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    Ok(diesel::delete(dsl::vims.filter(dsl::id.eq(id.to_string()))).execute(c)? == 1)
}

/// Re-seals every VIM's credentials not sealed with the keyring's current key, compare
/// and swap per row (see `sealed::reseal_chunk`); how many changed.
pub fn reseal(c: &mut DbConnection, keys: &Keyring) -> Result<usize> {
    let rows: Vec<(String, String)> = dsl::vims.select((dsl::id, dsl::auth_cred)).load(c)?;
    let mut n = 0;
    for chunk in rows.chunks(crate::sealed::CHUNK as usize) {
        let rows = chunk.iter().map(|(id, s)| (id.clone(), Some(s.clone())));
        n += crate::sealed::reseal_chunk(
            c,
            rows.collect(),
            |s| keys.reseal(s),
            |c, id| {
                Ok(dsl::vims
                    .filter(dsl::id.eq(id))
                    .select(dsl::auth_cred)
                    .first(c)
                    .optional()?)
            },
            |c, id, old, new| {
                Ok(diesel::update(
                    dsl::vims
                        .filter(dsl::id.eq(id))
                        .filter(dsl::auth_cred.eq(old)),
                )
                .set(dsl::auth_cred.eq(new))
                .execute(c)?)
            },
        )?;
    }
    Ok(n)
}

/// Raw stored credentials of VIM `id` (tests check they are sealed).
pub fn stored_credentials(c: &mut DbConnection, id: Uuid) -> Result<Option<String>> {
    Ok(dsl::vims
        .filter(dsl::id.eq(id.to_string()))
        .select(dsl::auth_cred)
        .first(c)
        .optional()?)
}

/// The areas (`extra.area`) of the registered VIMs and which is each tenant's default,
/// without opening their credentials: for scoping instances and notifications by area.
pub fn areas(c: &mut DbConnection) -> Result<tacker_domain::scope::VimAreas> {
    let rows: Vec<(String, String, bool, String)> = dsl::vims
        .select((dsl::id, dsl::extra, dsl::is_default, dsl::tenant_id))
        .load(c)?;
    Ok(tacker_domain::scope::VimAreas::new(rows.into_iter().map(
        |(id, extra, is_default, tenant)| {
            let area = serde_json::from_str::<Map<String, Value>>(&extra)
                .ok()
                .and_then(|e| e.get("area").and_then(Value::as_str).map(str::to_owned));
            (id, area, is_default.then_some(tenant))
        },
    )))
}

crate::handle::handle! {
    /// Registered VIMs.
    Vims = vims {
        fn create(v: &Vim, keys: &Keyring) -> Option<Conflict>;
        fn update(v: &Vim, keys: &Keyring) -> Option<Conflict>;
        fn get(id: Uuid, keys: &Keyring) -> Option<Vim>;
        fn by_name(tenant: &str, name: &str, keys: &Keyring) -> Option<Vim>;
        fn default_vim(tenant: &str, keys: &Keyring) -> Option<Vim>;
        fn list(tenant: Option<&str>, keys: &Keyring) -> Vec<Vim>;
        fn delete(id: Uuid) -> bool;
        fn reseal(keys: &Keyring) -> usize;
        fn stored_credentials(id: Uuid) -> Option<String>;
        fn areas() -> tacker_domain::scope::VimAreas;
    }
}
