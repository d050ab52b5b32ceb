-- Every conductor start is a new incarnation: work records the incarnation that owns
-- it, so a conductor that comes back under the same id does not own what its previous
-- incarnation left.
ALTER TABLE conductors ADD COLUMN incarnation TEXT NOT NULL DEFAULT '';
ALTER TABLE vnf_packages ADD COLUMN coordinator_incarnation TEXT;
ALTER TABLE vnf_lcm_op_occs ADD COLUMN runner_incarnation TEXT;
-- Which conductor incarnations confirmed caching a package being onboarded.
CREATE TABLE package_downloads (
    package_id TEXT NOT NULL,
    conductor_id TEXT NOT NULL,
    incarnation TEXT NOT NULL,
    confirmed_at TIMESTAMP NOT NULL,
    PRIMARY KEY (package_id, conductor_id)
);
