-- The vendors and areas a subscription's creator was confined to (JSON; NULL: none):
-- its notifications tell of nothing the creator could not read.
ALTER TABLE lccn_subscriptions ADD COLUMN scope TEXT;
ALTER TABLE pkgm_subscriptions ADD COLUMN scope TEXT;
