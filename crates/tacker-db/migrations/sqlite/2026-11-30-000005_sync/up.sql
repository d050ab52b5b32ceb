-- When a conductor last reconciled the instance's VNFCs with its VIM.
ALTER TABLE vnf_instances ADD COLUMN synced_at TIMESTAMP;
CREATE INDEX vnf_instances_sync ON vnf_instances (synced_at);
