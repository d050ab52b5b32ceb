-- The tenant a VNF instance, its operation occurrences and an LCM subscription belong to
-- (the creating caller's; NULL: none, seen by every caller).
ALTER TABLE vnf_instances ADD COLUMN tenant TEXT;
ALTER TABLE vnf_lcm_op_occs ADD COLUMN tenant TEXT;
ALTER TABLE lccn_subscriptions ADD COLUMN tenant TEXT;
CREATE INDEX vnf_instances_tenant_listing ON vnf_instances (tenant, created_at, id);
CREATE INDEX vnf_lcm_op_occs_tenant_listing ON vnf_lcm_op_occs (tenant, created_at, id);
