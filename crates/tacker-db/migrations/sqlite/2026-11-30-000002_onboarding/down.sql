DROP INDEX vnf_packages_vnfd_id_live;
ALTER TABLE vnf_packages DROP COLUMN progress_at;
ALTER TABLE vnf_packages DROP COLUMN package_model;
