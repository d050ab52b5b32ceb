-- The infra step's outcome, recorded before the *_end hook: a retry after a hook
-- failure runs the hook again without redoing the infra step.
ALTER TABLE vnf_lcm_op_occs ADD COLUMN checkpoint TEXT;
-- The instantiate request's additionalParams, sealed (passwords of management drivers):
-- what scale, heal and terminate hooks work with.
ALTER TABLE vnf_instances ADD COLUMN instantiate_params TEXT;
-- SSH host keys pinned per VNFC on first contact.
CREATE TABLE ssh_host_keys (
    vnf_instance_id TEXT NOT NULL,
    vnfc_id TEXT NOT NULL,
    address TEXT NOT NULL,
    public_key TEXT NOT NULL,
    pinned_at TIMESTAMP NOT NULL,
    PRIMARY KEY (vnf_instance_id, vnfc_id)
);
