//! The `scope` column of subscriptions: the confinement of their creator as JSON, NULL
//! when there is none.

use tacker_domain::scope::Confinement;

/// The confinement stored as `text` (none when NULL).
pub(crate) fn read(text: Option<&str>) -> serde_json::Result<Confinement> {
    text.map_or(Ok(Confinement::default()), serde_json::from_str)
}

/// The column value of `c` (NULL when it confines nothing).
pub(crate) fn write(c: &Confinement) -> Option<String> {
    (!c.is_none()).then(|| crate::json_text(c))
}
