-- VNF LCM (v2): instances, operation occurrences, subscriptions, the notification outbox.
CREATE TABLE vnf_instances (
    id TEXT PRIMARY KEY,
    vnf_instance_name TEXT,
    vnf_instance_description TEXT,
    vnfd_id TEXT NOT NULL,
    vnf_pkg_id TEXT NOT NULL,
    vnf_provider TEXT NOT NULL,
    vnf_product_name TEXT NOT NULL,
    vnf_software_version TEXT NOT NULL,
    vnfd_version TEXT NOT NULL,
    instantiation_state TEXT NOT NULL,
    instantiated_vnf_info TEXT,
    vim_connection_info TEXT NOT NULL DEFAULT '{}',
    metadata TEXT NOT NULL DEFAULT '{}',
    extensions TEXT NOT NULL DEFAULT '{}',
    vnf_configurable_properties TEXT NOT NULL DEFAULT '{}',
    -- The operation in progress or FAILED_TEMP on this instance: one at a time.
    current_op_id TEXT,
    revision BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX vnf_instances_listing ON vnf_instances (created_at, id);
CREATE INDEX vnf_instances_package ON vnf_instances (vnf_pkg_id);

CREATE TABLE vnf_lcm_op_occs (
    id TEXT PRIMARY KEY,
    vnf_instance_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    operation_state TEXT NOT NULL,
    state_entered_time TIMESTAMP NOT NULL,
    start_time TIMESTAMP NOT NULL,
    is_automatic_invocation BOOLEAN NOT NULL DEFAULT FALSE,
    is_cancel_pending BOOLEAN NOT NULL DEFAULT FALSE,
    operation_params TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    resource_changes TEXT,
    changed_info TEXT,
    changed_ext_connectivity TEXT,
    grant_id TEXT,
    -- The conductor running it (crash recovery moves its ops on when it is gone).
    conductor_id TEXT,
    revision BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX vnf_lcm_op_occs_listing ON vnf_lcm_op_occs (created_at, id);
CREATE INDEX vnf_lcm_op_occs_state ON vnf_lcm_op_occs (operation_state);

CREATE TABLE lccn_subscriptions (
    id TEXT PRIMARY KEY,
    callback_uri TEXT NOT NULL,
    filter TEXT NOT NULL DEFAULT '{}',
    authentication TEXT,
    verbosity TEXT NOT NULL DEFAULT 'FULL',
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE notification_outbox (
    seq BIGSERIAL PRIMARY KEY,
    subscription_id TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    claimed_by TEXT,
    claimed_until TIMESTAMP,
    last_error TEXT,
    delivered_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX notification_outbox_pending ON notification_outbox (subscription_id, seq) WHERE delivered_at IS NULL;
