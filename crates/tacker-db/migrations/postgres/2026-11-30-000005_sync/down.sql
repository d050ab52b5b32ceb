DROP INDEX vnf_instances_sync;
ALTER TABLE vnf_instances DROP COLUMN synced_at;
