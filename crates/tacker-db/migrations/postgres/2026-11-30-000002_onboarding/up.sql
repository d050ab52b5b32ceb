-- Onboarding: the package model read from the CSAR, upload progress, one live package per vnfdId.
ALTER TABLE vnf_packages ADD COLUMN package_model TEXT;
ALTER TABLE vnf_packages ADD COLUMN progress_at TIMESTAMP;
CREATE UNIQUE INDEX vnf_packages_vnfd_id_live ON vnf_packages (vnfd_id)
    WHERE deleted_at IS NULL AND vnfd_id IS NOT NULL;
