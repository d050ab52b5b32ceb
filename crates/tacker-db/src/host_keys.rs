//! `ssh_host_keys`: the SSH host key pinned for each VNFC on first contact.

use diesel::prelude::*;
use uuid::Uuid;

use crate::schema::ssh_host_keys::{self, dsl};
use crate::{DbConnection, Result, now};

/// A pinned key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinned {
    /// The address it was seen at.
    pub address: String,
    /// The key (OpenSSH format).
    pub public_key: String,
}

/// The key pinned for VNFC `vnfc` of instance `instance`.
pub fn get(c: &mut DbConnection, instance: Uuid, vnfc: &str) -> Result<Option<Pinned>> {
    let row: Option<(String, String)> = dsl::ssh_host_keys
        .filter(dsl::vnf_instance_id.eq(instance.to_string()))
        .filter(dsl::vnfc_id.eq(vnfc))
        .select((dsl::address, dsl::public_key))
        .first(c)
        .optional()?;
    Ok(row.map(|(address, public_key)| Pinned {
        address,
        public_key,
    }))
}

/// Pins `key` for VNFC `vnfc` (replacing what was pinned).
pub fn pin(
    c: &mut DbConnection,
    instance: Uuid,
    vnfc: &str,
    address: &str,
    key: &str,
) -> Result<()> {
    c.transaction(|c| {
        diesel::delete(
            dsl::ssh_host_keys
                .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                .filter(dsl::vnfc_id.eq(vnfc)),
        )
        .execute(c)?;
        diesel::insert_into(ssh_host_keys::table)
            .values((
                dsl::vnf_instance_id.eq(instance.to_string()),
                dsl::vnfc_id.eq(vnfc),
                dsl::address.eq(address),
                dsl::public_key.eq(key),
                dsl::pinned_at.eq(now()),
            ))
            .execute(c)?;
        Ok(())
    })
}

/// Forgets every key of instance `instance` (it was deleted or terminated).
pub fn forget(c: &mut DbConnection, instance: Uuid) -> Result<usize> {
    Ok(
        diesel::delete(dsl::ssh_host_keys.filter(dsl::vnf_instance_id.eq(instance.to_string())))
            .execute(c)?,
    )
}

crate::handle::handle! {
    /// SSH host keys pinned per VNFC.
    HostKeys = host_keys {
        fn get(instance: Uuid, vnfc: &str) -> Option<Pinned>;
        fn pin(instance: Uuid, vnfc: &str, address: &str, key: &str) -> ();
        fn forget(instance: Uuid) -> usize;
    }
}
