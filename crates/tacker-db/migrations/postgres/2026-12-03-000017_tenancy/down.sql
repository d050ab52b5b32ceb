ALTER TABLE pkgm_subscriptions DROP COLUMN tenant;
DROP INDEX vnf_packages_tenant_listing;
DROP INDEX vnf_packages_vnfd_id_live;
CREATE UNIQUE INDEX vnf_packages_vnfd_id_live ON vnf_packages (vnfd_id)
    WHERE deleted_at IS NULL AND vnfd_id IS NOT NULL;
ALTER TABLE vnf_packages DROP COLUMN upload_scope;
ALTER TABLE vnf_packages DROP COLUMN tenant;
DROP INDEX vims_one_default;
CREATE UNIQUE INDEX vims_one_default ON vims (is_default) WHERE is_default;
DROP INDEX vims_tenant_name;
ALTER TABLE vims ADD CONSTRAINT vims_name_key UNIQUE (name);
