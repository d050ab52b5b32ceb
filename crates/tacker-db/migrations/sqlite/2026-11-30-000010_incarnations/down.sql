DROP TABLE package_downloads;
ALTER TABLE vnf_lcm_op_occs DROP COLUMN runner_incarnation;
ALTER TABLE vnf_packages DROP COLUMN coordinator_incarnation;
ALTER TABLE conductors DROP COLUMN incarnation;
