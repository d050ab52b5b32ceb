-- The LCM API version a subscription was made through (its notifications link there).
ALTER TABLE lccn_subscriptions ADD COLUMN api_version TEXT NOT NULL DEFAULT 'v2';
