ALTER TABLE lccn_subscriptions DROP COLUMN api_version;
