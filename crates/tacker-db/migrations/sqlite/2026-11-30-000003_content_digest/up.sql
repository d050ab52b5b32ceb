-- BLAKE3 of the stored content: what conductor caches are verified against.
ALTER TABLE vnf_packages ADD COLUMN content_digest TEXT;
