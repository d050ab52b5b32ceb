DROP INDEX vnf_lcm_op_occs_tenant_listing;
DROP INDEX vnf_instances_tenant_listing;
ALTER TABLE lccn_subscriptions DROP COLUMN tenant;
ALTER TABLE vnf_lcm_op_occs DROP COLUMN tenant;
ALTER TABLE vnf_instances DROP COLUMN tenant;
