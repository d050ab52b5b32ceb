-- Registered VIMs (Tacker's /v1.0/vims). Credentials are sealed (see tacker-db secrets).
CREATE TABLE vims (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    vim_type TEXT NOT NULL,
    auth_url TEXT NOT NULL,
    vim_project TEXT NOT NULL,
    auth_cred TEXT NOT NULL,
    extra TEXT NOT NULL,
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    tenant_id TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP
);
-- At most one default VIM.
CREATE UNIQUE INDEX vims_one_default ON vims (is_default) WHERE is_default;
