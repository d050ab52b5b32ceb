ALTER TABLE pkgm_subscriptions DROP COLUMN scope;
ALTER TABLE lccn_subscriptions DROP COLUMN scope;
