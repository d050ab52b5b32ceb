ALTER TABLE vnf_lcm_op_occs DROP COLUMN cancel_mode;
