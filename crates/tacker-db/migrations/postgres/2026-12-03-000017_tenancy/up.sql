-- Registered VIMs belong to the tenant that registered them ('': a caller without a
-- tenant); a name is unique, and one VIM is the default, per tenant.
ALTER TABLE vims DROP CONSTRAINT vims_name_key;
CREATE UNIQUE INDEX vims_tenant_name ON vims (tenant_id, name);
DROP INDEX vims_one_default;
CREATE UNIQUE INDEX vims_one_default ON vims (tenant_id) WHERE is_default;
-- VNF packages belong to the tenant that created them (NULL: shared by every tenant, as
-- every package created before tenants is); a vnfdId is unique per tenant. upload_scope
-- keeps the vendors the uploader was confined to, checked against the VNFD's provider.
ALTER TABLE vnf_packages ADD COLUMN tenant TEXT;
ALTER TABLE vnf_packages ADD COLUMN upload_scope TEXT;
DROP INDEX vnf_packages_vnfd_id_live;
CREATE UNIQUE INDEX vnf_packages_vnfd_id_live ON vnf_packages (COALESCE(tenant, ''), vnfd_id)
    WHERE deleted_at IS NULL AND vnfd_id IS NOT NULL;
CREATE INDEX vnf_packages_tenant_listing ON vnf_packages (tenant, created_at, id)
    WHERE deleted_at IS NULL;
-- Package subscriptions belong to their creator's tenant (NULL: none).
ALTER TABLE pkgm_subscriptions ADD COLUMN tenant TEXT;
