CREATE TABLE vnf_packages (
    id TEXT PRIMARY KEY,
    onboarding_state TEXT NOT NULL,
    operational_state TEXT NOT NULL,
    usage_state TEXT NOT NULL,
    user_defined_data TEXT NOT NULL DEFAULT '{}',
    vnfd_id TEXT,
    vnf_provider TEXT,
    vnf_product_name TEXT,
    vnf_software_version TEXT,
    vnfd_version TEXT,
    checksum_algorithm TEXT,
    checksum_hash TEXT,
    package_size BIGINT,
    software_images TEXT NOT NULL DEFAULT '[]',
    additional_artifacts TEXT NOT NULL DEFAULT '[]',
    onboarding_failure_details TEXT,
    downloading INTEGER NOT NULL DEFAULT 0,
    coordinator_id TEXT,
    revision BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP
);
CREATE INDEX vnf_packages_listing ON vnf_packages (created_at, id) WHERE deleted_at IS NULL;

CREATE TABLE conductors (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    state TEXT NOT NULL,
    started_at TIMESTAMP NOT NULL,
    last_heartbeat TIMESTAMP NOT NULL
);
