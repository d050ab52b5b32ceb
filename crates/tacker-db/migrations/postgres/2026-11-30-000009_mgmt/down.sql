DROP TABLE ssh_host_keys;
ALTER TABLE vnf_instances DROP COLUMN instantiate_params;
ALTER TABLE vnf_lcm_op_occs DROP COLUMN checkpoint;
