/// Database errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `database.url` is not one we can use.
    #[error("{0}")]
    InvalidUrl(String),
    /// No connection could be had (database down, pool exhausted).
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A query failed.
    #[error("database query failed: {0}")]
    Query(#[from] diesel::result::Error),
    /// Migrations failed.
    #[error("migration failed: {0}")]
    Migration(String),
    /// A stored value cannot be read back into the domain (e.g. an unknown state).
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// A secret cannot be sealed or opened (keys missing, wrong or malformed).
    #[error("secrets: {0}")]
    Secrets(String),
}

impl Error {
    /// Whether the error means the connection is gone (server restarted, database dropped).
    pub fn is_connection_lost(&self) -> bool {
        use diesel::result::{DatabaseErrorKind, Error as D};
        match self {
            Error::Query(D::DatabaseError(DatabaseErrorKind::ClosedConnection, _))
            | Error::Query(D::DatabaseError(DatabaseErrorKind::UnableToSendCommand, _))
            | Error::Query(D::BrokenTransactionManager) => true,
            Error::Query(D::DatabaseError(DatabaseErrorKind::Unknown, info)) => {
                let m = info.message();
                m.contains("terminating connection") || m.contains("server closed the connection")
            }
            _ => false,
        }
    }

    /// Whether the error means "no such row".
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::Query(diesel::result::Error::NotFound))
    }
}

/// Result with the database [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
