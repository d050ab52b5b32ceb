-- Lists narrowed by vnfdId or provider and product, in their keyset order.
CREATE INDEX vnf_packages_vnfd_listing ON vnf_packages (vnfd_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX vnf_packages_product_listing ON vnf_packages (vnf_provider, vnf_product_name, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX vnf_instances_vnfd_listing ON vnf_instances (vnfd_id, created_at, id);
CREATE INDEX vnf_instances_product_listing ON vnf_instances (vnf_provider, vnf_product_name, created_at, id);
