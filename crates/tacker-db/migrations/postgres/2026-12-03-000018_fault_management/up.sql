-- Alarms (SOL003 VNF FM): raised and cleared by monitoring alerts. `body` is the alarm;
-- the columns are what lookups need. A firing alert (its fingerprint) has one open
-- alarm per instance however often it is sent.
CREATE TABLE alarms (
    id TEXT PRIMARY KEY,
    vnf_instance_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    tenant TEXT,
    body TEXT NOT NULL,
    cleared_at TIMESTAMP,
    created_at TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX alarms_open ON alarms (vnf_instance_id, fingerprint) WHERE cleared_at IS NULL;
CREATE INDEX alarms_listing ON alarms (created_at, id);
CREATE INDEX alarms_cleared ON alarms (cleared_at) WHERE cleared_at IS NOT NULL;
-- FM subscriptions (their notifications share the outbox).
CREATE TABLE fm_subscriptions (
    id TEXT PRIMARY KEY,
    callback_uri TEXT NOT NULL,
    filter TEXT NOT NULL,
    authentication TEXT,
    scope TEXT,
    tenant TEXT,
    created_at TIMESTAMP NOT NULL
);
-- Automatic heals asked for by alerts: one row per VNFC, gathered per instance until
-- `due_at`, then taken into one HEAL occurrence (`op_occ_id`, set in the transaction
-- that creates it) and removed once that occurrence has ended.
CREATE TABLE auto_heals (
    vnf_instance_id TEXT NOT NULL,
    vnfc_id TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL,
    due_at TIMESTAMP NOT NULL,
    op_occ_id TEXT,
    PRIMARY KEY (vnf_instance_id, vnfc_id)
);
CREATE INDEX auto_heals_due ON auto_heals (due_at) WHERE op_occ_id IS NULL;
-- Automatic scale steps asked for by alerts: one pending step per instance and aspect
-- (a later alert sets its direction), taken into a SCALE occurrence like heals are.
CREATE TABLE auto_scales (
    id TEXT PRIMARY KEY,
    vnf_instance_id TEXT NOT NULL,
    aspect_id TEXT NOT NULL,
    direction TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL,
    due_at TIMESTAMP NOT NULL,
    op_occ_id TEXT
);
CREATE UNIQUE INDEX auto_scales_pending ON auto_scales (vnf_instance_id, aspect_id) WHERE op_occ_id IS NULL;
CREATE INDEX vnf_lcm_op_occs_automatic ON vnf_lcm_op_occs (vnf_instance_id, state_entered_time)
    WHERE is_automatic_invocation;
