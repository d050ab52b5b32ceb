ALTER TABLE vnf_packages DROP COLUMN content_digest;
